// The workload form's habits (issue 8): numbers typed are read entirely or refused at the field with
// the key and the accepted range (never "1e99" → 199, "abc-12x" → 12, "-3" → 3); the accelerator type
// is checked as it is typed; the wheel changes no field that lacks the focus; the form comes back after
// a restart and unsaved edits are never replaced without asking; the first start offers the demo and a
// shrink to this machine; F1 opens the bundled documentation offline.
#include "config/config_keys.h"
#include "config/key_ranges.h"
#include "config/shrink_to_fit.h"
#include "io/s3_backend.h"
#include "widgets/file_dialogs.h"
#include "gui_test_support.h"
#include "testsupport.h"
#include "widgets/help_window.h"
#include "main_window.h"
#include "widgets/notification_panel.h"
#include "widgets/quantity_spin_box.h"
#include "workload/quick_start_dialog.h"
#include "run/run_page.h"
#include "widgets/wheel_guard.h"
#include "workload/workload_fields.h"
#include "workload/workload_page.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <sys/statvfs.h>
#include <QTest>
#include <QWheelEvent>

#include <unistd.h>

using namespace trainio::ui;
using Severity = NotificationPanel::Severity;

namespace {

void type(QWidget* field, const QString& text) {
    auto* edit = qobject_cast<QLineEdit*>(field);
    if (!edit) edit = field->findChild<QLineEdit*>();
    QVERIFY2(edit, qPrintable(field->objectName()));
    edit->selectAll();
    QTest::keyClicks(edit, text);
}

// Pastes over the whole text (Ctrl+A, Ctrl+V): no intermediate text is ever in the field. Typing key by
// key passes through prefixes, some of them accepted values ("1" of "1e99"), as a user's typing does.
void paste(QWidget* field, const QString& text) {
    auto* edit = qobject_cast<QLineEdit*>(field);
    if (!edit) edit = field->findChild<QLineEdit*>();
    QVERIFY2(edit, qPrintable(field->objectName()));
    QApplication::clipboard()->setText(text);
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_V, Qt::ControlModifier);
    QCOMPARE(edit->text(), text);
}

QuantitySpinBox* quantity(WorkloadPage* page, const char* key) {
    return qobject_cast<QuantitySpinBox*>(page->editorFor(QString::fromLatin1(key)));
}

QLabel* errorLabel(WorkloadPage* page, const char* key) {
    return page->findChild<QLabel*>(QString::fromLatin1(key) + QStringLiteral("/error"));
}

void wheel(QWidget* w, int clicks) {
    const QPointF centre(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent e(centre, w->mapToGlobal(centre), QPoint(), QPoint(0, 120 * clicks), Qt::NoButton, Qt::NoModifier,
                  Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

bool anyMessage(const MainWindow& w, Severity s, const QString& part) {
    for (const auto& e : w.notifications()->entries())
        if (e.severity == s && e.text.contains(part)) return true;
    return false;
}

QString readDoc(const QString& name) {
    QFile f(QStringLiteral(TRAINIO_SOURCE_DIR "/docs/") + name);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// The first "# " heading of a Markdown text.
QString heading(const QString& markdown) {
    for (const QString& line : markdown.split(QLatin1Char('\n')))
        if (line.startsWith(QLatin1String("# "))) return line.mid(2).trimmed();
    return {};
}

} // namespace

class TestWorkloadForm : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;
    QTemporaryDir work_;

private slots:
    void initTestCase() { uitest::isolateSettings(settingsDir_); }
    void init() { QSettings().clear(); }

    void everyNumericFieldIsStrict() {
        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        int numeric = 0;
        for (const WorkloadField& f : workloadFields()) {
            if (f.kind != WorkloadField::Kind::Quantity) continue;
            ++numeric;
            QVERIFY2(trainio::key_ranges::find(f.dlioKey.toStdString()), qPrintable(f.dlioKey));
            auto* q = qobject_cast<QuantitySpinBox*>(page->editorFor(f.dlioKey));
            QVERIFY2(q, qPrintable(f.dlioKey));
            type(q, QStringLiteral("abc-12x"));
            // Kept as typed (no character dropped), refused with the key named.
            QCOMPARE(q->text(), QStringLiteral("abc-12x"));
            QVERIFY2(q->error().startsWith(f.dlioKey + QStringLiteral(": 'abc-12x' is not a number")), qPrintable(q->error()));
        }
        QVERIFY(numeric >= 25);
        QVERIFY(!page->isValid());
    }

    // The form has no second list: each field's unit, choices and meaning are core's key table's
    // (config/config_keys.h), and the v3.0 checkpoint keys are edited like any other.
    void fieldsComeFromTheKeyTable() {
        for (const WorkloadField& f : workloadFields()) {
            const auto* k = trainio::config_keys::find(f.dlioKey.toStdString());
            QVERIFY2(k, qPrintable(f.dlioKey));
            // Choices: the profiles on disk (storage profiles; AWS credential profiles after "environment").
            if (f.dlioKey == QLatin1String("trainio.storage.profile")) continue;
            if (f.dlioKey == QLatin1String("storage.storage_options.profile")) {
                QCOMPARE(f.choices.value(0), QStringLiteral("environment"));
                continue;
            }
            QStringList choices;
            for (const auto& c : k->choices) choices << QString::fromStdString(c);
            if (!f.choices.isEmpty() && f.choices.first().isEmpty()) choices.prepend(QString());
            QCOMPARE(f.choices, choices);
            QVERIFY2(f.meaning.mid(1).startsWith(QString::fromStdString(k->meaning).mid(1)), qPrintable(f.dlioKey));
            if (f.kind != WorkloadField::Kind::Folder) QCOMPARE(f.unit, QString::fromStdString(k->unit));
        }

        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        page->setConfig(uitest::tinyWorkload(work_.filePath(QStringLiteral("ckpt")), 16, 1), QStringLiteral("test"));
        auto* type = qobject_cast<QComboBox*>(page->editorFor(QStringLiteral("checkpoint.type")));
        QVERIFY(type);
        QCOMPARE(type->count(), 2); // rank_zero, all_ranks: the table's values, nothing else
        type->setCurrentText(QStringLiteral("all_ranks"));
        QCOMPARE(page->config().checkpoint.type, std::string("all_ranks"));

        QuantitySpinBox* zero = quantity(page, "model.parallelism.zero_stage");
        QLabel* label = errorLabel(page, "model.parallelism.zero_stage");
        QVERIFY(zero && label);
        ::type(zero, QStringLiteral("4"));
        QCOMPARE(label->text(), QStringLiteral("'4' is not allowed: expected a whole number 0 … 3 (model.parallelism.zero_stage)"));
        QVERIFY(!page->isValid());
        ::type(zero, QStringLiteral("3"));
        QCOMPARE(page->config().model.parallelism.zeroStage, std::int64_t(3));
        // A negative value where DLIO's -1 means "unset".
        ::type(quantity(page, "model.num_layers"), QStringLiteral("-1"));
        QCOMPARE(page->config().model.numLayers, std::int64_t(-1));
        ::type(quantity(page, "model.num_layers"), QStringLiteral("80"));
        QCOMPARE(page->config().model.numLayers, std::int64_t(80));
        ::type(quantity(page, "trainio.checkpoint_scale"), QStringLiteral("0"));
        QVERIFY(errorLabel(page, "trainio.checkpoint_scale")->text().contains(QStringLiteral("expected a number > 0 and <= 1")));
        ::type(quantity(page, "trainio.checkpoint_scale"), QStringLiteral("0.25"));
        QCOMPARE(page->config().trainio.checkpointScale, 0.25);
        ::type(quantity(page, "model.model_size_bytes"), QStringLiteral("2 GiB"));
        QCOMPARE(page->config().checkpoint.modelSize, 2147483648.0);
        QCOMPARE(page->config().model.modelSizeBytes, 2147483648.0); // both fields that say it
        QVERIFY2(page->isValid(), page->errors().empty() ? "" : page->errors().front().message.c_str());
        // What the form holds loads back the same from the YAML it saves.
        const QString file = work_.filePath(QStringLiteral("ckpt.yaml"));
        QVERIFY(page->saveFile(file));
        const auto back = trainio::loadWorkloadConfig(file.toStdString()).config;
        QCOMPARE(back.checkpoint.type, std::string("all_ranks"));
        QCOMPARE(back.model.parallelism.zeroStage, std::int64_t(3));
        QCOMPARE(back.model.numLayers, std::int64_t(80));
        QCOMPARE(back.trainio.checkpointScale, 0.25);
    }

    // Issue 13: the loader policy and its tiers are on the form, written back to the config and the YAML,
    // and refused where core refuses them (a RAM tier with plain, an SSD tier without its folder, an SSD
    // tier with another policy than nopfs), with core's message under the field and the key named.
    void loaderPolicyAndTiers() {
        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        page->setConfig(uitest::tinyWorkload(work_.filePath(QStringLiteral("loader")), 16, 1), QStringLiteral("test"));
        QVERIFY2(page->isValid(), page->errors().empty() ? "" : page->errors().front().message.c_str());
        auto* policy = qobject_cast<QComboBox*>(page->editorFor(QStringLiteral("trainio.loader")));
        QVERIFY(policy);
        QCOMPARE(policy->currentText(), QStringLiteral("plain"));
        QStringList choices;
        for (int i = 0; i < policy->count(); ++i) choices << policy->itemText(i);
        QCOMPARE(choices, (QStringList{QStringLiteral("plain"), QStringLiteral("lru"), QStringLiteral("nopfs")}));
        auto hasError = [page](const char* key) {
            for (const auto& d : page->errors())
                if (d.key == key) return true;
            return false;
        };

        // A RAM tier with plain: core refuses it, naming the key, at the field and in the list.
        QLabel* ramError = errorLabel(page, "trainio.ram_tier_mib");
        QVERIFY(ramError);
        QVERIFY(!ramError->isVisibleTo(page));
        ::type(quantity(page, "trainio.ram_tier_mib"), QStringLiteral("64"));
        QCOMPARE(page->config().trainio.loader.ramTierMiB, 64.0);
        QVERIFY(!page->isValid());
        QVERIFY(hasError("trainio.ram_tier_mib"));
        QVERIFY2(ramError->text().startsWith(QStringLiteral("expected 0 with trainio.loader: plain")) &&
                     ramError->text().endsWith(QStringLiteral("(trainio.ram_tier_mib = 64)")),
                 qPrintable(ramError->text()));
        QVERIFY(ramError->isVisibleTo(page));
        QVERIFY(!page->editorFor(QStringLiteral("trainio.ram_tier_mib"))->styleSheet().isEmpty());

        policy->setCurrentText(QStringLiteral("nopfs"));
        QCOMPARE(page->config().trainio.loader.policy, std::string("nopfs"));
        QVERIFY2(page->isValid(), page->errors().empty() ? "" : page->errors().front().message.c_str());
        QVERIFY(!ramError->isVisibleTo(page));
        ::type(quantity(page, "trainio.staging_mib"), QStringLiteral("16"));
        QCOMPARE(page->config().trainio.loader.stagingMiB, 16.0);

        // An SSD tier's capacity without its folder, then the folder.
        ::type(quantity(page, "trainio.ssd_tier.capacity_mib"), QStringLiteral("128"));
        QCOMPARE(page->config().trainio.loader.ssdTier.capacityMiB, 128.0);
        QVERIFY(hasError("trainio.ssd_tier.path"));
        QVERIFY(!page->editorFor(QStringLiteral("trainio.ssd_tier.path"))->styleSheet().isEmpty());
        const QString ssd = work_.filePath(QStringLiteral("ssd-tier"));
        ::type(page->editorFor(QStringLiteral("trainio.ssd_tier.path")), ssd);
        QCOMPARE(page->config().trainio.loader.ssdTier.path, ssd.toStdString());
        QVERIFY2(page->isValid(), page->errors().empty() ? "" : page->errors().front().message.c_str());

        // What the form holds loads back the same from the YAML it saves.
        const QString file = work_.filePath(QStringLiteral("loader.yaml"));
        QVERIFY(page->saveFile(file));
        const auto back = trainio::loadWorkloadConfig(file.toStdString()).config;
        QCOMPARE(back.trainio.loader.policy, std::string("nopfs"));
        QCOMPARE(back.trainio.loader.ramTierMiB, 64.0);
        QCOMPARE(back.trainio.loader.stagingMiB, 16.0);
        QCOMPARE(back.trainio.loader.ssdTier.path, ssd.toStdString());
        QCOMPARE(back.trainio.loader.ssdTier.capacityMiB, 128.0);

        // lru keeps the RAM cache but has no staging buffer nor SSD tier: both refused, the SSD one by its
        // section's key, which marks both of its fields.
        policy->setCurrentText(QStringLiteral("lru"));
        QVERIFY(hasError("trainio.staging_mib"));
        QVERIFY(hasError("trainio.ssd_tier"));
        QVERIFY(!hasError("trainio.ram_tier_mib"));
        QVERIFY(errorLabel(page, "trainio.staging_mib")->text().contains(QStringLiteral("0 unless trainio.loader is nopfs")));
        QVERIFY(!page->editorFor(QStringLiteral("trainio.ssd_tier.path"))->styleSheet().isEmpty());
        QVERIFY(!page->editorFor(QStringLiteral("trainio.ssd_tier.capacity_mib"))->styleSheet().isEmpty());
        QVERIFY(!w.runPage()->startInvocation());
    }

    void absurdNumbersAreErrorsAtTheField() {
        MainWindow w;
        w.show();
        WorkloadPage* page = w.workloadPage();
        // Data in the temporary folder: were the refusal to generate broken, nothing lands elsewhere.
        page->setConfig(uitest::tinyWorkload(work_.filePath(QStringLiteral("absurd")), 16, 5), QStringLiteral("test"));
        QCOMPARE(page->config().train.epochs, 5ull);
        QuantitySpinBox* epochs = quantity(page, "train.epochs");
        QLabel* label = errorLabel(page, "train.epochs");
        QVERIFY(epochs && label);
        QVERIFY(!label->isVisible());

        type(epochs, QStringLiteral("-3"));
        // Issue 32 item 11: the line leads with the problem; the key it is about comes last.
        QCOMPARE(label->text(), QStringLiteral("'-3' is not allowed: expected a whole number 1 … 1000000 (train.epochs)"));
        QVERIFY(label->isVisible());
        QCOMPARE(page->config().train.epochs, 5ull); // the last accepted value, not 3
        QVERIFY(!page->isValid());
        auto* list = page->findChild<QListWidget*>(QStringLiteral("diagnostics"));
        // The list of every problem names the key first (it is not beside its field).
        QCOMPARE(list->item(0)->text(), QStringLiteral("train.epochs: '-3' is not allowed: expected a whole number 1 … 1000000"));

        paste(epochs, QStringLiteral("1e99"));
        QVERIFY(label->text().contains(QStringLiteral("'1e99' is not allowed")));
        type(epochs, QStringLiteral("abc-12x"));
        QVERIFY(label->text().contains(QStringLiteral("'abc-12x' is not a number")));
        QCOMPARE(page->config().train.epochs, 5ull);
        // Enter and leaving the field keep the text as typed (QSpinBox reverted it silently).
        QTest::keyClick(epochs->findChild<QLineEdit*>(), Qt::Key_Return);
        QFocusEvent out(QEvent::FocusOut, Qt::TabFocusReason);
        QApplication::sendEvent(epochs, &out);
        QCOMPARE(epochs->text(), QStringLiteral("abc-12x"));
        QVERIFY(!epochs->isAcceptable());

        // The run refuses to start while a field is in error, and so does saving.
        QVERIFY(!w.runPage()->startInvocation());
        QVERIFY(!w.runPage()->isRunning());
        QVERIFY(anyMessage(w, Severity::Error, QStringLiteral("has errors")));
        QVERIFY(!page->saveFile(work_.filePath(QStringLiteral("never.yaml"))));
        QVERIFY(!QFile::exists(work_.filePath(QStringLiteral("never.yaml"))));
        w.action(QStringLiteral("generateData"))->trigger();
        QVERIFY(anyMessage(w, Severity::Error, QStringLiteral("Fix the workload first: train.epochs")));

        type(epochs, QStringLiteral("12"));
        QCOMPARE(page->config().train.epochs, 12ull);
        QVERIFY(!label->isVisible());
        QVERIFY(page->isValid());
    }

    void unitsAreReadWhole() {
        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        QVERIFY(page->loadPresetNamed(QStringLiteral("unet3d_h100")));
        type(quantity(page, "reader.transfer_size"), QStringLiteral("4 MiB"));
        QCOMPARE(page->config().reader.transferSize, 4194304ull);
        type(quantity(page, "reader.transfer_size"), QStringLiteral("128 kib"));
        QCOMPARE(page->config().reader.transferSize, 131072ull);
        type(quantity(page, "dataset.record_length_bytes"), QStringLiteral("1.5 GB"));
        QCOMPARE(page->config().dataset.recordLength, 1.5e9);
        type(quantity(page, "train.computation_time"), QStringLiteral("150 ms"));
        QCOMPARE(page->config().train.computationTime.mean, 0.15);
        type(quantity(page, "train.computation_time"), QStringLiteral("300 us"));
        QCOMPARE(page->config().train.computationTime.mean, 0.0003);
        type(quantity(page, "metric.au"), QStringLiteral("85 %"));
        QCOMPARE(page->config().metric.au, 0.85);
        QVERIFY(page->isValid());
        // A unit the key does not take, or one TrainIO does not know, is refused, not dropped.
        type(quantity(page, "reader.batch_size"), QStringLiteral("7 MiB"));
        QVERIFY(quantity(page, "reader.batch_size")->error().contains(QStringLiteral("unexpected 'MiB'")));
        QCOMPARE(page->config().reader.batchSize, 7ull);
        paste(quantity(page, "reader.transfer_size"), QStringLiteral("4 MB/s"));
        QVERIFY(quantity(page, "reader.transfer_size")->error().contains(QStringLiteral("unknown unit")));
        QCOMPARE(page->config().reader.transferSize, 131072ull);
        // Whole numbers are exact all the way through, also beyond a double's 2^53.
        paste(quantity(page, "train.seed"), QStringLiteral("18446744073709551615"));
        QCOMPARE(page->config().train.seed, UINT64_MAX);
        trainio::WorkloadConfig big = page->config();
        big.train.seed = 9007199254740993ull; // 2^53 + 1
        page->setConfig(big, QStringLiteral("test"));
        QCOMPARE(quantity(page, "train.seed")->text(), QStringLiteral("9007199254740993"));
        type(quantity(page, "train.epochs"), QStringLiteral("2"));
        QCOMPARE(page->config().train.seed, 9007199254740993ull);
        // The accelerator count too: "-3" is not 3.
        type(page->editorFor(QStringLiteral("accelerators")), QStringLiteral("-3"));
        QVERIFY(page->fieldErrors().value(QStringLiteral("accelerators")).contains(QStringLiteral("is not allowed")));
        QCOMPARE(page->accelerators(), 1ull);
    }

    void acceleratorTypeIsCheckedAsTyped() {
        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        QVERIFY(page->loadPresetNamed(QStringLiteral("unet3d_h100")));
        QCOMPARE(page->config().accelerator, std::string("h100"));
        auto* box = qobject_cast<QComboBox*>(page->editorFor(QStringLiteral("accelerator")));
        QVERIFY(box && box->isEditable());
        // The list is the key table's (config_keys::acceleratorNames, which the loader recognises in labels):
        // MLPerf Storage v3.0's b200 and mi355 among them.
        for (const char* name : {"a100", "h100", "b200", "mi355"}) QVERIFY2(box->findText(QString::fromLatin1(name)) >= 0, name);
        QCOMPARE(box->count(), int(trainio::config_keys::acceleratorNames().size()));
        for (const auto& name : trainio::config_keys::acceleratorNames())
            QVERIFY2(box->findText(QString::fromStdString(name)) >= 0, name.c_str());
        QLabel* label = errorLabel(page, "accelerator");
        QVERIFY(label);
        const std::pair<const char*, const char*> bad[] = {{"h100_sxm", "'_'"}, {"H100", "upper-case"}, {"h 100", "blank"}};
        for (const auto& [typed, why] : bad) {
            paste(box, QString::fromLatin1(typed));
            QCOMPARE(box->currentText(), QString::fromLatin1(typed));
            QVERIFY2(label->text().contains(QString::fromLatin1(why)), qPrintable(label->text()));
            QVERIFY(!label->isHidden());
            QVERIFY(!page->isValid());
            QCOMPARE(page->config().accelerator, std::string("h100"));
        }
        type(box, QStringLiteral("mi300x"));
        QVERIFY(page->isValid());
        QVERIFY(label->isHidden());
        QCOMPARE(page->config().accelerator, std::string("mi300x"));
        // It becomes the second half of MLPerf's workload label.
        QVERIFY(QString::fromStdString(trainio::overridesYaml(page->config())).contains(QStringLiteral("workload=unet3d_mi300x")));
    }

    void wheelLeavesUnfocusedFieldsAlone() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(WheelGuard::isInstalled());
        WorkloadPage* page = w.workloadPage();
        QVERIFY(page->loadPresetNamed(QStringLiteral("unet3d_h100")));
        QuantitySpinBox* batch = quantity(page, "reader.batch_size");
        auto* format = qobject_cast<QComboBox*>(page->editorFor(QStringLiteral("dataset.format")));
        QVERIFY(batch && format);
        // A spin box on another page (not part of the form): the guard covers the whole application.
        auto* runs = w.runPage()->findChild<QSpinBox*>();
        QVERIFY(runs);
        // Polished fields no longer take the focus from the wheel itself.
        QCOMPARE(batch->focusPolicy(), Qt::StrongFocus);
        QCOMPARE(format->focusPolicy(), Qt::StrongFocus);

        const QString formatBefore = format->currentText();
        const int runsBefore = runs->value();
        QVERIFY(!batch->hasFocus() && !format->hasFocus() && !runs->hasFocus());
        wheel(batch, 3);
        wheel(format, -2);
        wheel(runs, 2);
        QCOMPARE(batch->value(), 7.0);
        QCOMPARE(batch->text(), QStringLiteral("7"));
        QCOMPARE(format->currentText(), formatBefore);
        QCOMPARE(runs->value(), runsBefore);
        QCOMPARE(page->config().reader.batchSize, 7ull);
        QVERIFY(!page->isModified());

        // Focused, the wheel steps as usual (the guard does not just swallow every wheel).
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        batch->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(batch->hasFocus(), testsupport::kHangMs);
        wheel(batch, 1);
        QCOMPARE(batch->value(), 8.0);
        QCOMPARE(page->config().reader.batchSize, 8ull);
    }

    // Issue 32 item 11: Ctrl+S saves a workload back to its file (no dialog); a name typed without ".yaml"
    // is saved as name.yaml; Save as (Ctrl+Shift+S) onto an existing file asks, and Enter — the default
    // button — replaces it, the action the user chose.
    void ctrlSSavesBackAndSaveAsAddsYamlAndReplaces() {
        MainWindow w;
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        WorkloadPage* page = w.workloadPage();
        QVERIFY(page->loadPresetNamed(QStringLiteral("resnet50_a100")));
        QTemporaryDir dir;
        int asked = 0;
        setFileDialogHook([&](const QString&, const QString&) {
            ++asked;
            return dir.filePath(QStringLiteral("mine")); // typed without .yaml
        });
        QTest::keyClick(&w, Qt::Key_S, Qt::ControlModifier); // a preset: no file yet, so it asks
        QCOMPARE(asked, 1);
        const QString yaml = dir.filePath(QStringLiteral("mine.yaml"));
        QVERIFY(QFileInfo::exists(yaml));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("mine"))));
        QCOMPARE(page->currentFile(), yaml);

        type(quantity(page, "reader.read_threads"), QStringLiteral("6"));
        QVERIFY(page->isModified());
        QTest::keyClick(&w, Qt::Key_S, Qt::ControlModifier); // back to its file, no question
        QCOMPARE(asked, 1);
        QVERIFY(!page->isModified());
        QCOMPARE(trainio::loadWorkloadConfig(yaml.toStdString()).config.reader.readThreads, 6ull);

        // Save as, with the real dialog: "mine" typed onto mine.yaml, then Enter on the question.
        setFileDialogHook({});
        type(quantity(page, "reader.read_threads"), QStringLiteral("3"));
        QString question, defaultButton;
        bool typed = false;
        QTimer driver;
        driver.setInterval(50);
        connect(&driver, &QTimer::timeout, this, [&] {
            QWidget* modal = nullptr; // the visible dialog (another suite's window may hold the focus)
            for (QWidget* top : QApplication::topLevelWidgets())
                if (top->isVisible() && (qobject_cast<QFileDialog*>(top) || top->objectName() == QStringLiteral("replaceQuestion"))) modal = top;
            if (auto* dialog = qobject_cast<QFileDialog*>(modal); dialog && !typed) {
                auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
                if (!name) return;
                typed = true;
                name->selectAll();
                QTest::keyClicks(name, dir.filePath(QStringLiteral("mine")));
                QTest::keyClick(name, Qt::Key_Return);
            } else if (dialog) {
                // Still open: on a loaded machine the name's completer popped up and took the Return (and put
                // "mine.yaml" in the field); the user presses it again.
                if (auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"))) QTest::keyClick(name, Qt::Key_Return);
            } else if (auto* box = qobject_cast<QMessageBox*>(modal)) {
                question = box->text();
                defaultButton = box->defaultButton() ? box->defaultButton()->text() : QString();
                QTest::keyClick(box, Qt::Key_Return);
            }
        });
        driver.start();
        QTest::keyClick(&w, Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier);
        driver.stop();
        QVERIFY(typed);
        QVERIFY2(question.contains(QStringLiteral("mine.yaml already exists")), qPrintable(question));
        QCOMPARE(defaultButton, QStringLiteral("Replace"));
        QCOMPARE(trainio::loadWorkloadConfig(yaml.toStdString()).config.reader.readThreads, 3ull);
        QVERIFY(!page->isModified());
    }

    void unsavedEditsAreNotReplacedWithoutAsking() {
        MainWindow w;
        w.show();
        WorkloadPage* page = w.workloadPage();
        const QString path = work_.filePath(QStringLiteral("edited.yaml"));
        QVERIFY(page->loadPresetNamed(QStringLiteral("resnet50_a100")));
        QVERIFY(page->saveFile(path));
        QVERIFY(!page->isModified());
        // No edits: loading goes ahead without a question.
        page->requestPreset(QStringLiteral("unet3d_h100"));
        QVERIFY(!page->pendingDiscardPrompt());
        QCOMPARE(page->config().model.name, std::string("unet3d"));
        QVERIFY(page->openFile(path));

        type(quantity(page, "reader.read_threads"), QStringLiteral("6"));
        QVERIFY(page->isModified());
        // Cancel: nothing changes.
        page->requestPreset(QStringLiteral("demo"));
        QMessageBox* box = page->pendingDiscardPrompt();
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QCOMPARE(page->config().model.name, std::string("resnet50"));
        QTest::mouseClick(box->button(QMessageBox::Cancel), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!page->pendingDiscardPrompt(), testsupport::kHangMs);
        QCOMPARE(page->config().model.name, std::string("resnet50"));
        QCOMPARE(page->config().reader.readThreads, 6ull);
        QVERIFY(page->isModified());

        // Save: the edit goes to the file it came from, then the preset loads.
        page->requestPreset(QStringLiteral("demo"));
        QVERIFY(page->pendingDiscardPrompt());
        QTest::mouseClick(page->pendingDiscardPrompt()->button(QMessageBox::Save), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(page->config().model.name, std::string("demo"), testsupport::kHangMs);
        QCOMPARE(trainio::loadWorkloadConfig(path.toStdString()).config.reader.readThreads, 6ull);

        // Discard: the edit is gone, the file keeps what it had.
        QVERIFY(page->openFile(path));
        type(quantity(page, "reader.read_threads"), QStringLiteral("2"));
        page->requestOpenFile(path);
        QVERIFY(page->pendingDiscardPrompt());
        QTest::mouseClick(page->pendingDiscardPrompt()->button(QMessageBox::Discard), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isModified(), testsupport::kHangMs);
        QCOMPARE(page->config().reader.readThreads, 6ull);
    }

    // A relative folder means the same folder whatever folder TrainIO was started in: below the workload
    // file's folder (a preset's: below TrainIO's data folder), and the form shows it absolute.
    void relativeFoldersAreResolvedAgainstTheWorkloadFile() {
        QTemporaryDir elsewhere; // the folder TrainIO "was started in"
        QVERIFY(elsewhere.isValid());
        const QString startedIn = QDir::currentPath();
        QVERIFY(QDir::setCurrent(elsewhere.path()));
        struct Back {
            QString dir;
            ~Back() { QDir::setCurrent(dir); }
        } back{startedIn};

        const QString fileDir = work_.filePath(QStringLiteral("project"));
        QVERIFY(QDir().mkpath(fileDir));
        trainio::WorkloadConfig cfg = trainio::loadPreset("demo").config;
        cfg.dataset.dataFolder = "data/mine/";
        cfg.checkpoint.folder = "ckpt";
        const QString yaml = QDir(fileDir).filePath(QStringLiteral("relative.yaml"));
        {
            QFile f(yaml);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(trainio::toYaml(cfg)));
        }
        MainWindow w;
        w.show();
        WorkloadPage* page = w.workloadPage();
        QVERIFY(page->openFile(yaml));
        const QString data = QDir(fileDir).filePath(QStringLiteral("data/mine"));
        QCOMPARE(QString::fromStdString(page->config().dataset.dataFolder), data);
        QCOMPARE(QString::fromStdString(page->config().checkpoint.folder), QDir(fileDir).filePath(QStringLiteral("ckpt")));
        auto* dataEdit = page->editorFor(QStringLiteral("dataset.data_folder"))->findChild<QLineEdit*>();
        QVERIFY(dataEdit);
        QCOMPARE(dataEdit->text(), data);
        QVERIFY(!page->isModified()); // resolving is not an edit

        // Typed relative: the configuration has the absolute folder at once, the field once typing ends.
        type(dataEdit, QStringLiteral("typed"));
        const QString typed = QDir(fileDir).filePath(QStringLiteral("typed"));
        QCOMPARE(QString::fromStdString(page->config().dataset.dataFolder), typed);
        QTest::keyClick(dataEdit, Qt::Key_Return);
        QCOMPARE(dataEdit->text(), typed);

        // A preset's relative folder: below TrainIO's data folder, not below the folder it was started in.
        QVERIFY(page->loadPresetNamed(QStringLiteral("demo")));
        const QString appData = trainioDataFolder();
        QCOMPARE(QString::fromStdString(page->config().dataset.dataFolder), QDir(appData).filePath(QStringLiteral("data/demo")));
        QVERIFY(!dataEdit->text().startsWith(elsewhere.path()));
    }

    // Issue 32 item 3, driven as a user: a preset switched to S3 gets a key prefix named after its data
    // folder (not the local absolute path as a key), TrainIO's data folder holds the application's name
    // once, and switched back to the local file system the workload gets its folders back and saves no
    // bucket; switched to S3 again, the bucket typed before is back.
    void s3SwitchKeepsLocalPathsOutOfKeysAndTheBucketOutOfLocalYaml() {
        MainWindow w;
        w.show();
        WorkloadPage* page = w.workloadPage();
        QVERIFY(page->loadPresetNamed(QStringLiteral("demo")));
        const QString app = QCoreApplication::applicationName();
        QVERIFY2(!trainioDataFolder().contains(app + QLatin1Char('/') + app), qPrintable(trainioDataFolder()));
        QVERIFY2(trainioDataFolder().endsWith(QLatin1Char('/') + app), qPrintable(trainioDataFolder()));
        const std::string local = page->config().dataset.dataFolder;
        const std::string localCheckpoints = page->config().checkpoint.folder;
        QCOMPARE(QString::fromStdString(local), QDir(trainioDataFolder()).filePath(QStringLiteral("data/demo")));

        auto* type = qobject_cast<QComboBox*>(page->editorFor(QStringLiteral("storage.storage_type")));
        QVERIFY(type);
        type->setCurrentText(QStringLiteral("s3"));
        auto* bucket = page->editorFor(QStringLiteral("storage.storage_root"))->findChild<QLineEdit*>();
        if (!bucket) bucket = qobject_cast<QLineEdit*>(page->editorFor(QStringLiteral("storage.storage_root")));
        QVERIFY(bucket);
        bucket->selectAll();
        QTest::keyClicks(bucket, QStringLiteral("demo-bucket"));
        QTest::keyClick(bucket, Qt::Key_Tab);
        QVERIFY(page->config().storage.isS3());
        QCOMPARE(page->config().storage.root, std::string("demo-bucket"));
        auto* dataEdit = page->editorFor(QStringLiteral("dataset.data_folder"))->findChild<QLineEdit*>();
        QVERIFY(dataEdit);
        QCOMPARE(dataEdit->text(), QStringLiteral("demo"));
        QCOMPARE(page->config().dataset.dataFolder, std::string("demo"));
        const QString where = QString::fromStdString(trainio::s3DatasetLocation(page->config()));
        QVERIFY2(where.startsWith(QStringLiteral("s3://demo-bucket/demo at ")), qPrintable(where));
        QVERIFY2(!where.contains(QDir::homePath()) && !where.contains(QStringLiteral(".local")), qPrintable(where));

        type->setCurrentText(QStringLiteral("local_fs"));
        QCOMPARE(page->config().storage.type, std::string("local_fs"));
        QCOMPARE(page->config().storage.root, std::string());
        QCOMPARE(page->config().dataset.dataFolder, local);
        QCOMPARE(page->config().checkpoint.folder, localCheckpoints);
        QCOMPARE(dataEdit->text(), QString::fromStdString(local));
        const QString file = work_.filePath(QStringLiteral("back-to-local.yaml"));
        QVERIFY(page->saveFile(file));
        const std::string yaml = testsupport::readText(file.toStdString());
        QVERIFY2(yaml.find("demo-bucket") == std::string::npos && yaml.find("s3") == std::string::npos, yaml.c_str());

        type->setCurrentText(QStringLiteral("s3"));
        QCOMPARE(page->config().storage.root, std::string("demo-bucket"));
        QCOMPARE(page->config().dataset.dataFolder, std::string("demo"));
    }

    void quittingAsksAndDiscardIsNotRestored() {
        {
            MainWindow w;
            w.show();
            WorkloadPage* page = w.workloadPage();
            QVERIFY(page->loadPresetNamed(QStringLiteral("unet3d_h100")));
            type(quantity(page, "train.epochs"), QStringLiteral("9"));
            QVERIFY(!w.close()); // asks first
            QVERIFY(w.isVisible());
            QVERIFY(page->pendingDiscardPrompt());
            QTest::mouseClick(page->pendingDiscardPrompt()->button(QMessageBox::Discard), Qt::LeftButton);
            QTRY_VERIFY_WITH_TIMEOUT(!w.isVisible(), testsupport::kHangMs);
        }
        MainWindow next;
        next.restoreSession();
        QCOMPARE(next.workloadPage()->config().model.name, std::string("unet3d"));
        QCOMPARE(next.workloadPage()->config().train.epochs, 5ull);
        QVERIFY(!next.workloadPage()->isModified());
    }

    // A preset carries its round's semantics (trainio.mlperf_round, as trainio-cli resolves it without
    // --semantics): v1.0 → DLIO v1, v3.0 → MLPerf v3.0, no round → DLIO v2; a choice made in the box wins
    // until a configuration of another round is loaded. The rounds are the presets' documented ones.
    void presetBringsItsRoundsSemantics() {
        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        auto* box = page->findChild<QComboBox*>(QStringLiteral("semanticsBox"));
        QVERIFY(box);
        QVERIFY(page->loadPresetNamed(QStringLiteral("retinanet_b200"))); // v3.0
        QCOMPARE(page->semantics(), trainio::MetricSemantics::DlioV3);
        QVERIFY(page->loadPresetNamed(QStringLiteral("resnet50_h100"))); // v1.0
        QCOMPARE(page->semantics(), trainio::MetricSemantics::DlioV1);
        QVERIFY(page->loadPresetNamed(QStringLiteral("demo"))); // no round
        QCOMPARE(page->semantics(), trainio::MetricSemantics::DlioV2);
        QVERIFY(page->loadPresetNamed(QStringLiteral("unet3d_b200"))); // v3.0
        QCOMPARE(page->semantics(), trainio::MetricSemantics::DlioV3);
        // The user's choice wins, also over a configuration of the same round.
        box->setCurrentIndex(box->findData(static_cast<int>(trainio::MetricSemantics::DlioV2)));
        QCOMPARE(page->semantics(), trainio::MetricSemantics::DlioV2);
        QVERIFY(page->loadPresetNamed(QStringLiteral("flux_h100"))); // v3.0 as well
        QCOMPARE(page->semantics(), trainio::MetricSemantics::DlioV2);
    }

    void formIsRestoredAfterARestart() {
        {
            MainWindow w;
            w.restoreSession();
            WorkloadPage* page = w.workloadPage();
            QVERIFY(page->loadPresetNamed(QStringLiteral("cosmoflow_h100")));
            type(quantity(page, "reader.read_threads"), QStringLiteral("3"));
            type(quantity(page, "reader.transfer_size"), QStringLiteral("1 MiB"));
            type(quantity(page, "train.epochs"), QStringLiteral("abc")); // left in error
            type(page->editorFor(QStringLiteral("accelerators")), QStringLiteral("4"));
            // The form reaches the settings shortly after the edit, without closing: a crash keeps it.
            QTRY_VERIFY_WITH_TIMEOUT(QSettings().value(QStringLiteral("workload/form/fields")).toMap()
                                         .value(QStringLiteral("train.epochs")).toString() == QLatin1String("abc"), testsupport::kHangMs);
        } // destroyed without close(): as after a crash
        MainWindow next;
        next.restoreSession();
        WorkloadPage* page = next.workloadPage();
        QCOMPARE(page->config().model.name, std::string("cosmoflow"));
        QCOMPARE(page->config().reader.readThreads, 3ull);
        QCOMPARE(page->config().reader.transferSize, 1048576ull);
        QCOMPARE(page->accelerators(), 4ull);
        QCOMPARE(quantity(page, "train.epochs")->text(), QStringLiteral("abc"));
        QVERIFY(page->fieldErrors().contains(QStringLiteral("train.epochs")));
        QVERIFY(page->isModified());
        QCOMPARE(page->presetName(), QStringLiteral("cosmoflow_h100"));
    }

    void firstStartOffersTheQuickStart() {
        MainWindow w;
        w.show();
        w.restoreSession();
        QTRY_VERIFY_WITH_TIMEOUT(w.quickStart() && w.quickStart()->isVisible(), testsupport::kHangMs);
        QuickStartDialog* quick = w.quickStart();
        QTest::mouseClick(quick->demoButton(), Qt::LeftButton);
        QCOMPARE(w.workloadPage()->config().model.name, std::string("demo"));

        QVERIFY(w.workloadPage()->loadPresetNamed(QStringLiteral("unet3d_h100")));
        const trainio::WorkloadConfig before = w.workloadPage()->config();
        QTest::mouseClick(quick->shrinkButton(), Qt::LeftButton);
        const trainio::WorkloadConfig& after = w.workloadPage()->config();
        QVERIFY(!quick->outcome().isEmpty());
        // The shape stays; the dataset fits this machine by the rules, checked here independently.
        QCOMPARE(after.dataset.format, before.dataset.format);
        QCOMPARE(after.reader.batchSize, before.reader.batchSize);
        QCOMPARE(after.reader.readThreads, before.reader.readThreads);
        QCOMPARE(after.train.computationTime.mean, before.train.computationTime.mean);
        QVERIFY(after.dataset.numFilesTrain <= before.dataset.numFilesTrain);
        QVERIFY(after.dataset.numFilesTrain * after.dataset.numSamplesPerFile >= after.reader.batchSize * w.workloadPage()->accelerators());
        const double bytes = static_cast<double>(after.dataset.numFilesTrain) * after.dataset.recordLength;
        const double ram = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
        QVERIFY2(bytes <= 0.25 * ram, qPrintable(QString::number(bytes)));
        // The folder's own free space (statvfs, as df asks): a mount-table lookup finds none in a chroot.
        struct statvfs disk {};
        QCOMPARE(::statvfs(".", &disk), 0);
        const double available = static_cast<double>(disk.f_bavail) * static_cast<double>(disk.f_frsize);
        QVERIFY(bytes <= 0.5 * available + 1e6 * static_cast<double>(after.dataset.numFilesTrain));
        QVERIFY(w.workloadPage()->isModified());
        QVERIFY(w.workloadPage()->editorFor(QStringLiteral("dataset.num_files_train"))->findChild<QLineEdit*>()->text() ==
                QString::number(after.dataset.numFilesTrain));

        // The menu action does the same; a second start does not offer the quick start again.
        QVERIFY(w.action(QStringLiteral("shrinkToFit")));
        MainWindow second;
        second.restoreSession();
        QCoreApplication::processEvents(); // the first start's dialog would open here
        QVERIFY(!second.quickStart());
    }

    void shrinkKeepsTheFormConsistent() {
        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        QVERIFY(page->loadPresetNamed(QStringLiteral("demo")));
        trainio::MachineBudget b;
        b.freeBytes = 1e12;
        b.ramBytes = 64.0 * 1024 * 1024 * 4; // a quarter is 64 MiB: 2 MiB samples + 4 KiB → 31 files
        b.accelerators = 1;
        const trainio::ShrinkResult r = page->shrinkToFit(b);
        QVERIFY(r.changed);
        QCOMPARE(page->config().dataset.numFilesTrain, 31ull);
        QCOMPARE(quantity(page, "dataset.num_files_train")->text(), QStringLiteral("31"));
        QCOMPARE(quantity(page, "dataset.record_length_bytes")->text(), QStringLiteral("2 MiB"));
        QVERIFY(page->isModified());
        QVERIFY(page->isValid());
    }

    void f1OpensTheBundledDocumentation() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!w.helpWindow());
        QTest::keyClick(&w, Qt::Key_F1);
        HelpWindow* help = w.helpWindow();
        QVERIFY(help);
        QVERIFY(help->isVisible());
        DocBrowser* browser = help->browser();
        QVERIFY(browser->source().toString().endsWith(QLatin1String("user-guide.md")));
        const QString guide = readDoc(QStringLiteral("user-guide.md"));
        QVERIFY(!guide.isEmpty());
        QVERIFY(browser->toPlainText().contains(heading(guide)));
        QVERIFY(w.action(QStringLiteral("userGuide"))->shortcuts().contains(QKeySequence(Qt::Key_F1)));

        // Every document of docs/ is bundled, the user guide first.
        const QStringList onDisk = QDir(QStringLiteral(TRAINIO_SOURCE_DIR "/docs")).entryList({QStringLiteral("*.md")}, QDir::Files);
        QCOMPARE(HelpWindow::bundledDocuments().size(), onDisk.size());
        QCOMPARE(HelpWindow::bundledDocuments().first(), QStringLiteral("user-guide.md"));
        QCOMPARE(help->contents()->count(), onDisk.size());

        // A relative link to another document opens it in place; back returns.
        QVERIFY(browser->follow(QUrl(QStringLiteral("metrics.md"))));
        QVERIFY(browser->source().toString().endsWith(QLatin1String("metrics.md")));
        QVERIFY(browser->toPlainText().contains(heading(readDoc(QStringLiteral("metrics.md")))));
        browser->backward();
        QVERIFY(browser->source().toString().endsWith(QLatin1String("user-guide.md")));
        // A link out of the bundle is explained, and the page stays.
        QVERIFY(!browser->follow(QUrl(QStringLiteral("../README.md"))));
        QVERIFY(browser->problem().contains(QStringLiteral("README.md")));
        QVERIFY(browser->source().toString().endsWith(QLatin1String("user-guide.md")));
        // The screenshots are there, scaled to the page.
        const QVariant image = browser->loadResource(QTextDocument::ImageResource, QUrl(QStringLiteral("screenshots/workload.png")));
        QVERIFY(image.canConvert<QImage>());
        const QImage img = image.value<QImage>();
        QVERIFY(!img.isNull());
        QVERIFY(img.width() <= std::max(200, browser->viewport()->width() - 40));
        QVERIFY(guide.contains(QLatin1String("screenshots/workload.png")));
    }
};

QTEST_MAIN(TestWorkloadForm)
#include "tst_workload_form.moc"
