// The S3 test server of the suites that talk to an object store (tst_s3, tst_s3_workloads, the GUI's
// tst_s3_pages): the one-node Ceph RADOS Gateway of tests/tools/s3-server.sh, which checks every request's
// SigV4 signature, started once (a start when it runs already takes 0.06 s) and shared by the suites.
#pragma once

#include "io/s3_client.h"

#include <QCoreApplication>
#include <QDebug>
#include <QProcess>
#include <QStandardPaths>
#include <QStringList>
#include <QTest>

#include <string>

namespace s3support {

inline const QString kServerScript = QStringLiteral(TRAINIO_SOURCE_DIR "/tests/tools/s3-server.sh");

struct Server {
    QString skipReason; // set when the machine has no server: every S3 function skips with it
    QString endpoint, key, secret;
    std::string bucket; // the suite's own bucket (created by start)

    // The credentials of the test user for a child process, and a HOME without ~/.aws.
    QList<QPair<QString, QString>> env(const QString& home) const {
        return {{QStringLiteral("AWS_ACCESS_KEY_ID"), key},
                {QStringLiteral("AWS_SECRET_ACCESS_KEY"), secret},
                {QStringLiteral("HOME"), home}};
    }
    trainio::S3Options options() const {
        trainio::S3Options o;
        o.endpoint = endpoint.toStdString();
        o.bucket = bucket;
        o.credentials.accessKeyId = key.toStdString();
        o.credentials.secretAccessKey = secret.toStdString();
        o.credentials.source = "test";
        return o;
    }
    // Every object under prefix (up to `max`), removed: what a function leaves behind.
    void removeUnder(const std::string& prefix, unsigned max = 1000) const {
        trainio::S3Client c(options());
        std::string error;
        if (auto l = c.list(prefix, max, &error))
            for (const auto& o : *l) c.remove(o.key);
    }
    // The suite's bucket and what is left in it (cleanupTestCase): the server outlives the suite.
    void removeBucket() const {
        removeUnder("");
        trainio::S3Client(options()).deleteBucket();
    }
};

// Starts the server (idempotent) and creates a bucket named "<prefix>-<pid>". Returns false when the test
// has failed (QTest::qFail was called: the caller returns); otherwise the server is up, or skipReason says
// why not. Without the Debian packages: skipped, saying which is missing. A cluster that cannot come up
// here is skipped with the script's diagnosis, unless TRAINIO_S3_REQUIRED=1 (packaging/run-tests.sh on a
// machine where it started: then it must work).
inline bool start(Server& s, const std::string& bucketPrefix) {
    for (const char* tool : {"radosgw", "ceph-mon", "ceph-osd", "curl"}) {
        if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty()) {
            s.skipReason = QStringLiteral("no S3 server: %1 is not installed (radosgw ceph-mon ceph-osd curl: "
                                          "bash packaging/setup-debian.sh --tests)").arg(QLatin1String(tool));
            return true;
        }
    }
    // start bounds itself by the clock (TRAINIO_S3_START_S, 150 s) and names the step that failed with the
    // daemons' log tails.
    QProcess p;
    p.start(QStringLiteral("bash"), {kServerScript, QStringLiteral("start")});
    const bool finished = p.waitForFinished(240000);
    if (!finished) p.kill();
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    const QString err = QString::fromUtf8(p.readAllStandardError());
    if (!finished || p.exitCode() != 0) {
        const QString why = (finished ? QStringLiteral("s3-server.sh start failed: ")
                                      : QStringLiteral("s3-server.sh start did not end in 240 s: ")) + err;
        if (qEnvironmentVariable("TRAINIO_S3_REQUIRED") == QLatin1String("1")) {
            QTest::qFail(qPrintable(why), __FILE__, __LINE__);
            return false;
        }
        qWarning().noquote() << why;
        s.skipReason = QStringLiteral("no S3 server: the one-node Ceph cluster did not start on this machine (") +
                       err.section('\n', 0, 0) + QStringLiteral("); its logs are printed above");
        return true;
    }
    for (const QString& line : out.split('\n')) {
        if (line.startsWith(QLatin1String("TRAINIO_S3_ENDPOINT="))) s.endpoint = line.section('=', 1);
        if (line.startsWith(QLatin1String("AWS_ACCESS_KEY_ID="))) s.key = line.section('=', 1);
        if (line.startsWith(QLatin1String("AWS_SECRET_ACCESS_KEY="))) s.secret = line.section('=', 1);
    }
    if (s.endpoint.isEmpty() || s.key.isEmpty() || s.secret.isEmpty()) {
        QTest::qFail(qPrintable(QStringLiteral("s3-server.sh start printed no endpoint or keys: ") + out), __FILE__, __LINE__);
        return false;
    }
    s.bucket = bucketPrefix + "-" + std::to_string(QCoreApplication::applicationPid());
    trainio::S3Client c(s.options());
    if (c.createBucket() != 0) {
        QTest::qFail(qPrintable(QStringLiteral("cannot create bucket ") + QString::fromStdString(s.bucket) + ": " +
                                QString::fromStdString(c.lastError())),
                     __FILE__, __LINE__);
        return false;
    }
    if (const std::string why = c.probe(); !why.empty()) {
        QTest::qFail(why.c_str(), __FILE__, __LINE__);
        return false;
    }
    return true;
}

} // namespace s3support
