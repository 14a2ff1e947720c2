// Labels files (trainio_labels.json): strict reading, nearest-wins merging, atomic writing that keeps
// what it is not told to change, and the one- or two-line descriptions of published MLPerf Storage
// system files (v1.0 JSON, v3.0 YAML) that the library shows for a system.
#include "testsupport.h"

#include "store/labels.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using namespace trainio::aggregate;
using namespace trainio::store;

namespace {

fs::path tempRoot(const QTemporaryDir& tmp) { return fs::path(tmp.path().toStdString()); }

// The message of the InputError `f` throws ("" when it throws none).
template <typename F>
std::string inputErrorOf(F f) {
    try {
        f();
    } catch (const trainio::InputError& e) {
        return e.what();
    }
    return {};
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

} // namespace

class TestLabels : public QObject {
    Q_OBJECT
private slots:
    void absentFileIsNoLabels() {
        QTemporaryDir tmp;
        QVERIFY(!readLabelsFile(tempRoot(tmp)).has_value());
    }

    void writeThenReadRoundTrip() {
        QTemporaryDir tmp;
        const fs::path dir = tempRoot(tmp) / "bench";
        fs::create_directories(dir);
        Labels l;
        l.system = "lab-nvme-01";
        l.description = "ext4 on 1x Samsung PM9A3 3.84 TB, noatime; 1 client";
        l.notes = "after firmware 1.2 — «quoted» \"text\"\nsecond line";
        writeLabelsFile(dir, l);
        const auto back = readLabelsFile(dir);
        QVERIFY(back.has_value());
        QCOMPARE(back->system, l.system);
        QCOMPARE(back->description, l.description);
        QCOMPARE(back->notes, l.notes); // every character kept, newline and non-ASCII included
        QCOMPARE(back->name, std::string());
        QCOMPARE(*back->file, dir / kLabelsFile);
        // The file is plain JSON other tools can read: only the keys that were set.
        const auto j = nlohmann::json::parse(testsupport::readText(dir / kLabelsFile));
        QCOMPARE(j.size(), std::size_t(3));
        QCOMPARE(j["system"].get<std::string>(), l.system);
        for (const auto& e : fs::directory_iterator(dir)) // atomic: no temporary left behind
            QCOMPARE(e.path().filename().string(), std::string(kLabelsFile));
    }

    void writeKeepsExistingKeysUnlessReplace() {
        QTemporaryDir tmp;
        const fs::path dir = tempRoot(tmp);
        Labels first;
        first.system = "sys-a";
        first.notes = "old notes";
        writeLabelsFile(dir, first);
        Labels second;
        second.name = "baseline";
        second.notes = "new notes";
        writeLabelsFile(dir, second);
        auto back = readLabelsFile(dir);
        QCOMPARE(back->system, std::string("sys-a")); // kept
        QCOMPARE(back->notes, std::string("new notes")); // replaced
        QCOMPARE(back->name, std::string("baseline"));
        Labels only;
        only.system = "sys-b";
        writeLabelsFile(dir, only, /*replace=*/true);
        back = readLabelsFile(dir);
        QCOMPARE(back->system, std::string("sys-b"));
        QCOMPARE(back->notes, std::string());
        QCOMPARE(back->name, std::string());
    }

    void badFilesAreRefusedNamingFileAndKey() {
        QTemporaryDir tmp;
        const fs::path dir = tempRoot(tmp);
        const std::string file = (dir / kLabelsFile).string();
        struct Case {
            const char* text;
            const char* mentions; // besides the file name
        };
        const Case cases[] = {
            {R"(["system", "x"])", "object"},
            {R"({"system": 42})", "system"},
            {R"({"notes": null})", "notes"},
            {R"({"system": "x", "colour": "blue"})", "colour"},
            {R"({"system": "x",)", "JSON"},
        };
        for (const auto& c : cases) {
            testsupport::writeText(dir / kLabelsFile, c.text);
            const std::string msg = inputErrorOf([&] { readLabelsFile(dir); });
            QVERIFY2(contains(msg, file), c.text);
            QVERIFY2(contains(msg, c.mentions), (std::string(c.text) + " → " + msg).c_str());
        }
        // A file it cannot read is never overwritten by a merge that would lose its content.
        QVERIFY(!inputErrorOf([&] { writeLabelsFile(dir, Labels{"s", "", "", "", std::nullopt, {}}); }).empty());
        QCOMPARE(testsupport::readText(dir / kLabelsFile), std::string(R"({"system": "x",)"));
    }

    void badInputNeverHalfWritten() {
        QTemporaryDir tmp;
        const fs::path dir = tempRoot(tmp);
        Labels l;
        l.system = "ok";
        l.notes = std::string("caf\xC3", 4); // a UTF-8 sequence cut short
        const std::string msg = inputErrorOf([&] { writeLabelsFile(dir, l); });
        QVERIFY2(contains(msg, "notes") && contains(msg, (dir / kLabelsFile).string()), msg.c_str());
        QVERIFY(!fs::exists(dir / kLabelsFile));
        // Deep nesting is refused, not recursed into.
        testsupport::writeText(dir / kLabelsFile, std::string(100000, '['));
        QVERIFY(contains(inputErrorOf([&] { readLabelsFile(dir); }), (dir / kLabelsFile).string()));
    }

    void nearestFileWinsKeyByKeyUpToTheRoot() {
        QTemporaryDir tmp;
        const fs::path outside = tempRoot(tmp);
        const fs::path root = outside / "results";
        const fs::path bench = root / "sys" / "bench";
        const fs::path run = bench / "runs" / "run-1";
        fs::create_directories(run);
        testsupport::writeText(outside / kLabelsFile, R"({"notes": "above the root: ignored", "name": "nope"})");
        testsupport::writeText(root / kLabelsFile, R"({"system": "root-system", "description": "root description"})");
        testsupport::writeText(bench / kLabelsFile, R"({"system": "bench-system", "name": "tuned"})");
        const Labels l = labelsFor(run, root);
        QCOMPARE(l.system, std::string("bench-system"));        // nearest
        QCOMPARE(l.description, std::string("root description")); // only the root says it
        QCOMPARE(l.name, std::string());                        // names are not inherited (below)
        QCOMPARE(l.notes, std::string());                       // the file above the root does not count
        QCOMPARE(*l.file, bench / kLabelsFile);

        // A bad file on the way is reported and skipped; the others still apply.
        testsupport::writeText(bench / kLabelsFile, R"({"system": 1})");
        std::string why;
        const Labels skipped = labelsFor(run, root, &why);
        QCOMPARE(skipped.system, std::string("root-system"));
        QVERIFY2(contains(why, (bench / kLabelsFile).string()), why.c_str());
    }

    void aNameNamesOnlyItsOwnFolder() {
        QTemporaryDir tmp;
        const fs::path root = tempRoot(tmp);
        const fs::path bench = root / "bench";
        fs::create_directories(bench / "runs" / "run-1");
        testsupport::writeText(bench / kLabelsFile, R"({"system": "s", "name": "tuned"})");
        QCOMPARE(labelsFor(bench, root).name, std::string("tuned"));
        const Labels run = labelsFor(bench / "runs" / "run-1", root);
        QCOMPARE(run.system, std::string("s"));  // inherited
        QCOMPARE(run.name, std::string());        // a benchmark's name does not name each of its runs
    }

    // Expected text read by hand from the published files (the values quoted are in them).
    void describesMlperfV1Systems() {
        const fs::path systems = testsupport::fixtures() / "mlperf-storage-v1.0" / "Closed";
        const std::string hammer = describeSystemFile(systems / "Hammerspace/systems/Hammerspace_unet3d_1Client_H100.json");
        QVERIFY2(contains(hammer, "Hammerspace Hyperscale NAS"), hammer.c_str());        // storage_system.vendor_name
        QVERIFY2(contains(hammer, "NAS - Industry Standard NFSv4.2"), hammer.c_str());   // solution_type
        QVERIFY2(contains(hammer, "vers=4.2,port=20492,nconnect=16"), hammer.c_str());  // client_mount_options
        QVERIFY2(contains(hammer, "Ethernet 200 Gb/s"), hammer.c_str());                 // networks[0]
        QVERIFY2(contains(hammer, "1 client host (mlperf-client-1)"), hammer.c_str());   // the one Client host
        QVERIFY(std::count(hammer.begin(), hammer.end(), '\n') <= 1);                     // one or two lines

        // Published with a trailing comma ("frequency": 3200, }) — read anyway.
        const std::string micron = describeSystemFile(systems / "Micron/systems/Micron_6500_Gen4_High_Capacity_NVMe.json");
        QVERIFY2(contains(micron, "NVMe SSD 30720 GiB (device under test)"), micron.c_str());
        QVERIFY2(contains(micron, "1 client host (localhost)"), micron.c_str());

        const std::string juice = describeSystemFile(systems / "Juicedata/systems/JuiceFS-cloud-distributed-cache.json");
        QVERIFY2(contains(juice, "Ethernet 100 Gb/s (S3)"), juice.c_str());
    }

    void describesMlperfV3Systems() {
        const fs::path closed = testsupport::fixtures() / "mlperf-storage-v3.0" / "closed";
        const std::string samsung = describeSystemFile(closed / "SAMSUNG/systems/MEMORY_AE.yaml");
        QVERIFY2(contains(samsung, "Samsung MEMORY AE Storage System"), samsung.c_str()); // solution.friendly_description
        QVERIFY2(contains(samsung, "local storage"), samsung.c_str());                    // architecture.storage_location
        QVERIFY2(contains(samsung, "1× QuantaGrid D54Q-2U"), samsung.c_str());            // clients[0]
        QVERIFY2(contains(samsung, "ethernet 100 Gb/s"), samsung.c_str());                // the link that is up
        QVERIFY2(!contains(samsung, "4× ethernet"), samsung.c_str());                     // links that are down are not
        const std::string alluxio = describeSystemFile(closed / "Alluxio/systems/aws_c7i48xlarge_i3en12xlarge_1c_1s_8a.yaml");
        QVERIFY2(contains(alluxio, "Alluxio Enterprise AI 3.9"), alluxio.c_str());
        QVERIFY2(contains(alluxio, "c7i.48xlarge (372 GB memory)"), alluxio.c_str());
        QVERIFY2(contains(alluxio, "ethernet 50 Gb/s"), alluxio.c_str());
    }

    void badSystemFilesAreDescribedAsSuch() {
        QTemporaryDir tmp;
        const fs::path dir = tempRoot(tmp);
        testsupport::writeText(dir / "broken.json", "{\"nodes\": [");
        testsupport::writeText(dir / "broken.yaml", "system_under_test: [unclosed");
        testsupport::writeText(dir / "scalar.yaml", "just text");
        testsupport::writeText(dir / "notes.txt", "hello");
        // The import goes on; the description says what is wrong with which file.
        for (const char* name : {"broken.json", "broken.yaml", "scalar.yaml", "notes.txt", "missing.json"}) {
            const std::string text = describeSystemFile(dir / name);
            QVERIFY2(contains(text, "unreadable") && contains(text, (dir / name).string()), text.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestLabels)
#include "tst_labels.moc"
