// MLPerf Storage closed-division parameter rule: only the allowed parameters may be overridden.
// Published runs (which change only allowed keys) pass; a run that changes the batch size is named.
#include "testsupport.h"

#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"

#include <algorithm>

using namespace trainio::aggregate;
namespace fs = std::filesystem;

namespace {
const fs::path kGroup = testsupport::fixtures() / "mlperf-storage-v1.0" / "Closed" / "Hammerspace" / "results" /
                        "Hammerspace_unet3d_1Client_A100";

// The checks of every group found below root (a run with other settings is a benchmark of its own,
// docs/aggregation.md, and is still checked).
std::vector<std::string> checksOf(const fs::path& root) {
    const ImportResult imp = importResults({root});
    std::vector<std::string> all;
    for (const auto& g : imp.groups)
        for (auto& c : checkRules(imp, g)) all.push_back(std::move(c));
    return all;
}

bool mentions(const std::vector<std::string>& checks, const std::string& text) {
    return std::any_of(checks.begin(), checks.end(), [&](const std::string& c) { return c.find(text) != std::string::npos; });
}
} // namespace

class TestRules : public QObject {
    Q_OBJECT
private slots:
    void publishedOverridesAreAllowed() {
        const auto checks = checksOf(kGroup);
        QVERIFY(!mentions(checks, "closed division does not allow"));
    }
    void disallowedOverrideIsNamed() {
        QTemporaryDir tmp;
        const fs::path copy = fs::path(tmp.path().toStdString()) / "group";
        fs::copy(kGroup, copy, fs::copy_options::recursive);
        const fs::path ov = copy / "run3" / "configs" / "overrides.yaml";
        QVERIFY(fs::exists(ov));
        testsupport::writeText(ov, testsupport::readText(ov) + "- ++workload.reader.batch_size=8\n");
        const auto checks = checksOf(copy);
        QVERIFY(mentions(checks, "Run run3 changed reader.batch_size = 8"));
        // Not averaged with the other four: its own group, which says what differs.
        const ImportResult imp = importResults({copy});
        QCOMPARE(imp.groups.size(), std::size_t(2));
        const auto& odd = imp.groups[0].runs.size() == 1 ? imp.groups[0] : imp.groups[1];
        QCOMPARE(imp.runs[odd.runs.at(0)].runName, std::string("run3"));
        QVERIFY(std::any_of(odd.differences.begin(), odd.differences.end(),
                            [](const std::string& d) { return d.find("batch_size") != std::string::npos; }));
        QVERIFY(mentions(checks, "closed division does not allow"));
        // Allowed keys in the same file are not reported.
        QVERIFY(!mentions(checks, "changed dataset.num_files_train"));
    }
};

QTEST_GUILESS_MAIN(TestRules)
#include "tst_rules.moc"
