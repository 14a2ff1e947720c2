// File ▸ Export report: what the report says about the selected items — title, subtitle, notes, the
// baseline of its comparisons, whether throughput is shown per accelerator and whether each item gets
// its detail section (off for a short report of many items). Remembers the last
// values (QSettings "report/…"); the baseline is remembered by item name and chosen again when present.
#pragma once

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;

namespace trainio::ui {

// report/report_content.h (moc cannot parse the core headers it includes).
struct ReportOptions;

class ReportExportDialog final : public QDialog {
    Q_OBJECT
public:
    // itemNames: the items the report will hold, in report order. acceleratorCountsDiffer: the default of
    // the per-accelerator toggle when nothing is remembered.
    ReportExportDialog(const QStringList& itemNames, bool acceleratorCountsDiffer, QWidget* parent = nullptr);

    ReportOptions options() const;
    void remember() const; // writes the current values to QSettings

    QLineEdit* titleEdit() const { return title_; }
    QLineEdit* subtitleEdit() const { return subtitle_; }
    QPlainTextEdit* notesEdit() const { return notes_; }
    QComboBox* baselineBox() const { return baseline_; }
    QCheckBox* perAcceleratorBox() const { return perAccelerator_; }
    QCheckBox* itemDetailBox() const { return itemDetail_; }

    static constexpr int kMaxNotesChars = 16000; // what fits on a title page

private:
    QLineEdit* title_;
    QLineEdit* subtitle_;
    QPlainTextEdit* notes_;
    QComboBox* baseline_;
    QCheckBox* perAccelerator_;
    QCheckBox* itemDetail_;
    QListWidget* items_;
};

} // namespace trainio::ui
