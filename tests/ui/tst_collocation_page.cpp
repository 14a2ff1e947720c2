// The Collocate page (issue 23): in the real window, two workload files on a shared emulated device run
// together — the plan is written to DIR/plan.yaml and checked as the CLI checks it, each workload gets
// its own live series on one time axis, the shared device is offered to the live controls while it runs,
// the summary names both workloads and (alone first) what each lost, and the folder joins the library. A
// cancel stops every workload; a plan the CLI would refuse is refused here with the same words.
#include "gui_test_support.h"
#include "testsupport.h"

#include "run/collocation_page.h"
#include "main_window.h"
#include "library/results_library_loader.h"
#include "run/storage_controls.h"

#include "config/config_loader.h"

#include <nlohmann/json.hpp>

#include <QListWidget>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

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
        const QString summary = page->summaryText();
        QVERIFY2(summary.contains(QStringLiteral("a_2")) && summary.contains(QStringLiteral("AU points lost")) &&
                     summary.contains(QStringLiteral("lost most")),
                 qPrintable(summary));
        // The folder joined the library, as one collocation item holding both workloads' invocations.
        auto* loader = w.findChild<ResultsLibraryLoader*>();
        QTRY_VERIFY_WITH_TIMEOUT(!loader->folderHolding(out).isEmpty() && loader->library() &&
                                     !loader->library()->nodes(trainio::aggregate::NodeKind::Collocation).empty(), testsupport::kHangMs);
        const auto* colloc = loader->library()->nodes(trainio::aggregate::NodeKind::Collocation).front();
        QCOMPARE(colloc->children.size(), std::size_t(2));
        QVERIFY(colloc->summary.size() >= 3); // what each lost, who lost most, each item
        QVERIFY2(colloc->summary.front().find("against alone runs of collocate --alone") != std::string::npos, colloc->summary.front().c_str());
        // The page adds what the library compares (the same rule, the collocation's own alone runs found there).
        QTRY_VERIFY_WITH_TIMEOUT(page->summaryText().contains(QStringLiteral("In the results library")), testsupport::kHangMs);
        QVERIFY2(page->summaryText().contains(QStringLiteral("against alone runs of collocate --alone")), qPrintable(page->summaryText()));
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
