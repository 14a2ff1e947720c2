#include "workload_page.h"

#include "util/errors.h"
#include "util/host_info.h"
#include "workload_fields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace trainio::ui {

namespace {

QString sectionTitle(const QString& s) {
    if (s == QLatin1String("model")) return QObject::tr("Model and framework");
    if (s == QLatin1String("metric")) return QObject::tr("Metric");
    QString t = s;
    t[0] = t[0].toUpper();
    return t;
}

QString humanBytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 5) {
        bytes /= 1024.0;
        ++u;
    }
    return QStringLiteral("%1 %2").arg(bytes, 0, 'f', u == 0 ? 0 : 1).arg(QString::fromUtf8(units[u]));
}

} // namespace

WorkloadPage::WorkloadPage(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);

    // Top bar: where the configuration comes from and how it is run.
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Preset:"), this));
    presetBox_ = new QComboBox(this);
    presetBox_->setObjectName(QStringLiteral("presetBox"));
    presetBox_->addItem(tr("(choose a preset)"));
    try {
        for (const auto& n : presetNames()) presetBox_->addItem(QString::fromStdString(n));
    } catch (const std::exception& e) {
        presetBox_->setToolTip(QString::fromUtf8(e.what()));
    }
    presetBox_->setToolTip(tr("The shipped workloads: MLPerf Storage v1.0 and a small demo"));
    top->addWidget(presetBox_);
    auto* openButton = new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Open…"), this);
    auto* saveButton = new QPushButton(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("Save…"), this);
    openButton->setToolTip(tr("Open a DLIO workload YAML or JSON (Ctrl+O)"));
    saveButton->setToolTip(tr("Save as DLIO workload YAML (Ctrl+S)"));
    top->addWidget(openButton);
    top->addWidget(saveButton);
    top->addSpacing(16);
    top->addWidget(new QLabel(tr("Accelerators:"), this));
    accelerators_ = new QSpinBox(this);
    accelerators_->setObjectName(QStringLiteral("accelerators"));
    accelerators_->setRange(1, 4096);
    accelerators_->setToolTip(tr("Emulated accelerators (ranks): each reads its own shard and sleeps its compute time"));
    top->addWidget(accelerators_);
    top->addWidget(new QLabel(tr("Semantics:"), this));
    semantics_ = new QComboBox(this);
    semantics_->addItem(tr("DLIO v2 (measured compute)"), static_cast<int>(MetricSemantics::DlioV2));
    semantics_->addItem(tr("DLIO v1 (configured compute)"), static_cast<int>(MetricSemantics::DlioV1));
    semantics_->setToolTip(tr("Which DLIO generation's AU definition to use: v2 records the measured compute "
                              "time of each step, v1 (MLPerf Storage v1.0) the configured one"));
    top->addWidget(semantics_);
    top->addStretch();
    layout->addLayout(top);

    sourceLabel_ = new QLabel(this);
    sourceLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(sourceLabel_);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    auto* scroll = new QScrollArea(splitter);
    scroll->setWidgetResizable(true);
    scroll->setWidget(buildForm());
    splitter->addWidget(scroll);

    auto* side = new QWidget(splitter);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    auto* sizingBox = new QGroupBox(tr("Dataset sizing (MLPerf Storage rule)"), side);
    auto* sizingLayout = new QVBoxLayout(sizingBox);
    auto* ramRow = new QHBoxLayout;
    ramRow->addWidget(new QLabel(tr("Client RAM:"), sizingBox));
    clientRamGiB_ = new QDoubleSpinBox(sizingBox);
    clientRamGiB_->setRange(0.1, 1e7);
    clientRamGiB_->setDecimals(1);
    clientRamGiB_->setSuffix(tr(" GiB"));
    clientRamGiB_->setToolTip(tr("Total RAM of the client hosts; defaults to this host's. The dataset must be at "
                                 "least 5 × this, or the page cache hides the storage."));
    clientRamGiB_->setValue(std::max(0.1, readHostInfo().memoryGiB));
    ramRow->addWidget(clientRamGiB_);
    ramRow->addStretch();
    sizingLayout->addLayout(ramRow);
    sizingLabel_ = new QLabel(sizingBox);
    sizingLabel_->setObjectName(QStringLiteral("sizingAdvice"));
    sizingLabel_->setWordWrap(true);
    sizingLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    sizingLayout->addWidget(sizingLabel_);
    ramWarning_ = new QLabel(sizingBox);
    ramWarning_->setObjectName(QStringLiteral("ramWarning"));
    ramWarning_->setWordWrap(true);
    ramWarning_->setStyleSheet(QStringLiteral("QLabel { color: white; background: #b03a2e; padding: 6px; border-radius: 3px; }"));
    sizingLayout->addWidget(ramWarning_);
    sideLayout->addWidget(sizingBox);

    auto* diagBox = new QGroupBox(tr("Validation"), side);
    auto* diagLayout = new QVBoxLayout(diagBox);
    diagnostics_ = new QListWidget(diagBox);
    diagnostics_->setObjectName(QStringLiteral("diagnostics"));
    diagnostics_->setWordWrap(true);
    diagLayout->addWidget(diagnostics_);
    sideLayout->addWidget(diagBox, 1);
    splitter->addWidget(side);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);

    connect(presetBox_, &QComboBox::activated, this, [this](int index) {
        if (index > 0) loadPresetNamed(presetBox_->itemText(index));
    });
    connect(openButton, &QPushButton::clicked, this, &WorkloadPage::openWithDialog);
    connect(saveButton, &QPushButton::clicked, this, &WorkloadPage::saveWithDialog);
    connect(accelerators_, &QSpinBox::valueChanged, this, [this] {
        updateSizing();
        emit configChanged();
    });
    connect(semantics_, &QComboBox::currentIndexChanged, this, &WorkloadPage::configChanged);
    connect(clientRamGiB_, &QDoubleSpinBox::valueChanged, this, &WorkloadPage::updateSizing);
    connect(diagnostics_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        if (QWidget* w = editors_.value(item->data(Qt::UserRole).toString())) w->setFocus();
    });

    setConfig(dlioDefaultConfig(), tr("DLIO defaults"));
}

QWidget* WorkloadPage::buildForm() {
    auto* form = new QWidget;
    auto* columns = new QHBoxLayout(form);
    auto* leftColumn = new QVBoxLayout;
    auto* rightColumn = new QVBoxLayout;
    columns->addLayout(leftColumn, 1);
    columns->addLayout(rightColumn, 1);
    const auto& fields = workloadFields();
    editorByField_.assign(fields.size(), nullptr);
    for (const QString& section : workloadSections()) {
        auto* box = new QGroupBox(sectionTitle(section), form);
        auto* fl = new QFormLayout(box);
        fl->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (fields[i].section != section) continue;
            QWidget* editor = createEditor(i);
            QString labelText = fields[i].label;
            if (!fields[i].unit.isEmpty()) labelText += QStringLiteral(" (%1)").arg(fields[i].unit);
            auto* label = new QLabel(labelText + QLatin1Char(':'), box);
            label->setToolTip(fields[i].toolTip());
            label->setBuddy(editor);
            fl->addRow(label, editor);
        }
        // Two columns: the large sections on the left, the short ones on the right.
        const bool left = section == QLatin1String("dataset") || section == QLatin1String("reader") ||
                          section == QLatin1String("model");
        (left ? leftColumn : rightColumn)->addWidget(box);
    }
    leftColumn->addStretch(1);
    rightColumn->addStretch(1);
    return form;
}

QWidget* WorkloadPage::createEditor(std::size_t fieldIndex) {
    const WorkloadField& f = workloadFields()[fieldIndex];
    QWidget* editor = nullptr;
    auto changed = [this] {
        if (updating_) return;
        readEditors();
        revalidate();
        emit configChanged();
    };
    switch (f.kind) {
    case WorkloadField::Kind::Integer: {
        auto* s = new QSpinBox;
        s->setRange(static_cast<int>(f.minimum), static_cast<int>(std::min(f.maximum, 2147483647.0)));
        s->setGroupSeparatorShown(true);
        connect(s, &QSpinBox::valueChanged, this, changed);
        editor = s;
        break;
    }
    case WorkloadField::Kind::Real: {
        auto* s = new QDoubleSpinBox;
        s->setDecimals(f.decimals);
        s->setRange(f.minimum, f.maximum);
        s->setGroupSeparatorShown(true);
        if (f.decimals >= 3) s->setSingleStep(std::pow(10.0, -std::min(f.decimals, 3)));
        connect(s, &QDoubleSpinBox::valueChanged, this, changed);
        editor = s;
        break;
    }
    case WorkloadField::Kind::Text: {
        auto* e = new QLineEdit;
        connect(e, &QLineEdit::textEdited, this, changed);
        editor = e;
        break;
    }
    case WorkloadField::Kind::Folder: {
        auto* holder = new QWidget;
        auto* row = new QHBoxLayout(holder);
        row->setContentsMargins(0, 0, 0, 0);
        auto* e = new QLineEdit(holder);
        e->setObjectName(QStringLiteral("pathEdit"));
        auto* browse = new QToolButton(holder);
        browse->setText(QStringLiteral("…"));
        browse->setToolTip(tr("Choose a folder"));
        row->addWidget(e, 1);
        row->addWidget(browse);
        connect(e, &QLineEdit::textEdited, this, changed);
        connect(browse, &QToolButton::clicked, this, [this, e, changed] {
            const QString dir = QFileDialog::getExistingDirectory(this, tr("Choose a folder"), e->text());
            if (!dir.isEmpty()) {
                e->setText(dir);
                changed();
            }
        });
        editor = holder;
        break;
    }
    case WorkloadField::Kind::Bool: {
        auto* c = new QCheckBox;
        connect(c, &QCheckBox::toggled, this, changed);
        editor = c;
        break;
    }
    case WorkloadField::Kind::Choice: {
        auto* c = new QComboBox;
        c->setEditable(f.choices.isEmpty());
        c->addItems(f.choices);
        connect(c, &QComboBox::currentTextChanged, this, changed);
        editor = c;
        break;
    }
    }
    editor->setToolTip(f.toolTip());
    editor->setObjectName(f.dlioKey);
    editors_.insert(f.dlioKey, editor);
    editorByField_[fieldIndex] = editor;
    return editor;
}

void WorkloadPage::readEditors() {
    const auto& fields = workloadFields();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        QWidget* w = editorByField_[i];
        QVariant v;
        if (auto* s = qobject_cast<QSpinBox*>(w)) v = static_cast<qlonglong>(s->value());
        else if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) v = d->value();
        else if (auto* e = qobject_cast<QLineEdit*>(w)) v = e->text();
        else if (auto* c = qobject_cast<QCheckBox*>(w)) v = c->isChecked();
        else if (auto* b = qobject_cast<QComboBox*>(w)) v = b->currentText();
        else if (auto* pe = w->findChild<QLineEdit*>()) v = pe->text();
        fields[i].set(config_, v);
    }
}

void WorkloadPage::writeEditors() {
    updating_ = true;
    const auto& fields = workloadFields();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        QWidget* w = editorByField_[i];
        const QVariant v = fields[i].get(config_);
        if (auto* s = qobject_cast<QSpinBox*>(w)) s->setValue(static_cast<int>(std::min<qlonglong>(v.toLongLong(), s->maximum())));
        else if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) d->setValue(v.toDouble());
        else if (auto* e = qobject_cast<QLineEdit*>(w)) e->setText(v.toString());
        else if (auto* c = qobject_cast<QCheckBox*>(w)) c->setChecked(v.toBool());
        else if (auto* b = qobject_cast<QComboBox*>(w)) {
            if (b->findText(v.toString()) < 0) b->addItem(v.toString());
            b->setCurrentText(v.toString());
        } else if (auto* pe = w->findChild<QLineEdit*>()) pe->setText(v.toString());
    }
    updating_ = false;
}

void WorkloadPage::setConfig(const WorkloadConfig& cfg, const QString& source) {
    config_ = cfg;
    sourceLabel_->setText(tr("Configuration: %1").arg(source));
    writeEditors();
    revalidate();
    emit configChanged();
}

void WorkloadPage::setAccelerators(std::uint64_t n) { accelerators_->setValue(static_cast<int>(n)); }

std::uint64_t WorkloadPage::accelerators() const { return static_cast<std::uint64_t>(accelerators_->value()); }

MetricSemantics WorkloadPage::semantics() const {
    return static_cast<MetricSemantics>(semantics_->currentData().toInt());
}

void WorkloadPage::revalidate() {
    errors_ = validateConfig(config_);
    showDiagnostics();
    updateSizing();
}

void WorkloadPage::showDiagnostics() {
    diagnostics_->clear();
    for (QWidget* w : editorByField_) w->setStyleSheet({});
    for (const auto& d : errors_) {
        auto* item = new QListWidgetItem(style()->standardIcon(QStyle::SP_MessageBoxCritical),
                                         QString::fromStdString(d.message), diagnostics_);
        item->setData(Qt::UserRole, QString::fromStdString(d.key));
        if (QWidget* w = editors_.value(QString::fromStdString(d.key)))
            w->setStyleSheet(QStringLiteral("border: 2px solid #c0392b;"));
    }
    for (const auto& d : loadWarnings_) {
        auto* item = new QListWidgetItem(style()->standardIcon(QStyle::SP_MessageBoxWarning),
                                         QString::fromStdString(d.message), diagnostics_);
        item->setData(Qt::UserRole, QString::fromStdString(d.key));
    }
    if (errors_.empty() && loadWarnings_.empty())
        new QListWidgetItem(style()->standardIcon(QStyle::SP_DialogApplyButton), tr("The configuration is valid."),
                            diagnostics_);
}

void WorkloadPage::updateSizing() {
    const double ram = clientRamGiB_->value() * 1024.0 * 1024.0 * 1024.0;
    try {
        advice_ = sizingAdvice(config_, accelerators(), ram);
    } catch (const std::exception& e) {
        advice_ = SizingAdvice{};
        sizingLabel_->setText(QString::fromUtf8(e.what()));
        ramWarning_->hide();
        return;
    }
    sizingLabel_->setText(
        tr("Configured dataset: %L1 files, %2.\n%3")
            .arg(config_.dataset.numFilesTrain)
            .arg(humanBytes(advice_.datasetBytes))
            .arg(QString::fromStdString(advice_.text)));
    ramWarning_->setText(
        tr("⚠ The dataset (%1) fits in the client RAM (%2): the page cache can serve it, so AU and MiB/s will "
           "describe memory, not the storage. Use at least %L3 files for a storage measurement.")
            .arg(humanBytes(advice_.datasetBytes), humanBytes(advice_.clientRamBytes))
            .arg(advice_.filesNeeded));
    ramWarning_->setVisible(advice_.fitsInRam);
}

QString WorkloadPage::sizingText() const { return sizingLabel_->text(); }

bool WorkloadPage::loadPresetNamed(const QString& name) {
    try {
        LoadedConfig lc = loadPreset(name.toStdString());
        loadWarnings_ = lc.warnings;
        currentFile_.clear();
        presetName_ = name;
        setConfig(lc.config, tr("preset %1").arg(name));
        presetBox_->setCurrentText(name);
        emit notify(Severity::Info, tr("Loaded preset %1.").arg(name));
        return true;
    } catch (const std::exception& e) {
        emit notify(Severity::Error, tr("Cannot load preset %1: %2").arg(name, QString::fromUtf8(e.what())));
        return false;
    }
}

bool WorkloadPage::openFile(const QString& path) {
    try {
        LoadedConfig lc = loadWorkloadConfig(path.toStdString());
        loadWarnings_ = lc.warnings;
        currentFile_ = path;
        presetName_.clear();
        presetBox_->setCurrentIndex(0);
        setConfig(lc.config, path);
        for (const auto& w : lc.warnings) emit notify(Severity::Warning, QString::fromStdString(w.message));
        emit notify(Severity::Info, tr("Opened %1.").arg(path));
        emit fileOpened(path);
        return true;
    } catch (const std::exception& e) {
        // The form keeps the previous configuration: a bad file never replaces a good one.
        emit notify(Severity::Error, tr("Cannot open %1:\n%2").arg(path, QString::fromUtf8(e.what())));
        return false;
    }
}

bool WorkloadPage::saveFile(const QString& path) {
    QSaveFile file(path);
    const std::string yaml = toYaml(config_);
    if (!file.open(QIODevice::WriteOnly) || file.write(yaml.data(), static_cast<qint64>(yaml.size())) < 0 ||
        !file.commit()) {
        emit notify(Severity::Error, tr("Cannot save %1: %2").arg(path, file.errorString()));
        return false;
    }
    currentFile_ = path;
    sourceLabel_->setText(tr("Configuration: %1").arg(path));
    emit notify(Severity::Info, tr("Saved %1.").arg(path));
    emit fileOpened(path);
    return true;
}

void WorkloadPage::openWithDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open workload"), QFileInfo(currentFile_).path(),
                                                      tr("DLIO workloads (*.yaml *.yml *.json);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
}

void WorkloadPage::saveWithDialog() {
    QString suggestion = currentFile_;
    if (suggestion.isEmpty()) suggestion = QString::fromStdString(config_.model.name) + QStringLiteral(".yaml");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save workload"), suggestion, tr("DLIO workload (*.yaml)"));
    if (!path.isEmpty()) saveFile(path);
}

} // namespace trainio::ui
