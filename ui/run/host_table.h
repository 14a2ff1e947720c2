// The Run page's per-host rows of an MPI run: each client host with its ranks, the latest epoch's AU
// (mean over the host's ranks) and samples/s (sum over them) from the epoch events' per-rank values, and
// the running AU of the current epoch from the step events — computed by core (session/host_figures.h),
// shown here. Hidden until a run reports its hosts.
#pragma once

#include "engine/engine_observer.h"
#include "session/host_figures.h"

#include <QStringList>
#include <QTreeWidget>

namespace trainio::ui {

class HostTable final : public QTreeWidget {
    Q_OBJECT
public:
    enum Column { HostColumn, RanksColumn, EpochAuColumn, EpochThroughputColumn, LiveAuColumn, ColumnCount };

    explicit HostTable(QWidget* parent = nullptr);

    // A run reported where its ranks run: the rows are rebuilt unless it is the same placement as before
    // (a benchmark reports it for every invocation), which keeps their figures.
    void setHosts(const QStringList& hostOfRank);
    void clearHosts(); // a new run: no rows, hidden
    void addSteps(const std::vector<StepEvent>& batch);
    void addEpoch(const EpochEvent& e);

    const HostTally& tally() const { return tally_; }

private:
    void showFigures();

    HostTally tally_;
};

} // namespace trainio::ui
