// The `trainio:` section of a workload (issue "Storage truth"): I/O engine, queue depth, cache control,
// emulated storage and telemetry interval — read from YAML and from ++trainio.… overrides, written back
// by toYaml so that it loads to the same values, and refused with the key and what was expected.
#include "testsupport.h"

#include "config/config_loader.h"
#include "util/errors.h"

#include <yaml-cpp/yaml.h>

using namespace trainio;

namespace {

const std::string kBase = "model:\n  name: tiny\nframework: pytorch\ndataset:\n  data_folder: /tmp/x\n  format: npz\n"
                          "  num_files_train: 8\n  num_samples_per_file: 1\n  record_length_bytes: 4096\n"
                          "reader:\n  batch_size: 1\n  read_threads: 1\ntrain:\n  epochs: 1\n  computation_time: 0.01\n";

std::string errorOf(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
    try {
        loadWorkloadConfigFromString(yaml, "t.yaml", overrides);
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestTrainioSection : public QObject {
    Q_OBJECT
private slots:
    void defaults() {
        const WorkloadConfig c = loadWorkloadConfigFromString(kBase, "t.yaml").config;
        QCOMPARE(c.trainio.ioEngine, std::string("posix"));
        QCOMPARE(c.trainio.ioDepth, std::uint64_t(32));
        QCOMPARE(c.trainio.cache, std::string("keep"));
        QVERIFY(!c.trainio.storage.any());
        QCOMPARE(c.trainio.telemetryIntervalS, 1.0);
    }

    void readsEveryKey() {
        const std::string yaml = kBase +
                                 "trainio:\n  io_engine: io_uring\n  io_depth: 64\n  cache: fadvise\n"
                                 "  storage: {profile: hdd, bandwidth_mib_s: 500, latency_ms: {type: lognormal, median: 2, "
                                 "sigma: 0.5}, iops: 20000, max_inflight: 64}\n  telemetry_interval_s: 0.5\n";
        const WorkloadConfig c = loadWorkloadConfigFromString(yaml, "t.yaml").config;
        QCOMPARE(c.trainio.ioEngine, std::string("io_uring"));
        QCOMPARE(c.trainio.ioDepth, std::uint64_t(64));
        QCOMPARE(c.trainio.cache, std::string("fadvise"));
        QCOMPARE(c.trainio.storage.profile, std::string("hdd"));
        QCOMPARE(c.trainio.storage.bandwidthMiBs, 500.0);
        QCOMPARE(c.trainio.storage.latencyMs.type, std::string("lognormal"));
        QCOMPARE(c.trainio.storage.latencyMs.median, 2.0);
        QCOMPARE(c.trainio.storage.latencyMs.sigma, 0.5);
        QCOMPARE(c.trainio.storage.iops, 20000.0);
        QCOMPARE(c.trainio.storage.maxInflight, std::uint64_t(64));
        QCOMPARE(c.trainio.telemetryIntervalS, 0.5);

        // toYaml writes it back (read here with yaml-cpp, not the loader) and it loads to the same values.
        const std::string out = toYaml(c);
        const YAML::Node t = YAML::Load(out)["workload"]["trainio"];
        QCOMPARE(t["io_engine"].as<std::string>(), std::string("io_uring"));
        QCOMPARE(t["io_depth"].as<int>(), 64);
        QCOMPARE(t["cache"].as<std::string>(), std::string("fadvise"));
        QCOMPARE(t["storage"]["profile"].as<std::string>(), std::string("hdd"));
        QCOMPARE(t["storage"]["latency_ms"]["median"].as<double>(), 2.0);
        QCOMPARE(t["storage"]["max_inflight"].as<int>(), 64);
        const WorkloadConfig back = loadWorkloadConfigFromString(out, "back.yaml").config;
        QCOMPARE(back.trainio.ioEngine, c.trainio.ioEngine);
        QCOMPARE(back.trainio.storage.latencyMs.sigma, 0.5);
        QCOMPARE(back.trainio.storage.iops, 20000.0);
        QCOMPARE(back.trainio.telemetryIntervalS, 0.5);
    }

    void constantLatencyAsANumber() {
        const WorkloadConfig c =
            loadWorkloadConfigFromString(kBase + "trainio:\n  storage:\n    latency_ms: 3\n", "t.yaml").config;
        QCOMPARE(c.trainio.storage.latencyMs.type, std::string("constant"));
        QCOMPARE(c.trainio.storage.latencyMs.value, 3.0);
    }

    void overridesAndDlioOdirect() {
        WorkloadConfig c = loadWorkloadConfigFromString(kBase, "t.yaml",
                                                        {"++trainio.io_engine=mmap", "++trainio.cache=drop",
                                                         "++trainio.storage.bandwidth_mib_s=50"})
                               .config;
        QCOMPARE(c.trainio.ioEngine, std::string("mmap"));
        QCOMPARE(c.trainio.cache, std::string("drop"));
        QCOMPARE(c.trainio.storage.bandwidthMiBs, 50.0);
        // DLIO's reader.odirect keeps its meaning.
        c = loadWorkloadConfigFromString(kBase, "t.yaml", {"++workload.reader.odirect=True"}).config;
        QCOMPARE(c.trainio.ioEngine, std::string("odirect"));
    }

    void badValuesNameTheKey_data() {
        QTest::addColumn<QString>("override");
        QTest::addColumn<QString>("message");
        QTest::newRow("engine") << "++trainio.io_engine=aio" << "trainio.io_engine = 'aio': expected one of posix, odirect, mmap or io_uring";
        QTest::newRow("cache") << "++trainio.cache=flush" << "trainio.cache = 'flush': expected one of keep, fadvise or drop";
        QTest::newRow("depth") << "++trainio.io_depth=0" << "trainio.io_depth = 0: expected a whole number 1 … 4096";
        QTest::newRow("bandwidth") << "++trainio.storage.bandwidth_mib_s=-5"
                                   << "trainio.storage.bandwidth_mib_s = -5: expected a number 0 … 1000000000, 0 for no cap";
        QTest::newRow("latency type") << "++trainio.storage.latency_ms.type=pareto"
                                      << "expected one of none, constant, normal, lognormal or exponential";
        QTest::newRow("lognormal median") << "++trainio.storage.latency_ms.type=lognormal"
                                          << "trainio.storage.latency_ms.median = 0: expected a number of milliseconds > 0 for a lognormal latency";
        QTest::newRow("interval") << "++trainio.telemetry_interval_s=0"
                                  << "trainio.telemetry_interval_s = 0: expected a number of seconds 0.01 … 3600";
        QTest::newRow("unknown") << "++trainio.io_engin=mmap" << "trainio.io_engin: unknown key (did you mean trainio.io_engine?)";
    }
    void badValuesNameTheKey() {
        QFETCH(QString, override);
        QFETCH(QString, message);
        const std::string e = errorOf(kBase, {override.toStdString()});
        QVERIFY2(e.find(message.toStdString()) != std::string::npos, e.c_str());
    }
};

QTEST_GUILESS_MAIN(TestTrainioSection)
#include "tst_trainio_section.moc"
