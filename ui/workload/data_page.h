// Page 2: the dataset of the current workload — generate (resumable, parallel), verify, clean — with
// progress, rate, ETA and cancel.
#pragma once

#include "config/workload_config.h"
#include "workload/dataset_controller.h"
#include "widgets/notification_panel.h"

#include <QHash>
#include <QWidget>

#include <optional>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace trainio::ui {

class DataPage final : public QWidget {
    Q_OBJECT
public:
    explicit DataPage(QWidget* parent = nullptr);

    void setWorkload(const WorkloadConfig& cfg);
    DatasetController* controller() const { return controller_; }
    QString lastSummary() const { return lastSummary_; }
    // The status line: about the dataset shown above it (its location and shape), never about another one.
    QString statusText() const;

public slots:
    void generate();
    void verify();
    void clean();
    void cancel();

signals:
    void notify(trainio::ui::NotificationPanel::Severity severity, const QString& text);

private:
    void begin(DatasetController::Operation op);
    void showProgress(const DatasetProgress& p);
    void onFinished(DatasetController::Operation op, bool ok, bool cancelled, const QString& summary);
    void setBusy(bool busy);
    void showDataset(const WorkloadConfig& cfg);

    // What the page last said about a dataset (its location and shape): the line and the bar. Shown again
    // when the workload comes back to it; a dataset the page has not touched is "not checked here".
    struct Status {
        QString line;
        int bar = 0;
    };
    QString datasetKey_;
    QHash<QString, Status> statusByDataset_;
    std::optional<WorkloadConfig> pending_; // a workload changed while an operation runs: shown when it ends

    WorkloadConfig config_;
    DatasetController* controller_;
    QLabel* folder_;
    QLabel* shape_;
    QProgressBar* bar_;
    QLabel* rate_;
    QPushButton* generate_;
    QPushButton* verify_;
    QPushButton* clean_;
    QPushButton* cancel_;
    QPlainTextEdit* log_;
    QString lastSummary_;
};

} // namespace trainio::ui
