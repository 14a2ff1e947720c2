// What the capture suites (tst_capture, tst_replay_shape) read from a captured job and its replay: the
// job's AU and compute from the interposer's marks, and a replay's summary metric.
#pragma once

#include "testsupport.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QString>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace capturetest {

namespace fs = std::filesystem;

// The real PyTorch job (tests/tools/capture_job.py) and the interpreter that has python3-torch.
inline const QString kPython = QStringLiteral("/usr/bin/python3");
inline const QString kJob = QStringLiteral(TRAINIO_SOURCE_DIR "/tests/tools/capture_job.py");

inline bool pythonHas(const QString& module) {
    QProcess p;
    p.start(kPython, {QStringLiteral("-c"), QStringLiteral("import ") + module});
    return p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

// The job's own AU from its marks (DLIO >= 2: the first step of each epoch left out, mean over epochs)
// and its mean compute per step, computed here from marks.<pid>.jsonl.
struct MarkFigures {
    double au = 0;
    double computeMean = 0;
    int steps = 0;
    int epochs = 0; // with marks
};
inline MarkFigures figuresFromMarks(const fs::path& dir) {
    std::map<std::uint64_t, std::vector<nlohmann::json>> byEpoch;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().filename().string().rfind("marks.", 0) != 0) continue;
        std::istringstream in(testsupport::readText(e.path()));
        for (std::string line; std::getline(in, line);) {
            auto j = nlohmann::json::parse(line);
            if (j["op"] == "ask" || j["op"] == "batch") byEpoch[j["epoch"].get<std::uint64_t>()].push_back(j);
        }
    }
    MarkFigures f;
    std::vector<double> aus, computes;
    for (auto& [epoch, ms] : byEpoch) {
        std::sort(ms.begin(), ms.end(), [](const nlohmann::json& a, const nlohmann::json& b) { return a["t"].get<std::uint64_t>() < b["t"].get<std::uint64_t>(); });
        double c = 0, p = 0;
        int k = 0;
        for (std::size_t i = 1; i + 1 < ms.size(); ++i) {
            if (ms[i]["op"] != "batch") continue;
            const double wait = (ms[i]["t"].get<double>() - ms[i - 1]["t"].get<double>()) * 1e-9;
            const double compute = (ms[i + 1]["t"].get<double>() - ms[i]["t"].get<double>()) * 1e-9;
            computes.push_back(compute);
            if (k++ > 0) {
                c += compute;
                p += compute + wait;
            }
        }
        f.steps += k;
        ++f.epochs;
        aus.push_back(100 * c / p);
    }
    f.au = testsupport::meanOf(aus);
    f.computeMean = testsupport::meanOf(computes);
    return f;
}

inline double summaryMetric(const fs::path& runDir, const char* key) {
    const auto j = nlohmann::json::parse(testsupport::readText(runDir / "summary.json"));
    return j["metric"][key].get<double>();
}

} // namespace capturetest
