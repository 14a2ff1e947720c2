#include "run/race_view.h"

#include "plots/mark_labels.h"
#include "plots/plot_theme.h"
#include "run/presentation_view.h"
#include "run/storage_controls.h"
#include "widgets/file_dialogs.h"

#include "io/emulated_storage.h"

#include <qcustomplot.h>

#include <QCloseEvent>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace trainio::ui {

namespace {

// One colour per lane (Okabe–Ito: told apart also by the colour-blind), the AU bars keep pass/miss colours.
const QColor kLaneColors[RaceView::kMaxLanes] = {QColor(0x56, 0xb4, 0xe9), QColor(0xe6, 0x9f, 0x00), QColor(0xcc, 0x79, 0xa7)};
const QColor kReplayColor(0xff, 0xd2, 0x4d);
const QColor kLiveColor(0xff, 0x5c, 0x5c);

QString percentText(std::optional<double> v) { return v ? QStringLiteral("%1 %").arg(*v, 0, 'f', 1) : QStringLiteral("—"); }

} // namespace

// A horizontal bar: a lane's bytes per second against the highest rate any lane showed (one scale).
class RateBar final : public QWidget {
public:
    explicit RateBar(QColor color, QWidget* parent) : QWidget(parent), color_(color) {
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        setMinimumHeight(8);
    }
    void setFraction(std::optional<double> f) {
        if (f == fraction_) return;
        fraction_ = f;
        update();
    }
    std::optional<double> fraction() const { return fraction_; }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        const QRectF track = QRectF(rect()).adjusted(1, 1, -1, -1);
        const double r = std::min(6.0, track.height() / 3);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x3a, 0x3f, 0x4a));
        p.drawRoundedRect(track, r, r);
        if (fraction_ && *fraction_ > 0) {
            QRectF fill = track;
            fill.setWidth(track.width() * std::clamp(*fraction_, 0.0, 1.0));
            p.setBrush(color_);
            p.drawRoundedRect(fill, r, r);
        }
    }

private:
    QColor color_;
    std::optional<double> fraction_;
};

struct RaceView::Lane {
    int id = 0;
    QString name;                                    // in the view's title: the run's folder, "live", "live on hdd"
    std::shared_ptr<const session::RecordedRun> run; // null: a live lane
    std::optional<session::ReplayCursor> cursor;
    LiveFigures figures;
    QColor color;
    double threshold = 90;
    std::optional<double> epochAu;
    QString deviceLimit; // the live device's binding limit ("" when it names none)
    QStringList markers;
    QCPGraph* graph = nullptr;
    double lastX = 0, lastPlotX = -1;

    QWidget* box = nullptr;
    QLabel* title = nullptr;
    QLabel* caption = nullptr;
    AuBar* bar = nullptr;
    FitLabel* au = nullptr;
    FitLabel* epoch = nullptr;
    FitLabel* delivered = nullptr;
    RateBar* rate = nullptr;
    QLabel* limit = nullptr;
};

namespace {
// A lane's long texts (its name, what it is, its limit) wrap onto a second line at a readable size rather
// than shrink to fit one.
QLabel* wrappingLabel(QWidget* parent, const QString& name) {
    auto* l = new QLabel(parent);
    l->setObjectName(name);
    l->setTextFormat(Qt::PlainText);
    l->setWordWrap(true);
    l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Minimum);
    return l;
}

void setPixelSize(QWidget* w, int px) {
    QFont f = w->font();
    f.setPixelSize(std::max(8, px));
    w->setFont(f);
}
} // namespace

RaceView::RaceView(QWidget* parent) : ProjectorWindow(parent, QStringLiteral("raceView"), tr("TrainIO — race and replay")) {

    auto* layout = new QVBoxLayout(this);
    layout->setSizeConstraint(QLayout::SetNoConstraint);
    auto* top = new QHBoxLayout;
    title_ = new FitLabel(this);
    title_->setObjectName(QStringLiteral("raceTitle"));
    hint_ = new FitLabel(this);
    hint_->setObjectName(QStringLiteral("raceHint"));
    hint_->setText(tr("Esc: close"));
    hint_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    top->addWidget(title_, 4);
    top->addWidget(hint_, 1);
    layout->addLayout(top);
    message_ = new FitLabel(this);
    message_->setObjectName(QStringLiteral("raceMessage"));
    layout->addWidget(message_);

    // The lanes in columns, their names, captions and figures each in one row: the bars of lanes whose
    // names wrap differently still start at one height.
    laneRow_ = new QGridLayout;
    laneRow_->setHorizontalSpacing(24);
    laneRow_->setRowStretch(2, 1);
    layout->addLayout(laneRow_, 1);

    // Every lane's AU of the last seconds over its run's time, on one chart: one scale for all.
    chart_ = new QCustomPlot(this);
    chart_->setObjectName(QStringLiteral("raceChart"));
    chart_->xAxis->setLabel(tr("seconds since the start"));
    chart_->yAxis->setLabel(tr("AU %"));
    chart_->yAxis->setRange(0, 105);
    chart_->xAxis->setRange(0, 10);
    connect(chart_, &QCustomPlot::beforeReplot, this, [this] { layOutMarkLabels(chart_, 3, 105); });
    layout->addWidget(chart_);

    auto* controls = new QHBoxLayout;
    addButton_ = new QPushButton(tr("Add a recording…"), this);
    addButton_->setObjectName(QStringLiteral("raceAdd"));
    addButton_->setToolTip(tr("Play a recorded run's folder beside the others (at most %1 lanes)").arg(kMaxLanes));
    addButton_->setFocusPolicy(Qt::NoFocus);
    restartButton_ = new QPushButton(tr("Replay from the start"), this);
    restartButton_->setObjectName(QStringLiteral("raceRestart"));
    restartButton_->setFocusPolicy(Qt::NoFocus);
    speedBox_ = new QComboBox(this);
    speedBox_->setObjectName(QStringLiteral("raceSpeed"));
    for (double s : {1.0, 2.0, 5.0, 10.0, 30.0}) speedBox_->addItem(tr("%1× speed").arg(s), s);
    speedBox_->setToolTip(tr("How fast the recordings play: 1× is the time they took"));
    speedBox_->setFocusPolicy(Qt::NoFocus);
    controls->addWidget(addButton_);
    controls->addWidget(restartButton_);
    controls->addWidget(speedBox_);
    controls->addStretch(1);
    layout->addLayout(controls);
    connect(addButton_, &QPushButton::clicked, this, &RaceView::addFromDialog);
    connect(restartButton_, &QPushButton::clicked, this, &RaceView::start);
    connect(speedBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0) setSpeed(speedBox_->itemData(i).toDouble());
    });

    timer_ = new QTimer(this);
    timer_->setInterval(100);
    connect(timer_, &QTimer::timeout, this, &RaceView::tick);
    clear();
    resize(1280, 720);
}

RaceView::~RaceView() = default;

RaceView::Lane& RaceView::makeLane(const QString& title, const QString& caption, const QString& name, double threshold,
                                   std::uint64_t ranks, bool replay) {
    auto lane = std::make_unique<Lane>();
    Lane& l = *lane;
    const int index = static_cast<int>(lanes_.size());
    l.id = nextId_++;
    l.name = name;
    l.color = kLaneColors[index % kMaxLanes];
    l.threshold = threshold;
    l.figures.reset(std::max<std::uint64_t>(1, ranks));
    l.box = new QWidget(this);
    l.box->setObjectName(QStringLiteral("raceLane%1").arg(index));
    auto* v = new QVBoxLayout(l.box);
    v->setContentsMargins(0, 0, 0, 0);
    l.title = wrappingLabel(this, QStringLiteral("raceLaneTitle%1").arg(index));
    l.title->setText(title);
    l.title->setToolTip(title);
    l.title->setStyleSheet(QStringLiteral("color: %1;").arg(l.color.name()));
    l.caption = wrappingLabel(this, QStringLiteral("raceLaneCaption%1").arg(index));
    l.caption->setText(caption);
    l.caption->setStyleSheet(QStringLiteral("color: %1; font-weight: 600;").arg((replay ? kReplayColor : kLiveColor).name()));
    auto* figures = new QHBoxLayout;
    l.bar = new AuBar(l.box);
    l.bar->setObjectName(QStringLiteral("raceLaneBar%1").arg(index));
    l.bar->setThreshold(threshold);
    auto* numbers = new QVBoxLayout;
    l.au = new FitLabel(l.box, QStringLiteral("100.0 %"));
    l.au->setObjectName(QStringLiteral("raceLaneAu%1").arg(index));
    l.epoch = new FitLabel(l.box);
    l.epoch->setObjectName(QStringLiteral("raceLaneEpoch%1").arg(index));
    l.delivered = new FitLabel(l.box, QStringLiteral("888.88 GiB/s"));
    l.delivered->setObjectName(QStringLiteral("raceLaneDelivered%1").arg(index));
    l.rate = new RateBar(l.color, l.box);
    l.limit = wrappingLabel(l.box, QStringLiteral("raceLaneLimit%1").arg(index));
    numbers->addStretch(1);
    numbers->addWidget(l.au);
    numbers->addWidget(l.epoch);
    numbers->addSpacing(8);
    numbers->addWidget(l.delivered);
    numbers->addWidget(l.rate);
    numbers->addSpacing(8);
    numbers->addWidget(l.limit);
    numbers->addStretch(1);
    figures->addWidget(l.bar, 1);
    figures->addLayout(numbers, 3);
    v->addLayout(figures, 1);
    laneRow_->addWidget(l.title, 0, index, Qt::AlignTop);
    laneRow_->addWidget(l.caption, 1, index, Qt::AlignTop);
    laneRow_->addWidget(l.box, 2, index);
    laneRow_->setColumnStretch(index, 1);

    l.graph = chart_->addGraph();
    l.graph->setName(title);
    l.graph->setPen(QPen(l.color, 3));
    // The pass line in the lane's colour (lanes of one workload share it, and then the lines coincide).
    auto* pass = new QCPItemStraightLine(chart_);
    pass->point1->setCoords(0, threshold);
    pass->point2->setCoords(1, threshold);
    pass->setPen(QPen(l.color.lighter(130), 2, Qt::DashLine));
    lanes_.push_back(std::move(lane));
    addButton_->setEnabled(static_cast<int>(lanes_.size()) < kMaxLanes);
    scaleFonts();
    return l;
}

bool RaceView::addReplay(std::shared_ptr<const session::RecordedRun> run) {
    if (!run) return false;
    if (static_cast<int>(lanes_.size()) >= kMaxLanes) {
        setMessage(tr("At most %1 runs side by side: %2 not added").arg(kMaxLanes).arg(QString::fromStdString(run->runName)), true);
        return false;
    }
    QString caption = QString::fromStdString(session::replayCaption(*run));
    if (!run->storage.empty()) caption += QStringLiteral(" · ") + QString::fromStdString(run->storage);
    Lane& l = makeLane(QString::fromStdString(run->itemName), caption, QString::fromStdString(run->runName),
                       run->auThresholdPercent, run->ranks, true);
    l.run = std::move(run);
    l.cursor.emplace(*l.run, speed_);
    l.epoch->setText(tr("run's AU %1 (DLIO)").arg(percentText(l.run->auMeanPercent)));
    setMessage(QString(), false);
    refresh();
    return true;
}

bool RaceView::addReplayFolder(const QString& folder, QString* error) {
    try {
        return addReplay(std::make_shared<const session::RecordedRun>(session::loadRecordedRun(folder.toStdString())));
    } catch (const std::exception& e) {
        const QString why = QString::fromUtf8(e.what());
        setMessage(why, true);
        if (error) *error = why;
        return false;
    }
}

void RaceView::addFromDialog() {
    const QString folder = existingFolder(this, QStringLiteral("replay"), tr("A recorded run to play beside the others"));
    if (folder.isEmpty()) return;
    if (addReplayFolder(folder) && !running_) start();
}

RaceView::Lane* RaceView::laneById(int id) {
    for (auto& lane : lanes_)
        if (lane->id == id) return lane.get();
    return nullptr;
}

void RaceView::setLive(const QString& title, std::uint64_t ranks, double auThresholdPercent, const QString& storage) {
    const QString caption = storage.isEmpty() ? tr("live: measured now") : tr("live: measured now · %1").arg(storage);
    if (Lane* l = laneById(live_)) {
        resetLive(live_, title, ranks, auThresholdPercent);
        l->caption->setText(caption);
        return;
    }
    // The live lane comes first: recordings already added move one place on (a rival lane needs this
    // one first, so there is none yet).
    std::vector<std::shared_ptr<const session::RecordedRun>> runs;
    for (const auto& lane : lanes_) runs.push_back(lane->run);
    clear();
    live_ = makeLane(title, caption, tr("live"), auThresholdPercent, ranks, false).id;
    for (const auto& run : runs)
        if (run) addReplay(run);
}

int RaceView::addLive(const QString& title, const QString& caption, const QString& name, std::uint64_t ranks,
                      double auThresholdPercent) {
    if (live_ < 0) {
        setMessage(tr("A live rival races the Run page's run: %1 not added").arg(title), true);
        return -1;
    }
    if (static_cast<int>(lanes_.size()) >= kMaxLanes) {
        setMessage(tr("At most %1 runs side by side: %2 not added").arg(kMaxLanes).arg(title), true);
        return -1;
    }
    const int id = makeLane(title, caption, name, auThresholdPercent, ranks, false).id;
    setMessage(QString(), false);
    refresh();
    return id;
}

void RaceView::resetLive(int lane, const QString& title, std::uint64_t ranks, double auThresholdPercent) {
    Lane* l = laneById(lane);
    if (!l || l->run) return;
    // A new live run in the same lane: nothing of the last one stays.
    l->title->setText(title);
    l->title->setToolTip(title);
    l->threshold = auThresholdPercent;
    l->bar->setThreshold(auThresholdPercent);
    l->figures.reset(std::max<std::uint64_t>(1, ranks));
    l->graph->data()->clear();
    l->markers.clear();
    l->epochAu.reset();
    l->deviceLimit.clear();
    l->lastX = 0;
    l->lastPlotX = -1;
}

void RaceView::liveStarted() { start(); }

void RaceView::liveInvocation(int lane) {
    if (Lane* l = laneById(lane < 0 ? live_ : lane); l && !l->run) l->figures.beginInvocation();
}

void RaceView::addLiveSteps(const std::vector<StepEvent>& events, int lane) {
    Lane* l = laneById(lane < 0 ? live_ : lane);
    if (!l || l->run || events.empty()) return;
    if (!running_) start();
    feed(*l, events, clock_.elapsed() / 1000.0);
}

void RaceView::addLiveEpoch(const EpochEvent& e, int lane) {
    if (Lane* l = laneById(lane < 0 ? live_ : lane); l && !l->run) l->epochAu = e.auPercent;
}

void RaceView::addLiveMarker(const QString& label) {
    if (Lane* l = laneById(live_)) mark(*l, label, running_ ? clock_.elapsed() / 1000.0 : 0.0);
}

void RaceView::setLiveLimit(const QString& limit) { setLaneLimit(live_, limit); }

void RaceView::setLaneLimit(int lane, const QString& limit) {
    if (Lane* l = laneById(lane); l && !l->run) l->deviceLimit = limit;
}

void RaceView::start() {
    chart_->clearItems();
    peakBytesPerSecond_ = 0;
    for (auto& lane : lanes_) {
        Lane& l = *lane;
        auto* pass = new QCPItemStraightLine(chart_);
        pass->point1->setCoords(0, l.threshold);
        pass->point2->setCoords(1, l.threshold);
        pass->setPen(QPen(l.color.lighter(130), 2, Qt::DashLine));
        if (!l.run) continue;
        l.figures.reset(l.run->ranks);
        l.graph->data()->clear();
        l.markers.clear();
        l.lastX = 0;
        l.lastPlotX = -1;
        l.cursor.emplace(*l.run, speed_);
    }
    clock_.start();
    running_ = true;
    timer_->start();
    refresh();
}

void RaceView::setSpeed(double speed) {
    if (speed <= 0 || speed == speed_) return;
    speed_ = speed;
    const int i = speedBox_->findData(speed);
    if (i >= 0 && i != speedBox_->currentIndex()) {
        const QSignalBlocker block(speedBox_);
        speedBox_->setCurrentIndex(i);
    }
    bool replays = false;
    for (const auto& lane : lanes_) replays = replays || lane->run;
    if (replays) start(); // from the start at the new speed: a lane's clock never jumps
}

void RaceView::clear() {
    timer_->stop();
    running_ = false;
    for (auto& lane : lanes_) {
        delete lane->title;
        delete lane->caption;
        delete lane->box;
    }
    for (int c = 0; c < kMaxLanes; ++c) laneRow_->setColumnStretch(c, 0);
    const bool had = !lanes_.empty();
    lanes_.clear();
    live_ = -1;
    chart_->clearGraphs();
    chart_->clearItems();
    peakBytesPerSecond_ = 0;
    addButton_->setEnabled(true);
    setMessage(QString(), false);
    title_->setText(tr("Race and replay"));
    chart_->replot(QCustomPlot::rpQueuedReplot);
    if (had) emit cleared();
}

void RaceView::tick() { advanceTo(clock_.elapsed() / 1000.0); }

void RaceView::advanceTo(double seconds) {
    for (auto& lane : lanes_) {
        Lane& l = *lane;
        if (!l.cursor) continue;
        session::ReplayCursor::Due due = l.cursor->until(seconds);
        // A recording's moments are its own run's (× speed on the view's clock): the chart's x.
        if (!due.steps.empty()) feed(l, due.steps, std::nullopt);
        for (const session::RecordedEpoch& e : due.epochs) l.epochAu = e.event.auPercent;
        for (const session::RecordedChange& c : due.changes) {
            QStringList parts;
            for (const StorageChange& s : c.changes) parts << storageChangeText(s);
            mark(l, parts.join(QStringLiteral(" · ")), c.at);
        }
    }
    const bool live = std::any_of(lanes_.begin(), lanes_.end(), [](const auto& l) { return !l->run; });
    if (!live && replaysFinished()) {
        timer_->stop();
        setMessage(tr("Replay ended: every recording played to its end (Replay from the start plays it again)."), false);
    }
    refresh();
}

void RaceView::feed(Lane& l, const std::vector<StepEvent>& events, std::optional<double> at) {
    // A point every tenth of a second at most (a long run stays a few thousand points), at the figures of
    // the steps up to it: the live lane's at the view's clock when they arrive, a recording's at each step's
    // own moment (however many steps one advance hands over).
    auto point = [&](double x) {
        l.lastX = std::max(l.lastX, x);
        if (const std::optional<double> au = l.figures.totalAu(); au && x - l.lastPlotX >= 0.1) {
            l.graph->addData(x, *au);
            l.lastPlotX = x;
        }
    };
    if (at) {
        l.figures.add(events);
        point(*at);
        return;
    }
    std::size_t from = 0;
    for (std::size_t i = 0; i < events.size(); ++i)
        if (i + 1 == events.size() || events[i].wallTime - l.lastPlotX >= 0.1) {
            l.figures.add(std::vector<StepEvent>(events.begin() + static_cast<std::ptrdiff_t>(from), events.begin() + static_cast<std::ptrdiff_t>(i) + 1));
            from = i + 1;
            point(events[i].wallTime);
        }
}

void RaceView::mark(Lane& l, const QString& label, double x) {
    const int index = static_cast<int>(std::find_if(lanes_.begin(), lanes_.end(), [&](const auto& p) { return p.get() == &l; }) - lanes_.begin());
    const QString text = QStringLiteral("%1: %2").arg(index + 1).arg(label);
    l.markers << label;
    auto* line = new QCPItemStraightLine(chart_);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(QPen(l.color, 2, Qt::DashLine));
    auto* t = new QCPItemText(chart_);
    setMarkLabel(t, Qt::AlignRight);
    t->position->setCoords(x, 0);
    t->setPadding(QMargins(4, 1, 4, 1));
    t->setText(text);
    t->setColor(l.color);
    QColor back = palette().color(QPalette::Base);
    back.setAlpha(220);
    t->setBrush(back);
    t->setFont(chart_->xAxis->tickLabelFont());
}

void RaceView::refresh() {
    // The time axis: the whole course — the longest recording's length, or what the live run has run —
    // so that a race is seen from its start to the recording's finish; 10 s before anything is known.
    double maxX = 0;
    for (const auto& lane : lanes_) {
        if (const std::optional<double> b = lane->figures.bytesPerSecond()) peakBytesPerSecond_ = std::max(peakBytesPerSecond_, *b);
        maxX = std::max({maxX, lane->lastX, lane->run ? lane->run->seconds : 0.0});
    }
    if (maxX <= 0) maxX = 10;
    QStringList names;
    for (const auto& lane : lanes_) {
        Lane& l = *lane;
        names << l.name;
        const std::optional<double> au = l.figures.totalAu();
        l.bar->setValue(au);
        l.au->setText(percentText(au));
        if (!l.run) l.epoch->setText(l.epochAu ? tr("last epoch %1 (DLIO)").arg(percentText(l.epochAu)) : tr("last epoch: —"));
        else if (l.epochAu) l.epoch->setText(tr("epoch %1 (DLIO) · run %2").arg(percentText(l.epochAu), percentText(l.run->auMeanPercent)));
        const std::optional<double> bytes = l.figures.bytesPerSecond();
        l.delivered->setText(deliveredRateText(bytes));
        l.rate->setFraction(bytes && peakBytesPerSecond_ > 0 ? std::optional<double>(*bytes / peakBytesPerSecond_) : std::nullopt);
        // What binds now: the live device's own answer when it names one; else from the steps, in the
        // device's words (core's runLimit rule: at kComputeBoundAuPercent or more the storage costs no AU).
        QString limit;
        if (!au) limit = tr("limited by: —");
        else if (*au >= kComputeBoundAuPercent) limit = tr("limited by: %1").arg(QString::fromUtf8(kComputeLimit));
        else if (!l.run && !l.deviceLimit.isEmpty()) limit = tr("limited by: %1").arg(l.deviceLimit);
        else limit = tr("limited by: storage (accelerators wait %1 %)").arg(100.0 - *au, 0, 'f', 0);
        l.limit->setText(limit);
    }
    if (!lanes_.empty()) title_->setText(names.join(tr("  vs  ")));
    chart_->xAxis->setRange(0, maxX * 1.02);
    for (auto& lane : lanes_) lane->graph->setVisible(true);
    chart_->replot(QCustomPlot::rpQueuedReplot);
}

void RaceView::setMessage(const QString& text, bool error) {
    message_->setText(text);
    message_->setToolTip(text);
    message_->setStyleSheet(error ? QStringLiteral("color: #ff8a80;") : QString());
}

bool RaceView::replaysFinished() const {
    for (const auto& lane : lanes_)
        if (lane->cursor && !lane->cursor->finished()) return false;
    return true;
}

QString RaceView::laneTitle(int lane) const { return lanes_.at(static_cast<std::size_t>(lane))->title->text(); }
QString RaceView::laneCaption(int lane) const { return lanes_.at(static_cast<std::size_t>(lane))->caption->text(); }
QString RaceView::laneAu(int lane) const { return lanes_.at(static_cast<std::size_t>(lane))->au->text(); }
QString RaceView::laneDelivered(int lane) const { return lanes_.at(static_cast<std::size_t>(lane))->delivered->text(); }
QString RaceView::laneLimit(int lane) const { return lanes_.at(static_cast<std::size_t>(lane))->limit->text(); }
QString RaceView::laneEpoch(int lane) const { return lanes_.at(static_cast<std::size_t>(lane))->epoch->text(); }
std::optional<double> RaceView::laneAuValue(int lane) const { return lanes_.at(static_cast<std::size_t>(lane))->figures.totalAu(); }
QStringList RaceView::laneMarkers(int lane) const { return lanes_.at(static_cast<std::size_t>(lane))->markers; }
QString RaceView::message() const { return message_->text(); }

void RaceView::scaleFonts() {
    const double u = std::max(0.5, std::min(width() / 1280.0, height() / 720.0));
    auto px = [u](double size) { return static_cast<int>(std::lround(size * u)); };
    title_->setPixelSize(px(28));
    hint_->setPixelSize(px(18));
    message_->setPixelSize(px(20));
    // Fewer lanes, larger figures: three lanes share the width of one.
    const double share = lanes_.size() <= 1 ? 1.0 : lanes_.size() == 2 ? 0.85 : 0.7;
    for (const auto& lane : lanes_) {
        const Lane& l = *lane;
        setPixelSize(l.title, px(22));
        setPixelSize(l.caption, px(20));
        l.au->setPixelSize(px(64 * share));
        l.epoch->setPixelSize(px(18));
        l.delivered->setPixelSize(px(44 * share));
        l.rate->setFixedHeight(std::max(8, px(18)));
        setPixelSize(l.limit, px(20));
        // Room for two lines of each (the layout gives a wrapping label in a row no more than its first).
        for (QLabel* w : {l.title, l.caption, l.limit}) w->setMinimumHeight(2 * QFontMetrics(w->font()).lineSpacing() + 2);
        l.bar->setMinimumWidth(px(60));
    }
    chart_->setFixedHeight(px(190));
    applyProjectorPlotTheme(chart_, px(16));
    for (const auto& lane : lanes_) lane->graph->setPen(QPen(lane->color, std::max(2, px(3))));
    for (int i = 0; i < chart_->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(chart_->item(i))) t->setFont(chart_->xAxis->tickLabelFont());
    QFont controls = font();
    controls.setPixelSize(std::max(8, px(18)));
    for (QWidget* w : std::initializer_list<QWidget*>{addButton_, restartButton_, speedBox_}) w->setFont(controls);
    setStyleSheet(QStringLiteral("QLabel { color: #f2f2f2; } QLabel#raceHint { color: #a0a0a0; }"
                                 "QPushButton, QComboBox { color: #f2f2f2; background: #3a3f4a; border: 1px solid #56b4e9; "
                                 "border-radius: %1px; padding: %1px %2px; }"
                                 "QPushButton:disabled { color: #666; border-color: #555; }")
                      .arg(px(5))
                      .arg(px(11)));
    chart_->replot(QCustomPlot::rpQueuedReplot);
}

void RaceView::beforePresent() {
    // Shown again while a race or replay goes on: its clock kept running, the view catches up.
    if (running_ && !timer_->isActive()) timer_->start();
    refresh();
}

void RaceView::closeEvent(QCloseEvent* event) {
    timer_->stop();
    ProjectorWindow::closeEvent(event);
}

} // namespace trainio::ui
