#include "run/storage_controls.h"

#include "io/emulated_storage.h"
#include "util/clock.h"
#include "util/units.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>

#include <cmath>

namespace trainio::ui {

namespace {


// The number a presenter thinks of as "the latency": the median, whatever the distribution.
double medianMs(const LatencyDistribution& l) {
    switch (l.kind) {
    case LatencyKind::None: return 0;
    case LatencyKind::Exponential: return l.centerMs * std::log(2.0);
    default: return l.centerMs; // constant, normal (symmetric), lognormal (centerMs is the median)
    }
}

QString plainNumber(double v) { return QString::number(v, 'g', 10); } // 1000000, not 1e+06

QString bandwidthText(double bytesPerSecond) {
    return bytesPerSecond > 0 ? plainNumber(bytesPerSecond / kMiB) : QObject::tr("unlimited");
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
    // The hdd profile's 200 IOPS cap binds before its bandwidth: raising bandwidth alone does nothing there,
    // so every limit the device has can be changed here.
    iops_ = addBox(tr("IOPS:"), QStringLiteral("storageIops"), 1e7, 0, QString(), tr("unlimited"), 100,
                   tr("Requests per second the emulated device serves, changed now (0 = unlimited)."));
    inflight_ = addBox(tr("In flight:"), QStringLiteral("storageInflight"), 65536, 0, QString(), tr("unlimited"), 1,
                       tr("Requests the emulated device serves at once (its queue depth), changed now (0 = unlimited)."));

    binding_ = new QLabel(this);
    binding_->setObjectName(QStringLiteral("storageBinding"));
    binding_->setToolTip(tr("What limits the run: compute (storage idle) while the accelerators lose no AU (at least "
                            "%1 % over the last steps); else the limit the readers waited for most in the last half second "
                            "(the device's own wait counters); \"not the device\" when they waited for it less than 1 % "
                            "of the time.")
                             .arg(kComputeBoundAuPercent, 0, 'f', 0));
    row->addWidget(binding_);
    shape_ = new QLabel(this);
    shape_->setObjectName(QStringLiteral("storageShape"));
    row->addWidget(shape_, 1);
    bindingTimer_ = new QTimer(this);
    bindingTimer_->setInterval(500);
    connect(bindingTimer_, &QTimer::timeout, this, &StorageControls::updateBinding);

    connect(bandwidth_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (!updating_) applyBandwidth(v);
    });
    connect(latency_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (!updating_) applyLatency(v);
    });
    connect(iops_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (!updating_) applyIops(v);
    });
    connect(inflight_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        if (!updating_) applyInflight(v);
    });
    setVisible(false);
}

void StorageControls::setDevice(std::shared_ptr<EmulatedStorageBackend> device) {
    device_ = std::move(device);
    setVisible(device_ != nullptr);
    binding_->clear();
    if (device_) {
        lastStats_ = device_->stats();
        lastStatsTime_ = WallClock().now();
        showDevice();
        bindingTimer_->start();
    } else {
        bindingTimer_->stop();
        emit shown();
    }
}

void StorageControls::updateBinding() {
    if (!device_) return;
    const EmulationStats now = device_->stats();
    const double t = WallClock().now();
    const std::string limit = runLimit(lastStats_, now, t - lastStatsTime_, auSource_ ? auSource_() : std::nullopt);
    lastStats_ = now;
    lastStatsTime_ = t;
    binding_->setText(limit.empty() ? tr("limited by: not the device") : tr("limited by: <b>%1</b>").arg(QString::fromStdString(limit)));
    emit bindingChanged(QString::fromStdString(limit));
}

void StorageControls::showDevice() {
    const StorageShape s = device_->shape();
    updating_ = true;
    bandwidth_->setValue(s.bandwidthBytesPerSecond / kMiB);
    latency_->setValue(medianMs(s.latency));
    iops_->setValue(s.iops);
    inflight_->setValue(static_cast<double>(s.maxInflight));
    updating_ = false;
    shape_->setText(tr("latency %1 · IOPS %2 · in flight %3")
                        .arg(QString::fromStdString(describeLatency(s.latency)),
                             s.iops > 0 ? plainNumber(s.iops) : tr("unlimited"),
                             s.maxInflight > 0 ? QString::number(s.maxInflight) : tr("unlimited")));
    emit shown();
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
    emit changed(tr("lat %1→%2 ms").arg(plainNumber(medianMs(before)), plainNumber(medianMs(after))));
}

void StorageControls::applyIops(double iops) {
    if (!device_) return;
    const double before = device_->shape().iops;
    if (iops == before) return;
    if (!apply([&] { device_->setIops(iops); })) return;
    auto text = [](double v) { return v > 0 ? plainNumber(v) : tr("unlimited"); };
    emit changed(tr("IOPS %1→%2").arg(text(before), text(iops)));
}

void StorageControls::applyInflight(double requests) {
    if (!device_) return;
    const unsigned before = device_->shape().maxInflight;
    const auto after = static_cast<unsigned>(std::lround(requests));
    if (after == before) return;
    if (!apply([&] { device_->setMaxInflight(after); })) return;
    auto text = [](unsigned v) { return v > 0 ? QString::number(v) : tr("unlimited"); };
    emit changed(tr("in flight %1→%2").arg(text(before), text(after)));
}

} // namespace trainio::ui
