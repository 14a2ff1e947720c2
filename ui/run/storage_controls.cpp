#include "run/storage_controls.h"

#include "io/emulated_storage.h"
#include "util/clock.h"
#include "util/units.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>

#include <algorithm>
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

// Up to three significant digits below 100, whole numbers with group separators from 100 up.
QString displayNumber(double v) {
    return v >= 100 ? QStringLiteral("%L1").arg(v, 0, 'f', 0) : QString::number(v, 'g', 3);
}

// "bw 6.35 GiB/s → 250 MiB/s", "IOPS 1,000,000 → 65": the name, then the values as the sliders show them.
QString changeText(const QString& name, DeviceLimit limit, double before, double after) {
    return QStringLiteral("%1 %2 → %3").arg(name, deviceLimitText(limit, before, false), deviceLimitText(limit, after, false));
}

} // namespace

QString storageChangeText(const StorageChange& c) {
    // StorageChange's numbers are the strip's units already: MiB/s, the latency's median in ms.
    if (c.parameter == "bandwidth_mib_s") return changeText(QObject::tr("bw"), DeviceLimit::Bandwidth, c.oldValue, c.newValue);
    if (c.parameter == "latency_ms") return changeText(QObject::tr("lat"), DeviceLimit::Latency, c.oldValue, c.newValue);
    if (c.parameter == "iops") return changeText(QObject::tr("IOPS"), DeviceLimit::Iops, c.oldValue, c.newValue);
    if (c.parameter == "max_inflight") return changeText(QObject::tr("in flight"), DeviceLimit::Inflight, c.oldValue, c.newValue);
    return QStringLiteral("%1 %2 → %3").arg(QString::fromStdString(c.parameter), QString::fromStdString(c.oldText), QString::fromStdString(c.newText));
}

QString deviceLimitText(DeviceLimit limit, double v, bool withUnit) {
    switch (limit) {
    case DeviceLimit::Bandwidth:
        if (v <= 0) return QObject::tr("unlimited");
        return v >= 1024 ? QObject::tr("%1 GiB/s").arg(displayNumber(v / 1024.0)) : QObject::tr("%1 MiB/s").arg(displayNumber(v));
    case DeviceLimit::Latency:
        if (v <= 0) return QObject::tr("none");
        return v < 1 ? QObject::tr("%1 µs").arg(displayNumber(v * 1000.0)) : QObject::tr("%1 ms").arg(displayNumber(v));
    case DeviceLimit::Iops:
        if (v <= 0) return QObject::tr("unlimited");
        return withUnit ? QObject::tr("%1 IOPS").arg(displayNumber(v)) : displayNumber(v);
    case DeviceLimit::Inflight:
        if (v <= 0) return QObject::tr("unlimited");
        return withUnit ? QObject::tr("%1 at once").arg(displayNumber(v)) : displayNumber(v);
    }
    return {};
}

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
    shape_->setTextFormat(Qt::PlainText);
    shape_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // no minimum width of its own
    shape_->installEventFilter(this);
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
    shapeText_ = tr("latency %1 · IOPS %2 · in flight %3")
                     .arg(QString::fromStdString(describeLatency(s.latency)), deviceLimitText(DeviceLimit::Iops, s.iops, false),
                          deviceLimitText(DeviceLimit::Inflight, s.maxInflight, false));
    shape_->setToolTip(shapeText_);
    elideShape();
    emit shown();
}

void StorageControls::elideShape() {
    shape_->setText(shape_->fontMetrics().elidedText(shapeText_, Qt::ElideRight, std::max(0, shape_->contentsRect().width())));
}

bool StorageControls::eventFilter(QObject* watched, QEvent* event) {
    if (watched == shape_ && event->type() == QEvent::Resize) elideShape();
    return QWidget::eventFilter(watched, event);
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

bool StorageControls::applyShape(const StorageShape& shape, const QString& name) {
    if (!device_) return false;
    StorageShape target = shape;
    target.shapeWrites = device_->shape().shapeWrites; // a profile says nothing about this run's checkpoints
    if (target == device_->shape()) {
        showDevice();
        return true;
    }
    if (!apply([&] { device_->setShape(target); })) return false;
    emit changed(tr("→ %1 profile").arg(name));
    return true;
}

void StorageControls::applyBandwidth(double mibs) {
    if (!device_) return;
    const double before = device_->shape().bandwidthBytesPerSecond;
    const double after = mibs * kMiB;
    if (after == before) return;
    if (!apply([&] { device_->setBandwidth(after); })) return;
    emit changed(changeText(tr("bw"), DeviceLimit::Bandwidth, before / kMiB, after / kMiB));
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
    emit changed(changeText(tr("lat"), DeviceLimit::Latency, medianMs(before), medianMs(after)));
}

void StorageControls::applyIops(double iops) {
    if (!device_) return;
    const double before = device_->shape().iops;
    if (iops == before) return;
    if (!apply([&] { device_->setIops(iops); })) return;
    emit changed(changeText(tr("IOPS"), DeviceLimit::Iops, before, iops));
}

void StorageControls::applyInflight(double requests) {
    if (!device_) return;
    const unsigned before = device_->shape().maxInflight;
    const auto after = static_cast<unsigned>(std::lround(requests));
    if (after == before) return;
    if (!apply([&] { device_->setMaxInflight(after); })) return;
    emit changed(changeText(tr("in flight"), DeviceLimit::Inflight, before, after));
}

} // namespace trainio::ui
