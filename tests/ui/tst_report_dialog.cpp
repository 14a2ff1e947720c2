// The report's export dialog: its fields become the report's options, the last values are remembered
// (QSettings, in a throwaway test location), the baseline is found again by name.
#include "testsupport.h"

#ifndef Q_MOC_RUN
#include "report/report_content.h"
#endif
#include "report/report_export_dialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>

using trainio::ui::ReportExportDialog;

class TestReportDialog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("TrainIO-test"));
        QApplication::setApplicationName(QStringLiteral("tst_report_dialog"));
        QSettings().clear();
    }

    void defaultsWithNothingRemembered() {
        const QStringList names{QStringLiteral("lab · unet3d · 1 accelerator"), QStringLiteral("ref · unet3d · 8 accelerators")};
        ReportExportDialog differ(names, true);
        QVERIFY(differ.titleEdit()->text().isEmpty());
        QCOMPARE(differ.baselineBox()->count(), 2);
        QCOMPARE(differ.baselineBox()->currentIndex(), 0);
        QVERIFY(differ.perAcceleratorBox()->isChecked()); // accelerator counts differ
        QCOMPARE(differ.findChild<QListWidget*>(QStringLiteral("reportItems"))->count(), 2);
        ReportExportDialog same(names, false);
        QVERIFY(!same.perAcceleratorBox()->isChecked());
        const auto o = same.options();
        QVERIFY(o.title.isEmpty());
        QCOMPARE(o.baseline, std::size_t(0));
        QVERIFY(o.perAccelerator.has_value());
        QVERIFY(!*o.perAccelerator);
    }

    void lastValuesAreRemembered() {
        const QStringList names{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
        {
            ReportExportDialog d(names, true);
            d.titleEdit()->setText(QStringLiteral("  Qualification  "));
            d.subtitleEdit()->setText(QStringLiteral("customer X"));
            d.notesEdit()->setPlainText(QStringLiteral("line 1\nline 2 — ü"));
            d.baselineBox()->setCurrentIndex(2);
            d.perAcceleratorBox()->setChecked(false);
            const auto o = d.options();
            QCOMPARE(o.title, QStringLiteral("Qualification"));
            QCOMPARE(o.subtitle, QStringLiteral("customer X"));
            QCOMPARE(o.notes, QStringLiteral("line 1\nline 2 — ü"));
            QCOMPARE(o.baseline, std::size_t(2));
            QVERIFY(!*o.perAccelerator);
            d.remember();
        }
        // Another selection, in another order: the baseline "c" is found by name; the toggle stays off
        // although the accelerator counts differ, because the user turned it off.
        ReportExportDialog again({QStringLiteral("c"), QStringLiteral("a")}, true);
        QCOMPARE(again.titleEdit()->text(), QStringLiteral("Qualification"));
        QCOMPARE(again.subtitleEdit()->text(), QStringLiteral("customer X"));
        QCOMPARE(again.notesEdit()->toPlainText(), QStringLiteral("line 1\nline 2 — ü"));
        QCOMPARE(again.baselineBox()->currentText(), QStringLiteral("c"));
        QCOMPARE(again.options().baseline, std::size_t(0));
        QVERIFY(!again.perAcceleratorBox()->isChecked());
        // A remembered baseline that is not among the items: the first item.
        ReportExportDialog other({QStringLiteral("x"), QStringLiteral("y")}, false);
        QCOMPARE(other.baselineBox()->currentIndex(), 0);
    }

    // The per-item detail can be left out (a short report of many items); the choice is remembered.
    void itemDetailCanBeSwitchedOff() {
        QSettings().remove(QStringLiteral("report/itemDetail"));
        {
            ReportExportDialog d({QStringLiteral("a"), QStringLiteral("b")}, false);
            QVERIFY(d.itemDetailBox()->isChecked()); // on by default
            QVERIFY(d.options().itemDetail);
            d.itemDetailBox()->setChecked(false);
            QVERIFY(!d.options().itemDetail);
            d.remember();
        }
        ReportExportDialog again({QStringLiteral("a")}, false);
        QVERIFY(!again.itemDetailBox()->isChecked());
        QVERIFY(!again.options().itemDetail);
    }

    void notesAreBounded() {
        ReportExportDialog d({QStringLiteral("a")}, false);
        d.notesEdit()->setPlainText(QString(ReportExportDialog::kMaxNotesChars + 500, QLatin1Char('n')));
        QCOMPARE(d.notesEdit()->toPlainText().size(), ReportExportDialog::kMaxNotesChars);
    }

    void cleanupTestCase() { QSettings().clear(); }
};

QTEST_MAIN(TestReportDialog)
#include "tst_report_dialog.moc"
