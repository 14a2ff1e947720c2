// Efficiency (issue 33): a benchmark's Read GiB/s per usable TiB, per kW and per rack unit, from an MLPerf
// systems file (v1.0 usable_capacity_GiB; v3.0 usable_capacity_tib, the chassis' power supplies and rack units)
// or from the numbers a user gives with `trainio-cli label` — through `aggregate --format json`, as a user
// reads it. Every expected figure is worked out here from the fixture's numbers (copied below from the files),
// never from the code under test.
#include "testsupport.h"

#include "store/labels.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace trainio;

namespace {

const fs::path kV1Hammerspace = fs::path(TRAINIO_TEST_DATA) / "mlperf-storage-v1.0/Closed/Hammerspace";
const fs::path kV3Samsung = fs::path(TRAINIO_TEST_DATA) / "mlperf-storage-v3.0/closed/SAMSUNG";
const fs::path kV3Alluxio = fs::path(TRAINIO_TEST_DATA) / "mlperf-storage-v3.0/closed/Alluxio";

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

json aggregateJson(const fs::path& root) {
    const auto r = testsupport::runCli({QStringLiteral("aggregate"), q(root), QStringLiteral("--format"), QStringLiteral("json")});
    if (r.exitCode != 0) qWarning("%s", qPrintable(r.err));
    return r.exitCode == 0 ? json::parse(r.out.toStdString()) : json();
}

// The group whose folder path contains `part` (and `kind`, when given).
json groupAt(const json& out, const std::string& part, const std::string& kind = "training") {
    for (const auto& g : out["groups"])
        if (g["path"].get<std::string>().find(part) != std::string::npos && g["kind"] == kind) return g;
    return json();
}

double meanOf(std::initializer_list<double> v) {
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
}

// One CSV line's fields (RFC 4180 quoting: "a, b" is one field, "" a quote), read here, not by TrainIO's code.
QStringList csvFields(const QString& line) {
    QStringList out{QString()};
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line.at(i);
        if (quoted && c == QLatin1Char('"') && i + 1 < line.size() && line.at(i + 1) == QLatin1Char('"')) out.back() += line.at(++i);
        else if (c == QLatin1Char('"')) quoted = !quoted;
        else if (c == QLatin1Char(',') && !quoted) out << QString();
        else out.back() += c;
    }
    return out;
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

const char* const kFigureKeys[] = {"usable_capacity_GiB", "power_kw", "rack_units"};
const char* const kEfficiencyKeys[] = {"gib_per_s_per_usable_tib", "gib_per_s_per_kw", "gib_per_s_per_rack_unit"};

std::string tinyYaml(const fs::path& data) {
    return "model:\n  name: tiny\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
           "dataset:\n  data_folder: " + data.string() + "\n  format: npz\n  num_files_train: 8\n"
           "  num_samples_per_file: 1\n  record_length_bytes: 8192\n"
           "reader:\n  data_loader: pytorch\n  batch_size: 2\n  read_threads: 1\n"
           "train:\n  epochs: 2\n  computation_time: 0.001\nmetric:\n  au: 0.01\n";
}

} // namespace

class TestEfficiency : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path tmp() const { return fs::path(dir_.path().toStdString()); }
    fs::path run_; // a TrainIO run once, made in initTestCase

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const fs::path cfg = tmp() / "tiny.yaml";
        testsupport::writeText(cfg, tinyYaml(tmp() / "data"));
        const auto g = testsupport::datagen(q(cfg));
        QVERIFY2(g.exitCode == 0, qPrintable(g.err));
        run_ = tmp() / "trainio-run";
        const auto r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), q(cfg), QStringLiteral("--output"), q(run_),
                                            QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    // v1.0: Hammerspace_unet3d_1Client_A100.json says "usable_capacity_GiB": 37339 (storage_system); nothing of
    // power or rack units. Its five runs' train_io_mean_MB_per_second are copied from their summary.json files.
    void v1UsableCapacityFromTheSystemsFile() {
        const json out = aggregateJson(kV1Hammerspace);
        const json g = groupAt(out, "Hammerspace_unet3d_1Client_A100");
        QVERIFY2(g.is_object(), out.dump().substr(0, 300).c_str());
        const double gib = meanOf({10472.75757049993, 10344.331255380906, 10415.957575381199, 10406.24616888361, 10094.33452481174}) / 1024.0;
        const json& e = g["efficiency"];
        QCOMPARE(e["usable_capacity_GiB"].get<double>(), 37339.0);
        QVERIFY2(near(e["gib_per_s_per_usable_tib"].get<double>(), gib / (37339.0 / 1024.0)), e.dump().c_str());
        QVERIFY(near(e["read_gib_per_second"].get<double>(), gib));
        QVERIFY(near(g["read_gib_per_second"].get<double>(), gib)); // the GiB/s beside it is the one divided
        const std::string source = e["sources"]["usable_capacity_GiB"]["file"].get<std::string>();
        QCOMPARE(fs::path(source), kV1Hammerspace / "systems/Hammerspace_unet3d_1Client_A100.json");
        QCOMPARE(e["sources"]["usable_capacity_GiB"]["key"].get<std::string>(), std::string("storage_system.usable_capacity_GiB"));
        for (const char* k : {"power_kw", "rack_units", "gib_per_s_per_kw", "gib_per_s_per_rack_unit"}) {
            QVERIFY2(e.contains(k) && e[k].is_null(), k); // present and null: the file does not say
        }
        QVERIFY(e["sources"]["power_kw"].is_null());
        // Another system of the same organisation: its own file (137000 GiB), never the first one's.
        const json five = groupAt(out, "Hammerspace_unet3d_5Client_A100");
        QCOMPARE(five["efficiency"]["usable_capacity_GiB"].get<double>(), 137000.0);
    }

    // v3.0 SAMSUNG MEMORY_AE.yaml: usable_capacity_tib 16 → 16384 GiB; total_rack_units 0 (says nothing), so the
    // clients: quantity "1" × chassis.rack_units 1 = 1 U; power: min_psus_active 1 × nameplate_power_watts 800 =
    // 0.8 kW. Measured runs (the earliest, 20260720_152622, is the warm-up) copied from their summary.json files.
    void v3PowerAndRackUnitsFromTheChassis() {
        const json out = aggregateJson(kV3Samsung);
        const json g = groupAt(out, "MEMORY_AE/training/unet3d");
        QVERIFY2(g.is_object(), out.dump().substr(0, 300).c_str());
        const double gib =
            meanOf({27229.60585699703, 27234.535341052324, 27238.67337436259, 27224.981638261324, 27231.990955893933}) / 1024.0;
        const json& e = g["efficiency"];
        QCOMPARE(e["usable_capacity_GiB"].get<double>(), 16384.0);
        QCOMPARE(e["power_kw"].get<double>(), 0.8);
        QCOMPARE(e["rack_units"].get<double>(), 1.0);
        QVERIFY2(near(e["gib_per_s_per_usable_tib"].get<double>(), gib / 16.0), e.dump().c_str());
        QVERIFY(near(e["gib_per_s_per_kw"].get<double>(), gib / 0.8));
        QVERIFY(near(e["gib_per_s_per_rack_unit"].get<double>(), gib / 1.0));
        QVERIFY(e["sources"]["rack_units"]["key"].get<std::string>().find("chassis.rack_units") != std::string::npos);
        QVERIFY(e["sources"]["power_kw"]["file"].get<std::string>().find("systems/MEMORY_AE.yaml") != std::string::npos);
        // The checkpointing benchmark of the same system has no read GiB/s: the figures, no efficiency.
        const json c = groupAt(out, "MEMORY_AE/checkpointing", "checkpointing");
        QVERIFY(c.is_object());
        QCOMPARE(c["efficiency"]["power_kw"].get<double>(), 0.8);
        for (const char* k : kEfficiencyKeys) QVERIFY2(c["efficiency"][k].is_null(), k);
        // A cloud system (Alluxio: usable_capacity_tib 25.5, chassis without rack units or power): capacity only.
        const json a = groupAt(aggregateJson(kV3Alluxio), "aws_c7i48xlarge_i3en12xlarge_1c_1s_8a");
        QVERIFY(a.is_object());
        QCOMPARE(a["efficiency"]["usable_capacity_GiB"].get<double>(), 25.5 * 1024.0);
        QVERIFY(a["efficiency"]["power_kw"].is_null() && a["efficiency"]["rack_units"].is_null());
    }

    // The user's number wins over the systems file's, figure by figure, and says where it came from.
    void aLabelOverridesTheSystemsFile() {
        const fs::path copy = tmp() / "SAMSUNG";
        fs::copy(kV3Samsung, copy, fs::copy_options::recursive);
        const fs::path bench = copy / "results/MEMORY_AE/training/unet3d/run";
        const auto l = testsupport::runCli({QStringLiteral("label"), q(bench), QStringLiteral("--power-kw"), QStringLiteral("2.5")});
        QVERIFY2(l.exitCode == 0, qPrintable(l.err));
        const json e = groupAt(aggregateJson(copy), "MEMORY_AE/training/unet3d")["efficiency"];
        QCOMPARE(e["power_kw"].get<double>(), 2.5);
        QCOMPARE(e["sources"]["power_kw"]["file"].get<std::string>(), (bench / store::kLabelsFile).string());
        QCOMPARE(e["sources"]["power_kw"]["key"].get<std::string>(), std::string("power_kw"));
        QCOMPARE(e["rack_units"].get<double>(), 1.0); // not given by the label: still the file's
        QVERIFY(near(e["gib_per_s_per_kw"].get<double>(), e["read_gib_per_second"].get<double>() / 2.5));
    }

    // A TrainIO run: nothing says → every figure and efficiency null (present, not 0); labelled with
    // `trainio-cli label` → GiB/s (its summary's train_io_mean_MB_per_second / 1024) over the three numbers.
    void aTrainioRunLabelledThroughTheCli() {
        const json before = aggregateJson(run_);
        QCOMPARE(before["groups"].size(), std::size_t(1));
        const json& none = before["groups"][0]["efficiency"];
        for (const char* k : kFigureKeys) QVERIFY2(none.contains(k) && none[k].is_null(), k);
        for (const char* k : kEfficiencyKeys) QVERIFY2(none.contains(k) && none[k].is_null(), k);

        const auto l = testsupport::runCli({QStringLiteral("label"), q(run_), QStringLiteral("--usable-capacity-gib"), QStringLiteral("7150"),
                                            QStringLiteral("--power-kw"), QStringLiteral("0.45"), QStringLiteral("--rack-units"), QStringLiteral("2")});
        QVERIFY2(l.exitCode == 0, qPrintable(l.err));
        QVERIFY2(l.out.contains(QStringLiteral("power_kw: 0.45")), qPrintable(l.out));
        const json written = json::parse(testsupport::readText(run_ / store::kLabelsFile));
        QCOMPARE(written["usable_capacity_GiB"].get<double>(), 7150.0);
        QVERIFY(written["rack_units"].is_number());

        const json summary = json::parse(testsupport::readText(run_ / "summary.json"));
        const double gib = summary["metric"]["train_io_mean_MB_per_second"].get<double>() / 1024.0;
        QVERIFY(gib > 0);
        const json after = aggregateJson(run_);
        const json& e = after["groups"][0]["efficiency"];
        QCOMPARE(e["usable_capacity_GiB"].get<double>(), 7150.0);
        QVERIFY2(near(e["gib_per_s_per_usable_tib"].get<double>(), gib / (7150.0 / 1024.0)), e.dump().c_str());
        QVERIFY(near(e["gib_per_s_per_kw"].get<double>(), gib / 0.45));
        QVERIFY(near(e["gib_per_s_per_rack_unit"].get<double>(), gib / 2.0));
        for (const char* k : kFigureKeys)
            QCOMPARE(e["sources"][k]["file"].get<std::string>(), (run_ / store::kLabelsFile).string());
        // The CSV carries them as columns, the same figures (empty where the system does not say).
        const auto c = testsupport::runCli({QStringLiteral("aggregate"), q(run_), QStringLiteral("--format"), QStringLiteral("csv")});
        QVERIFY2(c.exitCode == 0, qPrintable(c.err));
        const QStringList lines = c.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        const QStringList header = csvFields(lines[0]), row = csvFields(lines[1]);
        QCOMPARE(header.size(), row.size());
        auto column = [&](const char* key) { return row.value(header.indexOf(QString::fromLatin1(key))).toDouble(); };
        QVERIFY(near(column("gib_per_s_per_usable_tib"), gib / (7150.0 / 1024.0)));
        QVERIFY(near(column("gib_per_s_per_kw"), gib / 0.45));
        QVERIFY(near(column("gib_per_s_per_rack_unit"), gib / 2.0));
        QCOMPARE(column("usable_capacity_GiB"), 7150.0);
        QCOMPARE(column("power_kw"), 0.45);
        QCOMPARE(column("rack_units"), 2.0);
        // The library's tree carries the same object on the item.
        const auto t = testsupport::runCli({QStringLiteral("aggregate"), q(run_), QStringLiteral("--tree"), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(t.exitCode == 0 && t.out.contains(QStringLiteral("gib_per_s_per_rack_unit")), qPrintable(t.out.left(400)));
    }

    // A bad value is refused, naming the file, the key, the value and what is expected; nothing is written.
    void aBadValueIsRefusedNamingKeyAndFile() {
        const fs::path dir = tmp() / "bad";
        fs::create_directories(dir);
        fs::copy(run_, dir / "run", fs::copy_options::recursive);
        fs::remove(dir / "run" / store::kLabelsFile);
        for (const auto& [flag, key, value] : {std::tuple{"--power-kw", "power_kw", "-1"}, std::tuple{"--rack-units", "rack_units", "0"},
                                               std::tuple{"--usable-capacity-gib", "usable_capacity_GiB", "lots"}}) {
            const auto r = testsupport::runCli({QStringLiteral("label"), q(dir), QString::fromUtf8(flag), QString::fromUtf8(value)});
            QCOMPARE(r.exitCode, 2);
            for (const std::string& part : {(dir / store::kLabelsFile).string(), std::string(key), std::string(value), std::string("positive number")})
                QVERIFY2(r.err.toStdString().find(part) != std::string::npos, qPrintable(r.err));
            QVERIFY(!fs::exists(dir / store::kLabelsFile));
        }
        // A file written by hand: a text or a negative number is refused by the reader, naming key and file.
        for (const char* text : {R"({"rack_units": "2"})", R"({"power_kw": -0.5})", R"({"usable_capacity_GiB": 0})"}) {
            testsupport::writeText(dir / store::kLabelsFile, text);
            std::string msg;
            try {
                store::readLabelsFile(dir);
            } catch (const InputError& e) {
                msg = e.what();
            }
            QVERIFY2(msg.find((dir / store::kLabelsFile).string()) != std::string::npos && msg.find("positive number") != std::string::npos, text);
            QVERIFY2(msg.find(json::parse(text).begin().key()) != std::string::npos, msg.c_str());
        }
        // The importer ignores that file and says so; the efficiency stays unknown.
        testsupport::writeText(dir / store::kLabelsFile, R"({"rack_units": -3})");
        const json out = aggregateJson(dir);
        QCOMPARE(out["groups"].size(), std::size_t(1));
        QVERIFY(out["groups"][0]["efficiency"]["rack_units"].is_null());
        QVERIFY2(out["groups"][0]["runs"][0]["notes"].dump().find("rack_units") != std::string::npos, out["groups"][0]["runs"][0]["notes"].dump().c_str());
    }
};

QTEST_GUILESS_MAIN(TestEfficiency)
#include "tst_efficiency.moc"
