// Shared helpers for the QtTest suites: temporary folders, running the CLI, reading files.
#pragma once

#include <QElapsedTimer>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace testsupport {

// True in a build with AddressSanitizer (the asan preset): a process's resident memory is then mostly the
// sanitizer's (shadow memory, quarantine), not the product's.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// How long a test waits for an event before it calls it a hang (issue 29): waits end on the event itself,
// so this bound only has to be longer than anything a slow, loaded machine (2 vCPUs, an ASan build, the
// suites running side by side) can take. No test asserts a duration: speed figures are tests/bench/'s.
inline constexpr int kHangMs = 120000;

inline std::string readText(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline void writeText(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << text;
}

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

// Polls until pred() holds or the process ends; true when pred() held. The limit only catches a hang.
template <class Pred>
bool waitUntil(QProcess& p, Pred pred, int timeoutMs = kHangMs) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
        if (pred()) return true;
        if (p.state() == QProcess::NotRunning) return pred();
        p.waitForFinished(10);
    }
    return false;
}

// Waits for a started program with a limit that only catches a hang (then kills it: "timeout" in err); a crash
// (signal) is exit code -1.
inline CliResult finishProgram(QProcess& p, int timeoutMs) {
    CliResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timeout");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// Runs `program` with the given arguments (and extra environment variables) and waits for it, with a
// generous limit so that a hang fails the test instead of blocking CTest. A crash (signal) is reported
// as exit code -1, which no assertion on a real exit code accepts; a program that cannot start fails the
// test (the suites' programs are part of the build or of the set-up, never a reason to skip).
inline CliResult runProgram(const QString& program, const QStringList& args, int timeoutMs = 300000,
                            const QList<QPair<QString, QString>>& extraEnv = {}) {
    QProcess p;
    if (!extraEnv.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const auto& [k, v] : extraEnv) env.insert(k, v);
        p.setProcessEnvironment(env);
    }
    p.start(program, args);
    CliResult r;
    if (!p.waitForStarted(10000)) {
        QTest::qFail(qPrintable(QStringLiteral("cannot start ") + program + QStringLiteral(": ") + p.errorString()), __FILE__, __LINE__);
        return r;
    }
    return finishProgram(p, timeoutMs);
}

// Waits until a running `trainio-cli … --live-json LIVE` has ended its first epoch (an "epoch" event in LIVE),
// the process ends, or the generous hang bound passes; true when the epoch ended.
inline bool waitForFirstEpoch(QProcess& p, const std::filesystem::path& live, int hangBoundMs = 120000) {
    QElapsedTimer t;
    t.start();
    bool epoch = false;
    while (!epoch && t.elapsed() < hangBoundMs && p.state() != QProcess::NotRunning) {
        p.waitForFinished(50);
        epoch = readText(live).find("\"event\":\"epoch\"") != std::string::npos;
    }
    return epoch;
}

// trainio-cli (every test executable depends on it: tests/CMakeLists.txt).
inline CliResult runCli(const QStringList& args, int timeoutMs = 300000,
                        const QList<QPair<QString, QString>>& extraEnv = {}) {
    return runProgram(QStringLiteral(TRAINIO_CLI), args, timeoutMs, extraEnv);
}

// `trainio-cli datagen --config CONFIG --quiet`: the dataset a suite's workload reads.
inline CliResult datagen(const QString& config) {
    return runCli({QStringLiteral("datagen"), QStringLiteral("--config"), config, QStringLiteral("--quiet")});
}

// A dataset of `files` npz files of one `recordBytes` sample each in `data`, generated by `trainio-cli
// datagen` from a YAML written to `config` (model `model`): the capture suites' jobs read it.
inline CliResult generateNpz(const std::filesystem::path& config, const std::string& model, const std::filesystem::path& data,
                             int files, int recordBytes) {
    writeText(config, "model: {name: " + model + "}\nframework: pytorch\nworkflow: {generate_data: true, train: false}\n"
                      "dataset: {data_folder: " + data.string() + ", format: npz, num_files_train: " + std::to_string(files) +
                      ", num_samples_per_file: 1, record_length_bytes: " + std::to_string(recordBytes) + "}\n");
    return datagen(QString::fromStdString(config.string()));
}

// The environment for a process that runs trainio-cli under mpirun: under the ASan stage, Open MPI's own
// components leak at MPI_Finalize and are dlclose()d by then, so no suppression can name them: leak
// checking is off in such processes (every other ASan/UBSan check stays on). Unchanged elsewhere.
inline QList<QPair<QString, QString>> mpiEnvironment() {
    const QByteArray asan = qgetenv("ASAN_OPTIONS");
    if (asan.isEmpty()) return {};
    return {{QStringLiteral("ASAN_OPTIONS"), QString::fromLocal8Bit(asan) + QStringLiteral(":detect_leaks=0")}};
}

// Statistics computed by the tests themselves (numpy's mean and std, ddof 0), so that an expected
// value never comes from the code under test.
inline double meanOf(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}
inline double populationStdevOf(const std::vector<double>& v) {
    const double m = meanOf(v);
    double s = 0;
    for (double x : v) s += (x - m) * (x - m);
    return v.empty() ? 0.0 : std::sqrt(s / static_cast<double>(v.size()));
}

// Runs one of the independent reference scripts in tests/tools with Debian's python3 and returns its
// standard output; a missing interpreter, a crash or a non-zero exit fails the calling test.
inline QString runPythonTool(const QString& script, const QStringList& args) {
    QProcess py;
    py.start(QStringLiteral("/usr/bin/python3"), QStringList{QStringLiteral(TRAINIO_TEST_DATA "/../tools/") + script} + args);
    if (!py.waitForStarted(10000)) {
        QTest::qFail("cannot start /usr/bin/python3 (packaging/setup-debian.sh installs it)", __FILE__, __LINE__);
        return {};
    }
    const bool finished = py.waitForFinished(120000);
    const QString err = QString::fromUtf8(py.readAllStandardError());
    if (!finished || py.exitStatus() != QProcess::NormalExit || py.exitCode() != 0) {
        QTest::qFail(qPrintable(script + QStringLiteral(" failed: ") + err), __FILE__, __LINE__);
        return {};
    }
    return QString::fromUtf8(py.readAllStandardOutput());
}

// The fixtures (copies of ../shared/fixtures: dlio-runs/, dlio-workloads-v1.0/, mlperf-storage-v1.0/).
inline std::filesystem::path fixtures() { return std::filesystem::path(TRAINIO_TEST_DATA); }

// A writable copy of `from` (a fixture folder: fixtures are read-only) at `to`, which is created.
inline void copyWritable(const std::filesystem::path& from, const std::filesystem::path& to) {
    namespace fs = std::filesystem;
    fs::create_directories(to);
    fs::copy(from, to, fs::copy_options::recursive);
    for (const auto& e : fs::recursive_directory_iterator(to))
        fs::permissions(e.path(), e.is_directory() ? fs::perms::owner_all : fs::perms::owner_read | fs::perms::owner_write,
                        fs::perm_options::add);
}

} // namespace testsupport
