// A Qt table model over core's HostTally (session/host_figures.h): one row per client host of an MPI run
// with its ranks, the latest epoch's AU (mean over the host's ranks) and samples/s (sum over them), and the
// running AU of the current epoch. Rows are rebuilt only when the placement changes; step and epoch
// events change figures in place (dataChanged), so a view keeps its selection and scroll position.
#pragma once

#include "engine/engine_observer.h"
#include "session/host_figures.h"

#include <QAbstractTableModel>

#include <string>
#include <vector>

namespace trainio::ui {

class HostFiguresModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { HostColumn, RanksColumn, EpochAuColumn, EpochThroughputColumn, LiveAuColumn, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    // A run reported where its ranks run (hostOfRank[r]: rank r's host). The same placement as before (a
    // benchmark reports it for every invocation) keeps the rows and their figures; returns whether it changed.
    bool setHosts(const std::vector<std::string>& hostOfRank);
    void clear();
    void addSteps(const std::vector<StepEvent>& batch);
    void addEpoch(const EpochEvent& e);

    const HostTally& tally() const { return tally_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void figuresChanged();

    HostTally tally_;
};

// Consecutive ranks as ranges: "0–3", "0–1, 4–5".
QString rankRanges(const std::vector<std::uint64_t>& ranks);

} // namespace trainio::ui
