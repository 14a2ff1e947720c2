#include "run/checkpoint_rank_model.h"

#include "util/units.h"

#include <set>

namespace trainio::ui {

QString meanStdText(const MeanStd& m, int decimals) {
    if (m.count == 0) return QStringLiteral("—");
    return QStringLiteral("%1 ± %2").arg(m.mean, 0, 'f', decimals).arg(m.stdev, 0, 'f', decimals);
}

void CheckpointRankModel::update(const CheckpointTally& tally) {
    auto writes = tally.perRank(checkpoint::Operation::Write);
    auto reads = tally.perRank(checkpoint::Operation::Read);
    std::set<std::uint64_t> seen;
    for (const auto& [r, s] : writes) seen.insert(r);
    for (const auto& [r, s] : reads) seen.insert(r);
    std::vector<std::uint64_t> ranks(seen.begin(), seen.end());
    const bool sameRows = ranks == ranks_;
    if (!sameRows) beginResetModel();
    ranks_ = std::move(ranks);
    writes_ = std::move(writes);
    reads_ = std::move(reads);
    if (!sameRows)
        endResetModel();
    else if (!ranks_.empty())
        emit dataChanged(index(0, WritesCol), index(rowCount() - 1, ColumnCount - 1), {Qt::DisplayRole});
}

int CheckpointRankModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(ranks_.size());
}

int CheckpointRankModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CheckpointRankModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    if (role == Qt::TextAlignmentRole) return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    if (role != Qt::DisplayRole) return {};
    const std::uint64_t r = ranks_[static_cast<std::size_t>(index.row())];
    const auto pick = [r](const std::map<std::uint64_t, RankCheckpointStats>& m) {
        const auto it = m.find(r);
        return it == m.end() ? RankCheckpointStats{} : it->second;
    };
    const RankCheckpointStats w = pick(writes_), rd = pick(reads_);
    switch (index.column()) {
    case RankCol: return QString::number(r);
    case WritesCol: return QString::number(w.done);
    case WriteGibCol: return QString::number(static_cast<double>(w.bytes) / kGiB, 'f', 3);
    case WriteSecondsCol: return meanStdText(w.seconds, 3);
    case WriteRateCol: return meanStdText(w.gibPerSecond, 3);
    case ReadsCol: return QString::number(rd.done);
    case ReadSecondsCol: return meanStdText(rd.seconds, 3);
    case ReadRateCol: return meanStdText(rd.gibPerSecond, 3);
    default: return {};
    }
}

QVariant CheckpointRankModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole && (section == WriteRateCol || section == ReadRateCol))
        return tr("Per checkpoint, this rank's bytes / its own duration");
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case RankCol: return tr("Rank");
    case WritesCol: return tr("Writes");
    case WriteGibCol: return tr("GiB written");
    case WriteSecondsCol: return tr("Write s (mean ± sd)");
    case WriteRateCol: return tr("Write GiB/s (mean ± sd)");
    case ReadsCol: return tr("Reads");
    case ReadSecondsCol: return tr("Read s (mean ± sd)");
    case ReadRateCol: return tr("Read GiB/s (mean ± sd)");
    default: return {};
    }
}

} // namespace trainio::ui
