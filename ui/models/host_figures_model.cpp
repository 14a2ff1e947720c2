#include "models/host_figures_model.h"

#include <QStringList>

namespace trainio::ui {

QString rankRanges(const std::vector<std::uint64_t>& ranks) {
    QStringList parts;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
        parts << (j == i ? QString::number(ranks[i]) : QStringLiteral("%1–%2").arg(ranks[i]).arg(ranks[j]));
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

bool HostFiguresModel::setHosts(const std::vector<std::string>& hostOfRank) {
    if (hostOfRank == tally_.hostOfRank()) return false;
    beginResetModel();
    tally_ = HostTally(hostOfRank);
    endResetModel();
    return true;
}

void HostFiguresModel::clear() {
    beginResetModel();
    tally_ = HostTally();
    endResetModel();
}

void HostFiguresModel::addSteps(const std::vector<StepEvent>& batch) {
    if (tally_.hosts().empty()) return;
    for (const StepEvent& e : batch) tally_.addStep(e);
    figuresChanged();
}

void HostFiguresModel::addEpoch(const EpochEvent& e) {
    if (tally_.hosts().empty()) return;
    tally_.addEpoch(e);
    figuresChanged();
}

void HostFiguresModel::figuresChanged() {
    if (rowCount() > 0) emit dataChanged(index(0, EpochAuColumn), index(rowCount() - 1, LiveAuColumn), {Qt::DisplayRole});
}

int HostFiguresModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(tally_.hosts().size());
}

int HostFiguresModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant HostFiguresModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const HostFigures& h = tally_.hosts()[static_cast<std::size_t>(index.row())];
    if (role == Qt::ToolTipRole && index.column() == RanksColumn)
        return tr("%n rank(s)", nullptr, static_cast<int>(h.ranks.size()));
    if (role == Qt::TextAlignmentRole && index.column() >= EpochAuColumn)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case HostColumn: return QString::fromStdString(h.host);
    case RanksColumn: return rankRanges(h.ranks);
    case EpochAuColumn:
        return h.epoch > 0 ? tr("%1 (epoch %2)").arg(h.epochAuPercent, 0, 'f', 2).arg(h.epoch) : QString();
    case EpochThroughputColumn: return h.epoch > 0 ? QString::number(h.epochSamplesPerSecond, 'f', 1) : QString();
    case LiveAuColumn:
        return h.liveEpoch > 0 ? tr("%1 (epoch %2)").arg(h.liveAuPercent, 0, 'f', 1).arg(h.liveEpoch) : QString();
    default: return {};
    }
}

QVariant HostFiguresModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case HostColumn: return tr("Host");
        case RanksColumn: return tr("Ranks");
        case EpochAuColumn: return tr("AU % (epoch)");
        case EpochThroughputColumn: return tr("Samples/s (epoch)");
        case LiveAuColumn: return tr("AU % (this epoch so far)");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case EpochAuColumn:
            return tr("The latest finished epoch: the mean of the AU of the host's ranks, from the per-rank AU of the "
                      "epoch event (DLIO's per-rank formula)");
        case EpochThroughputColumn:
            return tr("The latest finished epoch: the sum of the samples/s of the host's ranks, from the per-rank "
                      "throughput of the epoch event");
        case LiveAuColumn:
            return tr("Running, from the step events: per rank the compute time of the current epoch's steps after the "
                      "first ÷ the wall time since the first ended (DLIO's AU over the epoch so far), then the mean over "
                      "the host's ranks");
        default: return {};
        }
    }
    return {};
}

} // namespace trainio::ui
