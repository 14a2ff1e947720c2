// The input-pipeline model on the Run page (issue 13, docs/model.md): before a run, what the model predicts
// for the workload at the chosen accelerator count on its emulated storage (AU, samples/s, what limits it,
// the largest accelerator count above the AU line, the bandwidth an accelerator needs); after it, the
// prediction recorded with each result (trainio_model.json) against what was measured, from the run's
// records handed over in memory (RunFinish::records: nothing is read back). Without emulated storage
// (trainio.storage) there is nothing to predict from, and the panel says so instead of guessing.
// The prediction does not run on the GUI thread: it starts 250 ms after the last change (a burst of edits
// makes one) on a worker, "computing…" is shown meanwhile, and a result overtaken by a newer change is
// dropped (LatestJob's generation counter); the comparison is made on a worker as well.
#pragma once

#include "config/workload_config.h"
#include "metrics/dlio_metrics.h"

// moc (Qt 6.4) cannot parse <compare>, which the aggregate headers pull in; it needs only the names.
#ifndef Q_MOC_RUN
#include "store/invocation_record.h"
#endif

#include <memory>

#include "run/latest_job.h"

#include <QString>
#include <QWidget>

class QLabel;
class QTimer;

namespace trainio::ui {

class ModelPanel final : public QWidget {
    Q_OBJECT
public:
    explicit ModelPanel(QWidget* parent = nullptr);

    static constexpr int kDebounceMs = 250;

    // The prediction for this workload: shown kDebounceMs after the last call, computed on a worker.
    void setWorkload(const WorkloadConfig& cfg, std::uint64_t accelerators, MetricSemantics semantics);
    // The workload has invalid fields: no prediction (it would be for the values last accepted, not the
    // ones shown), and the panel says why.
    void setInvalid(const QString& why);
    // Predicted vs measured for the invocations a run wrote (its records, RunFinish::records), on a worker.
    void showMeasured(std::shared_ptr<const aggregate::ImportResult> records);

    QString predictionText() const;
    QString comparisonText() const;
    // The shown prediction's figures (NaN when there is none or while computing), for tests.
    double predictedAuPercent() const { return predictedAu_; }
    // A prediction is waiting for its debounce or its worker.
    bool isComputing() const { return computing_; }

signals:
    void predictionShown(); // a prediction (or why there is none) replaced "computing…"
    void comparisonShown(); // showMeasured's comparison is shown

private:
    void predictNow();

    QLabel* prediction_ = nullptr;
    QLabel* comparison_ = nullptr;
    QTimer* debounce_ = nullptr;
    double predictedAu_;
    bool computing_ = false;
    struct Request {
        WorkloadConfig cfg;
        std::uint64_t accelerators = 1;
        MetricSemantics semantics = MetricSemantics::DlioV2;
    } request_;
    LatestJob predictionJob_{this};
    LatestJob comparisonJob_{this};
};

// "Model (docs/model.md): AU 52.3 % and 388 samples/s predicted at 1 accelerator, limited by bandwidth; 0
// accelerators stay above the 90 % line; each needs 360 MiB/s" — or why there is no prediction.
QString modelPredictionText(const WorkloadConfig& cfg, std::uint64_t accelerators, MetricSemantics semantics,
                            double* predictedAu = nullptr);

} // namespace trainio::ui
