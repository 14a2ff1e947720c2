// Page 5: compare the checked results — grouped bars with 95 % CI error bars (AU, samples/s, MiB/s),
// per-epoch overlays (one line per item), and a table of deltas against a chosen baseline.
#pragma once

// moc (Qt 6.4) cannot parse <compare>/<concepts>, which core's aggregate headers pull in; it needs
// only the names, so it skips them.
#ifndef Q_MOC_RUN
#include "compare_items.h"
#endif

#include <QWidget>

#include <memory>

class QComboBox;
class QCustomPlot;
class QLabel;
class QTableWidget;

namespace trainio::ui {

class ComparePage final : public QWidget {
    Q_OBJECT
public:
    explicit ComparePage(QWidget* parent = nullptr);

    void setItems(std::shared_ptr<const aggregate::ResultsLibrary> library, std::vector<CompareItem> items);
    const std::vector<CompareItem>& items() const { return items_; }

    QCustomPlot* auBars() const { return bars_[0]; }
    QCustomPlot* samplesBars() const { return bars_[1]; }
    QCustomPlot* mibBars() const { return bars_[2]; }
    QCustomPlot* epochPlot() const { return epochs_; }
    QTableWidget* deltaTable() const { return table_; }
    void setBaseline(int index);
    // The plot under the mouse or with focus, for "export plot".
    QCustomPlot* currentPlot() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuildPlots();
    void rebuildTable();

    std::shared_ptr<const aggregate::ResultsLibrary> library_;
    std::vector<CompareItem> items_;
    QCustomPlot* bars_[3];
    QCustomPlot* epochs_;
    QComboBox* baseline_;
    QComboBox* epochMetric_;
    QTableWidget* table_;
    QLabel* hint_;
};

} // namespace trainio::ui
