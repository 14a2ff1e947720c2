// Page 1: the workload. Preset picker, every configuration key in a form (meaning, unit and DLIO name
// in each tooltip), validation as you type with the engine's own messages, open/save DLIO YAML,
// accelerators and metric semantics, and the MLPerf Storage dataset sizing advice.
// Numbers are typed as text and parsed strictly (core's quantity parser, ranges from key_ranges): a
// field that does not hold an accepted value is marked at the field, listed with the errors, and the
// page is not valid until it is fixed. The page knows whether it holds unsaved edits and asks before
// anything replaces them.
#pragma once

#include "config/config_loader.h"
#include "config/shrink_to_fit.h"
#include "config/workload_config.h"
#include "widgets/notification_panel.h"

#include <QHash>
#include <QWidget>

#include <functional>
#include <optional>
#include <thread>

class QComboBox;
class QLabel;
class QListWidget;
class QMessageBox;
class QPushButton;
class QSettings;
class QSplitter;

namespace trainio::ui {

class QuantitySpinBox;

class WorkloadPage final : public QWidget {
    Q_OBJECT
public:
    explicit WorkloadPage(QWidget* parent = nullptr);
    ~WorkloadPage() override;

    const WorkloadConfig& config() const { return config_; }
    std::uint64_t accelerators() const;
    MetricSemantics semantics() const;
    // Valid: every field holds an accepted value and the configuration passes validateConfig.
    bool isValid() const { return errors_.empty(); }
    const std::vector<ConfigDiagnostic>& errors() const { return errors_; }
    // The fields whose text is not an accepted value, by DLIO key → the message shown at the field.
    QHash<QString, QString> fieldErrors() const { return fieldErrors_; }
    QString sizingText() const;
    bool datasetFitsInRam() const { return advice_.fitsInRam; }
    QString currentFile() const { return currentFile_; }
    QString presetName() const { return presetName_; }
    // Edited since it was last loaded or saved.
    bool isModified() const { return modified_; }

    // Replaces the configuration shown (e.g. from a test or a restored session); it counts as loaded,
    // not as an edit.
    void setConfig(const WorkloadConfig& cfg, const QString& source);
    // A workload that comes from no file (derived from a captured job's trace): shown as loaded from
    // `source`, no preset chosen, no file to save to until Save… names one.
    void setDerivedConfig(const WorkloadConfig& cfg, const QString& source);
    // A panel beside the form and the sizing/validation column (the imported trace's report).
    void addSidePane(QWidget* pane);
    void setAccelerators(std::uint64_t n);
    // The Run page's MPI group is on: the accelerators are hosts × processes × accelerators per process,
    // shown here and not editable (total 0: the group's fields do not form a launch yet; the field keeps
    // its value). Off: the user's own value comes back.
    void setDerivedAccelerators(bool derived, quint64 total);
    bool acceleratorsDerived() const { return acceleratorsDerived_; }

    // Editors by DLIO key, for tests and for focusing the field a message names. Numeric keys are
    // QuantitySpinBox; "accelerators" is the accelerator count of the run.
    QWidget* editorFor(const QString& dlioKey) const { return editors_.value(dlioKey); }

    // The form, as typed (invalid fields included), its origin and whether it was edited.
    void saveSession(QSettings& settings) const;
    bool restoreSession(const QSettings& settings);

    // Runs `proceed` at once when there are no unsaved edits; otherwise asks (Save / Discard / Cancel,
    // window-modal, not blocking) and runs it after a save or a discard, `cancelled` after Cancel.
    // `what` completes "Save them before …?".
    void confirmDiscard(const QString& what, std::function<void()> proceed, std::function<void()> cancelled = {});
    QMessageBox* pendingDiscardPrompt() const { return discardPrompt_; }
    // Back to the configuration last loaded or saved.
    void revertEdits();

    // Shrinks the workload to this machine (or to the given budget) keeping its shape; an edit.
    ShrinkResult shrinkToFit(const MachineBudget& budget);
    ShrinkResult shrinkToFitThisMachine();

public slots:
    // "Test connection" of the storage group (storage.storage_type s3): the credentials resolved and one
    // signed request to the bucket, on a worker thread; the answer is shown under the button and sent as
    // connectionChecked. A check already under way is not started twice.
    void testS3Connection();
    // Unconditional loads (tests, session restore, the screenshot tour).
    bool loadPresetNamed(const QString& name);
    bool openFile(const QString& path);
    bool saveFile(const QString& path);
    // What the user's actions call: they ask before replacing unsaved edits.
    void requestPreset(const QString& name);
    void requestOpenFile(const QString& path);
    void openWithDialog();
    // Save (Ctrl+S): back to the workload's own file, else asks where (as Save as).
    void saveWithDialog();
    // Save as (Ctrl+Shift+S): always asks where, starting at the workload's own file.
    void saveAsWithDialog();

signals:
    void configChanged();
    void modifiedChanged(bool modified);
    void notify(trainio::ui::NotificationPanel::Severity severity, const QString& text);
    void fileOpened(const QString& path); // for the recent-files list
    void shrinkRequested();
    void connectionChecked(bool ok, const QString& text);

private:
    QWidget* buildForm();
    QWidget* createEditor(std::size_t fieldIndex);
    void userEdited();
    void readEditors();          // editors → config_ (fields in error keep their last accepted value)
    void writeEditors();         // config_ → editors
    QString editorText(std::size_t fieldIndex) const;
    void setEditorText(std::size_t fieldIndex, const QString& text);
    QString fieldProblem(std::size_t fieldIndex) const;
    void revalidate();
    void showDiagnostics();
    void updateSizing();
    void setModified(bool modified);
    void markLoaded(const QString& source);
    // Where relative folders of the workload lead: the workload file's folder, or for a preset (or a form
    // without a file) TrainIO's data folder (trainioDataFolder()).
    QString folderBase() const;
    QString absoluteFolder(const QString& path) const;
    // A folder field that names objects, not a local folder: an s3:// location, or the data or checkpoint
    // folder of an S3 workload (a key prefix). Kept as typed.
    bool isObjectLocation(const QString& dlioKey, const QString& path) const;
    // The user switched storage.storage_type between a file system and S3 (`before`: the storage section and
    // folders as they were): to S3, the folders become key prefixes named after the local folders (never a
    // local absolute path as a key), the bucket and keys given before in this session come back; to a file
    // system, the S3 keys are put aside (no bucket is left in a local workload's YAML) and the local
    // folders come back.
    void storageKindSwitched(const StorageSection& before, const std::string& dataBefore, const std::string& checkpointBefore);
    bool saveWithDialogNow();
    bool saveAsWithDialogNow();

    WorkloadConfig config_;
    WorkloadConfig clean_; // as last loaded or saved
    std::vector<ConfigDiagnostic> errors_;
    std::vector<ConfigDiagnostic> loadWarnings_;
    QHash<QString, QString> fieldErrors_;
    SizingAdvice advice_;
    QString currentFile_;
    QString presetName_;
    QString source_;
    bool updating_ = false;
    bool modified_ = false;

    QSplitter* splitter_ = nullptr;
    QComboBox* presetBox_;
    QPushButton* testConnection_ = nullptr;
    QLabel* connectionResult_ = nullptr;
    std::thread connectionCheck_;
    QuantitySpinBox* accelerators_;
    bool acceleratorsDerived_ = false;
    QString ownAccelerators_; // the user's value while the MPI group derives the field
    QComboBox* semantics_;
    QuantitySpinBox* clientRam_;
    QLabel* sourceLabel_;
    QLabel* sizingLabel_;
    QLabel* ramWarning_;
    QListWidget* diagnostics_;
    QMessageBox* discardPrompt_ = nullptr;
    QHash<QString, QWidget*> editors_;
    QHash<QString, QLabel*> errorLabels_;
    std::vector<QWidget*> editorByField_;
    // What a switch of the storage type put aside, for a switch back in the same session.
    struct StorageStash {
        StorageSection storage;
        std::string dataFolder, checkpointFolder;
    };
    std::optional<StorageStash> s3Stash_, localStash_;
};

} // namespace trainio::ui
