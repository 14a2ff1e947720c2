// Writing a derived workload (derive_workload.h): its YAML with a comment header, and the file list of a
// job whose files do not follow DLIO's names.
#include "trace/derive_workload.h"

#include "config/config_loader.h"
#include "dataset/dataset_layout.h"
#include "util/errors.h"
#include "util/text.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace trainio::trace {

std::string jobVersusReplay(const DerivedWorkload& d, double au, double sps) {
    JobVersusReplay j;
    j.stepsFromMarks = d.stepsFromMarks;
    j.jobAuPercent = d.jobAuPercent;
    j.jobSamplesPerSecond = d.jobSamplesPerSecond;
    j.replayAuPercent = au;
    j.replaySamplesPerSecond = sps;
    return jobVersusReplayText(j);
}

fs::path fileListPathFor(const fs::path& yaml) {
    fs::path p = yaml;
    p.replace_extension(".files.txt");
    return p;
}

bool attachFileList(DerivedWorkload& d, const fs::path& listPath) {
    if (d.dlioNames) return false;
    std::error_code ec;
    const fs::path abs = fs::absolute(listPath, ec).lexically_normal();
    writeFileList(abs, d.dataFiles,
                  "The training files of the job captured in " + d.config.trainio.capturedJob.trace +
                      " (trainio-cli workload --from-trace, docs/capture.md):\none path a line, in name order; "
                      "trainio.file_list of the workload names this file.");
    d.config.dataset.fileList = abs.string();
    return true;
}

void writeDerivedWorkload(const DerivedWorkload& derived, const fs::path& yaml) {
    DerivedWorkload d = derived;
    if (!d.dlioNames && d.config.dataset.fileList.empty()) attachFileList(d, fileListPathFor(yaml));
    std::ostringstream out;
    out << "# Derived by trainio-cli workload --from-trace (docs/capture.md): " << d.summary << "\n";
    if (!std::isnan(d.jobAuPercent))
        out << "# The job's own AU: " << significantNumber(d.jobAuPercent, 4) << " %, " << significantNumber(d.jobSamplesPerSecond, 5) << " samples/s\n";
    out << "# Times (train.computation_time per step, the readers' per sample, the loop's hand-over per step) are the\n"
           "# job's: a constant when their spread is under 5 % of the mean, else a gamma distribution fitted by\n"
           "# moments (shape = mean^2 / variance, scale = variance / mean): it keeps the job's mean and stdev and\n"
           "# never draws a negative time (a normal one clamped at zero would raise the mean).";
    if (d.cpuBurned)
        out << " The readers run the job's\n# CPU per sample on a core (trainio.preprocess_cpu_time, " << significantNumber(d.preprocessWorkMean * 1e3, 3)
            << " ms, the collation's " << significantNumber(d.collateMean * 1e3, 3) << " ms a batch\n# spread over its samples) and sleep "
            << "the rest (reader.preprocess_time): waits for a core come back where the\n# readers outnumber the cores.";
    else
        out << " The readers' time holds their waits\n# for a core, replayed once by sleeping readers; the collation is spread over the batch's samples.";
    if (d.handoverMean > 0)
        out << "\n# The loop waits trainio.handover_time after each batch (" << significantNumber(d.handoverMean * 1e3, 3)
            << " ms: the job's hand-over of a ready batch).";
    out << "\n";
    if (d.dlioNames) {
        out << "# dataset.data_folder is the job's own data: run replays on it.\n";
        out << "# Another storage: trainio-cli datagen --config THIS ++workload.dataset.data_folder=DIR, then run with it\n";
    } else {
        out << "# The job's files do not follow DLIO's names: trainio.file_list lists them (one path a line), and run\n"
               "# replays on them where they are. Another storage: clear the list and name a folder for datagen,\n"
               "#   trainio-cli datagen --config THIS ++workload.trainio.file_list= ++workload.dataset.data_folder=DIR\n"
               "#   trainio-cli run --config THIS ++workload.trainio.file_list= ++workload.dataset.data_folder=DIR\n";
    }
    out << toYaml(d.config);
    const fs::path tmp = yaml.string() + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << out.str();
        if (!f.flush()) throw InputError(yaml.string() + ": cannot write: " + errnoText(errno));
    }
    std::error_code ec;
    fs::rename(tmp, yaml, ec);
    if (ec) throw InputError(yaml.string() + ": cannot write: " + ec.message());
}

} // namespace trainio::trace
