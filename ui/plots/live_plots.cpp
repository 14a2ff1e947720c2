#include "plots/live_plots.h"

#include "plots/mark_labels.h"
#include "plots/plot_theme.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QGridLayout>

namespace trainio::ui {

// The pass threshold's entry in the AU-per-epoch legend: its dashed line and "pass 90 %".
class ThresholdLegendItem final : public QCPAbstractLegendItem {
public:
    ThresholdLegendItem(QCPLegend* legend, QString text) : QCPAbstractLegendItem(legend), text_(std::move(text)) {}
    void setLinePen(const QPen& pen) { pen_ = pen; }
    QString text() const { return text_; }

protected:
    void draw(QCPPainter* painter) override {
        const QSize icon = mParentLegend->iconSize();
        const int y = mRect.top() + mRect.height() / 2;
        painter->setPen(pen_);
        painter->drawLine(QLineF(mRect.left(), y, mRect.left() + icon.width(), y));
        painter->setFont(mFont);
        painter->setPen(QPen(mTextColor));
        const int x = mRect.left() + icon.width() + mParentLegend->iconTextPadding();
        painter->drawText(QRect(x, mRect.top(), mRect.right() - x, mRect.height()), Qt::AlignLeft | Qt::AlignVCenter, text_);
    }
    QSize minimumOuterSizeHint() const override {
        const QFontMetrics fm(mFont);
        const QSize icon = mParentLegend->iconSize();
        return {icon.width() + mParentLegend->iconTextPadding() + fm.horizontalAdvance(text_) + mMargins.left() + mMargins.right(),
                std::max(icon.height(), fm.height()) + mMargins.top() + mMargins.bottom()};
    }

private:
    QString text_;
    QPen pen_;
};

namespace {

constexpr std::uint64_t kMaxRankLines = 8;
constexpr std::uint64_t kMaxLegendRanks = 4; // named in the AU-per-epoch legend up to this many
// Graph 0 of every plot is the total; graphs 1… are ranks.

QString axisLabel(LivePlots::PlotId id) {
    switch (id) {
    case LivePlots::StepAu: return QStringLiteral("AU %");
    case LivePlots::StepLoad: return QStringLiteral("load s");
    case LivePlots::StepSamples: return QStringLiteral("samples/s");
    case LivePlots::StepMib: return QStringLiteral("MiB/s");
    case LivePlots::StepQueue: return QStringLiteral("batches");
    case LivePlots::EpochAu: return QStringLiteral("AU %");
    case LivePlots::EpochMib: return QStringLiteral("MiB/s");
    case LivePlots::Telemetry: return QStringLiteral("CPU busy %");
    case LivePlots::EpochHit: return QStringLiteral("% of samples");
    case LivePlots::EpochStall: return QStringLiteral("stall s");
    case LivePlots::PlotCount: break;
    }
    return {};
}

bool isEpochPlot(LivePlots::PlotId id) {
    return id == LivePlots::EpochAu || id == LivePlots::EpochMib || id == LivePlots::EpochHit || id == LivePlots::EpochStall;
}

} // namespace

QString LivePlots::plotTitle(PlotId id) {
    switch (id) {
    case StepAu: return tr("AU per step");
    case StepLoad: return tr("Batch load time per step");
    case StepSamples: return tr("Samples/s per step");
    case StepMib: return tr("Read MiB/s per step");
    case StepQueue: return tr("Prefetch queue depth");
    case EpochAu: return tr("AU per epoch (DLIO metric)");
    case EpochMib: return tr("MiB/s per epoch (DLIO metric)");
    case Telemetry: return tr("Client CPU and storage reads");
    case EpochHit: return tr("Loader hit ratio per epoch");
    case EpochStall: return tr("Stall per epoch (loader)");
    case PlotCount: break;
    }
    return {};
}

QString LivePlots::plotToolTip(PlotId id) {
    switch (id) {
    case StepLoad:
        return tr("Seconds each step waited for its batch (the accelerator's stall in that step); their sum per epoch "
                  "is the \"Stall per epoch\" plot.");
    case EpochHit:
        return tr("Per epoch, over every accelerator of this process: the loader's hit ratio (1 − storage reads ÷ "
                  "sample accesses) and Belady's bound, the best any eviction could do with the same RAM tier. "
                  "0 % for the plain loader, which reads every sample from storage.");
    case EpochStall:
        return tr("Seconds the accelerators waited for batches in each epoch (mean over accelerators of the sum of "
                  "their per-step waits: the \"Batch load time per step\" plot summed).");
    default: return {};
    }
}

LivePlots::LivePlots(QWidget* parent) : QWidget(parent) {
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    for (int i = 0; i < PlotCount; ++i) {
        const auto id = static_cast<PlotId>(i);
        auto* p = new QCustomPlot(this);
        p->setObjectName(QStringLiteral("livePlot%1").arg(i));
        // Five abreast within a 1280-px window beside the page list (issue 32, item 5).
        p->setMinimumSize(190, 160);
        p->plotLayout()->insertRow(0);
        auto* title = new QCPTextElement(p, plotTitle(id), QFont(font().family(), font().pointSize(), QFont::Bold));
        p->plotLayout()->addElement(0, 0, title);
        p->xAxis->setLabel(id == Telemetry ? tr("s since start") : isEpochPlot(id) ? tr("epoch") : tr("step"));
        p->yAxis->setLabel(axisLabel(id));
        p->setToolTip(plotToolTip(id));
        // Five plots abreast: few enough step ticks that their labels never touch ("100125150").
        if (!isEpochPlot(id)) p->xAxis->ticker()->setTickCount(4);
        if (isEpochPlot(id)) {
            QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
            ticker->setTickStep(1.0);
            ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
            p->xAxis->setTicker(ticker);
        }
        if (id == StepAu || id == EpochAu || id == EpochHit || id == Telemetry) p->setProperty("markDataTop", 105.0);
        connect(p, &QCustomPlot::beforeReplot, this, [this, p] {
            placeMarkLabels(p);
            fitLegend(p);
        });
        plots_[static_cast<std::size_t>(i)] = p;
    }
    // The steps above, the epochs and the host below.
    const PlotId order[2][5] = {{StepAu, StepLoad, StepSamples, StepMib, StepQueue},
                                {EpochAu, EpochMib, EpochHit, EpochStall, Telemetry}};
    for (int row = 0; row < 2; ++row)
        for (int col = 0; col < 5; ++col) grid->addWidget(plot(order[row][col]), row, col);
    plot(Telemetry)->yAxis2->setVisible(true);
    plot(Telemetry)->yAxis2->setLabel(tr("read MiB/s"));
    // Lines that may lie anywhere on the axes (three on two axes; a ratio and its bound, often equal; the
    // AU of epochs, whose low ones are what a demo is about): every legend goes under the axes, where it
    // hides no data (an inset legend hid exactly the low-AU epochs).
    for (QCustomPlot* t : {plot(Telemetry), plot(EpochHit), plot(EpochAu)}) {
        t->legend->setFont(QFont(font().family(), std::max(6, font().pointSize() - 2)));
        // (Entries a row: as many as fit, fitLegend before each replot.)
        placeLegendBelow(t, 2);
    }
    reset(1, 1, 90.0);
}

QCPGraph* LivePlots::addGraph(PlotId id, const QString& name, int colorIndex, bool total) {
    QCustomPlot* p = plot(id);
    QCPGraph* g = p->addGraph();
    g->setName(name);
    g->setAdaptiveSampling(true);
    QColor c = total ? palette().color(QPalette::Text) : seriesColor(colorIndex, palette());
    g->setPen(QPen(c, 1));
    if (isEpochPlot(id)) g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, c, total ? 6 : 4));
    return g;
}

void LivePlots::rebuildGraphs() {
    for (int i = 0; i < PlotCount; ++i) {
        const auto id = static_cast<PlotId>(i);
        QCustomPlot* p = plot(id);
        p->clearGraphs();
        p->clearItems();
        if (id == Telemetry) {
            p->addGraph()->setName(tr("CPU busy (all)"));
            p->addGraph()->setName(tr("TrainIO process"));
            p->addGraph(p->xAxis, p->yAxis2)->setName(deviceLabel_.isEmpty() ? tr("disk reads") : tr("%1 reads").arg(deviceLabel_));
            continue;
        }
        if (id == EpochHit) {
            addGraph(id, tr("hit ratio"), 0, true);
            addGraph(id, tr("Belady bound"), 0, false);
            continue;
        }
        addGraph(id, tr("total"), 0, true);
        if (id == EpochStall) continue; // the loader's figures are over every accelerator
        const bool perRank = isEpochPlot(id) || perRankSteps_;
        if (perRank && ranks_ > 1)
            for (std::uint64_t r = 0; r < ranks_; ++r) {
                QCPGraph* g = addGraph(id, tr("accelerator %1").arg(r), static_cast<int>(r), false);
                // Under the axes a legend of many accelerators would squeeze the plot away: beyond a few,
                // the thin lines go unnamed (their colours match the step plots' lines).
                if (ranks_ > kMaxLegendRanks) g->removeFromLegend();
            }
        if (!isEpochPlot(id))
            stepLines_[static_cast<std::size_t>(i)].assign(static_cast<std::size_t>(p->graphCount()), SeriesEnvelope{});
    }
    thresholdLine_ = new QCPItemStraightLine(plot(EpochAu));
    thresholdLine_->point1->setCoords(0, threshold_);
    thresholdLine_->point2->setCoords(1, threshold_);
    // Its name goes in the legend, under the axes: a label on the line itself printed over the invocation
    // labels and the data near the line.
    QCPLegend* legend = plot(EpochAu)->legend;
    if (thresholdItem_) legend->remove(thresholdItem_);
    thresholdItem_ = new ThresholdLegendItem(legend, tr("pass %1 %").arg(threshold_, 0, 'f', 0));
    legend->addItem(thresholdItem_);
    applyTheme();
}

void LivePlots::applyTheme() {
    const QPalette pal = palette();
    for (int i = 0; i < PlotCount; ++i) {
        QCustomPlot* p = plots_[static_cast<std::size_t>(i)];
        applyPlotTheme(p, pal);
        if (p == plot(Telemetry)) {
            for (int g = 0; g < p->graphCount(); ++g) p->graph(g)->setPen(QPen(seriesColor(g, pal), g == DeviceRead ? 1.5 : 1));
            continue;
        }
        for (int g = 0; g < p->graphCount(); ++g) {
            const QColor c = g == 0 ? pal.color(QPalette::Text) : seriesColor(g - 1, pal);
            // The bound is a limit, not a measurement: dashed.
            const bool bound = p == plot(EpochHit) && g == BeladyBound;
            p->graph(g)->setPen(QPen(c, 1, bound ? Qt::DashLine : Qt::SolidLine));
            if (isEpochPlot(static_cast<PlotId>(i)))
                p->graph(g)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, c, g == 0 ? 6 : 4));
        }
    }
    if (thresholdLine_) {
        const QColor red = isDarkPalette(pal) ? QColor(0xff6b6b) : QColor(0xc0392b);
        thresholdLine_->setPen(QPen(red, 1, Qt::DashLine));
        if (thresholdItem_) thresholdItem_->setLinePen(QPen(red, 1, Qt::DashLine));
    }
    replotAll();
}

void LivePlots::reset(std::uint64_t ranks, std::uint64_t batchSize, double auThresholdPercent) {
    ranks_ = std::max<std::uint64_t>(1, ranks);
    perRankSteps_ = ranks_ <= kMaxRankLines;
    threshold_ = auThresholdPercent;
    epochOffset_ = 0;
    lastEpochKey_ = 0;
    timeOffset_ = lastTimeKey_ = 0;
    deviceLabel_.clear();
    markers_.clear();
    series_.reset(ranks_, batchSize);
    rebuildGraphs();
    for (QCustomPlot* p : plots_) {
        p->xAxis->setRange(0, 1);
        p->yAxis->setRange(0, 1);
    }
    plot(StepAu)->yAxis->setRange(0, 105);
    plot(EpochAu)->yAxis->setRange(0, 105);
    for (PlotId id : {EpochAu, EpochMib, EpochHit, EpochStall}) plot(id)->xAxis->setRange(0.5, 1.5);
    plot(EpochHit)->yAxis->setRange(0, 105);
    plot(Telemetry)->yAxis->setRange(0, 105);
    plot(Telemetry)->yAxis2->setRange(0, 1);
    replotAll();
}

void LivePlots::beginInvocation(const QString& label) {
    series_.beginInvocation();
    epochOffset_ = lastEpochKey_;
    timeOffset_ = lastTimeKey_;
    // A dotted line where each invocation of a benchmark begins, labelled with its name.
    const QColor c = palette().color(QPalette::PlaceholderText);
    // Invocations can be a step or an epoch apart: their labels find free rows (placeMarkLabels), so that
    // "warm-up", "run 1/3", "run 2/3" never print over each other.
    for (PlotId id : {EpochAu, EpochMib, EpochHit, EpochStall})
        drawMark(plot(id), epochOffset_ + 0.5, label, c, Qt::DotLine, Qt::AlignLeft);
    for (PlotId id : {StepAu, StepLoad, StepSamples, StepMib, StepQueue})
        drawMark(plot(id), series_.lastKey() + 0.5, label, c, Qt::DotLine, Qt::AlignLeft);
    drawMark(plot(Telemetry), timeOffset_, label, c, Qt::DotLine, Qt::AlignLeft);
}

double LivePlots::addMarker(const QString& label) {
    // Dashed and coloured, so a storage change is not mistaken for an invocation boundary.
    const double x = series_.lastKey() + 0.5;
    // Storage changes come at the newest step, at the right end of the axis: their labels stand to the
    // left of the line where the axes leave room, on the first row free of other labels (placeMarkLabels).
    for (PlotId id : {StepAu, StepLoad, StepSamples, StepMib, StepQueue})
        drawMark(plot(id), x, label, QColor(0xd3, 0x54, 0x00), Qt::DashLine, Qt::AlignRight);
    // On the telemetry plot at the latest row's time: where the change fell on the run's time axis.
    drawMark(plot(Telemetry), lastTimeKey_, label, QColor(0xd3, 0x54, 0x00), Qt::DashLine, Qt::AlignRight);
    markers_ << label;
    replotAll();
    return x;
}

void LivePlots::fitLegend(QCustomPlot* p) {
    // As many entries a row as the plot's width holds at their full names (a squeezed entry cuts its name).
    QCPLegend* legend = p->legend;
    if (!legend->visible() || legend->itemCount() == 0) return;
    int widest = 1;
    int entries = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* item = legend->item(i)) { // (a cell of the grid may be empty)
            widest = std::max(widest, item->minimumOuterSizeHint().width());
            ++entries;
        }
    if (entries == 0) return;
    const int room = p->width() - legend->margins().left() - legend->margins().right() - 8;
    const int columns = std::max(1, std::min(entries, (room + legend->columnSpacing()) / (widest + legend->columnSpacing())));
    if (legend->wrap() == columns) return;
    legend->setWrap(columns);
    legend->setFillOrder(legend->fillOrder(), true); // re-flows the entries into rows of that many
}

void LivePlots::placeMarkLabels(QCustomPlot* p) {
    // Up to six rows, standing above the data: on the percent axes (AU, hit ratio, CPU busy) above 105 %,
    // on the step plots above their highest point, so no label covers a curve or sits on the 100 % line.
    layOutMarkLabels(p, 6, p->property("markDataTop").toDouble());
}

void LivePlots::drawMark(QCustomPlot* p, double x, const QString& label, const QColor& color, Qt::PenStyle style,
                         Qt::Alignment side) {
    auto* line = new QCPItemStraightLine(p);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(QPen(color, 1, style));
    auto* text = new QCPItemText(p);
    // Its row is found before every replot (placeMarkLabels): the first free one from the top, in pixels.
    setMarkLabel(text, side);
    text->position->setCoords(x, 0.0);
    text->setPadding(QMargins(2, 0, 2, 0));
    text->setText(label);
    text->setColor(color);
    // Readable over the data lines it crosses.
    QColor back = palette().color(QPalette::Base);
    back.setAlpha(200);
    text->setBrush(QBrush(back));
    text->setFont(QFont(font().family(), std::max(6, font().pointSize() - 2)));
}

void LivePlots::addSteps(const std::vector<StepEvent>& events) {
    if (events.empty()) return;
    const StepSeries::Output out = series_.add(events);
    const std::array<PlotId, 5> ids = {StepAu, StepLoad, StepSamples, StepMib, StepQueue};
    auto valueOf = [](PlotId id, const StepPoint& p) {
        switch (id) {
        case StepAu: return p.auPercent;
        case StepLoad: return p.loadSeconds;
        case StepSamples: return p.samplesPerSecond;
        case StepMib: return p.mibPerSecond;
        default: return p.queueDepth;
        }
    };
    std::vector<bool> touched;
    for (PlotId id : ids) {
        QCustomPlot* p = plot(id);
        std::vector<SeriesEnvelope>& lines = stepLines_[static_cast<std::size_t>(id)];
        touched.assign(lines.size(), false);
        if (lines.size() > 1)
            for (const auto& [rank, point] : out.perRank) {
                const std::size_t g = static_cast<std::size_t>(rank) + 1;
                // A rank beyond reset()'s count has no line of its own; its steps still reach the total.
                if (g >= lines.size()) continue;
                lines[g].add(point.key, valueOf(id, point));
                touched[g] = true;
            }
        for (const StepPoint& t : out.total) lines[0].add(t.key, valueOf(id, t));
        touched[0] = !out.total.empty();
        for (std::size_t g = 0; g < lines.size(); ++g)
            if (touched[g]) syncGraph(p->graph(static_cast<int>(g)), lines[g]);
        p->xAxis->setRange(0, std::max(1.0, series_.lastKey()) + 1);
        if (id != StepAu) {
            // Every minimum and maximum survives decimation, so the envelopes know each line's range.
            double upper = 0;
            bool found = false;
            for (const SeriesEnvelope& line : lines) {
                double lo = 0, hi = 0;
                if (!line.valueRange(lo, hi)) continue;
                upper = found ? std::max(upper, hi) : hi;
                found = true;
            }
            // Nothing but zeros (an empty prefetch queue, loads too short to time) is drawn on 0…1, not on a
            // micro-scale whose tick labels read "1·10⁻⁶"; the queue counts whole batches, so never below 1.
            const double least = id == StepQueue || upper <= 0 ? 1.0 : 1e-9;
            if (found) {
                p->yAxis->setRange(0, std::max(upper * 1.08, least));
                p->setProperty("markDataTop", p->yAxis->range().upper); // the labels stand above the data
            }
        }
        p->replot(QCustomPlot::rpQueuedReplot);
    }
}

void LivePlots::syncGraph(QCPGraph* graph, const SeriesEnvelope& envelope) {
    QVector<QCPGraphData> points;
    points.reserve(static_cast<qsizetype>(envelope.drawPointCount()));
    envelope.forEachDrawPoint([&](const EnvelopePoint& e) { points.append(QCPGraphData(e.key, e.value)); });
    graph->data()->set(points, true);
}

void LivePlots::addEpoch(const EpochEvent& e) {
    const double key = epochOffset_ + static_cast<double>(e.epoch);
    lastEpochKey_ = std::max(lastEpochKey_, key);
    QCustomPlot* au = plot(EpochAu);
    QCustomPlot* mib = plot(EpochMib);
    au->graph(0)->addData(key, e.auPercent);
    mib->graph(0)->addData(key, e.mibPerSecond);
    // Per-rank MiB/s in the same proportion as the samples/s core reports per rank.
    const double mibPerSample = e.throughput > 0 ? e.mibPerSecond / e.throughput : 0.0;
    for (std::size_t r = 0; r < e.rankAu.size() && static_cast<int>(r) + 1 < au->graphCount(); ++r) {
        au->graph(static_cast<int>(r) + 1)->addData(key, e.rankAu[r]);
        if (r < e.rankThroughput.size())
            mib->graph(static_cast<int>(r) + 1)->addData(key, e.rankThroughput[r] * mibPerSample);
    }
    // The loader's figures: NaN (not known) leaves a gap rather than a false zero.
    QCustomPlot* hit = plot(EpochHit);
    QCustomPlot* stall = plot(EpochStall);
    hit->graph(HitRatio)->addData(key, 100.0 * e.hitRatio);
    hit->graph(BeladyBound)->addData(key, 100.0 * e.beladyHitRatio);
    stall->graph(0)->addData(key, e.stallSeconds);
    for (QCustomPlot* p : {au, mib, hit, stall}) {
        p->xAxis->setRange(0.5, lastEpochKey_ + 0.5);
        if (p == mib || p == stall) {
            bool found = false;
            const QCPRange r = p->graph(0)->getValueRange(found);
            if (found) p->yAxis->setRange(0, r.upper > 0 ? r.upper * 1.15 : 1.0);
        }
        p->replot(QCustomPlot::rpQueuedReplot);
    }
}

void LivePlots::addTelemetry(const telemetry::TelemetryPoint& t) {
    QCustomPlot* p = plot(Telemetry);
    const QString label = QString::fromStdString(t.deviceLabel);
    if (label != deviceLabel_) {
        deviceLabel_ = label;
        p->graph(DeviceRead)->setName(label.isEmpty() ? tr("no disk listed") : tr("%1 reads").arg(label));
    }
    const double key = timeOffset_ + t.timeS;
    lastTimeKey_ = std::max(lastTimeKey_, key);
    // NaN (not measured in this row) leaves a gap rather than a false zero.
    p->graph(CpuBusy)->addData(key, t.cpuBusyPct);
    p->graph(ProcessCpu)->addData(key, t.procCpuPct);
    p->graph(DeviceRead)->addData(key, t.deviceReadMiBs);
    p->xAxis->setRange(0, std::max(1.0, lastTimeKey_));
    bool found = false;
    const QCPRange r = p->graph(DeviceRead)->getValueRange(found);
    p->yAxis2->setRange(0, found ? std::max(r.upper * 1.15, 1.0) : 1.0);
    p->replot(QCustomPlot::rpQueuedReplot);
}

int LivePlots::telemetryPointCount() const { return plot(Telemetry)->graph(CpuBusy)->dataCount(); }

int LivePlots::epochPointCount() const { return plot(EpochAu)->graph(0)->dataCount(); }
int LivePlots::stepPointCount() const { return static_cast<int>(stepLines_[StepAu].front().received()); }
int LivePlots::stepPointsDrawn() const { return plot(StepAu)->graph(0)->dataCount(); }

void LivePlots::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) applyTheme();
    QWidget::changeEvent(event);
}

void LivePlots::replotAll() {
    for (QCustomPlot* p : plots_) p->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace trainio::ui
