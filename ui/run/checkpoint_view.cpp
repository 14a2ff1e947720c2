#include "run/checkpoint_view.h"

#include "plots/plot_theme.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

namespace trainio::ui {

namespace {

using checkpoint::Operation;
constexpr Operation kOps[2] = {Operation::Write, Operation::Read};
constexpr double kBarWidth = 0.38;

double valueOf(CheckpointView::PlotId id, const CheckpointBar& b) {
    return id == CheckpointView::Bandwidth ? b.gibPerSecond : b.seconds;
}

QString opSummary(const QString& name, const CheckpointSummary& s) {
    if (s.gibPerSecond.count == 0) return QObject::tr("%1: —").arg(name);
    const QString n = s.gibPerSecond.count == 1 ? QObject::tr("1 checkpoint") : QObject::tr("%1 checkpoints").arg(s.gibPerSecond.count);
    return QObject::tr("%1: %2 GiB/s, %3 s (%4)").arg(name, meanStdText(s.gibPerSecond, 3), meanStdText(s.seconds, 3), n);
}

QString sizeText(std::uint64_t bytes) {
    const auto b = static_cast<double>(bytes);
    if (b >= 1024.0 * 1024.0 * 1024.0) return QObject::tr("%1 GiB").arg(b / (1024.0 * 1024.0 * 1024.0), 0, 'f', 2);
    if (b >= 1024.0 * 1024.0) return QObject::tr("%1 MiB").arg(b / (1024.0 * 1024.0), 0, 'f', 1);
    if (b >= 1024.0) return QObject::tr("%1 KiB").arg(b / 1024.0, 0, 'f', 1);
    return QObject::tr("%1 bytes").arg(bytes);
}

constexpr std::size_t kRanksListed = 4; // groups of ranks; beyond, the line would wrap many times: the rest are counted

} // namespace

QString checkpointPlanText(const checkpoint::CheckpointPlan& plan) {
    const bool scaled = plan.totalBytes != plan.realTotalBytes;
    QString text = scaled ? QObject::tr("Checkpoint: %1 at full size; written at checkpoint_scale %2: %3")
                                .arg(sizeText(plan.realTotalBytes))
                                .arg(plan.scale)
                                .arg(sizeText(plan.totalBytes))
                          : QObject::tr("Checkpoint: %1 (full size)").arg(sizeText(plan.realTotalBytes));
    // Ranks whose shares look alike (a ZeRO 3 shard per rank) are listed once as a range.
    struct Group {
        std::uint64_t first, last, files, real, bytes;
    };
    std::vector<Group> groups;
    std::size_t writing = 0;
    for (const checkpoint::RankPlan& r : plan.perRank) {
        if (r.files.empty()) continue;
        ++writing;
        std::uint64_t real = 0, bytes = 0;
        for (const checkpoint::PlannedFile& f : r.files) {
            real += f.realBytes;
            bytes += f.bytes;
        }
        if (!groups.empty() && groups.back().last + 1 == r.rank && groups.back().files == r.files.size() &&
            groups.back().real == real && groups.back().bytes == bytes)
            groups.back().last = r.rank;
        else
            groups.push_back({r.rank, r.rank, r.files.size(), real, bytes});
    }
    QStringList ranks;
    std::size_t listedRanks = 0;
    for (const Group& g : groups) {
        if (ranks.size() >= static_cast<qsizetype>(kRanksListed)) break;
        listedRanks += g.last - g.first + 1;
        const QString who = g.first == g.last ? QObject::tr("rank %1").arg(g.first)
                                              : QObject::tr("ranks %1–%2 each").arg(g.first).arg(g.last);
        const QString files = g.files == 1 ? QObject::tr("1 file") : QObject::tr("%1 files").arg(g.files);
        ranks << (scaled ? QObject::tr("%1: %2, %3 → %4").arg(who, files, sizeText(g.real), sizeText(g.bytes))
                         : QObject::tr("%1: %2, %3").arg(who, files, sizeText(g.real)));
    }
    if (writing > listedRanks) ranks << QObject::tr("… %1 more ranks").arg(writing - listedRanks);
    // DLIO counts state it does not write (ZeRO 2, data-parallel ranks > 0) in the size it divides by.
    const double realGiB = static_cast<double>(plan.realTotalBytes) / (1024.0 * 1024.0 * 1024.0);
    if (plan.dlioCheckpointSizeGiB > 0 && std::abs(plan.dlioCheckpointSizeGiB - realGiB) > 0.005)
        text += QObject::tr(" · DLIO's checkpoint_size_GB: %1 GiB").arg(plan.dlioCheckpointSizeGiB, 0, 'f', 2);
    text += QObject::tr(" · %1 of %2 ranks write").arg(writing).arg(plan.ranks);
    if (!ranks.isEmpty()) text += QStringLiteral(" (") + ranks.join(QStringLiteral("; ")) + QLatin1Char(')');
    for (const std::string& note : plan.notes) text += QStringLiteral(" · ") + QString::fromStdString(note);
    return text;
}

QString checkpointPlanSummary(const WorkloadConfig& cfg, std::uint64_t ranks) {
    QString counts;
    if (!cfg.workflow.train)
        counts = QObject::tr("checkpoint-only: %1 written, then %2 read back")
                     .arg(std::max<std::int64_t>(0, cfg.checkpoint.numCheckpointsWrite))
                     .arg(std::max<std::int64_t>(0, cfg.checkpoint.numCheckpointsRead));
    else if (cfg.checkpoint.stepsBetween > 0)
        counts = QObject::tr("during training, every %1 steps").arg(cfg.checkpoint.stepsBetween);
    else
        counts = QObject::tr("during training, every %1 epoch(s) after epoch %2")
                     .arg(cfg.checkpoint.epochsBetween)
                     .arg(cfg.checkpoint.afterEpoch);
    try {
        return QObject::tr("%1 · %2").arg(checkpointPlanText(checkpoint::planCheckpoint(cfg, ranks)), counts);
    } catch (const std::exception& e) {
        return QObject::tr("Checkpoint: cannot be planned — %1").arg(QString::fromUtf8(e.what()));
    }
}

QString CheckpointView::plotTitle(PlotId id) {
    return id == Bandwidth ? tr("Checkpoint bandwidth (GiB/s)") : tr("Checkpoint duration (s)");
}

CheckpointView::CheckpointView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("checkpointSummary"));
    summary_->setWordWrap(true);
    {
        QFont bold = summary_->font();
        bold.setBold(true);
        summary_->setFont(bold);
    }
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setToolTip(tr("Per checkpoint, as the MLCommons DLIO fork measures it: duration = rank 0's time from start "
                            "to end of the save/load (the slowest rank's with checkpoint.rank_sync); bandwidth = DLIO's "
                            "checkpoint size (checkpoint_size_GB × trainio.checkpoint_scale) / that duration. Mean ± population standard deviation over the "
                            "checkpoints of the running invocation (summary.json's *_mean_* and *_stdev_* keys)."));
    layout->addWidget(summary_);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("checkpointStatus"));
    layout->addWidget(status_);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    auto* plotsRow = new QWidget(splitter);
    auto* row = new QHBoxLayout(plotsRow);
    row->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < PlotCount; ++i) {
        const auto id = static_cast<PlotId>(i);
        auto* p = new QCustomPlot(plotsRow);
        p->setObjectName(QStringLiteral("checkpointPlot%1").arg(i));
        p->setMinimumSize(260, 180);
        p->plotLayout()->insertRow(0);
        p->plotLayout()->addElement(0, 0, new QCPTextElement(p, plotTitle(id), QFont(font().family(), font().pointSize(), QFont::Bold)));
        p->xAxis->setLabel(tr("checkpoint"));
        p->yAxis->setLabel(id == Bandwidth ? tr("GiB/s") : tr("s"));
        QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
        ticker->setTickStep(1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        p->xAxis->setTicker(ticker);
        // Under the axes, in one row: a legend inside would hide the tallest bars.
        p->legend->setVisible(true);
        p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
        p->axisRect()->insetLayout()->take(p->legend);
        p->plotLayout()->addElement(2, 0, p->legend);
        p->plotLayout()->setRowStretchFactor(2, 0.001);
        plots_[i] = p;
        row->addWidget(p);
    }
    splitter->addWidget(plotsRow);
    rankModel_ = new CheckpointRankModel(this);
    ranks_ = new QTableView(splitter);
    ranks_->setObjectName(QStringLiteral("checkpointRanks"));
    ranks_->setModel(rankModel_);
    ranks_->verticalHeader()->setVisible(false);
    ranks_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    ranks_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    splitter->addWidget(ranks_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);
    reset(0, 0, false);
}

QCPBars* CheckpointView::bars(PlotId id, Operation op) const { return bars_[id][op == Operation::Write ? 0 : 1]; }

void CheckpointView::rebuild() {
    for (int i = 0; i < PlotCount; ++i) {
        QCustomPlot* p = plots_[i];
        p->clearPlottables();
        p->clearItems();
        delete groups_[i];
        auto* group = groups_[i] = new QCPBarsGroup(p);
        group->setSpacingType(QCPBarsGroup::stAbsolute);
        group->setSpacing(1);
        for (int o = 0; o < 2; ++o) {
            auto* b = new QCPBars(p->xAxis, p->yAxis);
            b->setName(o == 0 ? tr("write") : tr("read"));
            b->setWidth(kBarWidth);
            b->setBarsGroup(group);
            bars_[i][o] = b;
        }
    }
    applyTheme();
}

void CheckpointView::applyTheme() {
    const QPalette pal = palette();
    for (int i = 0; i < PlotCount; ++i) {
        applyPlotTheme(plots_[i], pal);
        for (int o = 0; o < 2; ++o) {
            const QColor c = seriesColor(o, pal);
            bars_[i][o]->setPen(QPen(c.darker(130), 1));
            bars_[i][o]->setBrush(c);
        }
        // The invocation marks (beginInvocation) follow the theme too.
        const QColor mark = pal.color(QPalette::PlaceholderText);
        for (int k = 0; k < plots_[i]->itemCount(); ++k) {
            if (auto* t = qobject_cast<QCPItemText*>(plots_[i]->item(k))) t->setColor(mark);
            if (auto* l = qobject_cast<QCPItemStraightLine*>(plots_[i]->item(k))) l->setPen(QPen(mark, 1, Qt::DotLine));
        }
        plots_[i]->replot(QCustomPlot::rpQueuedReplot);
    }
}

void CheckpointView::reset(std::uint64_t writes, std::uint64_t reads, bool rankSync, double sizeGiB) {
    writesExpected_ = writes;
    readsExpected_ = reads;
    rankSync_ = rankSync;
    sizeGiB_ = sizeGiB;
    tally_.reset(rankSync, sizeGiB);
    for (auto& f : frozen_) f.clear();
    base_ = 0;
    rebuild();
    redraw();
    updateTexts();
}

void CheckpointView::beginInvocation(const QString& label) {
    // The running invocation's bars are kept where they were drawn; the next start after them.
    double last = base_;
    for (int o = 0; o < 2; ++o)
        for (const CheckpointBar& b : tally_.bars(kOps[o])) {
            const double key = base_ + static_cast<double>(b.index) + 1;
            if (b.ranksDone > 0) frozen_[o].push_back({key, b});
            last = std::max(last, key);
        }
    base_ = last;
    tally_.reset(rankSync_, sizeGiB_);
    const QColor c = palette().color(QPalette::PlaceholderText);
    for (QCustomPlot* p : plots_) {
        auto* line = new QCPItemStraightLine(p);
        line->point1->setCoords(base_ + 0.5, 0);
        line->point2->setCoords(base_ + 0.5, 1);
        line->setPen(QPen(c, 1, Qt::DotLine));
        auto* text = new QCPItemText(p);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(base_ + 0.5, 0.0);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        text->setText(label);
        text->setColor(c);
        text->setFont(QFont(font().family(), std::max(6, font().pointSize() - 2)));
    }
    redraw();
    updateTexts();
}

void CheckpointView::add(const checkpoint::CheckpointEvent& e) {
    tally_.add(e);
    redraw();
    updateTexts();
}

void CheckpointView::redraw() {
    double lastKey = std::max<double>(1.0, base_ + static_cast<double>(std::max(writesExpected_, readsExpected_)));
    for (int i = 0; i < PlotCount; ++i) {
        const auto id = static_cast<PlotId>(i);
        double upper = 0;
        for (int o = 0; o < 2; ++o) {
            QVector<double> keys, values;
            for (const Frozen& f : frozen_[o]) {
                keys << f.key;
                values << valueOf(id, f.bar);
            }
            for (const CheckpointBar& b : tally_.bars(kOps[o])) {
                if (b.ranksDone == 0) continue;
                keys << base_ + static_cast<double>(b.index) + 1;
                values << valueOf(id, b);
            }
            for (int k = 0; k < keys.size(); ++k) {
                upper = std::max(upper, values[k]);
                lastKey = std::max(lastKey, keys[k]);
            }
            bars_[i][o]->setData(keys, values, true);
        }
        plots_[i]->xAxis->setRange(0.4, lastKey + 0.6);
        plots_[i]->yAxis->setRange(0, upper > 0 ? upper * 1.2 : 1.0);
        plots_[i]->replot(QCustomPlot::rpQueuedReplot);
    }
}

QString CheckpointView::summaryText() const { return summary_->text(); }
QString CheckpointView::statusText() const { return status_->text(); }

void CheckpointView::updateTexts() {
    summary_->setText(tr("%1 · %2 · ± is the population standard deviation over the checkpoints")
                          .arg(opSummary(tr("Write"), tally_.summary(Operation::Write)),
                               opSummary(tr("Read"), tally_.summary(Operation::Read))));

    auto doneCount = [this](Operation op) {
        std::uint64_t n = 0;
        for (const CheckpointBar& b : tally_.bars(op)) n += b.ranksDone > 0 && !b.failed ? 1 : 0;
        return n;
    };
    auto ofExpected = [](std::uint64_t done, std::uint64_t expected) {
        return expected > 0 ? QStringLiteral("%1/%2").arg(done).arg(expected) : QString::number(done);
    };
    QString status = tr("Checkpoints written %1, read %2")
                         .arg(ofExpected(doneCount(Operation::Write), writesExpected_),
                              ofExpected(doneCount(Operation::Read), readsExpected_));
    const CheckpointTally::InFlight f = tally_.inFlight();
    if (f.active)
        status += tr(" · %1 checkpoint %2: %3 of %4 ranks done")
                      .arg(f.op == Operation::Write ? tr("writing") : tr("reading"))
                      .arg(f.index + 1)
                      .arg(f.ranksDone)
                      .arg(f.ranksStarted);
    if (!tally_.errors().empty())
        status += tr(" · failed: %1").arg(QString::fromStdString(tally_.errors().back()));
    status_->setText(status);

    rankModel_->update(tally_);
}

void CheckpointView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) applyTheme();
    QWidget::changeEvent(event);
}

} // namespace trainio::ui
