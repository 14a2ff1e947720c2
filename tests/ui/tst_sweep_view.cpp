// The sweep view (issue 12 item 4, the GUI part): sweep.json as trainio-cli sweep writes it, read back by
// core (readSweepJson) and drawn as AU against accelerators with the pass line and the largest passing
// count marked; a malformed file is refused naming the key; and a real `trainio-cli sweep --quick` opened
// from the window.
#include "main_window.h"
#include "library/sweep_view.h"
#include "gui_test_support.h"
#include "testsupport.h"

#include "config/config_loader.h"
#include "session/sweep.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

#include <cmath>

using namespace trainio::ui;
namespace fs = std::filesystem;

namespace {

// The search 1 2 4 8 6 5 over a storage that passes up to 5 accelerators, as sweep.json records it.
trainio::SweepOutcome knownOutcome(const fs::path& dir) {
    trainio::SweepOutcome o;
    const std::pair<std::uint64_t, double> trials[] = {{1, 98}, {2, 96}, {4, 92}, {8, 70}, {6, 85}, {5, 90.5}};
    for (const auto& [n, au] : trials) {
        trainio::SweepTrial t;
        t.accelerators = n;
        t.auMeanPercent = au;
        t.samplesPerSecond = 100.0 * static_cast<double>(n);
        t.readGibPerSecond = 0.01 * static_cast<double>(n);
        t.passed = au >= 90;
        t.path = trainio::sweepTrialFolder(dir, n);
        o.trials.push_back(t);
    }
    o.maxPassing = 5;
    o.complete = true;
    return o;
}

trainio::SweepDescription knownDescription() {
    trainio::SweepDescription d;
    d.range = {1, 8, 1};
    d.auThresholdPercent = 90;
    d.quick = true;
    return d;
}

} // namespace

class TestSweepView : public QObject {
    Q_OBJECT
    uitest::TestFolders dirs_; // settings isolated for the suite, and a work folder

private slots:
    void initTestCase() {
        QVERIFY(dirs_.work.isValid());
    }

    // What the sweep writes is what the view reads: the contract keys, paths made absolute.
    void readsWhatTheSweepWrote() {
        const fs::path dir = dirs_.work.filePath(QStringLiteral("known")).toStdString();
        fs::create_directories(dir);
        trainio::store::writeSweepJson(knownOutcome(dir), knownDescription(), dir);
        const trainio::SweepFile f = trainio::store::readSweepJson(dir);
        QCOMPARE(f.file, dir / "sweep.json");
        QVERIFY(f.outcome.maxPassing.has_value());
        QCOMPARE(*f.outcome.maxPassing, std::uint64_t(5));
        QVERIFY(f.outcome.complete);
        QCOMPARE(f.description.auThresholdPercent, 90.0);
        QVERIFY(f.description.quick);
        QCOMPARE(f.outcome.trials.size(), std::size_t(6));
        const auto written = knownOutcome(dir);
        for (std::size_t i = 0; i < 6; ++i) {
            QCOMPARE(f.outcome.trials[i].accelerators, written.trials[i].accelerators);
            QCOMPARE(f.outcome.trials[i].auMeanPercent, written.trials[i].auMeanPercent);
            QCOMPARE(f.outcome.trials[i].passed, written.trials[i].passed);
            QCOMPARE(f.outcome.trials[i].path, written.trials[i].path);
        }
    }

    // AU against accelerators: one point per trial in its class, the trend in count order, the pass line
    // at the threshold and the largest passing count marked.
    void viewPlotsAuAgainstAccelerators() {
        const fs::path dir = dirs_.work.filePath(QStringLiteral("known")).toStdString();
        SweepView view;
        view.resize(900, 600);
        view.setSweep(trainio::store::readSweepJson(dir / "sweep.json"));
        QCustomPlot* p = view.plot();
        QCOMPARE(p->graph(SweepView::PassedGraph)->dataCount(), 4);
        QCOMPARE(p->graph(SweepView::FailedGraph)->dataCount(), 2);
        QCOMPARE(p->graph(SweepView::NotCompleteGraph)->dataCount(), 0);
        const auto trend = p->graph(SweepView::TrendGraph)->data();
        QCOMPARE(trend->size(), 6);
        const double keys[] = {1, 2, 4, 5, 6, 8}, values[] = {98, 96, 92, 90.5, 85, 70};
        for (int i = 0; i < 6; ++i) {
            QCOMPARE(trend->at(i)->key, keys[i]);
            QCOMPARE(trend->at(i)->value, values[i]);
        }
        QVERIFY(view.thresholdLine());
        QCOMPARE(view.thresholdLine()->point1->coords().y(), 90.0);
        QVERIFY(view.maxLine());
        QCOMPARE(view.maxLine()->point1->coords().x(), 5.0);
        QCOMPARE(view.trials()->topLevelItemCount(), 6);
        QCOMPARE(view.trials()->topLevelItem(3)->text(SweepView::AcceleratorsColumn), QStringLiteral("8"));
        QCOMPARE(view.trials()->topLevelItem(3)->text(SweepView::VerdictColumn), QStringLiteral("below the AU line"));
        QVERIFY2(view.summaryText().contains(QStringLiteral("Largest count that passes: 5 accelerators")), qPrintable(view.summaryText()));
    }

    // A sweep where no count passed and the last trial did not complete: no max line, the trial on the axis.
    void noPassingCount() {
        const fs::path dir = dirs_.work.filePath(QStringLiteral("none")).toStdString();
        fs::create_directories(dir);
        trainio::SweepOutcome o;
        trainio::SweepTrial t;
        t.accelerators = 4;
        t.auMeanPercent = 40;
        t.path = trainio::sweepTrialFolder(dir, 4);
        o.trials.push_back(t);
        t.accelerators = 2;
        t.auMeanPercent = NAN;
        t.status = trainio::RunStatus::Cancelled;
        o.trials.push_back(t);
        trainio::SweepDescription d = knownDescription();
        d.range = {4, 8, 1};
        trainio::store::writeSweepJson(o, d, dir);
        SweepView view;
        view.setSweep(trainio::store::readSweepJson(dir));
        QVERIFY(!view.maxLine());
        QCOMPARE(view.plot()->graph(SweepView::FailedGraph)->dataCount(), 1);
        QCOMPARE(view.plot()->graph(SweepView::NotCompleteGraph)->dataCount(), 1);
        QVERIFY2(view.summaryText().contains(QStringLiteral("No count passed")), qPrintable(view.summaryText()));
        QCOMPARE(view.trials()->topLevelItem(1)->text(SweepView::VerdictColumn), QStringLiteral("cancelled"));
    }

    // A sweep.json without its contract keys is refused naming the key; a folder without one names the file.
    void badSweepJsonIsNamed() {
        const fs::path dir = dirs_.work.filePath(QStringLiteral("bad")).toStdString();
        fs::create_directories(dir);
        auto refusal = [&](const std::string& text) -> std::string {
            testsupport::writeText(dir / "sweep.json", text);
            try {
                trainio::store::readSweepJson(dir);
            } catch (const trainio::InputError& e) {
                return e.what();
            }
            return "accepted";
        };
        QVERIFY(refusal("{\"max_passing_accelerators\": 2}").find("trials") != std::string::npos);
        QVERIFY(refusal("{\"trials\": []}").find("max_passing_accelerators") != std::string::npos);
        QVERIFY(refusal("{\"max_passing_accelerators\": null, \"trials\": [{\"accelerators\": 1, \"au_mean_percentage\": 95, "
                        "\"samples_per_second\": 1, \"read_gib_per_second\": 1, \"path\": \"t\"}]}")
                    .find("trials[0].passed") != std::string::npos);
        // Not JSON at all: the store's reader names the file and says so (core/store/run_folder.h).
        QVERIFY(refusal("not json").find("sweep.json: not valid JSON") != std::string::npos);
        QVERIFY(refusal("[1, 2]").find("not a JSON object") != std::string::npos);
        MainWindow w;
        QVERIFY(!w.showSweep(dirs_.work.filePath(QStringLiteral("no-such-sweep"))));
    }

    // A real quick sweep over 1:2 accelerators, opened from the window: the dialog shows its trials.
    void realSweepOpensInTheWindow() {
        const trainio::WorkloadConfig cfg = uitest::tinyWorkload(dirs_.work.filePath(QStringLiteral("data")), 16, 1, 0.002);
        const QString yaml = dirs_.work.filePath(QStringLiteral("tiny.yaml"));
        testsupport::writeText(yaml.toStdString(), trainio::toYaml(cfg));
        QCOMPARE(testsupport::runCli({"datagen", "--config", yaml, "--quiet"}).exitCode, 0);
        const QString out = dirs_.work.filePath(QStringLiteral("sweep"));
        const auto r = testsupport::runCli({"sweep", "--config", yaml, "--accelerators", "1:2", "--quick", "--output", out, "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto written = nlohmann::json::parse(testsupport::readText((out + QStringLiteral("/sweep.json")).toStdString()));
        MainWindow w;
        SweepDialog* dialog = w.showSweep(out);
        QVERIFY(dialog);
        SweepView* view = dialog->view();
        QCOMPARE(view->trials()->topLevelItemCount(), int(written["trials"].size()));
        int points = 0;
        for (int g = SweepView::PassedGraph; g < SweepView::GraphCount; ++g) points += view->plot()->graph(g)->dataCount();
        QCOMPARE(points, int(written["trials"].size()));
        QCOMPARE(view->maxLine() != nullptr, !written["max_passing_accelerators"].is_null());
        dialog->close();
    }
};

QTEST_MAIN(TestSweepView)
#include "tst_sweep_view.moc"
