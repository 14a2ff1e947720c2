// The labels of a plot's vertical marks (an invocation's start, "warm-up", "run 3/3"; a storage change,
// "bw 6.35 GiB/s → 250 MiB/s") laid out before each replot so that none prints over another, none is
// clipped at the axes' edges and none covers the data (issue 32, item 6). Used by the Run page's plots and
// the presentation view's chart.
#pragma once

#include <Qt>

class QCustomPlot;
class QCPItemText;

namespace trainio::ui {

// Makes `text` a mark label of `p`: its key is its line's, `side` the side of the line it prefers
// (Qt::AlignLeft: right of the line, reading on from it; Qt::AlignRight: left of it).
void setMarkLabel(QCPItemText* text, Qt::Alignment side);

// Places every mark label of `p`, newest first: on the first row from the top of the axes where it meets
// no label already placed, on its preferred side unless that crosses the axes' left or right edge. A label
// with no free row among `maxRows` is hidden (its line stays; newer changes matter more in a live view).
// With `dataTop` (e.g. 105 for an AU % axis whose data never exceed it) the y axis's upper end is raised
// so that the rows in use lie above dataTop: the labels never cover a curve (the rows then take at most
// 40 % of the axes' height). Call from beforeReplot.
void layOutMarkLabels(QCustomPlot* p, int maxRows, double dataTop = 0);

} // namespace trainio::ui
