// Page 5: compare the checked results with core's compare() (docs/aggregation.md, "Comparing"): a
// table with one row per item — values with their spread, the delta against a chosen baseline, the
// difference's 95 % CI (Welch) and "within noise", or, for an item of another workload, the reason it
// is not comparable — bars with 95 % CI error bars, and per-epoch overlays. One legend below the plots
// names the items on screen; an exported plot carries its own legend, outside the data.
#pragma once

// moc (Qt 6.4) cannot parse <compare>/<concepts>, which core's aggregate headers pull in; it needs
// only the names, so it skips them.
#ifndef Q_MOC_RUN
#include "aggregate/compare.h"
#include "library/compare_items.h"
#include "models/compare_table_model.h"
#endif

#include <QWidget>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QScrollArea;
class QTableView;

namespace trainio::ui {

class ComparePage final : public QWidget {
    Q_OBJECT
public:
    // Table columns (CompareTableModel's): the values, the efficiency, then the deltas (Δ %), then their 95 % CIs, per
    // metric (AU, samples/s, Read GiB/s, MiB/s — CompareRow::metrics' order).
    enum Column {
        IndexColumn = CompareTableModel::IndexColumn,
        ItemColumn = CompareTableModel::ItemColumn,
        CountColumn = CompareTableModel::CountColumn,
        ValueColumn = CompareTableModel::ValueColumn,
        EfficiencyColumn = CompareTableModel::EfficiencyColumn,
        DeltaColumn = CompareTableModel::DeltaColumn,
        CiColumn = CompareTableModel::CiColumn,
        ColumnCount = CompareTableModel::ColumnCount
    };

    explicit ComparePage(QWidget* parent = nullptr);

    void setItems(std::shared_ptr<const aggregate::ResultsLibrary> library, std::vector<CompareItem> items);
    const std::vector<CompareItem>& items() const { return items_; }
    // What the table shows (empty rows when nothing is checked).
    const aggregate::CompareResult& result() const { return result_; }

    QCustomPlot* auBars() const { return bars_[0]; }
    QCustomPlot* samplesBars() const { return bars_[1]; }
    QCustomPlot* gibBars() const { return bars_[2]; }
    QCustomPlot* epochPlot() const { return epochs_; }
    QTableView* deltaTable() const { return table_; }
    CompareTableModel* deltaModel() const { return model_; }
    QCheckBox* perAcceleratorToggle() const { return perAccelerator_; }
    QCheckBox* compareAnywayToggle() const { return compareAnyway_; }
    void setBaseline(int index);
    // The plot under the mouse or with focus, for "export plot".
    QCustomPlot* currentPlot() const;

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void recompute();
    // The bar plots' item numbers: every k-th, k such that no two run together at the plot's width
    // (58 items in a third of 1280 px ran together: issue 32 item 10); again when a plot is resized.
    void labelItemTicks(QCustomPlot* plot) const;
    void rebuildPlots();
    void rebuildTable();
    void applySpans();

    std::shared_ptr<const aggregate::ResultsLibrary> library_;
    std::vector<CompareItem> items_;
    aggregate::CompareResult result_;
    std::optional<bool> perAcceleratorChoice_; // the user's; nullopt = core's default
    QString error_;                            // compare() refused the items
    QString chosenBaseline_;                   // the item the user made the baseline (its label), "" = the default
    QCustomPlot* bars_[3];
    QCustomPlot* epochs_;
    QComboBox* baseline_;
    QCheckBox* perAccelerator_;
    QCheckBox* compareAnyway_;
    QComboBox* epochMetric_;
    CompareTableModel* model_;
    QTableView* table_;
    QLabel* hint_;
    QLabel* note_;
    QLabel* legend_; // one legend for every plot on screen
    QScrollArea* legendScroll_;
};

} // namespace trainio::ui
