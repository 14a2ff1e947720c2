// A Qt table model of the checkpoint view's per-rank rows: what each rank wrote and read so far (count,
// GiB, duration and bandwidth as mean ± population sd), from CheckpointTally::perRank. Rows change only when
// a rank appears or a run starts; new checkpoints change the figures in place (dataChanged), so a view keeps
// its selection, sort and scroll position while a run writes.
#pragma once

#include "run/checkpoint_tally.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <map>
#include <vector>

namespace trainio::ui {

// "mean ± sd" with `decimals` digits, "—" for no values.
QString meanStdText(const MeanStd& m, int decimals);

class CheckpointRankModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { RankCol, WritesCol, WriteGibCol, WriteSecondsCol, WriteRateCol, ReadsCol, ReadSecondsCol, ReadRateCol, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    // The tally's per-rank figures now (an empty tally: no rows).
    void update(const CheckpointTally& tally);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<std::uint64_t> ranks_;
    std::map<std::uint64_t, RankCheckpointStats> writes_, reads_;
};

} // namespace trainio::ui
