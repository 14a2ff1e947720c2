#include "library/sweep_view.h"

#include "plots/plot_theme.h"

#include <qcustomplot.h>

#include <QDialogButtonBox>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace trainio::ui {

namespace {

QString fixedOrDash(double v, int decimals) { return std::isfinite(v) ? QString::number(v, 'f', decimals) : QStringLiteral("—"); }

bool completed(const SweepTrial& t) { return t.status == RunStatus::Complete && std::isfinite(t.auMeanPercent); }

} // namespace

SweepView::SweepView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("sweepView"));
    auto* layout = new QVBoxLayout(this);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("sweepSummary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    plot_ = new QCustomPlot(splitter);
    plot_->setObjectName(QStringLiteral("sweepPlot"));
    plot_->setMinimumHeight(260);
    plot_->xAxis->setLabel(tr("accelerators"));
    plot_->yAxis->setLabel(tr("AU % (mean over the trial's measured runs)"));
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot_->xAxis->setTicker(ticker);
    const QString names[] = {tr("AU by accelerators"), tr("passed"), tr("below the AU line"), tr("not complete")};
    for (const QString& name : names) plot_->addGraph()->setName(name);
    plot_->graph(TrendGraph)->removeFromLegend();
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    splitter->addWidget(plot_);
    trials_ = new QTreeWidget(splitter);
    trials_->setObjectName(QStringLiteral("sweepTrials"));
    trials_->setRootIsDecorated(false);
    trials_->setHeaderLabels({tr("#"), tr("Accelerators"), tr("AU %"), tr("Samples/s"), tr("Read GiB/s"), tr("Verdict"), tr("Folder")});
    trials_->headerItem()->setToolTip(OrderColumn, tr("The order the search ran the trials in: doubling from MIN, then bisection"));
    trials_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    splitter->addWidget(trials_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);
}

QString sweepSummaryHtml(const SweepFile& sweep) {
    const SweepDescription& d = sweep.description;
    const SweepOutcome& o = sweep.outcome;
    const QString line = std::isfinite(d.auThresholdPercent) ? SweepView::tr("AU threshold %1 %").arg(d.auThresholdPercent, 0, 'f', 0)
                                                             : SweepView::tr("AU threshold not recorded");
    QString head = !o.maxPassing        ? SweepView::tr("No count passed (%1)").arg(line)
                   : *o.maxPassing == 1 ? SweepView::tr("Largest count that passes: 1 accelerator (%1)").arg(line)
                                        : SweepView::tr("Largest count that passes: %1 accelerators (%2)").arg(*o.maxPassing).arg(line);
    if (!o.complete) head += SweepView::tr(" — the search did not end (a trial did not complete, or the sweep still runs)");
    QString how = (o.trials.size() == 1 ? SweepView::tr("%1 trial over %2:%3") : SweepView::tr("%1 trials over %2:%3"))
                      .arg(o.trials.size())
                      .arg(d.range.min)
                      .arg(d.range.max);
    how += d.quick ? SweepView::tr(", one invocation each (--quick)")
                   : SweepView::tr(", a benchmark of %1 measured run(s) each").arg(d.runs);
    if (d.launcher == "mpirun")
        how += SweepView::tr(", under mpirun: hosts %1 × processes per host %2").arg(d.hosts).arg(d.processesPerHost);
    return QStringLiteral("<b>%1</b><br/>%2 · %3").arg(head.toHtmlEscaped(), how.toHtmlEscaped(),
                                                      QString::fromStdString(sweep.file.string()).toHtmlEscaped());
}

QStringList sweepTrialCells(const SweepTrial& t, int order) {
    QString verdict = t.passed ? SweepView::tr("passed") : completed(t) ? SweepView::tr("below the AU line")
                                                                        : QString::fromUtf8(toString(t.status));
    if (!t.error.empty()) verdict += QStringLiteral(": ") + QString::fromStdString(t.error);
    return {QString::number(order), QString::number(t.accelerators), fixedOrDash(t.auMeanPercent, 2),
            fixedOrDash(t.samplesPerSecond, 1), fixedOrDash(t.readGibPerSecond, 3), verdict, QString::fromStdString(t.path.string())};
}

QString SweepView::summaryText() const { return sweepSummaryHtml(sweep_); }

void SweepView::setSweep(const SweepFile& sweep) {
    sweep_ = sweep;
    summary_->setText(summaryText());
    trials_->clear();
    int order = 0;
    for (const SweepTrial& t : sweep_.outcome.trials) {
        const QStringList cells = sweepTrialCells(t, ++order);
        auto* item = new QTreeWidgetItem(trials_, cells);
        item->setToolTip(VerdictColumn, cells[VerdictColumn]);
    }
    draw();
}

void SweepView::draw() {
    for (int g = 0; g < GraphCount; ++g) plot_->graph(g)->data()->clear();
    plot_->clearItems();
    threshold_ = max_ = nullptr;
    const QPalette pal = palette();
    applyPlotTheme(plot_, pal);
    const bool dark = isDarkPalette(pal);
    const QColor green = dark ? QColor(0x6fcf97) : QColor(0x1e8449), red = dark ? QColor(0xff6b6b) : QColor(0xc0392b);
    const QColor grey = pal.color(QPalette::Disabled, QPalette::Text);
    plot_->graph(TrendGraph)->setPen(QPen(pal.color(QPalette::Text), 1));
    plot_->graph(PassedGraph)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, green, green, 9));
    plot_->graph(FailedGraph)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(red, 2), Qt::NoBrush, 9));
    plot_->graph(NotCompleteGraph)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QPen(grey, 2), Qt::NoBrush, 9));
    for (int g = PassedGraph; g < GraphCount; ++g) plot_->graph(g)->setLineStyle(QCPGraph::lsNone);

    std::vector<const SweepTrial*> byCount;
    double lo = static_cast<double>(sweep_.description.range.min), hi = static_cast<double>(sweep_.description.range.max);
    double top = 100;
    for (const SweepTrial& t : sweep_.outcome.trials) {
        const double x = static_cast<double>(t.accelerators);
        lo = std::min(lo, x);
        hi = std::max(hi, x);
        if (!completed(t)) {
            // No AU to place it at: on the axis, so that the count the search stopped at still shows.
            plot_->graph(NotCompleteGraph)->addData(x, std::isfinite(t.auMeanPercent) ? t.auMeanPercent : 0.0);
            continue;
        }
        top = std::max(top, t.auMeanPercent);
        plot_->graph(t.passed ? PassedGraph : FailedGraph)->addData(x, t.auMeanPercent);
        byCount.push_back(&t);
    }
    std::sort(byCount.begin(), byCount.end(), [](auto* a, auto* b) { return a->accelerators < b->accelerators; });
    for (const SweepTrial* t : byCount) plot_->graph(TrendGraph)->addData(static_cast<double>(t->accelerators), t->auMeanPercent);

    if (const double line = sweep_.description.auThresholdPercent; std::isfinite(line)) {
        threshold_ = new QCPItemStraightLine(plot_);
        threshold_->point1->setCoords(0, line);
        threshold_->point2->setCoords(1, line);
        threshold_->setPen(QPen(red, 1, Qt::DashLine));
        auto* label = new QCPItemText(plot_);
        label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(0.01, line);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setText(tr("pass threshold %1 %").arg(line, 0, 'f', 0));
        label->setColor(red);
    }
    if (const auto& best = sweep_.outcome.maxPassing) {
        const double x = static_cast<double>(*best);
        max_ = new QCPItemStraightLine(plot_);
        max_->point1->setCoords(x, 0);
        max_->point2->setCoords(x, 1);
        max_->setPen(QPen(green, 1, Qt::DashDotLine));
        auto* label = new QCPItemText(plot_);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(x, 0.02);
        label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
        label->setText(tr("max %1 ").arg(*best));
        label->setColor(green);
    }
    plot_->xAxis->setRange(std::max(0.0, lo - 1), hi + 1);
    plot_->yAxis->setRange(0, top * 1.08);
    plot_->replot();
}

void SweepView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) draw();
    QWidget::changeEvent(event);
}

SweepDialog::SweepDialog(const SweepFile& sweep, QWidget* parent) : QDialog(parent), view_(new SweepView(this)) {
    setObjectName(QStringLiteral("sweepDialog"));
    setWindowTitle(tr("Sweep — %1").arg(QString::fromStdString(sweep.file.parent_path().filename().string())));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(view_, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    view_->setSweep(sweep);
    resize(900, 640);
}

} // namespace trainio::ui
