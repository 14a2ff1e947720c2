// The answer of a collocation (issue 32 item 9): per workload, its AU alone beside its AU together, and what
// it lost — a chart the room reads at a glance, where the Collocate page used to print a wall of text. The
// figures are core's (aggregate/interference.h: the collocation's own --alone runs, or the library's alone
// runs of the same benchmark); the chart draws them, it computes nothing.
#pragma once

#include <qcustomplot.h>

#include <QString>

#include <cmath>
#include <vector>

namespace trainio::ui {

class InterferenceChart final : public QCustomPlot {
    Q_OBJECT
public:
    struct Workload {
        QString name;
        double auAlone = NAN;      // % (NaN: not compared, the together bar alone)
        double auTogether = NAN;   // %
        double pointsLost = NAN;   // alone − together, AU points
        double lostLow = NAN, lostHigh = NAN; // its 95 % CI (NaN: none)
        double slowdownPercent = NAN;          // of the read rate, %
        QString why;               // not compared: why, in words
    };

    explicit InterferenceChart(QWidget* parent = nullptr);

    // Replaces what the chart shows; hidden when no workload has a together figure.
    void setWorkloads(std::vector<Workload> workloads);
    const std::vector<Workload>& workloads() const { return workloads_; }
    // What workload i lost, under its name on the axis ("−16.64 AU points\nMiB/s −28.3 %": the read rate's slowdown; "not compared").
    QString lossLabel(std::size_t i) const;
    QCPBars* aloneBars() const { return alone_; }
    QCPBars* togetherBars() const { return together_; }

private:
    std::vector<Workload> workloads_;
    QCPBars* alone_;
    QCPBars* together_;
};

} // namespace trainio::ui
