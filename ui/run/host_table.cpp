#include "run/host_table.h"

#include <QHeaderView>

namespace trainio::ui {

HostTable::HostTable(QWidget* parent) : QTreeView(parent), model_(new HostFiguresModel(this)) {
    setObjectName(QStringLiteral("hostTable"));
    setRootIsDecorated(false);
    setModel(model_);
    header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    hide();
}

void HostTable::setHosts(const QStringList& hostOfRank) {
    std::vector<std::string> hosts;
    for (const QString& h : hostOfRank) hosts.push_back(h.toStdString());
    model_->setHosts(hosts);
    show();
}

void HostTable::clearHosts() {
    model_->clear();
    hide();
}

void HostTable::addSteps(const std::vector<StepEvent>& batch) { model_->addSteps(batch); }

void HostTable::addEpoch(const EpochEvent& e) { model_->addEpoch(e); }

} // namespace trainio::ui
