#include "run/host_table.h"

#include <QHeaderView>

namespace trainio::ui {

namespace {

QString rankList(const std::vector<std::uint64_t>& ranks) {
    // Consecutive ranks as ranges: "0–3", "0–1, 4–5".
    QStringList parts;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
        parts << (j == i ? QString::number(ranks[i]) : QStringLiteral("%1–%2").arg(ranks[i]).arg(ranks[j]));
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace

HostTable::HostTable(QWidget* parent) : QTreeWidget(parent) {
    setObjectName(QStringLiteral("hostTable"));
    setRootIsDecorated(false);
    setColumnCount(ColumnCount);
    setHeaderLabels({tr("Host"), tr("Ranks"), tr("AU % (epoch)"), tr("Samples/s (epoch)"), tr("AU % (this epoch so far)")});
    headerItem()->setToolTip(EpochAuColumn, tr("The latest finished epoch: the mean of the AU of the host's ranks, "
                                               "from the per-rank AU of the epoch event (DLIO's per-rank formula)"));
    headerItem()->setToolTip(EpochThroughputColumn, tr("The latest finished epoch: the sum of the samples/s of the host's "
                                                       "ranks, from the per-rank throughput of the epoch event"));
    headerItem()->setToolTip(LiveAuColumn, tr("Running, from the step events: per rank the compute time of the current "
                                              "epoch's steps after the first ÷ the wall time since the first ended (DLIO's "
                                              "AU over the epoch so far), then the mean over the host's ranks"));
    header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    hide();
}

void HostTable::setHosts(const QStringList& hostOfRank) {
    std::vector<std::string> hosts;
    for (const QString& h : hostOfRank) hosts.push_back(h.toStdString());
    if (hosts != tally_.hostOfRank()) {
        tally_ = HostTally(hosts);
        clear();
        for (const HostFigures& h : tally_.hosts()) {
            auto* item = new QTreeWidgetItem(this, {QString::fromStdString(h.host), rankList(h.ranks)});
            item->setToolTip(RanksColumn, tr("%n rank(s)", nullptr, static_cast<int>(h.ranks.size())));
        }
    }
    show();
    showFigures();
}

void HostTable::clearHosts() {
    tally_ = HostTally();
    clear();
    hide();
}

void HostTable::addSteps(const std::vector<StepEvent>& batch) {
    if (tally_.hosts().empty()) return;
    for (const StepEvent& e : batch) tally_.addStep(e);
    showFigures();
}

void HostTable::addEpoch(const EpochEvent& e) {
    if (tally_.hosts().empty()) return;
    tally_.addEpoch(e);
    showFigures();
}

void HostTable::showFigures() {
    const auto& hosts = tally_.hosts();
    for (int i = 0; i < topLevelItemCount() && i < static_cast<int>(hosts.size()); ++i) {
        const HostFigures& h = hosts[static_cast<std::size_t>(i)];
        QTreeWidgetItem* item = topLevelItem(i);
        if (h.epoch > 0) {
            item->setText(EpochAuColumn, tr("%1 (epoch %2)").arg(h.epochAuPercent, 0, 'f', 2).arg(h.epoch));
            item->setText(EpochThroughputColumn, QString::number(h.epochSamplesPerSecond, 'f', 1));
        }
        if (h.liveEpoch > 0) item->setText(LiveAuColumn, tr("%1 (epoch %2)").arg(h.liveAuPercent, 0, 'f', 1).arg(h.liveEpoch));
    }
}

} // namespace trainio::ui
