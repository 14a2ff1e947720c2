// The Run page's "Emulated storage" strip: every limit of the running emulated device — bandwidth,
// latency, IOPS, requests in flight — changed live while the readers read through it, and which of them
// binds right now ("limited by: IOPS", from the device's wait counters twice a second). The device applies and logs each change itself
// (EmulatedStorageBackend::changes(), written to trainio_io.json); the strip only says what changed,
// so the page can mark it on the plots.
#pragma once

#include "io/emulated_storage.h"

#include <QWidget>

#include <functional>
#include <memory>
#include <optional>

class QDoubleSpinBox;
class QLabel;
class QTimer;

namespace trainio::ui {

// The limits of an emulated device a presenter changes, in the order of the presentation view's sliders.
enum class DeviceLimit { Bandwidth, Latency, Iops, Inflight };
// A limit's value as the presentation view's sliders and every storage-change label show it (issue 32,
// item 6: one formatting for both): bandwidth in MiB/s → "250 MiB/s", "6.35 GiB/s"; latency (median) in
// ms → "85 µs", "13 ms"; "1,000,000 IOPS"; "128 at once"; 0 → "unlimited" (latency: "none").
// `withUnit` false leaves out the unit of IOPS and in flight (the label names the limit): "1,000,000".
QString deviceLimitText(DeviceLimit limit, double value, bool withUnit = true);
// A logged change of the device (trainio_io.json storage.changes) in the words of the live change's label:
// "bw 6.35 GiB/s → 120 MiB/s", "lat 85 µs → 13 ms", "IOPS 1,000,000 → 65"; its own words for a parameter
// the strip does not change.
QString storageChangeText(const StorageChange& change);

class StorageControls final : public QWidget {
    Q_OBJECT
public:
    explicit StorageControls(QWidget* parent = nullptr);

    // The device of the running invocation, or null when it ends (the strip hides). GUI thread only.
    void setDevice(std::shared_ptr<EmulatedStorageBackend> device);
    const std::shared_ptr<EmulatedStorageBackend>& device() const { return device_; }

    QDoubleSpinBox* bandwidthBox() const { return bandwidth_; }
    QDoubleSpinBox* latencyBox() const { return latency_; }
    QDoubleSpinBox* iopsBox() const { return iops_; }
    QDoubleSpinBox* inflightBox() const { return inflight_; }
    // Reads the device's counters and says what limits the run (core's runLimit: "compute (storage idle)"
    // while the accelerators lose no AU, else the device limit the readers waited on most) since the last
    // reading (also called by the strip's own timer while a device is shown).
    void updateBinding();
    // Where updateBinding() reads the AU of the recent steps (the Run page: its live figures); unset or
    // nullopt: only the device's counters are weighed.
    void setAuSource(std::function<std::optional<double>()> source) { auSource_ = std::move(source); }
    // Gives the device every limit of `shape` exactly (bandwidth, latency distribution, IOPS, in flight;
    // whether writes are shaped stays as it is), each change logged by the device, and one marker
    // "→ NAME profile". False (and refused()) when the device refuses it; true also when nothing changed.
    bool applyShape(const StorageShape& shape, const QString& name);

signals:
    // A change the device accepted, in words for a plot marker, its numbers as deviceLimitText writes
    // them: "bw 500 → 100 MiB/s", "lat 85 µs → 13 ms", "IOPS 1,000,000 → 65", "→ hdd profile".
    void changed(const QString& label);
    // A change the device refused (InputError text).
    void refused(const QString& text);
    // The boxes now show the device's limits (a device came or went, or a change was applied or refused):
    // views that mirror the strip (the presentation view's sliders) follow it.
    void shown();
    // What limited the run in the last reading ("IOPS", "compute (storage idle)"; empty: not the device).
    void bindingChanged(const QString& limit);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void showDevice();
    // The description in the room the strip leaves it, elided at the end (the whole of it in the tooltip):
    // it never sets the window's minimum width (issue 32, item 5).
    void elideShape();
    // Runs a device setter; false (and refused()) when it throws.
    bool apply(const std::function<void()>& set);
    void applyBandwidth(double mibs);
    void applyLatency(double medianMs);
    void applyIops(double iops);
    void applyInflight(double requests);

    std::shared_ptr<EmulatedStorageBackend> device_;
    QDoubleSpinBox* bandwidth_;
    QDoubleSpinBox* latency_;
    QDoubleSpinBox* iops_;
    QDoubleSpinBox* inflight_;
    QLabel* shape_;
    QString shapeText_;
    QLabel* binding_;
    QTimer* bindingTimer_;
    std::function<std::optional<double>()> auSource_;
    EmulationStats lastStats_;
    double lastStatsTime_ = 0;
    bool updating_ = false;
};

} // namespace trainio::ui
