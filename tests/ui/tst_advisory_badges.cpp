// Advisories where people decide (issue 33): a result whose tool had a known score-affecting defect at the
// time it was made carries a badge in the Results library (the Checks column, its sentences in the
// tooltip) and in the report (the comparison's item cell, the sentences in the item's detail); the same
// result made after the fix carries none. The data: a published v3.0 benchmark (SAMSUNG MEMORY_AE unet3d),
// once as published (July 2026, after the fixes of the ledger's training entries) and once re-dated to
// 2026-06-10 (before mlpstorage 3.0.14).
#include "gui_test_support.h"
#include "testsupport.h"

#include "library/compare_page.h"
#include "library/results_library_loader.h"
#include "models/compare_table_model.h"
#include "main_window.h"
#include "models/results_tree_model.h"
#include "report/report_writer.h"

#include <QDirIterator>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace trainio::ui;

namespace {

const QString kPublished = QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v3.0/closed/SAMSUNG/results/MEMORY_AE/training/unet3d");

// Every benchmark row of `model` under `parent`, by its folder.
void benchmarks(ResultsTreeModel* model, const QModelIndex& parent, QMap<QString, QModelIndex>& out) {
    for (int r = 0; r < model->rowCount(parent); ++r) {
        const QModelIndex i = model->index(r, 0, parent);
        if (model->data(i, ResultsTreeModel::NodeKindRole).toInt() == static_cast<int>(trainio::aggregate::NodeKind::Benchmark))
            out[model->data(i, ResultsTreeModel::PathRole).toString()] = i;
        else benchmarks(model, i, out);
    }
}

} // namespace

class TestAdvisoryBadges : public QObject {
    Q_OBJECT
    uitest::TestFolders dirs_;
    QString root_, early_, late_;

private slots:
    void initTestCase() {
        QVERIFY(dirs_.work.isValid());
        root_ = dirs_.work.filePath(QStringLiteral("results"));
        early_ = root_ + QStringLiteral("/early/unet3d");
        late_ = root_ + QStringLiteral("/late/unet3d");
        QVERIFY(uitest::copyTree(kPublished, early_));
        QVERIFY(uitest::copyTree(kPublished, late_));
        QDirIterator it(early_, {QStringLiteral("summary.json")}, QDir::Files, QDirIterator::Subdirectories);
        int redated = 0;
        while (it.hasNext()) {
            const std::filesystem::path p = it.next().toStdString();
            std::string text = testsupport::readText(p);
            for (std::size_t at; (at = text.find("2026-07-2")) != std::string::npos;) text.replace(at, 10, "2026-06-10");
            std::filesystem::permissions(p, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
            testsupport::writeText(p, text);
            ++redated;
        }
        QCOMPARE(redated, 6); // 5 measured runs and the warm-up
    }

    void theLibraryShowsTheBadge() {
        QSettings().clear();
        QSettings().setValue(QStringLiteral("ui/quickStartShown"), true);
        MainWindow w;
        QVERIFY(uitest::importFolder(w.libraryLoader(), root_));
        QMap<QString, QModelIndex> rows;
        benchmarks(w.resultsModel(), {}, rows);
        QCOMPARE(rows.size(), 2);
        for (auto it = rows.begin(); it != rows.end(); ++it) {
            const QModelIndex checks = it.value().siblingAtColumn(ResultsTreeModel::ChecksColumn);
            const QString text = w.resultsModel()->data(checks).toString();
            const QString tip = w.resultsModel()->data(checks, Qt::ToolTipRole).toString();
            if (it.key().contains(QLatin1String("/early/"))) {
                QVERIFY2(text.endsWith(QStringLiteral(" · 3 advisories")), qPrintable(text));
                QVERIFY2(tip.contains(QStringLiteral("possibly affected: made on 2026-06-10")) &&
                             tip.contains(QStringLiteral("AU of epochs ≥ 2 overstated")) && tip.contains(QStringLiteral("mlcommons/storage#464")),
                         qPrintable(tip));
            } else {
                QVERIFY2(!text.contains(QStringLiteral("advisor")), qPrintable(text));
                QVERIFY2(!tip.contains(QStringLiteral("Advisories")), qPrintable(tip));
            }
        }
        // Compare: both checked; the early item's name carries the badge, its sentences in the tooltip.
        for (const QModelIndex& row : rows) QVERIFY(w.resultsModel()->setData(row, Qt::Checked, Qt::CheckStateRole));
        w.showPage(MainWindow::ComparePageIndex);
        CompareTableModel* table = w.comparePage()->deltaModel();
        QTRY_COMPARE_WITH_TIMEOUT(table->rowCount(), 2, testsupport::kHangMs);
        int badged = 0;
        for (int r = 0; r < table->rowCount(); ++r) {
            const QModelIndex name = table->index(r, CompareTableModel::ItemColumn);
            const QString text = table->data(name).toString();
            if (!text.contains(QStringLiteral("⚑"))) continue;
            ++badged;
            QVERIFY2(text.endsWith(QStringLiteral("⚑ 3 advisories")), qPrintable(text));
            QVERIFY2(table->data(name, Qt::ToolTipRole).toString().contains(QStringLiteral("advisory: possibly affected: made on 2026-06-10")),
                     qPrintable(table->data(name, Qt::ToolTipRole).toString()));
        }
        QCOMPARE(badged, 1);
    }

    void theReportShowsTheBadge() {
        const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
        if (pdftotext.isEmpty())
            QSKIP("pdftotext (poppler-utils) is not installed: the report's text cannot be read back (setup-debian.sh --tests installs it)");
        ReportRequest request;
        request.paths = {root_.toStdString()};
        request.options.title = QStringLiteral("Advisories");
        const QString pdf = dirs_.work.filePath(QStringLiteral("advisories.pdf"));
        QString error;
        QVERIFY2(writeReportPdf(request, pdf, &error), qPrintable(error));
        QProcess p;
        p.start(pdftotext, {pdf, QStringLiteral("-")});
        QVERIFY(p.waitForFinished(60000));
        const QString text = QString::fromUtf8(p.readAllStandardOutput()).simplified();
        // Once in the comparison (one of the two items), the three sentences in that item's detail.
        QCOMPARE(text.count(QStringLiteral("3 advisories (known defects of the tool that measured it)")), 1);
        QCOMPARE(text.count(QStringLiteral("Advisories (known defects of the tool that measured it):")), 1);
        QCOMPARE(text.count(QStringLiteral("possibly affected: made on 2026-06-10")), 3);
        QVERIFY2(text.contains(QStringLiteral("before mlpstorage 3.0.14 (released 2026-06-19): AU of epochs ≥ 2 overstated")), qPrintable(text.left(2000)));
    }
};

QTEST_MAIN(TestAdvisoryBadges)
#include "tst_advisory_badges.moc"
