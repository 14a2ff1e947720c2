#include "run/interference_chart.h"

#include "plots/plot_theme.h"

#include <algorithm>

namespace trainio::ui {

namespace {

QString points(double v) { return QString::number(v, 'f', 2); }

} // namespace

InterferenceChart::InterferenceChart(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("interferenceChart"));
    setMinimumHeight(220);
    applyPlotTheme(this, palette());
    yAxis->setLabel(tr("AU %"));
    yAxis->setRange(0, 105);
    xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    xAxis->grid()->setVisible(false);
    xAxis->setSubTicks(false);
    auto* group = new QCPBarsGroup(this);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(2);
    alone_ = new QCPBars(xAxis, yAxis);
    together_ = new QCPBars(xAxis, yAxis);
    alone_->setName(tr("alone"));
    together_->setName(tr("together (points lost under each)"));
    const QColor c = seriesColor(0, palette());
    alone_->setBrush(c.lighter(170));
    alone_->setPen(QPen(c, 1));
    together_->setBrush(c);
    together_->setPen(QPen(c.darker(130), 1));
    for (QCPBars* b : {alone_, together_}) {
        b->setWidth(0.36);
        b->setBarsGroup(group);
    }
    placeLegendBelow(this, 1);
    hide();
}

QString InterferenceChart::lossLabel(std::size_t i) const {
    if (i >= workloads_.size()) return {};
    const Workload& w = workloads_[i];
    if (std::isnan(w.auAlone)) return tr("not compared");
    QString text = w.pointsLost < 0 ? tr("+%1 AU points").arg(points(-w.pointsLost)) : tr("−%1 AU points").arg(points(w.pointsLost));
    if (!std::isnan(w.slowdownPercent)) text += QStringLiteral("\n") + tr("MiB/s %1 %").arg(w.slowdownPercent >= 0 ? QStringLiteral("−%1").arg(w.slowdownPercent, 0, 'f', 1)
                                                                                              : QStringLiteral("+%1").arg(-w.slowdownPercent, 0, 'f', 1));
    return text;
}

void InterferenceChart::setWorkloads(std::vector<Workload> workloads) {
    workloads_ = std::move(workloads);
    alone_->data()->clear();
    together_->data()->clear();
    // Each workload's name and what it lost under its pair of bars (never over them or each other); the CI
    // and the rule are in the summary beside, and in the tooltip.
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(xAxis->ticker());
    ticker->clear();
    bool any = false;
    double top = 100;
    QStringList tips;
    for (std::size_t i = 0; i < workloads_.size(); ++i) {
        const Workload& w = workloads_[i];
        const double key = static_cast<double>(i) + 1;
        ticker->addTick(key, w.name + QStringLiteral("\n") + lossLabel(i));
        if (!std::isnan(w.auAlone)) {
            alone_->addData(key, w.auAlone);
            top = std::max(top, w.auAlone);
        }
        if (!std::isnan(w.auTogether)) {
            together_->addData(key, w.auTogether);
            top = std::max(top, w.auTogether);
            any = true;
        }
        QString tip = QStringLiteral("%1: ").arg(w.name);
        if (std::isnan(w.auAlone)) tip += tr("together AU %1 %, not compared%2").arg(w.auTogether, 0, 'f', 2).arg(w.why.isEmpty() ? QString() : QStringLiteral(": ") + w.why);
        else {
            tip += tr("AU %1 % alone, %2 % together").arg(w.auAlone, 0, 'f', 2).arg(w.auTogether, 0, 'f', 2);
            if (!std::isnan(w.lostLow) && !std::isnan(w.lostHigh))
                tip += tr("; points lost 95 % CI %1…%2").arg(points(w.lostLow), points(w.lostHigh));
        }
        tips << tip;
    }
    setToolTip(tips.join(QLatin1Char('\n')));
    xAxis->setRange(0.4, static_cast<double>(workloads_.size()) + 0.6);
    yAxis->setRange(0, top * 1.05);
    setVisible(any);
    replot();
}

} // namespace trainio::ui
