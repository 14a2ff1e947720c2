// The noise floor in the report (issue 33): a comparison's bar plots show each run of an item as a dot on a
// line from its lowest to its highest run, beside the bar (the mean) and the CI's whisker; the caption says
// so. Checked on a bar plot made here and on the report of two published benchmarks, whose runs' AU is read
// here from their own summary.json files.
#include "report/report_plots.h"
#include "report/report_writer.h"
#include "gui_test_support.h"
#include "testsupport.h"

#include "aggregate/results_import.h"
#include "aggregate/results_library.h"

#include <qcustomplot.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace trainio;

namespace {

const QString kJuice = QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v1.0/Closed/Juicedata/results/JuiceFS-cloud-nvme-distributed-cache");

std::vector<double> runAu(const QString& benchmark) {
    std::vector<double> au;
    for (int run = 1; run <= 5; ++run) {
        QFile f(benchmark + QStringLiteral("/run%1/summary.json").arg(run));
        if (!f.open(QIODevice::ReadOnly)) return {};
        au.push_back(QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("metric")].toObject()[QStringLiteral("train_au_mean_percentage")].toDouble());
    }
    std::sort(au.begin(), au.end());
    return au;
}

// The dots a bar plot draws at `key` (its graphs' points there), sorted; and its item lines' value ranges.
std::vector<double> dotsAt(QCustomPlot& plot, double key) {
    std::vector<double> out;
    for (int g = 0; g < plot.graphCount(); ++g)
        for (auto it = plot.graph(g)->data()->constBegin(); it != plot.graph(g)->data()->constEnd(); ++it)
            if (std::abs(it->key - key) < 1e-9) out.push_back(it->value);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::pair<double, double>> rangesOf(QCustomPlot& plot) {
    std::vector<std::pair<double, double>> out;
    for (int i = 0; i < plot.itemCount(); ++i)
        if (auto* l = qobject_cast<QCPItemLine*>(plot.item(i)); l && l->start->coords().y() == l->end->coords().y())
            out.emplace_back(l->start->coords().x(), l->end->coords().x());
    return out;
}

} // namespace

class TestNoiseFloor : public QObject {
    Q_OBJECT
    uitest::TestFolders dirs_;

private slots:
    // Two bars: one of three runs, one of a single run (no dots, no line: a single value has no spread).
    void aBarPlotDrawsEachRun() {
        std::vector<ui::BarItem> bars{{QStringLiteral("#1"), 50, 45, 55, std::nullopt, {40, 52, 58}},
                                      {QStringLiteral("#2"), 70, NAN, NAN, std::nullopt, {70}}};
        auto plot = ui::makeBarPlot(QStringLiteral("t"), QStringLiteral("AU %"), bars, Qt::blue);
        // The first bar is on top: key 2 (keys count down), its dots 0.2 above its middle.
        QCOMPARE(dotsAt(*plot, 2.2), (std::vector<double>{40, 52, 58}));
        QVERIFY(dotsAt(*plot, 1.2).empty());
        QCOMPARE(rangesOf(*plot), (std::vector<std::pair<double, double>>{{40, 58}}));
        QVERIFY2(plot->xAxis->range().upper >= 58, "the value axis holds the highest run");
    }

    // The report of two published benchmarks: each item's AU bar has its five runs as dots, the values of
    // their summary.json files; the caption under the plots says what the dots are.
    void theReportsComparisonDrawsTheRuns() {
        const std::vector<double> one = runAu(kJuice + QStringLiteral("/unet3d-1acc")), two = runAu(kJuice + QStringLiteral("/unet3d-2acc"));
        QCOMPARE(one.size(), std::size_t(5));
        QCOMPARE(two.size(), std::size_t(5));
        const aggregate::ResultsLibrary library(aggregate::importResults(
            {(kJuice + QStringLiteral("/unet3d-1acc")).toStdString(), (kJuice + QStringLiteral("/unet3d-2acc")).toStdString()}));
        const auto items = ui::reportItems(library, {});
        QCOMPARE(items.size(), std::size_t(2));
        std::vector<std::vector<double>> drawn;
        const auto observe = [&](QCustomPlot& plot, int, int) {
            for (int i = 0; i < plot.plotLayout()->elementCount(); ++i)
                if (auto* t = qobject_cast<QCPTextElement*>(plot.plotLayout()->elementAt(i)); t && t->text().startsWith(QLatin1String("AU (dashed")))
                    for (double key : {2.2, 1.2}) drawn.push_back(dotsAt(plot, key));
        };
        ui::ReportOptions options;
        options.itemDetail = false;
        const QString pdf = dirs_.work.filePath(QStringLiteral("noise.pdf"));
        QString error;
        QVERIFY2(ui::writeReportPdf(library, items, options, pdf, &error, observe), qPrintable(error));
        QCOMPARE(drawn.size(), std::size_t(2));
        // The report's #1 and #2 are the items in its order; each is one of the two benchmarks.
        for (const auto& dots : drawn) {
            QCOMPARE(dots.size(), std::size_t(5));
            const bool isOne = std::equal(dots.begin(), dots.end(), one.begin(), [](double a, double b) { return std::abs(a - b) < 1e-9; });
            const bool isTwo = std::equal(dots.begin(), dots.end(), two.begin(), [](double a, double b) { return std::abs(a - b) < 1e-9; });
            QVERIFY(isOne || isTwo);
        }
        QVERIFY(drawn[0] != drawn[1]);
        const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
        QVERIFY2(!pdftotext.isEmpty(), "pdftotext (poppler-utils) is needed to read the report");
        QProcess p;
        p.start(pdftotext, {pdf, QStringLiteral("-")});
        QVERIFY(p.waitForFinished(60000));
        const QString text = QString::fromUtf8(p.readAllStandardOutput()).simplified();
        QVERIFY2(text.contains(QStringLiteral("each run (an invocation's epochs), lowest to highest")), qPrintable(text.left(400)));
        // And in the comparison table, under each item's mean ± sd.
        for (const auto* runs : {&one, &two}) {
            const QString spread = QStringLiteral("runs %1–%2").arg(runs->front(), 0, 'f', 2).arg(runs->back(), 0, 'f', 2);
            QVERIFY2(text.contains(spread), qPrintable(spread + QStringLiteral(" not in: ") + text.left(1500)));
        }
    }
};

QTEST_MAIN(TestNoiseFloor)
#include "tst_noise_floor.moc"
