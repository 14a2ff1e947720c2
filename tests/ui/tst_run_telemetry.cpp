// The Run page shows the storage truth live (issue 10 items 2 and 5): during a real run every telemetry
// row reaches the "Client CPU and storage reads" plot on the run's time axis, and each epoch's "% from
// page cache" reaches the invocation list as the epoch ends, in red when most bytes came from the cache.
// Expectations come from the files the run wrote (telemetry.json, trainio_io.json), read here with
// nlohmann::json and the documented column rules, never from the code under test.
#include "workload/dataset_controller.h"
#include "plots/live_plots.h"
#include "run/run_controller.h"
#include "run/run_page.h"
#include "gui_test_support.h"
#include "testsupport.h"

#include <qcustomplot.h>

#include <nlohmann/json.hpp>

#include <QSignalSpy>
#include <QTest>
#include <QAbstractItemModelTester>
#include <QTreeView>

#include <cmath>

using namespace trainio::ui;
using nlohmann::json;

class TestRunTelemetry : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;
    QTemporaryDir work_;
    QString runDir_; // the run of the first test, imported by the second

private slots:
    void initTestCase() {
        uitest::isolateSettings(settingsDir_);
        QVERIFY(work_.isValid());
    }

    void telemetryAndCacheShareArriveDuringTheRun() {
        // 16 files × 64 KiB, 3 epochs of 8 steps at 20 ms: about half a second, sampled every 50 ms.
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(work_.filePath(QStringLiteral("data")), 16, 3, 0.02);
        cfg.trainio.telemetryIntervalS = 0.05;
        {
            DatasetController data;
            QSignalSpy done(&data, &DatasetController::finished);
            QVERIFY(data.start(DatasetController::Operation::Generate, cfg));
            QVERIFY(uitest::received(done, testsupport::kHangMs) && done.first().at(1).toBool());
        }
        RunPage page;
        page.resize(1400, 900);
        page.show();
        page.setSystemName(QStringLiteral("test-host"));
        page.setWorkload(cfg, 1, trainio::MetricSemantics::DlioV2, true);
        const QString out = work_.filePath(QStringLiteral("run"));
        runDir_ = out;
        page.setOutputFolder(out);
        QSignalSpy finished(page.controller(), &RunController::finished);
        QSignalSpy rows(page.controller(), &RunController::telemetry);
        QSignalSpy cache(page.controller(), &RunController::epochCache);
        // Rows on the plot before the run ends: live, not replayed afterwards. The last epoch ends some
        // 0.5 s into the run, after several 50 ms samples.
        int rowsWhenLastEpochEnded = -1;
        connect(page.controller(), &RunController::epochCache, this, [&](quint64 epoch, double) {
            if (epoch == 3) rowsWhenLastEpochEnded = page.plots()->telemetryPointCount();
        });
        // The invocation list's model, checked by Qt's own model tester at every change the run makes (rows
        // appended under an invocation, figures changed in place): a wrong index or signal fails the test.
        auto* list = page.findChild<QTreeView*>(QStringLiteral("invocationList"));
        QVERIFY(list);
        QAbstractItemModelTester tester(list->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(page.startInvocation());
        QVERIFY(uitest::received(finished, testsupport::kHangMs));
        const auto result = finished.first().first().value<RunFinish>();
        QVERIFY2(result.complete, qPrintable(result.error));
        QVERIFY2(rowsWhenLastEpochEnded >= 1, qPrintable(QString::number(rowsWhenLastEpochEnded)));

        // Every row of telemetry.json reached the plot, with the values the documented columns give.
        const json t = json::parse(testsupport::readText((out + QStringLiteral("/telemetry.json")).toStdString()));
        std::vector<std::string> names;
        for (const auto& c : t.at("columns")) names.push_back(c.at("name").get<std::string>());
        const auto col = [&](const char* n) { return std::size_t(std::find(names.begin(), names.end(), n) - names.begin()); };
        double cpus = 0;
        for (const auto& n : names)
            if (n.rfind("cpu", 0) == 0 && n != "cpu_busy_pct" && n != "cpu_iowait_pct") cpus += 1;
        const auto& fileRows = t.at("rows");
        QVERIFY(fileRows.size() >= 3);
        QCOMPARE(std::size_t(rows.size()), fileRows.size());
        QCustomPlot* plot = page.plots()->plot(LivePlots::Telemetry);
        QCOMPARE(std::size_t(plot->graph(LivePlots::CpuBusy)->dataCount()), fileRows.size());
        const auto same = [](double a, const json& b) { return b.is_null() ? std::isnan(a) : std::abs(a - b.get<double>()) < 1e-9; };
        for (std::size_t i = 0; i < fileRows.size(); ++i) {
            const auto p = rows.at(static_cast<int>(i)).first().value<trainio::telemetry::TelemetryPoint>();
            const auto& r = fileRows[i];
            QVERIFY(same(p.timeS, r[0]));
            QVERIFY(same(p.cpuBusyPct, r[col("cpu_busy_pct")]));
            QVERIFY(r[col("proc_cpu_pct")].is_null() ? std::isnan(p.procCpuPct)
                                                     : std::abs(p.procCpuPct - r[col("proc_cpu_pct")].get<double>() / cpus) < 1e-9);
            const auto at = plot->graph(LivePlots::CpuBusy)->data()->at(static_cast<int>(i));
            QVERIFY(same(at->key, r[0]));
        }

        // Each epoch's share from the page cache, as trainio_io.json records it, in the invocation list.
        const json io = json::parse(testsupport::readText((out + QStringLiteral("/trainio_io.json")).toStdString()));
        const auto& epochs = io.at("epochs");
        QCOMPARE(epochs.size(), std::size_t(3));
        QCOMPARE(cache.size(), 3);
        const QAbstractItemModel* m = list->model();
        QCOMPARE(m->rowCount(), 1);
        const QModelIndex inv = m->index(0, 0);
        QCOMPARE(m->rowCount(inv), 3);
        bool anyCached = false;
        for (int e = 0; e < 3; ++e) {
            const double expected = epochs[std::size_t(e)].at("percent_from_cache").get<double>();
            QCOMPARE(cache.at(e).at(0).toULongLong(), quint64(e + 1));
            QCOMPARE(cache.at(e).at(1).toDouble(), expected);
            QCOMPARE(m->index(e, 0, inv).data().toString(), QStringLiteral("epoch %1").arg(e + 1));
            const QString text = m->index(e, 3, inv).data().toString();
            QVERIFY2(text.startsWith(QStringLiteral("%1 %").arg(std::lround(expected))), qPrintable(text));
            const bool note = text.contains(QStringLiteral("mostly from the page cache: AU and MiB/s describe memory"));
            QCOMPARE(note, expected > 50.0);
            QCOMPARE(m->index(e, 3, inv).data(Qt::ForegroundRole).value<QColor>() == QColor(0xc0392b), expected > 50.0);
            anyCached = anyCached || expected > 50.0;
            QVERIFY2(!m->index(e, 2, inv).data().toString().isEmpty(), "the epoch's AU is on its row");
        }
        // Just-written files read with the default cache control (keep): the cache serves the later
        // epochs (the acceptance test's own claim, tst_storage_truth), so the red note is exercised.
        QVERIFY2(anyCached, epochs.dump().c_str());
    }

    // The run imported into the Results page: its details show the telemetry line, with the verdict
    // whose sample count is worked out here from telemetry.json (rows after the first, 90 % rule), and
    // where its bytes came from.
    void resultsDetailsShowTheTelemetry() {
        QVERIFY(!runDir_.isEmpty());
        const json t = json::parse(testsupport::readText((runDir_ + QStringLiteral("/telemetry.json")).toStdString()));
        std::vector<std::string> names;
        for (const auto& c : t.at("columns")) names.push_back(c.at("name").get<std::string>());
        const auto col = [&](const char* n) { return std::size_t(std::find(names.begin(), names.end(), n) - names.begin()); };
        const auto& rows = t.at("rows");
        std::size_t saturated = 0;
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const auto& busy = rows[i][col("cpu_busy_pct")];
            const auto& proc = rows[i][col("proc_cpu_pct")];
            if ((!busy.is_null() && busy.get<double>() >= 90) ||
                (!proc.is_null() && proc.get<double>() >= 90 * rows[i][col("allowed_cores")].get<double>()))
                ++saturated;
        }
        const uitest::InvocationDetails d = uitest::invocationDetails(runDir_);
        const QString& text = d.text;
        QVERIFY2(!text.isEmpty(), qPrintable(d.why));
        QVERIFY2(text.contains(QStringLiteral("Telemetry: Client CPU busy: mean")), qPrintable(text));
        const QString verdict = QStringLiteral("%1: %2 of %3 samples had the client CPU at or above 90 % busy")
                                    .arg(saturated * 2 >= rows.size() - 1 ? QStringLiteral("Client-bound") : QStringLiteral("Not client-bound"))
                                    .arg(saturated)
                                    .arg(rows.size() - 1);
        QVERIFY2(text.contains(verdict), qPrintable(verdict + QStringLiteral(" not in: ") + text));

        // Where the bytes came from: each epoch's share of trainio_io.json, and (the first test made sure the
        // cache served some epoch) that the numbers describe memory, in bold.
        const json io = json::parse(testsupport::readText((runDir_ + QStringLiteral("/trainio_io.json")).toStdString()));
        QStringList shares;
        for (const auto& e : io.at("epochs")) shares << QString::asprintf("%.0f %%", e.at("percent_from_cache").get<double>());
        const QString bytes = QStringLiteral("Bytes from the page cache, per epoch: %1 (cache: keep, engine: posix). Most bytes of some "
                                             "epochs came from the page cache: those numbers describe memory, not the storage")
                                  .arg(shares.join(QStringLiteral(", ")));
        QVERIFY2(text.contains(bytes), qPrintable(bytes + QStringLiteral(" not in: ") + text));
        QVERIFY(d.cacheServed);
        QVERIFY2(d.html.contains(QStringLiteral("font-weight:700;\">") + bytes.left(30)), qPrintable(d.html));
    }
};

QTEST_MAIN(TestRunTelemetry)
#include "tst_run_telemetry.moc"
