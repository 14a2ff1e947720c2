#include "workload/workload_page.h"
#include "workload/preset_labels.h"

#include "config/config_keys.h"
#include "config/key_ranges.h"
#include "io/s3_backend.h"
#include "metrics/dlio_metrics.h"
#include "widgets/file_dialogs.h"
#include "widgets/one_line_label.h"
#include "widgets/quantity_spin_box.h"
#include "util/errors.h"
#include "util/host_info.h"
#include "util/page_cache_verdict.h"
#include "workload/workload_fields.h"
#include "util/units.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QPainter>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStandardPaths>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace trainio::ui {

namespace {

// The line under a field leads with the problem; the key (and value) it is about, which the field beside
// it already shows, comes last: "train.epochs: '-3' is not allowed: expected …" → "'-3' is not allowed:
// expected … (train.epochs)"; "trainio.ram_tier_mib = 64: expected 0 …" → "expected 0 … (trainio.ram_tier_mib = 64)".
QString problemFirst(const QString& problem, const QString& key) {
    QString head;
    if (problem.startsWith(key + QStringLiteral(": "))) head = key;
    else if (problem.startsWith(key + QStringLiteral(" = ")))
        if (const qsizetype colon = problem.indexOf(QStringLiteral(": "), key.size() + 3); colon > 0) head = problem.left(colon);
    if (head.isEmpty()) return problem;
    return QStringLiteral("%1 (%2)").arg(problem.mid(head.size() + 2), head);
}


QString sectionTitle(const QString& s) {
    if (s == QLatin1String("model")) return QObject::tr("Model and framework");
    if (s == QLatin1String("metric")) return QObject::tr("Metric");
    if (s == QLatin1String("trainio")) return QObject::tr("Storage (TrainIO)");
    if (s == QLatin1String("storage")) return QObject::tr("Data location: file system or S3");
    if (s == QLatin1String("loader")) return QObject::tr("Loader policy (TrainIO)");
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


// Session keys: the form as typed, the configuration it started from, where that came from.
const QString kFormFields = QStringLiteral("workload/form/fields");
const QString kFormBase = QStringLiteral("workload/form/base");
const QString kFormSource = QStringLiteral("workload/form/source");
const QString kFormFile = QStringLiteral("workload/form/file");
const QString kFormPreset = QStringLiteral("workload/form/preset");
const QString kFormModified = QStringLiteral("workload/form/modified");
const QString kFormAccelerators = QStringLiteral("workload/accelerators");

QString acceleratorsTip() {
    return QObject::tr("Emulated accelerators (ranks): each reads its own shard and sleeps its compute time. Accepted: %1")
        .arg(QString::fromStdString(key_ranges::expectation("accelerators")));
}

QString errorStyle() { return QStringLiteral("border: 2px solid #c0392b;"); }

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
    presetBox_->setToolTip(tr("The shipped workloads: MLPerf Storage v1.0 and v3.0 (training and checkpointing) "
                              "and a small demo; the drop-down names each preset's round"));
    showPresetRounds(presetBox_);
    top->addWidget(presetBox_);
    auto* openButton = new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Open…"), this);
    auto* saveButton = new QPushButton(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("Save…"), this);
    openButton->setToolTip(tr("Open a DLIO workload YAML or JSON (Ctrl+O)"));
    saveButton->setToolTip(tr("Save as DLIO workload YAML (Ctrl+S)"));
    top->addWidget(openButton);
    top->addWidget(saveButton);
    auto* shrinkButton = new QPushButton(tr("Shrink to fit this machine"), this);
    shrinkButton->setObjectName(QStringLiteral("shrinkButton"));
    shrinkButton->setToolTip(tr("Fewer training files (and smaller samples only if needed) so that the dataset fits "
                                "this machine's disk and a quarter of its RAM and an epoch takes about a minute; "
                                "format, samples per file, batch, threads and compute time stay"));
    top->addWidget(shrinkButton);
    top->addSpacing(16);
    top->addWidget(new QLabel(tr("Accelerators:"), this));
    accelerators_ = new QuantitySpinBox(*key_ranges::find("accelerators"), this);
    accelerators_->setObjectName(QStringLiteral("accelerators"));
    accelerators_->setToolTip(acceleratorsTip());
    accelerators_->setMinimumWidth(70);
    accelerators_->setValue(1);
    editors_.insert(QStringLiteral("accelerators"), accelerators_);
    top->addWidget(accelerators_);
    top->addWidget(new QLabel(tr("Semantics:"), this));
    semantics_ = new QComboBox(this);
    semantics_->setObjectName(QStringLiteral("semanticsBox"));
    semantics_->addItem(tr("DLIO v2 (measured compute)"), static_cast<int>(MetricSemantics::DlioV2));
    semantics_->addItem(tr("DLIO v1 (configured compute)"), static_cast<int>(MetricSemantics::DlioV1));
    semantics_->addItem(tr("MLPerf v3.0 (window steps, warmed readers)"), static_cast<int>(MetricSemantics::DlioV3));
    semantics_->setToolTip(tr("Which DLIO generation's metrics to use: v2 records the measured compute "
                              "time of each step, v1 (MLPerf Storage v1.0) the configured one; MLPerf v3.0's "
                              "DLIO counts the steps in the metric window for throughput and warms the readers "
                              "before each epoch"));
    top->addWidget(semantics_);
    top->addStretch();
    layout->addLayout(top);

    sourceLabel_ = new QLabel(this);
    sourceLabel_->setObjectName(QStringLiteral("sourceLabel"));
    sourceLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(sourceLabel_);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter_ = splitter;
    auto* scroll = new QScrollArea(splitter);
    scroll->setObjectName(QStringLiteral("formScroll"));
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
    clientRam_ = new QuantitySpinBox(QStringLiteral("client RAM"), quantity::Kind::Bytes,
                                     quantity::Limits{64 * kMiB, 0x1p60, false, false}, sizingBox);
    clientRam_->setObjectName(QStringLiteral("clientRam"));
    clientRam_->setToolTip(tr("Total RAM of the client hosts, e.g. 64 GiB; defaults to this host's. The dataset must be "
                              "at least 5 × this, or the page cache hides the storage."));
    clientRam_->setValue(std::max(64.0, std::round(readHostInfo().memoryGiB * 1024.0)) * kMiB);
    ramRow->addWidget(clientRam_, 1);
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
        if (index > 0) requestPreset(presetBox_->itemText(index));
    });
    connect(openButton, &QPushButton::clicked, this, &WorkloadPage::openWithDialog);
    connect(saveButton, &QPushButton::clicked, this, &WorkloadPage::saveWithDialog);
    connect(shrinkButton, &QPushButton::clicked, this, &WorkloadPage::shrinkRequested);
    connect(accelerators_, &QuantitySpinBox::edited, this, [this] {
        revalidate();
        emit configChanged();
    });
    connect(semantics_, &QComboBox::currentIndexChanged, this, &WorkloadPage::configChanged);
    connect(clientRam_, &QuantitySpinBox::edited, this, &WorkloadPage::revalidate);
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
            if (fields[i].kind == WorkloadField::Kind::Quantity || fields[i].kind == WorkloadField::Kind::Accelerator) {
                // The message sits right under the field it is about, not only in the list on the side.
                // Its line is always there (a form layout drops the rows of hidden widgets): the label
                // shows and hides inside it.
                auto* line = new QWidget(box);
                auto* lineLayout = new QHBoxLayout(line);
                lineLayout->setContentsMargins(0, 0, 0, 0);
                auto* error = new OneLineLabel(line);
                error->setObjectName(fields[i].dlioKey + QStringLiteral("/error"));
                error->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; }"));
                lineLayout->addWidget(error);
                line->setFixedHeight(error->sizeHint().height());
                error->hide();
                fl->addRow(QString(), line);
                errorLabels_.insert(fields[i].dlioKey, error);
            }
        }
        if (section == QLatin1String("storage")) {
            // One signed request to the bucket with the keys the run would use, off the GUI thread.
            testConnection_ = new QPushButton(tr("Test connection"), box);
            testConnection_->setObjectName(QStringLiteral("testS3Connection"));
            testConnection_->setToolTip(tr("Resolve the credentials and send one signed request to the bucket, as the "
                                           "pre-flight does (a few seconds at most); the secret is never shown"));
            connectionResult_ = new OneLineLabel(box);
            connectionResult_->setObjectName(QStringLiteral("s3ConnectionResult"));
            fl->addRow(testConnection_, connectionResult_);
            connect(testConnection_, &QPushButton::clicked, this, &WorkloadPage::testS3Connection);
        }
        // Two columns: the large sections on the left, the short ones on the right.
        const bool left = section == QLatin1String("dataset") || section == QLatin1String("reader") ||
                          section == QLatin1String("model") || section == QLatin1String("loader");
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
        if (!updating_) userEdited();
    };
    switch (f.kind) {
    case WorkloadField::Kind::Quantity: {
        const std::optional<key_ranges::KeyRange> range = key_ranges::find(f.dlioKey.toStdString());
        // A numeric field without a range would accept anything: a programming error, caught by the tests.
        if (!range) throw std::logic_error("workload field " + f.dlioKey.toStdString() + " has no range in key_ranges");
        auto* s = new QuantitySpinBox(*range);
        connect(s, &QuantitySpinBox::edited, this, changed);
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
        // A relative folder typed here is shown as the absolute one it stands for (readEditors resolves it).
        connect(e, &QLineEdit::editingFinished, this, [this, e, key = f.dlioKey] {
            if (isObjectLocation(key, e->text())) return;
            if (const QString abs = absoluteFolder(e->text()); abs != e->text()) e->setText(abs);
        });
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
    case WorkloadField::Kind::Choice:
    case WorkloadField::Kind::Accelerator: {
        auto* c = new QComboBox;
        const bool accelerator = f.kind == WorkloadField::Kind::Accelerator;
        c->setEditable(accelerator || f.choices.isEmpty());
        if (accelerator) {
            for (const auto& name : config_keys::acceleratorNames()) c->addItem(QString::fromStdString(name));
            c->lineEdit()->setPlaceholderText(tr("none (one from the list or your own)"));
            c->setInsertPolicy(QComboBox::NoInsert);
        } else {
            c->addItems(f.choices);
            for (int k = 0; k < f.choiceToolTips.size() && k < c->count(); ++k)
                c->setItemData(k, f.choiceToolTips[k], Qt::ToolTipRole);
        }
        connect(c, &QComboBox::currentTextChanged, this, changed);
        editor = c;
        break;
    }
    }
    editor->setToolTip(f.toolTip());
    // The red frame of a refused value must not change the field's height (the form would move).
    editor->setMinimumHeight(editor->sizeHint().height());
    editor->setObjectName(f.dlioKey);
    editors_.insert(f.dlioKey, editor);
    editorByField_[fieldIndex] = editor;
    return editor;
}

void WorkloadPage::userEdited() {
    const StorageSection storageBefore = config_.storage;
    const std::string dataBefore = config_.dataset.dataFolder, checkpointBefore = config_.checkpoint.folder;
    readEditors();
    if (storageBefore.isS3() != config_.storage.isS3()) storageKindSwitched(storageBefore, dataBefore, checkpointBefore);
    revalidate();
    setModified(true);
    emit configChanged();
}

QString WorkloadPage::editorText(std::size_t i) const {
    QWidget* w = editorByField_[i];
    if (auto* q = qobject_cast<QuantitySpinBox*>(w)) return q->exactText(); // what parses back to the value (a long time is shown rounded)
    if (auto* e = qobject_cast<QLineEdit*>(w)) return e->text();
    if (auto* c = qobject_cast<QCheckBox*>(w)) return c->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
    if (auto* b = qobject_cast<QComboBox*>(w)) return b->currentText();
    if (auto* pe = w->findChild<QLineEdit*>()) return pe->text();
    return {};
}

void WorkloadPage::setEditorText(std::size_t i, const QString& text) {
    QWidget* w = editorByField_[i];
    if (auto* q = qobject_cast<QuantitySpinBox*>(w)) q->setTypedText(text);
    else if (auto* e = qobject_cast<QLineEdit*>(w)) e->setText(text);
    else if (auto* c = qobject_cast<QCheckBox*>(w)) c->setChecked(text == QLatin1String("true"));
    else if (auto* b = qobject_cast<QComboBox*>(w)) {
        if (b->isEditable()) b->setEditText(text);
        else if (b->findText(text) >= 0) b->setCurrentText(text);
    } else if (auto* pe = w->findChild<QLineEdit*>()) pe->setText(text);
}

// "" when the field's text is an accepted value for its key.
QString WorkloadPage::fieldProblem(std::size_t i) const {
    const WorkloadField& f = workloadFields()[i];
    if (auto* q = qobject_cast<QuantitySpinBox*>(editorByField_[i])) return q->error();
    if (f.kind == WorkloadField::Kind::Accelerator)
        return QString::fromStdString(key_ranges::acceleratorNameProblem(editorText(i).toStdString()));
    return {};
}

void WorkloadPage::readEditors() {
    const auto& fields = workloadFields();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (!fieldProblem(i).isEmpty()) continue; // keeps its last accepted value; the error says why
        QWidget* w = editorByField_[i];
        QVariant v;
        if (auto* q = qobject_cast<QuantitySpinBox*>(w))
            v = q->wholeValue() ? QVariant(static_cast<qulonglong>(*q->wholeValue())) : QVariant(q->value());
        else if (auto* c = qobject_cast<QCheckBox*>(w)) v = c->isChecked();
        else if (fields[i].kind == WorkloadField::Kind::Folder)
            v = isObjectLocation(fields[i].dlioKey, editorText(i)) ? editorText(i) : absoluteFolder(editorText(i));
        else v = editorText(i);
        fields[i].set(config_, v);
    }
}

void WorkloadPage::writeEditors() {
    updating_ = true;
    const auto& fields = workloadFields();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        QWidget* w = editorByField_[i];
        const QVariant v = fields[i].get(config_);
        if (auto* q = qobject_cast<QuantitySpinBox*>(w)) {
            if (v.typeId() == QMetaType::ULongLong) q->setWholeValue(v.toULongLong());
            else q->setValue(v.toDouble());
        }
        else if (auto* c = qobject_cast<QCheckBox*>(w)) c->setChecked(v.toBool());
        else if (auto* b = qobject_cast<QComboBox*>(w); b && !b->isEditable() && b->findText(v.toString()) < 0) {
            b->addItem(v.toString()); // a value the list does not offer (from a file) is shown, not replaced
            b->setCurrentText(v.toString());
        } else setEditorText(i, v.toString());
    }
    updating_ = false;
}

QString WorkloadPage::folderBase() const {
    if (!currentFile_.isEmpty()) return QFileInfo(currentFile_).absolutePath();
    return trainioDataFolder();
}

void WorkloadPage::storageKindSwitched(const StorageSection& before, const std::string& dataBefore,
                                       const std::string& checkpointBefore) {
    const StorageStash was{before, dataBefore, checkpointBefore};
    if (config_.storage.isS3()) {
        localStash_ = was;
        if (s3Stash_) {
            const std::string type = config_.storage.type;
            config_.storage = s3Stash_->storage;
            config_.storage.type = type;
            config_.dataset.dataFolder = s3Stash_->dataFolder;
            config_.checkpoint.folder = s3Stash_->checkpointFolder;
        } else {
            // A key prefix named after the local folder ("data/demo" → "demo"), not its absolute path.
            auto prefix = [](const std::string& local) {
                if (local.rfind("s3:/", 0) == 0) return local;
                const QString name = QFileInfo(QDir::cleanPath(QString::fromStdString(local))).fileName();
                return name.isEmpty() ? std::string("data") : name.toStdString();
            };
            config_.dataset.dataFolder = prefix(dataBefore);
            config_.checkpoint.folder = prefix(checkpointBefore);
        }
    } else {
        s3Stash_ = was;
        const std::string type = config_.storage.type;
        config_.storage = localStash_ ? localStash_->storage : StorageSection{};
        config_.storage.type = type;
        if (localStash_) {
            config_.dataset.dataFolder = localStash_->dataFolder;
            config_.checkpoint.folder = localStash_->checkpointFolder;
        } else {
            // Loaded as an S3 workload: the prefixes become folders below the workload's base.
            config_.dataset.dataFolder = absoluteFolder(QString::fromStdString(dataBefore)).toStdString();
            config_.checkpoint.folder = absoluteFolder(QString::fromStdString(checkpointBefore)).toStdString();
        }
    }
    writeEditors();
}

bool WorkloadPage::isObjectLocation(const QString& dlioKey, const QString& path) const {
    if (path.startsWith(QLatin1String("s3:/"))) return true;
    return config_.storage.isS3() &&
           (dlioKey == QLatin1String("dataset.data_folder") || dlioKey == QLatin1String("checkpoint.checkpoint_folder"));
}

WorkloadPage::~WorkloadPage() {
    if (connectionCheck_.joinable()) connectionCheck_.join(); // bounded: the probe gives up within seconds
}

void WorkloadPage::testS3Connection() {
    if (connectionCheck_.joinable()) return; // one at a time (joined when its answer arrives)
    testConnection_->setEnabled(false);
    connectionResult_->setText(tr("Testing…"));
    connectionResult_->setToolTip(QString());
    connectionCheck_ = std::thread([this, cfg = config_] {
        const S3ConnectionCheck r = checkS3Connection(cfg);
        QMetaObject::invokeMethod(
            this,
            [this, r] {
                if (connectionCheck_.joinable()) connectionCheck_.join();
                testConnection_->setEnabled(true);
                const QString text = QString::fromStdString(r.text);
                connectionResult_->setText((r.ok ? QStringLiteral("✔ ") : QStringLiteral("✖ ")) + text);
                connectionResult_->setToolTip(connectionResult_->text()); // whole, where the line elides it
                connectionResult_->setStyleSheet(r.ok ? QString() : QStringLiteral("QLabel { color: #c0392b; }"));
                emit connectionChecked(r.ok, text);
            },
            Qt::QueuedConnection);
    });
}

QString WorkloadPage::absoluteFolder(const QString& path) const {
    if (path.trimmed().isEmpty() || QDir::isAbsolutePath(path)) return path;
    return QDir::cleanPath(QDir(folderBase()).absoluteFilePath(path));
}

void WorkloadPage::setConfig(const WorkloadConfig& cfg, const QString& source) {
    // A configuration of another MLPerf round brings its round's semantics (a preset's trainio.mlperf_round),
    // resolved as the CLI does without --semantics; a choice made in the box afterwards wins, as --semantics
    // does, until a configuration of another round is loaded.
    const bool otherRound = cfg.trainio.mlperfRound != config_.trainio.mlperfRound;
    config_ = cfg;
    s3Stash_.reset(); // another workload: what a switch of the last one put aside is not this one's
    localStash_.reset();
    if (const int i = semantics_->findData(static_cast<int>(resolveSemantics(std::nullopt, cfg))); otherRound && i >= 0) {
        const QSignalBlocker quiet(semantics_);
        semantics_->setCurrentIndex(i);
    }
    // Relative folders (presets', a file's) stand for folders below the workload's own folder, whatever
    // folder TrainIO was started in: from here on they are absolute, and shown so.
    for (const WorkloadField& f : workloadFields())
        if (f.kind == WorkloadField::Kind::Folder && !isObjectLocation(f.dlioKey, f.get(config_).toString()))
            f.set(config_, absoluteFolder(f.get(config_).toString()));
    writeEditors();
    markLoaded(source);
    revalidate();
    emit configChanged();
}

void WorkloadPage::setDerivedConfig(const WorkloadConfig& cfg, const QString& source) {
    loadWarnings_.clear();
    currentFile_.clear();
    presetName_.clear();
    presetBox_->setCurrentIndex(0);
    setConfig(cfg, source);
    setModified(true); // in no file yet: quitting or loading another asks first
}

void WorkloadPage::addSidePane(QWidget* pane) {
    splitter_->addWidget(pane);
    splitter_->setStretchFactor(splitter_->indexOf(pane), 2);
}

void WorkloadPage::markLoaded(const QString& source) {
    clean_ = config_;
    source_ = source;
    sourceLabel_->setText(tr("Configuration: %1").arg(source));
    setModified(false);
}

void WorkloadPage::setModified(bool modified) {
    if (modified == modified_) return;
    modified_ = modified;
    sourceLabel_->setText(tr("Configuration: %1%2").arg(source_, modified ? tr(" (edited, not saved)") : QString()));
    emit modifiedChanged(modified);
}

void WorkloadPage::setAccelerators(std::uint64_t n) {
    if (acceleratorsDerived_) { // the user's value for when MPI is off again
        ownAccelerators_ = QString::number(n);
        return;
    }
    accelerators_->setValue(static_cast<double>(n));
    revalidate();
    emit configChanged();
}

void WorkloadPage::setDerivedAccelerators(bool derived, quint64 total) {
    if (derived && !acceleratorsDerived_) ownAccelerators_ = accelerators_->text();
    if (!derived && acceleratorsDerived_) accelerators_->setTypedText(ownAccelerators_);
    acceleratorsDerived_ = derived;
    if (derived && total > 0) accelerators_->setValue(static_cast<double>(total));
    accelerators_->setEnabled(!derived);
    accelerators_->setToolTip(derived ? tr("Set by the Run page's MPI group: hosts × processes per host × accelerators per process")
                                      : acceleratorsTip());
    revalidate();
    emit configChanged();
}

std::uint64_t WorkloadPage::accelerators() const { return static_cast<std::uint64_t>(accelerators_->value()); }

MetricSemantics WorkloadPage::semantics() const {
    return static_cast<MetricSemantics>(semantics_->currentData().toInt());
}

void WorkloadPage::revalidate() {
    fieldErrors_.clear();
    errors_.clear();
    // The fields first, in form order: what is typed and refused is the first thing to fix.
    auto refuse = [this](const QString& key, const QString& problem, const QString& typed) {
        fieldErrors_.insert(key, problem);
        errors_.push_back({key.toStdString(), typed.toStdString(), problem.toStdString()});
    };
    for (QuantitySpinBox* q : {accelerators_, clientRam_})
        if (!q->isAcceptable()) refuse(q->key(), q->error(), q->text());
    const auto& fields = workloadFields();
    for (std::size_t i = 0; i < fields.size(); ++i)
        if (const QString problem = fieldProblem(i); !problem.isEmpty()) refuse(fields[i].dlioKey, problem, editorText(i));
    for (auto& d : validateConfig(config_)) errors_.push_back(std::move(d));
    showDiagnostics();
    updateSizing();
}

void WorkloadPage::showDiagnostics() {
    diagnostics_->clear();
    for (QWidget* w : editorByField_) w->setStyleSheet({});
    for (QuantitySpinBox* q : {accelerators_, clientRam_}) q->setStyleSheet(q->isAcceptable() ? QString() : errorStyle());
    for (auto it = errorLabels_.cbegin(); it != errorLabels_.cend(); ++it) {
        QString problem = fieldErrors_.value(it.key());
        // Else core's verdict on the accepted value (validateConfig), e.g. a RAM tier with the plain loader,
        // from the key on: the file it names first is where the form's config was loaded from, not this field.
        for (const auto& d : errors_)
            if (problem.isEmpty() && QString::fromStdString(d.key) == it.key()) {
                problem = QString::fromStdString(d.message);
                problem = problem.mid(std::max<qsizetype>(0, problem.indexOf(it.key() + QStringLiteral(" = "))));
            }
        problem = problemFirst(problem, it.key());
        // No problem: the line says about how much a size in bytes is ("146600628 B": "≈ 139.8 MiB", issue 32
        // item 11).
        QString note;
        if (auto* q = qobject_cast<QuantitySpinBox*>(editors_.value(it.key())); q && problem.isEmpty()) note = q->approximateSize();
        it.value()->setStyleSheet(problem.isEmpty() ? QString() : QStringLiteral("QLabel { color: #c0392b; }"));
        it.value()->setText(problem.isEmpty() ? note : problem);
        it.value()->setToolTip(problem);
        it.value()->setVisible(!problem.isEmpty() || !note.isEmpty());
    }
    for (const auto& d : errors_) {
        auto* item = new QListWidgetItem(style()->standardIcon(QStyle::SP_MessageBoxCritical),
                                         QString::fromStdString(d.message), diagnostics_);
        item->setData(Qt::UserRole, QString::fromStdString(d.key));
        const QString key = QString::fromStdString(d.key);
        if (QWidget* w = editors_.value(key)) w->setStyleSheet(errorStyle());
        else // a section's key (trainio.ssd_tier): its fields
            for (auto e = editors_.cbegin(); e != editors_.cend(); ++e)
                if (e.key().startsWith(key + QLatin1Char('.'))) e.value()->setStyleSheet(errorStyle());
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
    // A refused field ("1.5" files) keeps its last accepted value in the config: sizing that value would
    // silently answer a question the user did not ask. Sizing waits for the field to be fixed.
    // Nor does the form move meanwhile (an error under a field must not shift it under the mouse): the
    // sizing keeps the height it had, and a hidden RAM warning its place.
    auto keepPlace = [this](bool keep) {
        QSizePolicy policy = ramWarning_->sizePolicy();
        policy.setRetainSizeWhenHidden(keep && (ramWarning_->isVisible() || policy.retainSizeWhenHidden()));
        ramWarning_->setSizePolicy(policy);
        if (keep && sizingLabel_->minimumHeight() == 0) sizingLabel_->setFixedHeight(sizingLabel_->height());
        if (!keep) {
            sizingLabel_->setMinimumHeight(0);
            sizingLabel_->setMaximumHeight(QWIDGETSIZE_MAX);
        }
    };
    if (!fieldErrors_.isEmpty()) {
        advice_ = SizingAdvice{};
        const auto first = std::find_if(errors_.begin(), errors_.end(), [this](const ConfigDiagnostic& d) {
            return fieldErrors_.contains(QString::fromStdString(d.key));
        });
        keepPlace(true);
        sizingLabel_->setText(tr("Not sized: %1 (the sizing is shown again once the field holds a valid value).")
                                  .arg(first != errors_.end() ? QString::fromStdString(first->message) : fieldErrors_.begin().value()));
        sizingLabel_->setToolTip(sizingLabel_->text());
        ramWarning_->hide();
        return;
    }
    keepPlace(false);
    sizingLabel_->setToolTip(QString());
    const double ram = clientRam_->value();
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
    // Only with trainio.cache keep, and no emulated device shaping the reads, can the page cache serve the
    // epochs; fadvise and drop evict it before each epoch, and the line says what that means for this run, as
    // information, not a warning (core's decision and words: util/page_cache_verdict.h). It follows the
    // storage profile picked (issue 32 item 11).
    const PageCacheVerdict cache = pageCacheBeforeRun(config_);
    const bool keep = cache.warning;
    ramWarning_->setStyleSheet(keep ? QStringLiteral("QLabel { color: white; background: #b03a2e; padding: 6px; border-radius: 3px; }")
                                    : QStringLiteral("QLabel { padding: 6px; border: 1px solid palette(mid); border-radius: 3px; }"));
    ramWarning_->setText(
        keep ? tr("⚠ The dataset (%1) fits in the client RAM (%2): the page cache can serve it, so AU and MiB/s will "
                  "describe memory, not the storage. Use at least %L3 files for a storage measurement.")
                   .arg(humanBytes(advice_.datasetBytes), humanBytes(advice_.clientRamBytes))
                   .arg(advice_.filesNeeded)
             : tr("The dataset (%1) fits in the client RAM (%2). %3 MLPerf Storage still asks for at least %L4 files.")
                   .arg(humanBytes(advice_.datasetBytes), humanBytes(advice_.clientRamBytes),
                        QString::fromStdString(cache.text))
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
    if (!fieldErrors_.isEmpty()) {
        // Saving would write the last accepted values, not what the form shows.
        emit notify(Severity::Error, tr("Not saved: %1").arg(fieldErrors_.begin().value()));
        return false;
    }
    QSaveFile file(path);
    const std::string yaml = toYaml(config_);
    if (!file.open(QIODevice::WriteOnly) || file.write(yaml.data(), static_cast<qint64>(yaml.size())) < 0 ||
        !file.commit()) {
        emit notify(Severity::Error, tr("Cannot save %1: %2").arg(path, file.errorString()));
        return false;
    }
    currentFile_ = path;
    presetName_.clear();
    markLoaded(path);
    emit notify(Severity::Info, tr("Saved %1.").arg(path));
    emit fileOpened(path);
    return true;
}

void WorkloadPage::requestPreset(const QString& name) {
    confirmDiscard(tr("loading preset %1").arg(name), [this, name] { loadPresetNamed(name); }, [this] {
        // The combo box already shows the new name: put back what the form holds.
        if (presetName_.isEmpty()) presetBox_->setCurrentIndex(0);
        else presetBox_->setCurrentText(presetName_);
    });
}

void WorkloadPage::requestOpenFile(const QString& path) {
    confirmDiscard(tr("opening %1").arg(QFileInfo(path).fileName()), [this, path] { openFile(path); });
}

void WorkloadPage::openWithDialog() {
    const QString path = openFileName(this, QStringLiteral("workload"), tr("Open workload"),
                                      currentFile_.isEmpty() ? QDir::homePath() : QFileInfo(currentFile_).path(),
                                      tr("DLIO workloads (*.yaml *.yml *.json);;All files (*)"));
    if (!path.isEmpty()) requestOpenFile(path);
}

void WorkloadPage::saveWithDialog() { saveWithDialogNow(); }

void WorkloadPage::saveAsWithDialog() { saveAsWithDialogNow(); }

bool WorkloadPage::saveWithDialogNow() {
    // A workload from a file is saved back to it; a new one (a preset, a trace's) asks where.
    return currentFile_.isEmpty() ? saveAsWithDialogNow() : saveFile(currentFile_);
}

bool WorkloadPage::saveAsWithDialogNow() {
    // Starts at the workload's own file, else in the folder last used; "name" typed is saved as name.yaml.
    const QString path = saveFileName(this, QStringLiteral("workload"), tr("Save workload"),
                                      currentFile_.isEmpty() ? QString::fromStdString(config_.model.name) + QStringLiteral(".yaml") : currentFile_,
                                      tr("DLIO workload (*.yaml)"), QStringLiteral("yaml"));
    return !path.isEmpty() && saveFile(path);
}

void WorkloadPage::confirmDiscard(const QString& what, std::function<void()> proceed, std::function<void()> cancelled) {
    if (!modified_) {
        proceed();
        return;
    }
    if (discardPrompt_) discardPrompt_->reject(); // one question at a time: the newer request wins
    auto* box = new QMessageBox(QMessageBox::Question, tr("Unsaved workload"),
                                tr("The workload has edits that are not saved. Save them before %1?").arg(what),
                                QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("discardPrompt"));
    box->setDefaultButton(QMessageBox::Save);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    discardPrompt_ = box;
    connect(box, &QMessageBox::finished, this, [this, box, proceed, cancelled] {
        if (discardPrompt_ == box) discardPrompt_ = nullptr;
        const QMessageBox::StandardButton answer = box->clickedButton() ? box->standardButton(box->clickedButton())
                                                                        : QMessageBox::Cancel;
        const bool saved = answer == QMessageBox::Save &&
                           (currentFile_.isEmpty() ? saveWithDialogNow() : saveFile(currentFile_));
        if (saved || answer == QMessageBox::Discard) proceed();
        else if (cancelled) cancelled();
    });
    box->open();
}

void WorkloadPage::revertEdits() {
    const QString source = source_;
    config_ = clean_;
    writeEditors();
    markLoaded(source);
    revalidate();
    emit configChanged();
}

ShrinkResult WorkloadPage::shrinkToFit(const MachineBudget& budget) {
    ShrinkResult r = trainio::shrinkToFit(config_, budget);
    if (r.changed) {
        config_ = r.config;
        writeEditors();
        revalidate();
        setModified(true);
        emit configChanged();
    }
    emit notify(r.fits ? Severity::Info : Severity::Warning, QString::fromStdString(r.summary));
    return r;
}

ShrinkResult WorkloadPage::shrinkToFitThisMachine() {
    return shrinkToFit(measureMachine(config_.dataset.dataFolder, accelerators()));
}

void WorkloadPage::saveSession(QSettings& s) const {
    QVariantMap fields;
    for (std::size_t i = 0; i < workloadFields().size(); ++i) fields.insert(workloadFields()[i].dlioKey, editorText(i));
    s.setValue(kFormFields, fields);
    // Keys the form does not show come from the configuration the form started from.
    s.setValue(kFormBase, QString::fromStdString(toYaml(clean_)));
    s.setValue(kFormSource, source_);
    s.setValue(kFormFile, currentFile_);
    s.setValue(kFormPreset, presetName_);
    s.setValue(kFormModified, modified_);
    s.setValue(kFormAccelerators, acceleratorsDerived_ ? ownAccelerators_ : accelerators_->text());
}

bool WorkloadPage::restoreSession(const QSettings& s) {
    if (!s.contains(kFormFields)) return false;
    WorkloadConfig base = dlioDefaultConfig();
    try {
        base = loadWorkloadConfigFromString(s.value(kFormBase).toString().toStdString(),
                                            s.value(kFormSource).toString().toStdString()).config;
    } catch (const std::exception& e) {
        emit notify(Severity::Warning, tr("The last session's workload could not be read back (%1); the form starts "
                                          "from DLIO's defaults.").arg(QString::fromUtf8(e.what())));
    }
    currentFile_ = s.value(kFormFile).toString();
    presetName_ = s.value(kFormPreset).toString();
    loadWarnings_.clear();
    setConfig(base, s.value(kFormSource).toString());
    if (!presetName_.isEmpty()) presetBox_->setCurrentText(presetName_);
    const QVariantMap fields = s.value(kFormFields).toMap();
    updating_ = true;
    for (std::size_t i = 0; i < workloadFields().size(); ++i) {
        const auto it = fields.constFind(workloadFields()[i].dlioKey);
        if (it != fields.constEnd()) setEditorText(i, it.value().toString());
    }
    updating_ = false;
    if (s.contains(kFormAccelerators)) {
        if (acceleratorsDerived_) ownAccelerators_ = s.value(kFormAccelerators).toString(); // shown when MPI is off
        else accelerators_->setTypedText(s.value(kFormAccelerators).toString());
    }
    readEditors();
    revalidate();
    setModified(s.value(kFormModified).toBool());
    emit configChanged();
    return true;
}

} // namespace trainio::ui
