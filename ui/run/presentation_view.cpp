#include "run/presentation_view.h"

#include "plots/mark_labels.h"
#include "plots/plot_theme.h"
#include "io/storage_profile.h"
#include "run/storage_controls.h"

#include <qcustomplot.h>

#include <QCloseEvent>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QPainter>
#include <QPushButton>
#include <QScreen>
#include <QShortcut>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace trainio::ui {

namespace {

constexpr int kMinPixelSize = 8;
const QColor kPassColor(0x3d, 0xd6, 0x8c);
const QColor kFailColor(0xff, 0x9f, 0x1c);
const QColor kMarkerColor(0xff, 0x6b, 0x3d);

// A limit's slider scale: log between `low` and `high`; the value 0 ("unlimited" / "none") at one end.
struct Scale {
    double low, high;
    bool zeroAtTop; // 0 = unlimited, at the top end (bandwidth, IOPS, in flight); else 0 = none at the bottom
    double quantum; // the strip box's resolution (its decimals): every value is a multiple of it
};

Scale scaleOf(PresentationView::Limit limit) {
    switch (limit) {
    case PresentationView::Bandwidth: return {1, 100000, true, 0.1};  // MiB/s, one decimal in the strip
    case PresentationView::Latency: return {0.01, 1000, false, 0.001}; // ms, three decimals
    case PresentationView::Iops: return {10, 1e7, true, 1};
    case PresentationView::Inflight: return {1, 4096, true, 1};
    case PresentationView::LimitCount: break;
    }
    return {1, 2, true, 1};
}

// The roundest number within [low, high] that is a multiple of `quantum` (fewest significant digits; up
// to four): a dragged value reads as a round number (150 MiB/s, not 147.3), and a profile's value (128,
// 0.085, 1,000,000) is reachable. Without one there, the multiple nearest the middle.
double roundestIn(double low, double high, double quantum) {
    const double mid = std::sqrt(low * high);
    auto multiple = [quantum](double c) { return std::abs(c / quantum - std::round(c / quantum)) < 1e-6; };
    for (int digits = 1; digits <= 4; ++digits) {
        const double magnitude = std::pow(10.0, std::floor(std::log10(mid)) - (digits - 1));
        for (double c : {std::round(mid / magnitude) * magnitude, std::ceil(low / magnitude) * magnitude}) {
            c = std::round(c / quantum) * quantum; // a multiple up to rounding error
            if (c >= low && c <= high && c > 0 && multiple(c)) return c;
        }
    }
    return std::max(quantum, std::round(mid / quantum) * quantum);
}

QString limitText(PresentationView::Limit limit, double v) { return deviceLimitText(static_cast<DeviceLimit>(limit), v); }

QString percent(std::optional<double> v) { return v ? QStringLiteral("%1 %").arg(*v, 0, 'f', 1) : QStringLiteral("—"); }

} // namespace

// ---------------------------------------------------------------------------------------------------

FitLabel::FitLabel(QWidget* parent, const QString& sample) : QLabel(parent), sample_(sample) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    setTextFormat(Qt::PlainText);
    setWordWrap(false);
}

void FitLabel::setPixelSize(int px) {
    wanted_ = std::max(kMinPixelSize, px);
    fit();
}

void FitLabel::setSample(const QString& sample) {
    sample_ = sample;
    fit();
}

void FitLabel::setText(const QString& text) {
    if (text == QLabel::text()) return;
    QLabel::setText(text);
    fit();
}

QSize FitLabel::sizeHint() const {
    const QFontMetrics fm(font());
    const QMargins m = contentsMargins();
    return {fm.horizontalAdvance(text()) + m.left() + m.right() + 2 * margin(), fm.height() + m.top() + m.bottom() + 2 * margin()};
}

QSize FitLabel::minimumSizeHint() const { return {0, sizeHint().height()}; }

void FitLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    fit();
}

void FitLabel::fit() {
    const int room = contentsRect().width() - 2 * margin();
    QFont f = font();
    int px = wanted_;
    for (; px > kMinPixelSize; --px) {
        f.setPixelSize(px);
        const QFontMetrics fm(f);
        if (fm.horizontalAdvance(text()) <= room && fm.horizontalAdvance(sample_) <= room) break;
    }
    f.setPixelSize(px);
    if (f != font()) {
        setFont(f);
        updateGeometry();
    }
}

// ---------------------------------------------------------------------------------------------------

AuBar::AuBar(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMinimumSize(8, 40);
}

void AuBar::setThreshold(double percent) {
    threshold_ = percent;
    update();
}

void AuBar::setValue(std::optional<double> percent) {
    if (percent == value_) return;
    value_ = percent;
    update();
}

void AuBar::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF track = QRectF(rect()).adjusted(1, 1, -1, -1);
    const double radius = std::min(8.0, track.width() / 6);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x3a, 0x3f, 0x4a)); // the projector theme's track, whatever the palette
    p.drawRoundedRect(track, radius, radius);
    if (value_) {
        const double v = std::clamp(*value_, 0.0, 100.0);
        QRectF fill = track;
        fill.setTop(track.bottom() - track.height() * v / 100.0);
        p.setBrush(*value_ >= threshold_ ? kPassColor : kFailColor);
        p.drawRoundedRect(fill, radius, radius);
    }
    // The pass line, across the bar and a little beyond its track.
    const double y = track.bottom() - track.height() * std::clamp(threshold_, 0.0, 100.0) / 100.0;
    p.setPen(QPen(QColor(0xf2, 0xf2, 0xf2), std::max(2.0, height() / 150.0), Qt::DashLine));
    p.drawLine(QPointF(track.left(), y), QPointF(track.right(), y));
}

// ---------------------------------------------------------------------------------------------------

PresentationView::PresentationView(StorageControls* strip, QWidget* parent)
    : ProjectorWindow(parent, QStringLiteral("presentationView"), tr("TrainIO — presentation")), strip_(strip),
      auLine_(EnvelopeLimits{512, 1024}) {

    auto* layout = new QVBoxLayout(this);
    // The window takes the screen's size, whatever the fonts were for the previous size: they follow it
    // (scaleFonts), so the layout's minimum must not hold the window larger meanwhile.
    layout->setSizeConstraint(QLayout::SetNoConstraint);
    auto* top = new QHBoxLayout;
    title_ = new FitLabel(this);
    title_->setObjectName(QStringLiteral("presentationTitle"));
    hint_ = new FitLabel(this);
    hint_->setText(tr("Esc or F11: back to the Run page"));
    hint_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    hint_->setObjectName(QStringLiteral("presentationHint"));
    top->addWidget(title_, 3);
    top->addWidget(hint_, 1);
    layout->addLayout(top);
    status_ = new FitLabel(this);
    status_->setObjectName(QStringLiteral("presentationStatus"));
    status_->setText(tr("No run yet: start one on the Run page."));
    layout->addWidget(status_);

    // The figures: total AU, AU per accelerator, bytes delivered.
    auto* figures = new QHBoxLayout;
    auto* total = new QVBoxLayout;
    totalCaption_ = new FitLabel(this);
    totalCaption_->setAlignment(Qt::AlignHCenter);
    totalBar_ = new AuBar(this);
    totalBar_->setObjectName(QStringLiteral("presentationTotalBar"));
    totalValue_ = new FitLabel(this, QStringLiteral("100.0 %"));
    totalValue_->setObjectName(QStringLiteral("presentationTotalAu"));
    totalValue_->setAlignment(Qt::AlignHCenter);
    totalEpoch_ = new FitLabel(this);
    totalEpoch_->setAlignment(Qt::AlignHCenter);
    total->addWidget(totalCaption_);
    total->addWidget(totalBar_, 1, Qt::AlignHCenter);
    total->addWidget(totalValue_);
    total->addWidget(totalEpoch_);
    auto* ranks = new QVBoxLayout;
    ranksCaption_ = new FitLabel(this);
    ranksCaption_->setAlignment(Qt::AlignHCenter);
    rankArea_ = new QWidget(this);
    rankGrid_ = new QGridLayout(rankArea_);
    rankGrid_->setContentsMargins(0, 0, 0, 0);
    ranks->addWidget(ranksCaption_);
    ranks->addWidget(rankArea_, 1);
    auto* delivered = new QVBoxLayout;
    deliveredCaption_ = new FitLabel(this);
    deliveredCaption_->setText(tr("Delivered to the accelerators"));
    deliveredCaption_->setAlignment(Qt::AlignHCenter);
    delivered_ = new FitLabel(this, QStringLiteral("888.88 GiB/s"));
    delivered_->setObjectName(QStringLiteral("presentationDelivered"));
    delivered_->setAlignment(Qt::AlignHCenter);
    deliveredMib_ = new FitLabel(this);
    deliveredMib_->setAlignment(Qt::AlignHCenter);
    binding_ = new FitLabel(this);
    binding_->setObjectName(QStringLiteral("presentationBinding"));
    binding_->setAlignment(Qt::AlignHCenter);
    delivered->addStretch(1);
    delivered->addWidget(deliveredCaption_);
    delivered->addWidget(delivered_);
    delivered->addWidget(deliveredMib_);
    delivered->addSpacing(12);
    delivered->addWidget(binding_);
    delivered->addStretch(1);
    figures->addLayout(total, 2);
    figures->addSpacing(24);
    figures->addLayout(ranks, 5);
    figures->addSpacing(24);
    figures->addLayout(delivered, 3);
    layout->addLayout(figures, 1);

    // The run so far: the total AU of the last seconds (the bar's figure) per step, the pass line, the storage changes.
    chart_ = new QCustomPlot(this);
    chart_->setObjectName(QStringLiteral("presentationChart"));
    chart_->addGraph();
    chart_->xAxis->setLabel(tr("step"));
    chart_->yAxis->setLabel(tr("AU %"));
    chart_->yAxis->setRange(0, 105);
    connect(chart_, &QCustomPlot::beforeReplot, this, [this] { layOutMarkLabels(chart_, 3, 105); });
    layout->addWidget(chart_);

    // The emulated device's limits.
    slidersCaption_ = new FitLabel(this);
    layout->addWidget(slidersCaption_);
    auto* sliders = new QGridLayout;
    const QString names[LimitCount] = {tr("Bandwidth"), tr("Latency (median)"), tr("IOPS"), tr("Requests in flight")};
    const QString samples[LimitCount] = {tr("88,888 GiB/s"), tr("888 µs"), tr("8,888,888 IOPS"), tr("8,888 at once")};
    // Captions in one size (issue 32, item 8): each fits the longest of them (and of the values) in a
    // column as wide as the others, so all four come out at the same pixel size.
    QString longestName, longestSample;
    for (int i = 0; i < LimitCount; ++i) {
        if (names[i].size() > longestName.size()) longestName = names[i];
        if (samples[i].size() > longestSample.size()) longestSample = samples[i];
    }
    for (int i = 0; i < LimitCount; ++i) {
        const auto limit = static_cast<Limit>(i);
        sliderNames_[i] = new FitLabel(this, longestName);
        sliderNames_[i]->setObjectName(QStringLiteral("presentationLimitName%1").arg(i));
        sliderNames_[i]->setText(names[i]);
        sliderValues_[i] = new FitLabel(this, longestSample);
        sliderValues_[i]->setObjectName(QStringLiteral("presentationLimitValue%1").arg(i));
        sliderValues_[i]->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        auto* s = new QSlider(Qt::Horizontal, this);
        s->setObjectName(QStringLiteral("presentationLimit%1").arg(i));
        s->setRange(0, kSliderSteps);
        s->setPageStep(kSliderSteps / 20);
        s->setSingleStep(kSliderSteps / 100);
        // Applied when the presenter lets go (or steps it with the keyboard), not at every pixel of a drag.
        s->setTracking(false);
        s->setToolTip(tr("Drag to change the emulated device now (log scale; the far end: %1)")
                          .arg(scaleOf(limit).zeroAtTop ? tr("unlimited") : tr("none")));
        sliders_[i] = s;
        auto* head = new QHBoxLayout;
        head->addWidget(sliderNames_[i], 1);
        head->addWidget(sliderValues_[i], 1);
        sliders->addLayout(head, 0, i);
        sliders->addWidget(s, 1, i);
        connect(s, &QSlider::sliderMoved, this, [this, limit](int pos) { showSliderValue(limit, valueAt(limit, pos)); });
        connect(s, &QSlider::valueChanged, this, [this, limit] { applySlider(limit); });
    }
    sliders->setHorizontalSpacing(32);
    for (int i = 0; i < LimitCount; ++i) sliders->setColumnStretch(i, 1);
    layout->addLayout(sliders);

    // One click to a storage profile's exact limits (issue 32, item 8): a slider stands for a round value
    // near where it is let go (dragging back to nvme gave 6.64 GiB/s, 133 in flight), a profile's button
    // gives the device the profile's own numbers, its latency distribution included.
    auto* profiles = new QHBoxLayout;
    profilesCaption_ = new FitLabel(this);
    profilesCaption_->setText(tr("Storage profile:"));
    profiles->addWidget(profilesCaption_, 2);
    for (const std::string& name : storageProfileNames()) {
        try {
            const StorageProfile profile = loadStorageProfile(name);
            auto* button = new QPushButton(QString::fromStdString(name), this);
            button->setObjectName(QStringLiteral("presentationProfile_%1").arg(QString::fromStdString(name)));
            button->setToolTip(tr("Give the emulated device the %1 profile's limits now: %2")
                                   .arg(QString::fromStdString(name), QString::fromStdString(describeStorageShape(profile.shape))));
            button->setFocusPolicy(Qt::NoFocus);
            connect(button, &QPushButton::clicked, this, [this, shape = profile.shape, name = button->text()] {
                if (strip_) strip_->applyShape(shape, name);
            });
            profiles->addWidget(button, 1);
            profileButtons_.push_back(button);
        } catch (const std::exception&) {
            // A profile file that does not read is named where it is chosen (the workload form); not offered here.
        }
    }
    layout->addLayout(profiles);

    if (strip_) {
        connect(strip_, &StorageControls::shown, this, &PresentationView::syncSliders);
        connect(strip_, &StorageControls::bindingChanged, this, [this](const QString& limit) {
            binding_->setText(limit.isEmpty() ? tr("limited by: not the device") : tr("limited by: %1").arg(limit));
        });
    }
    refreshTimer_ = new QTimer(this);
    refreshTimer_->setInterval(250);
    connect(refreshTimer_, &QTimer::timeout, this, [this] {
        if (dirty_) refresh();
    });
    refreshTimer_->start();
    reset(1, 1, 90, tr("TrainIO"));
    syncSliders();
    resize(1280, 720);
}

QDoubleSpinBox* PresentationView::box(Limit limit) const {
    if (!strip_) return nullptr;
    switch (limit) {
    case Bandwidth: return strip_->bandwidthBox();
    case Latency: return strip_->latencyBox();
    case Iops: return strip_->iopsBox();
    case Inflight: return strip_->inflightBox();
    case LimitCount: break;
    }
    return nullptr;
}

int PresentationView::positionOf(Limit limit, double value) {
    const Scale s = scaleOf(limit);
    if (value <= 0) return s.zeroAtTop ? kSliderSteps : 0;
    const int first = s.zeroAtTop ? 0 : 1;
    const int last = s.zeroAtTop ? kSliderSteps - 1 : kSliderSteps;
    const double f = (std::log(std::clamp(value, s.low, s.high)) - std::log(s.low)) / (std::log(s.high) - std::log(s.low));
    return first + static_cast<int>(std::lround(f * (last - first)));
}

double PresentationView::valueAt(Limit limit, int position) {
    const Scale s = scaleOf(limit);
    if (s.zeroAtTop && position >= kSliderSteps) return 0;
    if (!s.zeroAtTop && position <= 0) return 0;
    const int first = s.zeroAtTop ? 0 : 1;
    const int last = s.zeroAtTop ? kSliderSteps - 1 : kSliderSteps;
    // The values this position stands for: half a step either side, on the log scale.
    auto at = [&](double p) {
        const double f = std::clamp((p - first) / (last - first), 0.0, 1.0);
        return std::exp(std::log(s.low) + f * (std::log(s.high) - std::log(s.low)));
    };
    const int p = std::clamp(position, first, last);
    if (p == first) return s.low; // the scale's ends exactly
    if (p == last) return s.high;
    return roundestIn(at(p - 0.5) * (1 - 1e-12), at(p + 0.5) * (1 + 1e-12), s.quantum);
}

void PresentationView::syncSliders() {
    const bool device = strip_ && strip_->device();
    for (QPushButton* b : profileButtons_) b->setEnabled(device);
    slidersCaption_->setText(device ? tr("Emulated storage — drag a limit or pick a profile to change the device now")
                                    : tr("Emulated storage: none in this run (its limits can be changed during a run through one)"));
    for (int i = 0; i < LimitCount; ++i) {
        const auto limit = static_cast<Limit>(i);
        QDoubleSpinBox* b = box(limit);
        sliders_[i]->setEnabled(device && b);
        if (!device || !b) {
            sliderValues_[i]->setText(QStringLiteral("—"));
            continue;
        }
        const QSignalBlocker block(sliders_[i]);
        sliders_[i]->setValue(positionOf(limit, b->value()));
        showSliderValue(limit, b->value());
    }
}

void PresentationView::showSliderValue(Limit limit, double value) { sliderValues_[limit]->setText(limitText(limit, value)); }

void PresentationView::applySlider(Limit limit) {
    QDoubleSpinBox* b = box(limit);
    if (!b || !strip_->device()) return;
    // The strip's own box: its change goes through the strip's live-change path (device, log, marker).
    b->setValue(valueAt(limit, sliders_[limit]->value()));
    syncSliders(); // also when the box did not change (the same value) or the device refused it
}

void PresentationView::reset(std::uint64_t ranks, std::uint64_t batchSize, double auThresholdPercent, const QString& title) {
    ranks_ = std::max<std::uint64_t>(1, ranks);
    threshold_ = auThresholdPercent;
    figures_.reset(ranks_);
    steps_.reset(ranks_, batchSize);
    auLine_.clear();
    epochRankAu_.clear();
    epochAu_.reset();
    markers_.clear();
    title_->setText(title);
    totalCaption_->setText(ranks_ == 1 ? tr("AU (1 accelerator)") : tr("AU of all %1 accelerators").arg(ranks_));
    ranksCaption_->setText(ranks_ <= kMaxRankBars ? tr("AU per accelerator — pass line %1 %").arg(threshold_, 0, 'f', 0)
                                                  : tr("AU of %1 accelerators: lowest, median, highest — pass line %2 %")
                                                        .arg(ranks_)
                                                        .arg(threshold_, 0, 'f', 0));
    totalBar_->setThreshold(threshold_);
    binding_->setText(QString());
    chart_->clearItems();
    chart_->graph(0)->data()->clear();
    chart_->xAxis->setRange(0, 1);
    auto* pass = new QCPItemStraightLine(chart_);
    pass->point1->setCoords(0, threshold_);
    pass->point2->setCoords(1, threshold_);
    pass->setPen(QPen(palette().color(QPalette::WindowText), 2, Qt::DashLine));
    rebuildRankBars();
    dirty_ = true;
    refresh();
}

void PresentationView::rebuildRankBars() {
    for (RankGauge& g : rankGauges_) {
        delete g.name;
        delete g.bar;
        delete g.value;
    }
    rankGauges_.clear();
    const std::uint64_t gauges = ranks_ <= kMaxRankBars ? ranks_ : 3;
    const QString spread[3] = {tr("lowest"), tr("median"), tr("highest")};
    for (std::uint64_t i = 0; i < gauges; ++i) {
        RankGauge g;
        g.name = new FitLabel(rankArea_, ranks_ <= kMaxRankBars ? QStringLiteral("#88") : QString());
        g.name->setText(ranks_ <= kMaxRankBars ? QStringLiteral("#%1").arg(i + 1) : spread[i]);
        g.name->setAlignment(Qt::AlignHCenter);
        g.bar = new AuBar(rankArea_);
        g.bar->setObjectName(QStringLiteral("presentationRankBar%1").arg(i));
        g.bar->setThreshold(threshold_);
        g.value = new FitLabel(rankArea_, QStringLiteral("100 %"));
        g.value->setAlignment(Qt::AlignHCenter);
        const int col = static_cast<int>(i);
        rankGrid_->addWidget(g.name, 0, col);
        rankGrid_->addWidget(g.bar, 1, col);
        rankGrid_->addWidget(g.value, 2, col);
        rankGrid_->setColumnStretch(col, 1);
        rankGauges_.push_back(g);
    }
    rankGrid_->setRowStretch(1, 1);
    scaleFonts();
}

std::vector<AuBar*> PresentationView::rankBars() const {
    std::vector<AuBar*> out;
    for (const RankGauge& g : rankGauges_) out.push_back(g.bar);
    return out;
}

void PresentationView::beginInvocation(const QString& label) {
    figures_.beginInvocation();
    steps_.beginInvocation();
    // The invocation's start on the chart, dotted, as on the Run page's plots.
    const double x = steps_.lastKey() + 0.5;
    auto* line = new QCPItemStraightLine(chart_);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(QPen(palette().color(QPalette::PlaceholderText), 1, Qt::DotLine));
    Q_UNUSED(label);
    dirty_ = true;
}

void PresentationView::addSteps(const std::vector<StepEvent>& events) {
    if (events.empty()) return;
    // The chart's line is the total bar's figure (issue 32, item 6): the AU of the last seconds' steps
    // (LiveFigures), at the newest step, not a moving mean over a number of steps that lags the bars.
    figures_.add(events);
    const StepSeries::Output out = steps_.add(events);
    if (const std::optional<double> au = figures_.totalAu(); au && !out.total.empty()) auLine_.add(out.total.back().key, *au);
    dirty_ = true;
}

void PresentationView::addEpoch(const EpochEvent& e) {
    epochAu_ = e.auPercent;
    epochRankAu_ = e.rankAu;
    dirty_ = true;
}

void PresentationView::addMarker(const QString& label, double x) {
    markers_ << label;
    drawMarker(x, label);
    dirty_ = true;
    refresh();
}

void PresentationView::drawMarker(double x, const QString& label) {
    auto* line = new QCPItemStraightLine(chart_);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(QPen(kMarkerColor, 3, Qt::DashLine));
    auto* text = new QCPItemText(chart_);
    // Left of its line where there is room, on the first free row above the data (layOutMarkLabels before
    // each replot): changes a few steps apart never print over each other or over the AU line.
    setMarkLabel(text, Qt::AlignRight);
    text->position->setCoords(x, 0);
    text->setPadding(QMargins(4, 1, 4, 1));
    text->setText(label);
    text->setColor(kMarkerColor);
    QColor back = palette().color(QPalette::Base);
    back.setAlpha(220);
    text->setBrush(back);
    text->setFont(chart_->xAxis->tickLabelFont());
    text->setProperty("presentationMarker", true);
}

void PresentationView::setStatus(const QString& text) { status_->setText(text); }

void PresentationView::refresh() {
    dirty_ = false;
    const std::optional<double> total = figures_.totalAu();
    totalBar_->setValue(total);
    totalValue_->setText(percent(total));
    totalEpoch_->setText(epochAu_ ? tr("last epoch %1 (DLIO)").arg(percent(epochAu_)) : tr("last epoch: —"));
    if (ranks_ <= kMaxRankBars) {
        for (std::uint64_t r = 0; r < rankGauges_.size(); ++r) {
            const std::optional<double> au = figures_.rankAu(r);
            rankGauges_[r].bar->setValue(au);
            rankGauges_[r].value->setText(au ? QStringLiteral("%1 %").arg(*au, 0, 'f', 0) : QStringLiteral("—"));
        }
    } else {
        std::vector<double> values;
        for (std::uint64_t r = 0; r < ranks_; ++r)
            if (const std::optional<double> au = figures_.rankAu(r)) values.push_back(*au);
        std::sort(values.begin(), values.end());
        for (std::size_t i = 0; i < rankGauges_.size(); ++i) {
            std::optional<double> v;
            if (!values.empty()) v = values[i == 0 ? 0 : i == 1 ? values.size() / 2 : values.size() - 1];
            rankGauges_[i].bar->setValue(v);
            rankGauges_[i].value->setText(v ? QStringLiteral("%1 %").arg(*v, 0, 'f', 0) : QStringLiteral("—"));
        }
    }
    QString other;
    delivered_->setText(deliveredRateText(figures_.bytesPerSecond(), &other));
    deliveredMib_->setText(other);
    QVector<QCPGraphData> points;
    points.reserve(static_cast<qsizetype>(auLine_.drawPointCount()));
    auLine_.forEachDrawPoint([&](const EnvelopePoint& p) { points.append(QCPGraphData(p.key, p.value)); });
    chart_->graph(0)->data()->set(points, true);
    chart_->xAxis->setRange(0, std::max(1.0, steps_.lastKey()) + 1);
    chart_->replot(QCustomPlot::rpQueuedReplot);
}

void PresentationView::scaleFonts() {
    const double u = std::max(0.5, std::min(width() / 1280.0, height() / 720.0));
    auto px = [u](double size) { return static_cast<int>(std::lround(size * u)); };
    title_->setPixelSize(px(30));
    hint_->setPixelSize(px(18));
    status_->setPixelSize(px(22));
    for (FitLabel* l : {totalCaption_, ranksCaption_, deliveredCaption_, slidersCaption_}) l->setPixelSize(px(22));
    totalValue_->setPixelSize(px(64));
    totalEpoch_->setPixelSize(px(20));
    delivered_->setPixelSize(px(64));
    deliveredMib_->setPixelSize(px(24));
    binding_->setPixelSize(px(26));
    for (const RankGauge& g : rankGauges_) {
        g.name->setPixelSize(px(22));
        g.value->setPixelSize(px(26));
    }
    profilesCaption_->setPixelSize(px(22));
    QFont buttonFont = font();
    buttonFont.setPixelSize(std::max(kMinPixelSize, px(20)));
    for (QPushButton* b : profileButtons_) b->setFont(buttonFont);
    for (int i = 0; i < LimitCount; ++i) {
        sliderNames_[i]->setPixelSize(px(22));
        sliderValues_[i]->setPixelSize(px(26));
    }
    totalBar_->setMinimumWidth(px(110));
    chart_->setFixedHeight(px(170));
    applyProjectorPlotTheme(chart_, px(16));
    chart_->graph(0)->setPen(QPen(QColor(0x56, 0xb4, 0xe9), std::max(2, px(3))));
    for (int i = 0; i < chart_->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(chart_->item(i))) t->setFont(chart_->xAxis->tickLabelFont());
    // Large handles: a slider a presenter can hit on a touch pad in front of an audience.
    // (A style sheet replaces the palette's text colour for the labels: said here too.)
    setStyleSheet(QStringLiteral("QLabel { color: #f2f2f2; } QLabel#presentationHint { color: #a0a0a0; }"
                                 "QSlider::groove:horizontal { height: %1px; background: #3a3f4a; border-radius: %2px; }"
                                 "QSlider::sub-page:horizontal { background: #56b4e9; border-radius: %2px; }"
                                 "QSlider::handle:horizontal { width: %3px; margin: -%4px 0; background: #f2f2f2; "
                                 "border-radius: %5px; }"
                                 "QSlider::handle:horizontal:disabled { background: #666; }"
                                 "QSlider { min-height: %6px; }"
                                 "QPushButton { color: #f2f2f2; background: #3a3f4a; border: 1px solid #56b4e9; "
                                 "border-radius: %2px; padding: %2px %4px; }"
                                 "QPushButton:disabled { color: #666; border-color: #555; }")
                      .arg(px(10))
                      .arg(px(5))
                      .arg(px(30))
                      .arg(px(11))
                      .arg(px(15))
                      .arg(px(40)));
    chart_->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace trainio::ui
