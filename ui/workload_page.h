// Page 1: the workload. Preset picker, every configuration key in a form (meaning, unit and DLIO name
// in each tooltip), validation as you type with the engine's own messages, open/save DLIO YAML,
// accelerators and metric semantics, and the MLPerf Storage dataset sizing advice.
#pragma once

#include "config/config_loader.h"
#include "config/workload_config.h"
#include "notification_panel.h"

#include <QHash>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QSpinBox;

namespace trainio::ui {

class WorkloadPage final : public QWidget {
    Q_OBJECT
public:
    explicit WorkloadPage(QWidget* parent = nullptr);

    const WorkloadConfig& config() const { return config_; }
    std::uint64_t accelerators() const;
    MetricSemantics semantics() const;
    bool isValid() const { return errors_.empty(); }
    const std::vector<ConfigDiagnostic>& errors() const { return errors_; }
    QString sizingText() const;
    bool datasetFitsInRam() const { return advice_.fitsInRam; }
    QString currentFile() const { return currentFile_; }
    QString presetName() const { return presetName_; }

    // Replaces the configuration shown (e.g. from a test or a restored session).
    void setConfig(const WorkloadConfig& cfg, const QString& source);
    void setAccelerators(std::uint64_t n);

    // Editors by DLIO key, for tests and for focusing the field a message names.
    QWidget* editorFor(const QString& dlioKey) const { return editors_.value(dlioKey); }

public slots:
    bool loadPresetNamed(const QString& name);
    bool openFile(const QString& path);
    bool saveFile(const QString& path);
    void openWithDialog();
    void saveWithDialog();

signals:
    void configChanged();
    void notify(trainio::ui::NotificationPanel::Severity severity, const QString& text);
    void fileOpened(const QString& path); // for the recent-files list

private:
    QWidget* buildForm();
    QWidget* createEditor(std::size_t fieldIndex);
    void readEditors();          // editors → config_
    void writeEditors();         // config_ → editors
    void revalidate();
    void showDiagnostics();
    void updateSizing();

    WorkloadConfig config_;
    std::vector<ConfigDiagnostic> errors_;
    std::vector<ConfigDiagnostic> loadWarnings_;
    SizingAdvice advice_;
    QString currentFile_;
    QString presetName_;
    bool updating_ = false;

    QComboBox* presetBox_;
    QSpinBox* accelerators_;
    QComboBox* semantics_;
    QDoubleSpinBox* clientRamGiB_;
    QLabel* sourceLabel_;
    QLabel* sizingLabel_;
    QLabel* ramWarning_;
    QListWidget* diagnostics_;
    QHash<QString, QWidget*> editors_;
    std::vector<QWidget*> editorByField_;
};

} // namespace trainio::ui
