// Launching trainio-cli under Open MPI's mpirun from a test, once for every MPI suite.
#pragma once

#include "testsupport.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QStringList>

namespace mpitest {

// mpirun's own options for every test: root allowed (CI runs as root), more processes than cores, and three
// seconds between SIGTERM and SIGKILL instead of one, so that process 0 has time to write what was measured
// when a peer is killed on a loaded CI machine (docs/mpi.md).
inline QStringList options(int np) {
    return {QStringLiteral("--allow-run-as-root"), QStringLiteral("--oversubscribe"), QStringLiteral("--mca"),
            QStringLiteral("odls_base_sigkill_timeout"), QStringLiteral("3"), QStringLiteral("-np"), QString::number(np)};
}

// Open MPI's mpirun, or empty when it is not installed; a test fails then with kNoMpirun: Open MPI is part of
// the set-up (packaging/setup-debian.sh), its absence is a broken machine.
inline QString mpirun() { return QStandardPaths::findExecutable(QStringLiteral("mpirun")); }
inline constexpr const char* kNoMpirun = "mpirun not found: install openmpi-bin (packaging/setup-debian.sh)";

// Starts mpirun with ARGS in P (the sanitizer builds' environment added: testsupport::mpiEnvironment); the
// caller checks p.waitForStarted.
inline void start(QProcess& p, const QString& mpirun, const QStringList& args) {
    const auto extra = testsupport::mpiEnvironment();
    if (!extra.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const auto& [k, v] : extra) env.insert(k, v);
        p.setProcessEnvironment(env);
    }
    p.setProgram(mpirun);
    p.setArguments(args);
    p.start();
}

} // namespace mpitest
