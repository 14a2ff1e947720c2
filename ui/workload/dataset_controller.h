// Generates, verifies or cleans a workload's dataset in a worker thread it owns, reporting progress to
// the GUI thread through queued calls. One operation at a time; cancel keeps the finished files (a
// later generation resumes).
#pragma once

#include "config/workload_config.h"
#include "preflight/preflight.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <atomic>
#include <thread>
#include <vector>

namespace trainio::ui {

struct DatasetProgress {
    quint64 filesDone = 0, filesTotal = 0, filesSkipped = 0;
    quint64 bytesDone = 0, bytesTotal = 0;
    double seconds = 0;
};

class DatasetController final : public QObject {
    Q_OBJECT
public:
    enum class Operation { Generate, Verify, Clean };
    Q_ENUM(Operation)

    explicit DatasetController(QObject* parent = nullptr);
    ~DatasetController() override;

    bool isBusy() const { return worker_.joinable(); }
    // Generate runs pre-flight first (free space of the data folder, a config that forms a step);
    // when it finds problems, nothing is written and finished() follows with ok false.
    bool start(Operation op, const WorkloadConfig& cfg);
    void cancel() { cancel_ = true; }
    // What pre-flight refused in the last operation (empty when it passed or did not apply); valid
    // when finished() is emitted.
    const std::vector<PreflightProblem>& preflightProblems() const { return preflightProblems_; }

signals:
    void progress(const trainio::ui::DatasetProgress& p);
    // ok: the operation did what it should (verify: every file good); summary: one or more lines.
    void finished(trainio::ui::DatasetController::Operation op, bool ok, bool cancelled, const QString& summary);
    void warning(const QString& text); // pre-flight warnings: shown, they do not stop the operation

private:
    std::thread worker_;
    std::atomic<bool> cancel_{false};
    std::vector<PreflightProblem> preflightProblems_;
};

} // namespace trainio::ui

Q_DECLARE_METATYPE(trainio::ui::DatasetProgress)
