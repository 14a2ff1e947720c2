#include "run/model_panel.h"

#include "aggregate/results_library.h"
#include "model/pipeline_model.h"

#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainio::ui {

QString modelPredictionText(const WorkloadConfig& cfg, std::uint64_t accelerators, MetricSemantics semantics,
                            double* predictedAu) {
    if (predictedAu) *predictedAu = std::numeric_limits<double>::quiet_NaN();
    if (!cfg.workflow.train) return {};
    if (!cfg.trainio.storage.any())
        return QObject::tr("Model: no prediction — the workload has no emulated storage (trainio.storage); "
                           "`trainio-cli model --probe DIR` measures a real folder instead.");
    try {
        const auto j = model::predictionJson(cfg, std::max<std::uint64_t>(1, accelerators), model::storageFromConfig(cfg), {},
                                             semantics);
        // An epoch too short for DLIO's formulas: the numbers they would give (0, a negative samples/s) are
        // not shown as a prediction; the reason is.
        if (const auto w = j.find("warnings"); w != j.end() && w->is_array() && !w->empty())
            return QObject::tr("Model: no prediction — %1.").arg(QString::fromStdString(w->front().get<std::string>()));
        const double au = j.value("predicted_au_percentage", 0.0);
        if (predictedAu) *predictedAu = au;
        const auto maxPass = j.value("max_passing_accelerators", std::uint64_t{0});
        const bool limited = j.value("max_passing_limited_by_search", false);
        QString text = QObject::tr("Model prediction: AU %1 % and %2 samples/s at %3 accelerator(s), limited by %4; ")
                           .arg(au, 0, 'f', 1)
                           .arg(j.value("predicted_samples_per_second", 0.0), 0, 'f', 1)
                           .arg(accelerators)
                           .arg(QString::fromStdString(j.value("bottleneck", std::string("?"))));
        text += maxPass == 0 ? QObject::tr("no accelerator count stays above the %1 % AU line")
                                   .arg(j.value("au_line_percentage", 90.0), 0, 'f', 0)
                             : QObject::tr("up to %1%2 accelerators stay above the %3 % AU line")
                                   .arg(limited ? QStringLiteral("≥") : QString())
                                   .arg(maxPass)
                                   .arg(j.value("au_line_percentage", 90.0), 0, 'f', 0);
        const auto req = j.find("required_mib_s_per_accelerator");
        if (req != j.end() && req->is_number())
            text += QObject::tr("; each needs %1 MiB/s").arg(req->get<double>(), 0, 'f', 0);
        return text + QStringLiteral(".");
    } catch (const std::exception& e) {
        return QObject::tr("Model: no prediction — %1").arg(QString::fromUtf8(e.what()));
    }
}

namespace {

// Whether modelPredictionText runs the model (else it returns a sentence at once).
bool needsModel(const WorkloadConfig& cfg) { return cfg.workflow.train && cfg.trainio.storage.any(); }

} // namespace

ModelPanel::ModelPanel(QWidget* parent) : QWidget(parent), predictedAu_(std::numeric_limits<double>::quiet_NaN()) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    prediction_ = new QLabel(this);
    prediction_->setObjectName(QStringLiteral("modelPrediction"));
    prediction_->setWordWrap(true);
    prediction_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    prediction_->setToolTip(tr("The input-pipeline model (docs/model.md): the reader side's roofs (bandwidth, latency, "
                               "IOPS, requests in flight, client CPU) against the compute, with DLIO's AU formula "
                               "applied to the predicted steps. Checked against measured anchors within ±5 AU points."));
    comparison_ = new QLabel(this);
    comparison_->setObjectName(QStringLiteral("modelComparison"));
    comparison_->setWordWrap(true);
    comparison_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    comparison_->hide();
    layout->addWidget(prediction_);
    layout->addWidget(comparison_);
    debounce_ = new QTimer(this);
    debounce_->setObjectName(QStringLiteral("predictionDebounce"));
    debounce_->setSingleShot(true);
    debounce_->setInterval(kDebounceMs);
    connect(debounce_, &QTimer::timeout, this, &ModelPanel::predictNow);
}

void ModelPanel::setWorkload(const WorkloadConfig& cfg, std::uint64_t accelerators, MetricSemantics semantics) {
    request_ = Request{cfg, accelerators, semantics};
    predictionJob_.invalidate(); // a prediction under way is for an older workload
    comparison_->hide();
    predictedAu_ = std::numeric_limits<double>::quiet_NaN();
    computing_ = true;
    // Nothing to compute (no training, no emulated storage): said at once, with the same words.
    if (!needsModel(cfg)) {
        debounce_->stop();
        predictNow();
        return;
    }
    prediction_->setText(tr("Model prediction: computing…"));
    show();
    debounce_->start();
}

void ModelPanel::setInvalid(const QString& why) {
    predictionJob_.invalidate();
    debounce_->stop();
    comparison_->hide();
    predictedAu_ = std::numeric_limits<double>::quiet_NaN();
    computing_ = false;
    prediction_->setText(tr("Model prediction: none — %1").arg(why));
    show();
    emit predictionShown();
}

void ModelPanel::predictNow() {
    struct Shown {
        QString text;
        double au = std::numeric_limits<double>::quiet_NaN();
    };
    auto deliver = [this](const Shown& shown) {
        prediction_->setText(shown.text);
        predictedAu_ = shown.au;
        computing_ = false;
        setVisible(!shown.text.isEmpty());
        emit predictionShown();
    };
    auto compute = [r = request_] {
        Shown s;
        s.text = modelPredictionText(r.cfg, r.accelerators, r.semantics, &s.au);
        return s;
    };
    if (!needsModel(request_.cfg)) deliver(compute()); // a sentence, no model run
    else predictionJob_.start(compute, deliver);
}

namespace {

// "name: measured AU … vs predicted …" for each measured invocation of the records that recorded a
// prediction; empty when none did.
QString measuredVersusPredicted(const aggregate::ImportResult& imported) {
    QStringList parts;
    for (const auto& r : imported.runs) {
        if (r.warmup || std::isnan(r.predictedAuPercent)) continue;
        const QString name = QString::fromStdString(r.path.filename().string());
        if (r.status != aggregate::InvocationStatus::Complete) {
            parts << ModelPanel::tr("%1: not complete, not compared").arg(name);
            continue;
        }
        if (const std::string why = aggregate::predictionNotComparable(r); !why.empty()) {
            parts << ModelPanel::tr("%1: not compared, %2").arg(name, QString::fromStdString(why));
            continue;
        }
        parts << ModelPanel::tr("%1: measured AU %2 % vs predicted %3 % (%4%5 points), %6 vs %7 samples/s")
                     .arg(name)
                     .arg(r.auMeanPercent, 0, 'f', 1)
                     .arg(r.predictedAuPercent, 0, 'f', 1)
                     .arg(r.auMeanPercent >= r.predictedAuPercent ? QStringLiteral("+") : QString())
                     .arg(r.auMeanPercent - r.predictedAuPercent, 0, 'f', 1)
                     .arg(r.samplesPerSecond, 0, 'f', 1)
                     .arg(r.predictedSamplesPerSecond, 0, 'f', 1);
    }
    return parts.isEmpty() ? QString() : ModelPanel::tr("Predicted vs measured — ") + parts.join(QStringLiteral("; "));
}

} // namespace

void ModelPanel::showMeasured(std::shared_ptr<const aggregate::ImportResult> records) {
    if (!records) return;
    comparisonJob_.start([records] { return measuredVersusPredicted(*records); },
                     [this](const QString& text) {
                         comparison_->setText(text);
                         comparison_->setVisible(!text.isEmpty());
                         if (!text.isEmpty()) show();
                         emit comparisonShown();
                     });
}

QString ModelPanel::predictionText() const { return prediction_->text(); }
QString ModelPanel::comparisonText() const { return comparison_->isHidden() ? QString() : comparison_->text(); }

} // namespace trainio::ui
