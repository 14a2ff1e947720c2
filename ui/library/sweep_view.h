// A max-accelerators sweep (trainio-cli sweep, docs/sweep.md) as read from its sweep.json by core
// (readSweepJson): AU against accelerators, one point per trial (passed, failed, or not complete), the AU
// pass line, the largest passing count marked; the trials in a table below with their folders. Opened
// from File → Open sweep… in a window of its own (SweepDialog).
#pragma once

#include "session/sweep.h"

#include <QDialog>
#include <QWidget>

class QCPItemStraightLine;
class QCustomPlot;
class QLabel;
class QTreeWidget;

namespace trainio::ui {

// Shared by the sweep view and the PDF report, so that both say the same:
// the summary ("Largest count that passes: …", how the search ran, the file), as HTML;
QString sweepSummaryHtml(const SweepFile& sweep);
// one trial's cells in SweepView::Column order, `order` its 1-based place in the search.
QStringList sweepTrialCells(const SweepTrial& trial, int order);

class SweepView final : public QWidget {
    Q_OBJECT
public:
    enum Graph { TrendGraph, PassedGraph, FailedGraph, NotCompleteGraph, GraphCount };
    enum Column { OrderColumn, AcceleratorsColumn, AuColumn, SamplesColumn, ReadColumn, VerdictColumn, FolderColumn };

    explicit SweepView(QWidget* parent = nullptr);

    void setSweep(const SweepFile& sweep);
    const SweepFile& sweep() const { return sweep_; }

    QCustomPlot* plot() const { return plot_; }
    QTreeWidget* trials() const { return trials_; }
    QString summaryText() const;
    // The dashed AU pass line and the vertical line at the largest passing count (null when none passed).
    QCPItemStraightLine* thresholdLine() const { return threshold_; }
    QCPItemStraightLine* maxLine() const { return max_; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void draw();

    SweepFile sweep_;
    QLabel* summary_;
    QCustomPlot* plot_;
    QTreeWidget* trials_;
    QCPItemStraightLine* threshold_ = nullptr;
    QCPItemStraightLine* max_ = nullptr;
};

class SweepDialog final : public QDialog {
    Q_OBJECT
public:
    explicit SweepDialog(const SweepFile& sweep, QWidget* parent = nullptr);
    SweepView* view() const { return view_; }

private:
    SweepView* view_;
};

} // namespace trainio::ui
