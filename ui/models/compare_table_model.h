// The Compare page's table as an item model over core's compare() result (docs/aggregation.md,
// "Comparing"): one row per item — its values with their spread, the delta against the baseline and the
// difference's 95 % CI (Welch) per metric — or, across the delta columns of the baseline row and of an
// item of another workload, one statement ("baseline", "not comparable: …") that the view spans
// (spansDeltas). Sortable by any column (the item's number, name, n, a value, a delta); rows keep their
// item number and colour whatever the order, and a selection follows its rows through a sort.
#pragma once

// moc (Qt 6.4) cannot parse <compare>/<concepts>, which core's aggregate headers pull in; it needs
// only the names, so it skips them.
#ifndef Q_MOC_RUN
#include "aggregate/compare.h"
#endif

#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>

#include <vector>

namespace trainio::ui {

class CompareTableModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    // The values, then the deltas (Δ %), then their 95 % CIs, per metric (AU, samples/s, Read GiB/s,
    // MiB/s — CompareRow::metrics' order).
    // EfficiencyColumn: the item's Read GiB/s per usable TiB, per kW, per rack unit (issue 33), beside the values.
    enum Column {
        IndexColumn,
        ItemColumn,
        CountColumn,
        ValueColumn,
        EfficiencyColumn = ValueColumn + 4,
        DeltaColumn,
        CiColumn = DeltaColumn + 4,
        ColumnCount = CiColumn + 4
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // double (numbers) or QString (names): what a sort orders by
        ItemNumberRole,              // int: the item's 1-based number (as in the legend and on the bars)
    };
    // The colours the table uses (the page's palette): series colours by item number, and the colours
    // of a better, a worse and a within-noise delta.
    struct Colors {
        std::vector<QColor> series;
        QColor better, worse, muted;
    };

    explicit CompareTableModel(QObject* parent = nullptr);

    // A metric's name and unit in headers and plot titles (0 AU, 1 samples/s, 2 Read GiB/s, 3 MiB/s).
    static QString metricName(int which);
    static QString defaultUnit(int which);

    // A new result (resets the model; the current sort order is applied again). `spreadOver` names what
    // ± is over ("runs", "epochs", "runs / epochs").
    void setResult(const aggregate::CompareResult& result, const QString& spreadOver, const Colors& colors);
    const aggregate::CompareResult& result() const { return result_; }
    // The row of the table showing item `item` (0-based, CompareResult::rows' order), and back.
    int rowOfItem(int item) const;
    int itemOfRow(int row) const;
    // True when the row's delta columns hold one statement: the view spans DeltaColumn .. ColumnCount − 1.
    bool spansDeltas(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    struct Cell {
        QString text, toolTip;
        QVariant sortKey;
        QColor foreground; // invalid: the view's
        bool bold = false;
        Qt::Alignment align = Qt::AlignRight | Qt::AlignVCenter;
    };
    void build(const QString& spreadOver);
    void applyOrder();

    aggregate::CompareResult result_;
    Colors colors_;
    QStringList headers_;
    std::vector<std::vector<Cell>> cells_; // by item, by column
    std::vector<int> order_;               // row → item
    int sortColumn_ = -1;
    Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
};

} // namespace trainio::ui
