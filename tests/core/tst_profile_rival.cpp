// A live rival of a run (issue 33's race, session/profile_rival.h): the same workload on another storage
// profile — the profile alone for its storage, no dataset generation, its own checkpoint and output folders —
// and the words a race lane gives a run's storage.
#include "config/workload_config.h"
#include "io/storage_profile.h"
#include "session/profile_rival.h"
#include "util/errors.h"
#include "testsupport.h"

#include <yaml-cpp/yaml.h>

#include <QTemporaryDir>
#include <QTest>

using namespace trainio;

namespace {

WorkloadConfig withEverything() {
    WorkloadConfig c;
    c.model.name = "unet3d";
    c.reader.batchSize = 7;
    c.dataset.dataFolder = "/data/unet3d";
    c.workflow.generateData = true;
    c.workflow.checkpoint = true;
    c.checkpoint.folder = "./checkpoints/";
    c.trainio.storage.profile = "nvme";
    c.trainio.storage.bandwidthMiBs = 40;
    c.trainio.storage.iops = 500;
    c.trainio.storage.maxInflight = 4;
    c.trainio.storage.latencyMs.type = "constant";
    c.trainio.storage.latencyMs.value = 3;
    return c;
}

} // namespace

class TestProfileRival : public QObject {
    Q_OBJECT
private slots:
    void theSameWorkloadOnTheProfileAlone() {
        const WorkloadConfig base = withEverything();
        const session::ProfileRival r = session::profileRival(base, "/results/run-1", "hdd");
        QCOMPARE(r.profile, std::string("hdd"));
        QCOMPARE(r.config.trainio.storage.profile, std::string("hdd"));
        // The page's own limits would blur what the profile stands for: none of them stays.
        QCOMPARE(r.config.trainio.storage.bandwidthMiBs, 0.0);
        QCOMPARE(r.config.trainio.storage.iops, 0.0);
        QCOMPARE(r.config.trainio.storage.maxInflight, std::uint64_t(0));
        QCOMPARE(r.config.trainio.storage.latencyMs.type, std::string("none"));
        // The workload otherwise as it was.
        QCOMPARE(r.config.model.name, base.model.name);
        QCOMPARE(r.config.reader.batchSize, base.reader.batchSize);
        QCOMPARE(r.config.dataset.dataFolder, base.dataset.dataFolder);
        QVERIFY(r.config.workflow.checkpoint);
        // No second writer of the dataset, its own checkpoints and folder.
        QVERIFY(!r.config.workflow.generateData);
        QCOMPARE(r.config.checkpoint.folder, std::string("./checkpoints-hdd/"));
        QCOMPARE(r.output.string(), std::string("/results/run-1-hdd"));
        // The profile's description, as its file says (read here with yaml-cpp).
        const YAML::Node file = YAML::LoadFile(storageProfileDirectory() + "/hdd.yaml");
        QCOMPARE(r.description, file["description"].as<std::string>());
    }

    void checkpointsOffKeepTheirFolder() {
        WorkloadConfig base = withEverything();
        base.workflow.checkpoint = false;
        base.checkpoint.folder = "/ckpt";
        const session::ProfileRival r = session::profileRival(base, "/results/run-1/", "sata-ssd");
        QCOMPARE(r.config.checkpoint.folder, std::string("/ckpt"));
        QCOMPARE(r.output.string(), std::string("/results/run-1-sata-ssd/"));
    }

    void aProfileFileIsNamedByItsStem() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("slow-nas.yaml")).toStdString();
        testsupport::writeText(path, "description: \"a NAS down the hall\"\nbandwidth_mib_s: 90\n");
        const session::ProfileRival r = session::profileRival(withEverything(), "/r/x", path);
        QCOMPARE(r.profile, std::string("slow-nas"));
        QCOMPARE(r.description, std::string("a NAS down the hall"));
        QCOMPARE(r.config.trainio.storage.profile, path);
        QCOMPARE(r.output.string(), std::string("/r/x-slow-nas"));
        QCOMPARE(session::emulatedStorageWords(r.config), std::string("emulated slow-nas"));
    }

    void badProfilesAreRefusedByName() {
        try {
            (void)session::profileRival(withEverything(), "/r/x", "nvm");
            QFAIL("no error");
        } catch (const InputError& e) {
            const std::string msg = e.what();
            for (const char* part : {"nvm", "hdd", "object-store"}) QVERIFY2(msg.find(part) != std::string::npos, msg.c_str());
        }
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("broken.yaml")).toStdString();
        testsupport::writeText(path, "bandwidth_mib_s: fast\n");
        try {
            (void)session::profileRival(withEverything(), "/r/x", path);
            QFAIL("no error");
        } catch (const InputError& e) {
            const std::string msg = e.what();
            for (const char* part : {"broken.yaml", "bandwidth_mib_s", "fast"}) QVERIFY2(msg.find(part) != std::string::npos, msg.c_str());
        }
    }

    void storageInTheLibrarysWords() {
        WorkloadConfig c;
        QCOMPARE(session::emulatedStorageWords(c), std::string());
        c.trainio.storage.bandwidthMiBs = 8;
        QCOMPARE(session::emulatedStorageWords(c), std::string("emulated storage"));
        c.trainio.storage.profile = "object-store";
        QCOMPARE(session::emulatedStorageWords(c), std::string("emulated object-store"));
    }
};

QTEST_GUILESS_MAIN(TestProfileRival)
#include "tst_profile_rival.moc"
