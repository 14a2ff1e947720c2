// Shared helpers for the QtTest suites: temporary folders, running the CLI, reading files.
#pragma once

#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace testsupport {

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

// Runs trainio-cli with the given arguments (and extra environment variables) and waits for it, with a
// generous limit so that a hang fails the test instead of blocking CTest. A crash (signal) is reported
// as exit code -1, which no assertion on a real exit code accepts.
inline CliResult runCli(const QStringList& args, int timeoutMs = 300000,
                        const QList<QPair<QString, QString>>& extraEnv = {}) {
    QProcess p;
    if (!extraEnv.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const auto& [k, v] : extraEnv) env.insert(k, v);
        p.setProcessEnvironment(env);
    }
    p.start(QStringLiteral(TRAINIO_CLI), args);
    CliResult r;
    if (!p.waitForStarted(10000)) return r;
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

// The fixtures (copies of ../shared/fixtures: dlio-runs/, dlio-workloads-v1.0/, mlperf-storage-v1.0/).
inline std::filesystem::path fixtures() { return std::filesystem::path(TRAINIO_TEST_DATA); }

} // namespace testsupport
