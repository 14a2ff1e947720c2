// The Run page's per-host rows of an MPI run: a view over HostFiguresModel (ui/models) — each client host
// with its ranks, the latest epoch's AU and samples/s, and the running AU of the current epoch, computed by
// core (session/host_figures.h). Hidden until a run reports its hosts.
#pragma once

#include "engine/engine_observer.h"
#include "models/host_figures_model.h"

#include <QStringList>
#include <QTreeView>

namespace trainio::ui {

class HostTable final : public QTreeView {
    Q_OBJECT
public:
    explicit HostTable(QWidget* parent = nullptr);

    // A run reported where its ranks run: the rows are rebuilt unless it is the same placement as before
    // (a benchmark reports it for every invocation), which keeps their figures.
    void setHosts(const QStringList& hostOfRank);
    void clearHosts(); // a new run: no rows, hidden
    void addSteps(const std::vector<StepEvent>& batch);
    void addEpoch(const EpochEvent& e);

    HostFiguresModel* figures() const { return model_; }
    const HostTally& tally() const { return model_->tally(); }

private:
    HostFiguresModel* model_;
};

} // namespace trainio::ui
