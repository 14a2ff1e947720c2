// What the tests that run trainio-cli under Open MPI's mpirun share (tst_mpi, tst_mpi_checkpoint,
// tst_mpi_collocation): mpirun's options and the process of one rank, found by a tag the test exported.
#pragma once

#include "testsupport.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QStringList>
#include <QTemporaryDir>

#include <filesystem>
#include <string>
#include <sys/types.h>

namespace mpisupport {

// Root allowed (CI runs as root), more processes than cores, and three seconds between SIGTERM and SIGKILL
// instead of one, so that process 0 has time to write what was measured when a peer is killed on a loaded
// CI machine (docs/mpi.md).
inline QStringList mpiOptions(int np) {
    return {QStringLiteral("--allow-run-as-root"), QStringLiteral("--oversubscribe"), QStringLiteral("--mca"),
            QStringLiteral("odls_base_sigkill_timeout"), QStringLiteral("3"), QStringLiteral("-np"), QString::number(np)};
}

// A suite's set-up: its temporary folder (as `base`) and Open MPI's mpirun (as `mpirun`). Returns what is
// missing, empty when nothing is: Open MPI is part of the set-up (packaging/setup-debian.sh), so its absence
// is a broken machine and fails the suite.
inline QString prepare(const QTemporaryDir& tmp, std::filesystem::path& base, QString& mpirun) {
    if (!tmp.isValid()) return QStringLiteral("no temporary folder: ") + tmp.errorString();
    base = tmp.path().toStdString();
    mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
    if (mpirun.isEmpty()) return QStringLiteral("mpirun not found: install openmpi-bin (packaging/setup-debian.sh)");
    return {};
}

// Starts mpirun with the tests' environment (testsupport::mpiEnvironment) added.
inline void startMpirun(QProcess& p, const QString& mpirun, const QStringList& args) {
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

// Open MPI's remote-launch path without a network: a hostfile naming `hosts` (slotsEach slots each), daemons started
// by an rsh agent script here, each in a UTS namespace carrying its host's name, so that the processes on
// each "host" report that host name. Returns mpirun's options for it (written into `dir`).
inline QStringList remoteHostsOptions(const std::filesystem::path& dir, const QStringList& hosts, int slotsEach) {
    const std::filesystem::path agent = dir / "agent.sh";
    testsupport::writeText(agent, "#!/bin/sh\n"
                                  "while [ $# -gt 0 ]; do case \"$1\" in -*) shift;; *) break;; esac; done\n"
                                  "host=$1; shift\n"
                                  "exec unshare --uts sh -c \"hostname $host; $*\"\n");
    std::filesystem::permissions(agent, std::filesystem::perms::owner_all);
    const std::filesystem::path hostfile = dir / "hostfile";
    std::string text;
    for (const QString& h : hosts) text += h.toStdString() + " slots=" + std::to_string(slotsEach) + "\n";
    testsupport::writeText(hostfile, text);
    return {QStringLiteral("--allow-run-as-root"), QStringLiteral("--hostfile"), QString::fromStdString(hostfile.string()),
            QStringLiteral("--mca"), QStringLiteral("plm_rsh_agent"), QString::fromStdString(agent.string())};
}

// The process of rank `rank` of a job started with `-x TRAINIO_TEST_TAG=<tag>`: its environment has the tag
// and OMPI_COMM_WORLD_RANK=<rank>. 0 when there is none.
inline pid_t rankProcess(const QString& tag, int rank) {
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        const std::string env = testsupport::readText(e.path() / "environ");
        if (env.find(("TRAINIO_TEST_TAG=" + tag).toStdString()) != std::string::npos &&
            env.find("OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + '\0') != std::string::npos)
            return static_cast<pid_t>(std::stol(e.path().filename().string()));
    }
    return 0;
}

} // namespace mpisupport
