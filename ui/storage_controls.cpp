#include "storage_controls.h"

#include "io/emulated_storage.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>

#include <cmath>

namespace trainio::ui {

namespace {

constexpr double kMiB = 1048576.0;

// The number a presenter thinks of as "the latency": the median, whatever the distribution.
double medianMs(const LatencyDistribution& l) {
    switch (l.kind) {
    case LatencyKind::None: return 0;
    case LatencyKind::Exponential: return l.centerMs * std::log(2.0);
    default: return l.centerMs; // constant, normal (symmetric), lognormal (centerMs is the median)
    }
}

QString number(double v) { return QString::number(v, 'g', 6); }

QString bandwidthText(double bytesPerSecond) {
    return bytesPerSecond > 0 ? number(bytesPerSecond / kMiB) : QObject::tr("unlimited");
}

} // namespace

StorageControls::StorageControls(QWidget* parent) : QWidget(parent) {
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    auto* title = new QLabel(tr("<b>Emulated storage</b>"), this);
    row->addWidget(title);

    // Applied when the presenter finishes typing or steps the value, not on every keystroke: "1" on the
    // way to "100" would starve the readers for a moment.
    auto addBox = [this, row](const QString& label, const QString& name, double max, int decimals, const QString& suffix,
                              const QString& zero, double step, const QString& tip) {
        auto* box = new QDoubleSpinBox(this);
        box->setObjectName(name);
        box->setRange(0, max);
        box->setDecimals(decimals);
        box->setSuffix(suffix);
        box->setSpecialValueText(zero);
        box->setSingleStep(step);
        box->setKeyboardTracking(false);
        box->setToolTip(tip);
        row->addWidget(new QLabel(label, this));
        row->addWidget(box);
        return box;
    };
    bandwidth_ = addBox(tr("Bandwidth:"), QStringLiteral("storageBandwidth"), 1e7, 1, tr(" MiB/s"), tr("unlimited"), 50,
                        tr("Aggregate read bandwidth of the emulated device, changed now (0 = unlimited)."));
    latency_ = addBox(tr("Latency median:"), QStringLiteral("storageLatency"), 60000, 3, tr(" ms"), tr("none"), 1,
                      tr("Median latency per request, changed now; the distribution's type stays (none becomes constant)."));

    shape_ = new QLabel(this);
    shape_->setObjectName(QStringLiteral("storageShape"));
    row->addWidget(shape_, 1);

    connect(bandwidth_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (!updating_) applyBandwidth(v);
    });
    connect(latency_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (!updating_) applyLatency(v);
    });
    setVisible(false);
}

void StorageControls::setDevice(std::shared_ptr<EmulatedStorageBackend> device) {
    device_ = std::move(device);
    setVisible(device_ != nullptr);
    if (device_) showDevice();
}

void StorageControls::showDevice() {
    const StorageShape s = device_->shape();
    updating_ = true;
    bandwidth_->setValue(s.bandwidthBytesPerSecond / kMiB);
    latency_->setValue(medianMs(s.latency));
    updating_ = false;
    shape_->setText(tr("latency %1 · IOPS %2 · in flight %3")
                        .arg(QString::fromStdString(describeLatency(s.latency)),
                             s.iops > 0 ? number(s.iops) : tr("unlimited"),
                             s.maxInflight > 0 ? QString::number(s.maxInflight) : tr("unlimited")));
}

bool StorageControls::apply(const std::function<void()>& set) {
    try {
        set();
    } catch (const std::exception& e) { // the device refused the value and changed nothing
        emit refused(QString::fromUtf8(e.what()));
        showDevice();
        return false;
    }
    showDevice();
    return true;
}

void StorageControls::applyBandwidth(double mibs) {
    if (!device_) return;
    const double before = device_->shape().bandwidthBytesPerSecond;
    const double after = mibs * kMiB;
    if (after == before) return;
    if (!apply([&] { device_->setBandwidth(after); })) return;
    emit changed(tr("bw %1→%2 MiB/s").arg(bandwidthText(before), bandwidthText(after)));
}

void StorageControls::applyLatency(double ms) {
    if (!device_) return;
    const LatencyDistribution before = device_->shape().latency;
    LatencyDistribution after = before;
    if (ms <= 0) {
        after = {};
    } else if (before.kind == LatencyKind::None) {
        after = {LatencyKind::Constant, ms, 0};
    } else {
        after.centerMs = before.kind == LatencyKind::Exponential ? ms / std::log(2.0) : ms;
    }
    if (after == before) return;
    if (!apply([&] { device_->setLatency(after); })) return;
    emit changed(tr("lat %1→%2 ms").arg(number(medianMs(before)), number(medianMs(after))));
}

} // namespace trainio::ui
