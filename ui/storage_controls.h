// The Run page's "Emulated storage" strip: bandwidth and latency of the running emulated device,
// changed live while the readers read through it. The device applies and logs each change itself
// (EmulatedStorageBackend::changes(), written to trainio_io.json); the strip only says what changed,
// so the page can mark it on the plots.
#pragma once

#include <QWidget>

#include <functional>
#include <memory>

class QDoubleSpinBox;
class QLabel;

namespace trainio {
class EmulatedStorageBackend;
}

namespace trainio::ui {

class StorageControls final : public QWidget {
    Q_OBJECT
public:
    explicit StorageControls(QWidget* parent = nullptr);

    // The device of the running invocation, or null when it ends (the strip hides). GUI thread only.
    void setDevice(std::shared_ptr<EmulatedStorageBackend> device);
    const std::shared_ptr<EmulatedStorageBackend>& device() const { return device_; }

    QDoubleSpinBox* bandwidthBox() const { return bandwidth_; }
    QDoubleSpinBox* latencyBox() const { return latency_; }

signals:
    // A change the device accepted, in words for a plot marker: "bw 500→100 MiB/s", "lat 2→10 ms".
    void changed(const QString& label);
    // A change the device refused (InputError text).
    void refused(const QString& text);

private:
    void showDevice();
    // Runs a device setter; false (and refused()) when it throws.
    bool apply(const std::function<void()>& set);
    void applyBandwidth(double mibs);
    void applyLatency(double medianMs);

    std::shared_ptr<EmulatedStorageBackend> device_;
    QDoubleSpinBox* bandwidth_;
    QDoubleSpinBox* latency_;
    QLabel* shape_;
    bool updating_ = false;
};

} // namespace trainio::ui
