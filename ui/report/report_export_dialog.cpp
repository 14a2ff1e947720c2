#include "report/report_export_dialog.h"

#include "report/report_content.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace trainio::ui {

namespace {
const QString kTitleKey = QStringLiteral("report/title");
const QString kSubtitleKey = QStringLiteral("report/subtitle");
const QString kNotesKey = QStringLiteral("report/notes");
const QString kBaselineKey = QStringLiteral("report/baseline");
const QString kPerAcceleratorKey = QStringLiteral("report/perAccelerator");
const QString kItemDetailKey = QStringLiteral("report/itemDetail");
} // namespace

ReportExportDialog::ReportExportDialog(const QStringList& itemNames, bool acceleratorCountsDiffer, QWidget* parent)
    : QDialog(parent),
      title_(new QLineEdit(this)),
      subtitle_(new QLineEdit(this)),
      notes_(new QPlainTextEdit(this)),
      baseline_(new QComboBox(this)),
      perAccelerator_(new QCheckBox(tr("Throughput and Read GiB/s per accelerator"), this)),
      itemDetail_(new QCheckBox(tr("A detail section per item (plots, statistics, runs, configuration)"), this)),
      items_(new QListWidget(this)) {
    setWindowTitle(tr("Export report"));
    setObjectName(QStringLiteral("reportExportDialog"));
    const QSettings settings;
    title_->setObjectName(QStringLiteral("reportTitle"));
    title_->setPlaceholderText(tr("TrainIO report"));
    title_->setMaxLength(200);
    title_->setText(settings.value(kTitleKey).toString());
    subtitle_->setObjectName(QStringLiteral("reportSubtitle"));
    subtitle_->setPlaceholderText(tr("e.g. the customer, the storage under test, the date"));
    subtitle_->setMaxLength(300);
    subtitle_->setText(settings.value(kSubtitleKey).toString());
    notes_->setObjectName(QStringLiteral("reportNotes"));
    notes_->setPlaceholderText(tr("Notes printed on the title page (plain text, several lines)"));
    notes_->setPlainText(settings.value(kNotesKey).toString().left(kMaxNotesChars));
    notes_->setTabChangesFocus(true);
    // Bounded so that a paste cannot push the title page into many pages of notes.
    connect(notes_, &QPlainTextEdit::textChanged, this, [this] {
        const QString text = notes_->toPlainText();
        if (text.size() > kMaxNotesChars) notes_->setPlainText(text.left(kMaxNotesChars));
    });
    baseline_->setObjectName(QStringLiteral("reportBaseline"));
    baseline_->addItems(itemNames);
    const int remembered = itemNames.indexOf(settings.value(kBaselineKey).toString());
    baseline_->setCurrentIndex(remembered >= 0 ? remembered : 0);
    perAccelerator_->setObjectName(QStringLiteral("reportPerAccelerator"));
    perAccelerator_->setChecked(settings.contains(kPerAcceleratorKey) ? settings.value(kPerAcceleratorKey).toBool()
                                                                      : acceleratorCountsDiffer);
    perAccelerator_->setToolTip(tr("On by default when the items' accelerator counts differ: absolute samples/s of 1 and "
                                   "8 accelerators say little about the storage."));
    itemDetail_->setObjectName(QStringLiteral("reportItemDetail"));
    itemDetail_->setChecked(settings.value(kItemDetailKey, true).toBool());
    itemDetail_->setToolTip(tr("Off: the answer, the comparison and a short appendix only — a few pages even for "
                               "many items."));
    items_->setObjectName(QStringLiteral("reportItems"));
    items_->addItems(itemNames);
    items_->setSelectionMode(QAbstractItemView::NoSelection);
    items_->setMaximumHeight(120);

    auto* form = new QFormLayout;
    form->addRow(tr("&Title:"), title_);
    form->addRow(tr("&Subtitle:"), subtitle_);
    form->addRow(tr("&Notes:"), notes_);
    form->addRow(tr("&Baseline:"), baseline_);
    form->addRow(QString(), perAccelerator_);
    form->addRow(QString(), itemDetail_);
    auto* itemsLabel = new QLabel(tr("The report holds these %n item(s) — the checked ones of the Results page:", nullptr,
                                     static_cast<int>(itemNames.size())),
                                  this);
    itemsLabel->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Export…"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(itemsLabel);
    layout->addWidget(items_);
    layout->addWidget(buttons);
    resize(560, 480);
}

ReportOptions ReportExportDialog::options() const {
    ReportOptions o;
    o.title = title_->text().trimmed();
    o.subtitle = subtitle_->text().trimmed();
    o.notes = notes_->toPlainText();
    o.baseline = static_cast<std::size_t>(std::max(0, baseline_->currentIndex()));
    o.perAccelerator = perAccelerator_->isChecked();
    o.itemDetail = itemDetail_->isChecked();
    return o;
}

void ReportExportDialog::remember() const {
    QSettings settings;
    settings.setValue(kTitleKey, title_->text().trimmed());
    settings.setValue(kSubtitleKey, subtitle_->text().trimmed());
    settings.setValue(kNotesKey, notes_->toPlainText());
    settings.setValue(kBaselineKey, baseline_->currentText());
    settings.setValue(kPerAcceleratorKey, perAccelerator_->isChecked());
    settings.setValue(kItemDetailKey, itemDetail_->isChecked());
}

} // namespace trainio::ui
