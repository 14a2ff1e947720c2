// The input-pipeline model on the Run page (issue 13, docs/model.md): before a run, what the model predicts
// for the workload at the chosen accelerator count on its emulated storage (AU, samples/s, what limits it,
// the largest accelerator count above the AU line, the bandwidth an accelerator needs); after it, the
// prediction recorded with each result (trainio_model.json) against what was measured, read through the
// importer — the one reader of result folders. Without emulated storage (trainio.storage) there is nothing
// to predict from, and the panel says so instead of guessing.
#pragma once

#include "config/workload_config.h"
#include "metrics/dlio_metrics.h"

#include <QString>
#include <QWidget>

class QLabel;

namespace trainio::ui {

class ModelPanel final : public QWidget {
    Q_OBJECT
public:
    explicit ModelPanel(QWidget* parent = nullptr);

    // The prediction for this workload (computed at once; it takes milliseconds).
    void setWorkload(const WorkloadConfig& cfg, std::uint64_t accelerators, MetricSemantics semantics);
    // Predicted vs measured for the invocations written under `outputDir` (a run or a benchmark folder).
    void showMeasured(const QString& outputDir);

    QString predictionText() const;
    QString comparisonText() const;
    // The last prediction's figures (NaN when there is none), for tests.
    double predictedAuPercent() const { return predictedAu_; }

private:
    QLabel* prediction_ = nullptr;
    QLabel* comparison_ = nullptr;
    double predictedAu_;
};

// "Model (docs/model.md): AU 52.3 % and 388 samples/s predicted at 1 accelerator, limited by bandwidth; 0
// accelerators stay above the 90 % line; each needs 360 MiB/s" — or why there is no prediction.
QString modelPredictionText(const WorkloadConfig& cfg, std::uint64_t accelerators, MetricSemantics semantics,
                            double* predictedAu = nullptr);

} // namespace trainio::ui
