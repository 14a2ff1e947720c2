#include "run/run_controller_mpi.h"

#include "aggregate/results_import.h"
#include "config/config_loader.h"
#include "metrics/dlio_metrics.h"
#include "telemetry/gpu_query.h"
#include "util/errors.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>

#include <unistd.h>

namespace fs = std::filesystem;

namespace trainio::ui {

namespace {

// The last lines of what mpirun and trainio-cli printed, for a failure that left no folder to explain it.
QString lastLines(const std::string& text, int lines) {
    QStringList all = QString::fromStdString(text).trimmed().split(QLatin1Char('\n'));
    if (all.size() > lines) all = all.mid(all.size() - lines);
    return all.join(QLatin1Char('\n'));
}

// Hands what the job reads to the GUI thread in the order it was read: steps in batches (every 100 ms, and
// before any other event), every other event queued after the steps that came before it — so that, say,
// an invocation's first steps never reach the plots ahead of its start. (The in-process engine's
// EngineBridge buffers steps for a timer instead; the MPI job has one reading thread, which can keep the
// order exactly.)
class MpiRelay final : public EngineObserver {
public:
    explicit MpiRelay(RunController* controller) : controller_(controller) {}

    void onPhase(const std::string& phase) override {
        post([c = controller_, p = QString::fromStdString(phase)] { emit c->phaseChanged(p); });
    }
    void onStep(const StepEvent& e) override { batch_.push_back(e); }
    void onEpoch(const EpochEvent& e) override {
        post([c = controller_, e] { emit c->epochFinished(e); });
    }
    void onMessage(const std::string& text) override {
        post([c = controller_, t = QString::fromStdString(text)] { emit c->message(t); });
    }
    void onHosts(const std::vector<std::string>& hostOfRank) override {
        QStringList hosts;
        for (const auto& h : hostOfRank) hosts.push_back(QString::fromStdString(h));
        post([c = controller_, hosts] { emit c->hosts(hosts); });
    }

    // Queues `f` on the GUI thread after the steps read so far.
    template <class F>
    void post(F&& f) {
        flush();
        QMetaObject::invokeMethod(controller_, std::forward<F>(f), Qt::QueuedConnection);
    }
    void flush() {
        lastFlush_ = std::chrono::steady_clock::now();
        if (batch_.empty()) return;
        QMetaObject::invokeMethod(controller_, [c = controller_, b = std::move(batch_)] { emit c->steps(b); },
                                  Qt::QueuedConnection);
        batch_.clear();
    }
    void flushIfDue() {
        if (std::chrono::steady_clock::now() - lastFlush_ >= std::chrono::milliseconds(100)) flush();
    }

private:
    RunController* controller_;
    std::vector<StepEvent> batch_;
    std::chrono::steady_clock::time_point lastFlush_ = std::chrono::steady_clock::now();
};

} // namespace

QString RunController::cliProgram() {
    const QString env = qEnvironmentVariable("TRAINIO_CLI");
    if (!env.isEmpty()) return QFileInfo(env).isExecutable() ? QFileInfo(env).absoluteFilePath() : QString();
    const QDir app(QCoreApplication::applicationDirPath());
    // Installed: beside trainio in bin/. Build tree: app/gui/trainio and app/cli/trainio-cli.
    for (const QString& candidate : {app.filePath(QStringLiteral("trainio-cli")), app.filePath(QStringLiteral("../cli/trainio-cli"))})
        if (QFileInfo(candidate).isExecutable() && QFileInfo(candidate).isFile()) return QFileInfo(candidate).canonicalFilePath();
    return QStandardPaths::findExecutable(QStringLiteral("trainio-cli"));
}

void addMpiPreflight(const RunRequest& request, PreflightResult& checked) {
    const dist::MpiLaunch& launch = *request.mpi;
    auto problem = [&](std::string subject, std::string found, std::string expected) {
        checked.problems.push_back({std::move(subject), std::move(found), std::move(expected)});
    };
    try {
        const std::vector<dist::HostSlots> hosts = dist::launchHosts(launch);
        for (const std::string& p : dist::launchProblems(launch, hosts))
            problem("MPI launch", p, "a placement Open MPI accepts");
        if (const std::uint64_t total = dist::totalAccelerators(launch, hosts.size()); total != request.accelerators)
            problem("accelerators", std::to_string(request.accelerators),
                    std::to_string(total) + " = hosts × processes per host × accelerators per process");
    } catch (const InputError& e) {
        problem(launch.hostfile.empty() ? "host list" : "hostfile", e.what(),
                launch.hostfile.empty() ? "host[:slots] entries separated by commas"
                                        : "a readable Open MPI hostfile: one host per line, name [slots=N]");
    }
    if (telemetry::findExecutable("mpirun").empty()) {
        const char* path = std::getenv("PATH");
        problem("mpirun", std::string("not found on PATH (") + (path ? path : "") + ")",
                "Open MPI's mpirun: install the openmpi-bin package (packaging/setup-debian.sh installs it)");
    }
    if (RunController::cliProgram().isEmpty())
        problem("trainio-cli", "not found beside this program nor on PATH",
                "trainio-cli, which every MPI process runs (or TRAINIO_CLI naming it)");
    // Checkpointing runs under mpirun (docs/mpi.md, "Checkpoints"): each process writes and reads its ranks'
    // files and checks the folder's room and rights itself before anything runs.
}

RunFinish mpiRunFinish(const dist::MpiJobResult& job, const fs::path& outputDir, std::uint64_t invocations) {
    RunFinish f;
    f.outputDir = QString::fromStdString(outputDir.string());
    if (!job.started) {
        f.error = QString::fromStdString(job.startError);
        return f;
    }
    // The folder was written by the job's process 0, not by this process: it is read here, once, on the
    // run's worker thread, into memory (a read-through store::WrittenFiles, with the per-step records the
    // library digests); the statuses below, the model panel and the library all take it from there.
    aggregate::ImportResult imported;
    auto files = std::make_shared<store::WrittenFiles>(store::WrittenFiles::Options{true, true});
    std::error_code ec;
    if (fs::exists(outputDir, ec)) {
        aggregate::ImportOptions options;
        options.stepDigests = true;
        imported = aggregate::importResults({outputDir}, options, *files);
        f.written = files;
        f.records = std::make_shared<const aggregate::ImportResult>(imported);
    }
    std::uint64_t complete = 0;
    bool markedCancelled = false;
    const aggregate::InvocationRecord* notComplete = nullptr;
    for (const aggregate::InvocationRecord& r : imported.runs) {
        if (r.status == aggregate::InvocationStatus::Complete) ++complete;
        else if (r.status == aggregate::InvocationStatus::Cancelled) markedCancelled = true;
        else if (!notComplete) notComplete = &r;
    }
    f.complete = job.exitCode == 0 && complete == invocations && imported.runs.size() == invocations;
    if (f.complete) return f;
    f.cancelled = job.interrupted || markedCancelled;
    if (f.cancelled) return f;
    QString ended = job.signal ? QObject::tr("mpirun was ended by signal %1").arg(job.signal)
                               : QObject::tr("mpirun exited with code %1").arg(job.exitCode);
    if (job.exitCode == 0)
        ended = QObject::tr("mpirun exited with code 0, but the folder holds %1 of %2 complete invocations")
                    .arg(complete)
                    .arg(invocations);
    if (notComplete) {
        f.error = QObject::tr("%1: %2 (%3)")
                      .arg(QString::fromStdString(notComplete->path.string()),
                           QString::fromStdString(notComplete->statusReason), ended);
    } else {
        const QString said = lastLines(job.otherOutput, 12);
        f.error = said.isEmpty() ? ended : QStringLiteral("%1:\n%2").arg(ended, said);
    }
    return f;
}

RunFinish RunController::runMpi(const RunRequest& request, const QString& dir) {
    dist::MpiLaunch launch = *request.mpi;
    if (::geteuid() == 0) launch.allowRunAsRoot = true; // Open MPI refuses root without it
    const std::vector<dist::HostSlots> hosts = dist::launchHosts(launch); // pre-flight read it already
    const fs::path output = fs::absolute(request.outputDir);
    const std::uint64_t invocations = request.benchmark ? request.runs + request.warmups : 1;

    // Every process reads the workload from a file, and process 0 writes its live lines to one: both go
    // beside the output folder (reachable from process 0's host, and on shared storage when the run spans
    // hosts: docs/mpi.md) and are removed after the run.
    std::error_code ec;
    fs::create_directories(output.parent_path(), ec);
    QTemporaryDir configDir(QString::fromStdString((output.parent_path() / ".trainio-mpi-XXXXXX").string()));
    RunFinish failure;
    failure.outputDir = dir;
    if (!configDir.isValid()) {
        failure.error = tr("cannot create a folder for the workload file in %1: %2")
                            .arg(QString::fromStdString(output.parent_path().string()), configDir.errorString());
        return failure;
    }
    const fs::path configFile = fs::path(configDir.path().toStdString()) / "workload.yaml";
    {
        std::ofstream out(configFile);
        out << toYaml(request.config);
        out.close();
        if (!out) {
            failure.error = tr("cannot write the workload file %1").arg(QString::fromStdString(configFile.string()));
            return failure;
        }
    }

    dist::CliCommand command;
    command.program = cliProgram().toStdString();
    command.benchmark = request.benchmark;
    command.config = configFile;
    command.output = output;
    // Beside the workload file: where process 0 can write (it writes the output folder there too) and
    // this machine can read.
    command.liveJson = (fs::path(configDir.path().toStdString()) / "live.jsonl").string();
    command.runs = request.runs;
    command.warmups = request.warmups;
    command.system = request.labels.system;
    command.semantics = semanticsName(request.semantics);

    MpiRelay relay(this);
    dist::MpiJobOptions job;
    job.mpirun = telemetry::findExecutable("mpirun");
    job.arguments = dist::mpirunArguments(launch, hosts.size(), command);
    job.liveJson = command.liveJson;
    job.observer = &relay;
    job.cancelRequests = &cancelRequests_;
    job.onPoll = [&relay] { relay.flushIfDue(); };
    auto index = std::make_shared<int>(0);
    const QString single = tr("invocation");
    job.onInvocationStart = [this, &relay, index, single](const std::string& label, const std::string& d) {
        relay.post([this, i = (*index)++, l = label.empty() ? single : QString::fromStdString(label),
                    p = QString::fromStdString(d)] { emit invocationStarted(l, p, i); });
    };
    job.onInvocationDone = [this, &relay, single](const std::string& label, const std::string& d,
                                                  const std::string& status, double au) {
        relay.post([this, l = label.empty() ? single : QString::fromStdString(label), p = QString::fromStdString(d),
                    s = QString::fromStdString(status), au] { emit invocationFinished(l, p, s, au); });
    };
    const dist::MpiJobResult ended = dist::runMpiJob(job);
    relay.flush();
    RunFinish finish = mpiRunFinish(ended, output, invocations);
    finish.outputDir = dir;
    return finish;
}

} // namespace trainio::ui
