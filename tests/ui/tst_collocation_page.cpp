// The Collocate page (issue 23): in the real window, two workload files on a shared emulated device run
// together — the plan is written to DIR/plan.yaml and checked as the CLI checks it, each workload gets
// its own live series on one time axis, the shared device is offered to the live controls while it runs,
// the summary names both workloads and (alone first) what each lost, and the folder joins the library. A
// cancel stops every workload; a plan the CLI would refuse is refused here with the same words.
#include "gui_test_support.h"
#include "testsupport.h"

#include "run/collocation_page.h"
#include "run/run_page.h"
#include "main_window.h"
#include "library/results_library_loader.h"
#include "run/mpi_controls.h"
#include "run/storage_controls.h"

#include "config/config_loader.h"

#include <nlohmann/json.hpp>

#include <QListWidget>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

#include <qcustomplot.h>

using namespace trainio::ui;
using nlohmann::json;

class TestCollocationPage : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    // A workload file (tiny npz, generate_data on) in the test folder; its path.
    QString workloadFile(const QString& name, std::uint64_t epochs, double compute) {
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(tmp_.filePath(QStringLiteral("data-") + name), 16, epochs, compute);
        cfg.workflow.generateData = true;
        cfg.dataset.recordLength = 256 * 1024;
        const QString file = tmp_.filePath(name + QStringLiteral(" workload.yaml")); // a space: the plan quotes it
        QFile f(file);
        if (!f.open(QIODevice::WriteOnly)) return {};
        f.write(QByteArray::fromStdString(trainio::toYaml(cfg)));
        return file;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        uitest::isolateSettings(tmp_);
        // The processes the page starts under mpirun run this build's trainio-cli; under the ASan stage without
        // LeakSanitizer (testsupport::mpiEnvironment).
        qputenv("TRAINIO_CLI", TRAINIO_CLI);
        for (const auto& [k, v] : testsupport::mpiEnvironment()) qputenv(k.toLocal8Bit().constData(), v.toLocal8Bit());
    }

    void twoWorkloadsRunTogetherOnOneDevice() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.showPage(MainWindow::CollocatePageIndex);
        auto* sidebar = w.findChild<QListWidget*>(QStringLiteral("pageList"));
        QCOMPARE(sidebar->item(MainWindow::CollocatePageIndex)->text(), QStringLiteral("Collocate"));
        CollocationPage* page = w.collocationPage();
        QCOMPARE(w.pageWidget(MainWindow::CollocatePageIndex), static_cast<QWidget*>(page));
        w.runPage()->setSystemName(QStringLiteral("colloc-lab"));
        page->addWorkload(QStringLiteral("a"), workloadFile(QStringLiteral("a"), 6, 0.004), 2);
        page->addWorkload(QStringLiteral("a"), workloadFile(QStringLiteral("b"), 6, 0.004), 1); // the name is made unique
        QCOMPARE(page->table()->item(1, 0)->text(), QStringLiteral("a_2"));
        page->setSharedProfile(QStringLiteral("-"));
        page->setBandwidthMiBs(60);
        page->setRounds(0, true);
        const QString out = tmp_.filePath(QStringLiteral("together"));
        page->setOutputFolder(out);
        QVERIFY(page->planYaml().contains(QStringLiteral("bandwidth_mib_s: 60")));

        bool sawDevice = false;
        QTimer probe;
        connect(&probe, &QTimer::timeout, this, [&] { sawDevice = sawDevice || page->storageControls()->device() != nullptr; });
        probe.start(20);
        QSignalSpy done(page, &CollocationPage::finished);
        QVERIFY(page->start());
        QVERIFY(!page->runButton()->isEnabled());
        QVERIFY(done.wait(120000));
        QCOMPARE(done.first().at(0).toBool(), true);
        QVERIFY2(sawDevice, "the shared device was never offered to the live controls");
        QVERIFY(page->storageControls()->device() == nullptr);
        // One series per workload, each with points, on one axis.
        QCOMPARE(page->plot()->graphCount(), 2);
        QVERIFY(page->pointCount(0) > 0 && page->pointCount(1) > 0);
        QCOMPARE(page->plot()->graph(1)->name(), QStringLiteral("a_2"));
        // The plan the window wrote is a plan the CLI reads; the collocation file names both workloads.
        QVERIFY(QFile::exists(QDir(out).filePath(QStringLiteral("plan.yaml"))));
        const json c = json::parse(testsupport::readText((QDir(out).filePath(QStringLiteral("trainio_collocation.json"))).toStdString()));
        QCOMPARE(c["status"].get<std::string>(), std::string("complete"));
        QCOMPARE(c["shared_storage"]["bandwidth_mib_s"].get<double>(), 60.0);
        QCOMPARE(c["interference"]["workloads"].size(), std::size_t(2));
        // The answer as a chart (issue 32 item 9): per workload its AU alone and together, and the points it
        // lost, as trainio_collocation.json has them.
        InterferenceChart* chart = page->interferenceChart();
        QVERIFY(chart->isVisible());
        QCOMPARE(chart->workloads().size(), std::size_t(2));
        QCOMPARE(chart->aloneBars()->dataCount(), 2);
        QCOMPARE(chart->togetherBars()->dataCount(), 2);
        for (int i = 0; i < 2; ++i) {
            const json& x = c["interference"]["workloads"][static_cast<std::size_t>(i)];
            QCOMPARE(chart->workloads()[static_cast<std::size_t>(i)].name, QString::fromStdString(x["name"].get<std::string>()));
            QCOMPARE(chart->aloneBars()->data()->at(i)->value, x["au_alone_percent"].get<double>());
            QCOMPARE(chart->togetherBars()->data()->at(i)->value, x["au_together_percent"].get<double>());
            const double lost = x["au_points_lost"].get<double>();
            const QString label = chart->lossLabel(static_cast<std::size_t>(i));
            QVERIFY2(label.startsWith((lost >= 0 ? QStringLiteral("−") : QStringLiteral("+")) + QString::number(std::fabs(lost), 'f', 2) +
                                      QStringLiteral(" AU points")),
                     qPrintable(label));
        }
        const QString summary = page->summaryText();
        QVERIFY2(summary.contains(QStringLiteral("a_2")) && summary.contains(QStringLiteral("AU points lost")) &&
                     summary.contains(QStringLiteral("lost most")),
                 qPrintable(summary));
        // The folder joined the library, as one collocation item holding both workloads' invocations.
        auto* loader = w.findChild<ResultsLibraryLoader*>();
        QTRY_VERIFY_WITH_TIMEOUT(!loader->folderHolding(out).isEmpty() && loader->library() &&
                                     !loader->library()->nodes(trainio::aggregate::NodeKind::Collocation).empty(), testsupport::kHangMs);
        const auto* colloc = loader->library()->nodes(trainio::aggregate::NodeKind::Collocation).front();
        // Filed under the system the Run page names (issue 32 item 9), not under a system named after the
        // output folder; the alone runs are of that system too.
        QVERIFY(colloc->parent && colloc->parent->kind == trainio::aggregate::NodeKind::System);
        QCOMPARE(colloc->parent->label, std::string("colloc-lab"));
        for (const auto* sys : loader->library()->nodes(trainio::aggregate::NodeKind::System))
            QVERIFY2(sys->label == "colloc-lab", sys->label.c_str());
        QCOMPARE(colloc->children.size(), std::size_t(2));
        QVERIFY(colloc->summary.size() >= 3); // what each lost, who lost most, each item
        QVERIFY2(colloc->summary.front().find("against alone runs of collocate --alone") != std::string::npos, colloc->summary.front().c_str());
        // The page adds what the library compares (the same rule, the collocation's own alone runs found there).
        QTRY_VERIFY_WITH_TIMEOUT(page->summaryText().contains(QStringLiteral("In the results library")), testsupport::kHangMs);
        QVERIFY2(page->summaryText().contains(QStringLiteral("against alone runs of collocate --alone")), qPrintable(page->summaryText()));
        // The chart then draws the library's comparison: both workloads compared, figures finite.
        QCOMPARE(chart->workloads().size(), std::size_t(2));
        for (const auto& x : chart->workloads())
            QVERIFY2(std::isfinite(x.auAlone) && std::isfinite(x.auTogether) && x.why.isEmpty(), qPrintable(x.name + QStringLiteral(": ") + x.why));
        if (const QString shots = qEnvironmentVariable("TRAINIO_SCREENSHOT_DIR"); !shots.isEmpty())
            QVERIFY(w.grab().save(shots + QStringLiteral("/collocation-chart.png")));
    }

    void cancelStopsEveryWorkload() {
        CollocationPage page;
        page.addWorkload(QStringLiteral("x"), workloadFile(QStringLiteral("x"), 400, 0.02), 1);
        page.addWorkload(QStringLiteral("y"), workloadFile(QStringLiteral("y"), 400, 0.02), 1);
        page.setOutputFolder(tmp_.filePath(QStringLiteral("cancelled")));
        QSignalSpy done(&page, &CollocationPage::finished);
        QVERIFY(page.start());
        QTRY_VERIFY_WITH_TIMEOUT(page.pointCount(0) > 0 && page.pointCount(1) > 0, testsupport::kHangMs);
        page.cancel();
        QVERIFY(done.wait(testsupport::kHangMs));
        QCOMPARE(done.first().at(0).toBool(), false);
        const json c = json::parse(testsupport::readText((tmp_.filePath(QStringLiteral("cancelled/trainio_collocation.json"))).toStdString()));
        QCOMPARE(c["status"].get<std::string>(), std::string("cancelled"));
    }

    // Issue 31: the Collocate page launches under MPI as the Run page does — mpirun on localhost with 2 processes
    // (oversubscribed: 2 cores), each workload's 2 accelerators spread one per process. Both workloads' steps
    // reach the plot from process 0's live stream, the collocation file is process 0's (2 processes), the
    // summary names both workloads, and a workload whose accelerators cannot be spread is refused first.
    void runsUnderMpi() {
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("mpirun")).isEmpty(),
                 "mpirun not found: install openmpi-bin (packaging/setup-debian.sh)");
        CollocationPage page;
        QSignalSpy said(&page, &CollocationPage::notify);
        page.addWorkload(QStringLiteral("m"), workloadFile(QStringLiteral("m"), 4, 0.004), 2);
        page.addWorkload(QStringLiteral("n"), workloadFile(QStringLiteral("n"), 4, 0.004), 1);
        MpiControls* mpi = page.mpiControls();
        mpi->setChecked(true);
        mpi->setHostList(QStringLiteral("localhost"));
        mpi->setProcessesPerHost(2);
        mpi->setOversubscribe(true);
        QVERIFY2(mpi->summaryText().contains(QStringLiteral("2 processes")), qPrintable(mpi->summaryText()));
        const QString out = tmp_.filePath(QStringLiteral("under-mpi"));
        page.setOutputFolder(out);
        QVERIFY(!page.start()); // n's 1 accelerator over 2 processes
        QVERIFY2(said.last().at(1).toString().contains(QStringLiteral("cannot be spread evenly over 2 MPI processes")),
                 qPrintable(said.last().at(1).toString()));
        QVERIFY(!page.isRunning());
        page.table()->removeRow(1);
        page.addWorkload(QStringLiteral("n"), workloadFile(QStringLiteral("n"), 4, 0.004), 2);
        QSignalSpy done(&page, &CollocationPage::finished);
        QVERIFY(page.start());
        QVERIFY(done.wait(180000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(page.summaryText()));
        QVERIFY(page.pointCount(0) > 0 && page.pointCount(1) > 0);
        const json c = json::parse(testsupport::readText((QDir(out).filePath(QStringLiteral("trainio_collocation.json"))).toStdString()));
        QCOMPARE(c["status"].get<std::string>(), std::string("complete"));
        QCOMPARE(c["mpi"]["processes"].get<int>(), 2);
        for (const char* n : {"m", "n"})
            QCOMPARE(json::parse(testsupport::readText((QDir(out).filePath(QString::fromLatin1(n) + QStringLiteral("/summary.json"))).toStdString()))
                         ["num_accelerators"].get<int>(), 2);
        const QString summary = page.summaryText();
        QVERIFY2(summary.contains(QStringLiteral("m invocation")) && summary.contains(QStringLiteral("n invocation")), qPrintable(summary));
        QVERIFY(!QFile::exists(QDir(out).filePath(QStringLiteral(".trainio-collocate-live.jsonl"))));
        mpi->setChecked(false); // remembered: the other functions run in one process
    }

    // Issue 32 item 9: a default output folder (a new one below the results root until the user picks one),
    // and a workload that brings its own emulated storage refused on adding it, in the page's words.
    void defaultFolderAndAWorkloadWithItsOwnStorage() {
        MainWindow w;
        CollocationPage* page = w.collocationPage();
        const QString first = page->outputFolder();
        QVERIFY2(first.contains(QStringLiteral("/collocation-")) && QDir::isAbsolutePath(first), qPrintable(first));
        const QString root = tmp_.filePath(QStringLiteral("root"));
        page->setResultsRoot(root);
        QVERIFY2(page->outputFolder().startsWith(root + QStringLiteral("/collocation-")), qPrintable(page->outputFolder()));
        page->setOutputFolder(tmp_.filePath(QStringLiteral("mine")));
        page->setResultsRoot(tmp_.filePath(QStringLiteral("other")));
        QCOMPARE(page->outputFolder(), tmp_.filePath(QStringLiteral("mine"))); // the user's choice stays

        trainio::WorkloadConfig own = uitest::tinyWorkload(tmp_.filePath(QStringLiteral("data-own")), 16, 2, 0.001);
        own.trainio.storage.profile = "nvme";
        const QString file = tmp_.filePath(QStringLiteral("own-device.yaml"));
        testsupport::writeText(file.toStdString(), trainio::toYaml(own));
        QSignalSpy said(page, &CollocationPage::notify);
        QVERIFY(!page->addWorkload(QStringLiteral("own"), file, 1));
        QCOMPARE(page->table()->rowCount(), 0);
        const QString text = said.last().at(1).toString();
        QVERIFY2(text.contains(QStringLiteral("own-device.yaml")) && text.contains(QStringLiteral("profile nvme")) &&
                     text.contains(QStringLiteral("Shared device")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("plan.yaml")) && !text.contains(QStringLiteral("trainio-cli")), qPrintable(text));
        QVERIFY(page->addWorkload(QStringLiteral("plain"), workloadFile(QStringLiteral("plain"), 2, 0.001), 1));
    }

    // Issue 32 item 9: the status line says which workload runs alone first while the alone runs go, then
    // that they run together.
    void statusLineDuringTheAloneRuns() {
        CollocationPage page;
        page.mpiControls()->setChecked(false); // remembered on from runsUnderMpi: this one runs in one process
        page.addWorkload(QStringLiteral("s"), workloadFile(QStringLiteral("s"), 6, 0.01), 1);
        page.addWorkload(QStringLiteral("t"), workloadFile(QStringLiteral("t"), 6, 0.01), 1);
        page.setRounds(0, true);
        page.setOutputFolder(tmp_.filePath(QStringLiteral("status")));
        QStringList seen;
        QTimer probe;
        connect(&probe, &QTimer::timeout, this, [&] {
            if (seen.isEmpty() || seen.last() != page.statusText()) seen << page.statusText();
        });
        probe.start(5);
        QSignalSpy done(&page, &CollocationPage::finished);
        QVERIFY(page.start());
        QVERIFY(done.wait(120000));
        probe.stop();
        const QString all = seen.join(QStringLiteral(" | "));
        QVERIFY2(all.contains(QStringLiteral("s alone first (1 of 2)")) && all.contains(QStringLiteral("t alone first (2 of 2)")),
                 qPrintable(all));
        // (QStringList::indexOf wants the whole line to match.) Together only after the last alone run started.
        const int together = seen.indexOf(QRegularExpression(QStringLiteral("running 2 workloads together.*")));
        QVERIFY2(together >= 0, qPrintable(all));
        QVERIFY2(together > seen.indexOf(QRegularExpression(QStringLiteral("t alone first.*"))), qPrintable(all));
    }

    // What the CLI refuses, the window refuses with the same words, and starts nothing.
    void aBadPlanIsRefusedWithTheCliWords() {
        CollocationPage page;
        QSignalSpy said(&page, &CollocationPage::notify);
        page.addWorkload(QStringLiteral("p"), workloadFile(QStringLiteral("p"), 2, 0.001), 1);
        page.setOutputFolder(tmp_.filePath(QStringLiteral("bad")));
        QVERIFY(!page.start()); // one workload
        QVERIFY(said.last().at(1).toString().contains(QStringLiteral("two or more")));
        page.addWorkload(QStringLiteral("q"), tmp_.filePath(QStringLiteral("no-such.yaml")), 1);
        QVERIFY(!page.start());
        const QString text = said.last().at(1).toString();
        QVERIFY2(text.contains(QStringLiteral("plan.yaml")) && text.contains(QStringLiteral("workload 'q'")), qPrintable(text));
        QVERIFY(!page.isRunning());
    }
};

QTEST_MAIN(TestCollocationPage)
#include "tst_collocation_page.moc"
