// A Qt item model over core's ResultsLibrary: system → workload → benchmark → invocation → epoch, with
// check boxes (checking a node checks its subtree; parents show partial states), a status badge
// (complete / incomplete / cancelled / failed) on every row, the aggregate and its spread where one
// means something (benchmark, invocation, epoch — "—" at system and workload rows), and pass/fail
// badges whose tooltip lists the rule violations. Excluded invocations are greyed, with their reason.
#pragma once

// moc (Qt 6.4) cannot parse <compare>/<concepts>, which core's aggregate headers pull in; it needs
// only the names, so it skips them.
#ifndef Q_MOC_RUN
#include "aggregate/results_library.h"
#endif

#include <QAbstractItemModel>
#include <QHash>
#include <QSet>
#include <QStringList>

#include <memory>

namespace trainio::ui {

class ResultsTreeModel final : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        StatusColumn, // complete / incomplete / cancelled / failed
        AuColumn,
        SamplesColumn,
        MibColumn,
        GibColumn,    // MLPerf v3.0's headline "Read B/W (GiB/s)"
        EfficiencyColumn, // Read GiB/s per usable TiB, per kW, per rack unit of the item's system (issue 33)
        CkptWriteColumn, // checkpointing: MLPerf v3.0's "Write B/W (GiB/s)"
        CkptReadColumn,  // checkpointing: MLPerf v3.0's checkpoint "Read B/W (GiB/s)"
        CountColumn,
        ChecksColumn, // AU threshold and MLPerf rule checks: pass / fail, separate from the status
        ColumnCount
    };
    enum Role {
        NodeKindRole = Qt::UserRole + 1, // int(aggregate::NodeKind)
        PathRole,                        // folder of the node, QString
        MeanRole,                        // double: the column's mean (metric columns)
        SpreadRole,                      // double: the column's population stdev
        PassedRole,                      // QVariant(bool), invalid when not evaluated
        StatusRole,                      // int(aggregate::InvocationStatus)
        ExcludedRole,                    // bool: shown, never counted (not complete)
    };

    explicit ResultsTreeModel(QObject* parent = nullptr);

    // Takes a new library (the old check states are kept for nodes with the same path and label chain).
    void setLibrary(std::shared_ptr<const aggregate::ResultsLibrary> library);
    std::shared_ptr<const aggregate::ResultsLibrary> library() const { return library_; }

    const aggregate::LibraryNode* node(const QModelIndex& index) const;
    QModelIndex indexOf(const aggregate::LibraryNode* node, int column = 0) const;

    // What the user checked, as items to compare: the checked benchmarks and run-once invocations (a
    // checked system or workload stands for them), and checked invocations or epochs of benchmarks not
    // wholly checked. Excluded invocations come only when checked on their own.
    std::vector<const aggregate::LibraryNode*> checkedNodes() const;
    void setAllChecked(bool checked);
    // The checks as keys that survive a restart (kind, label and folder of each node up from the top; only
    // the highest checked node of a checked subtree), with any restored keys not found yet; and the
    // checks to restore: applied to this library and the next ones until the user changes a check.
    QStringList checkedKeys() const;
    void restoreChecked(const QStringList& keys);
    int groupCount() const;
    int runCount() const; // measured invocations (warm-ups excluded)

    // QAbstractItemModel
    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const final;
    QModelIndex parent(const QModelIndex& child) const final;
    int rowCount(const QModelIndex& parent = {}) const final;
    int columnCount(const QModelIndex& parent = {}) const final;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) final;
    Qt::ItemFlags flags(const QModelIndex& index) const final;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final;

    // The rule that produced a node's numbers, in words (shown in tooltips and the details pane).
    static QString ruleText(const aggregate::LibraryNode& node);
    // The status in words with its reason ("failed: <error>"), for tooltips and the details pane.
    static QString statusText(const aggregate::LibraryNode& node);
    // All violation sentences in a node's subtree.
    // "complete", or the items below counted by status ("3 complete · 1 failed") for system and workload rows.
    static QString itemStatusCounts(const aggregate::LibraryNode& n);
    static QStringList violations(const aggregate::LibraryNode& node);
    // The Checks column's tooltip: the advisories (issue 33) and the rule checks.
    static QString advisoriesHtml(const aggregate::LibraryNode& node);
    static QString checksTip(const aggregate::LibraryNode& node);
    // The Efficiency column's tooltip: each efficiency and the figure it is over, with its source.
    static QString efficiencyTip(const aggregate::LibraryNode& node);

signals:
    void checkedChanged();

private:
    QString keyOf(const aggregate::LibraryNode* node) const;
    Qt::CheckState checkState(const aggregate::LibraryNode* node) const;
    void setSubtree(const aggregate::LibraryNode* node, Qt::CheckState state);
    void updateAncestors(const aggregate::LibraryNode* node);

    std::shared_ptr<const aggregate::ResultsLibrary> library_;
    QHash<const aggregate::LibraryNode*, Qt::CheckState> checks_;
    QSet<QString> restore_; // restoreChecked's keys, until the user checks or unchecks something
};

} // namespace trainio::ui
