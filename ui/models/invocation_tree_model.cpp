#include "models/invocation_tree_model.h"

namespace trainio::ui {

void InvocationTreeModel::clear() {
    beginResetModel();
    invocations_.clear();
    endResetModel();
}

void InvocationTreeModel::addInvocation(const QString& label, const QString& dir) {
    const int row = static_cast<int>(invocations_.size());
    beginInsertRows({}, row, row);
    invocations_.push_back(Invocation{label, tr("running"), QString(), dir, {}});
    endInsertRows();
}

void InvocationTreeModel::changed(const QModelIndex& parent, int row, int column) {
    const QModelIndex i = index(row, column, parent);
    emit dataChanged(i, i);
}

void InvocationTreeModel::finishInvocation(const QString& dir, const QString& status, const QString& auText) {
    for (int i = static_cast<int>(invocations_.size()) - 1; i >= 0; --i) {
        Invocation& inv = invocations_[static_cast<std::size_t>(i)];
        if (inv.dir != dir) continue;
        inv.status = status;
        inv.au = auText;
        emit dataChanged(index(i, StatusColumn), index(i, AuColumn));
        return;
    }
}

void InvocationTreeModel::endRunning(const QString& ended) {
    for (std::size_t i = 0; i < invocations_.size(); ++i)
        if (invocations_[i].status == tr("running")) {
            invocations_[i].status = ended;
            changed({}, static_cast<int>(i), StatusColumn);
        }
}

InvocationTreeModel::Epoch* InvocationTreeModel::epochRow(std::uint64_t epoch, int* row) {
    if (invocations_.empty()) return nullptr;
    const int inv = static_cast<int>(invocations_.size()) - 1;
    auto& epochs = invocations_.back().epochs;
    for (std::size_t i = 0; i < epochs.size(); ++i)
        if (epochs[i].epoch == epoch) {
            *row = static_cast<int>(i);
            return &epochs[i];
        }
    *row = static_cast<int>(epochs.size());
    beginInsertRows(index(inv, 0), *row, *row);
    epochs.push_back(Epoch{epoch, {}, {}, {}});
    endInsertRows();
    return &epochs.back();
}

void InvocationTreeModel::setEpochAu(std::uint64_t epoch, const QString& auText) {
    int row = 0;
    Epoch* e = epochRow(epoch, &row);
    if (!e) return;
    e->au = auText;
    changed(index(static_cast<int>(invocations_.size()) - 1, 0), row, AuColumn);
}

void InvocationTreeModel::setEpochServed(std::uint64_t epoch, const QString& text, const QColor& alarm) {
    int row = 0;
    Epoch* e = epochRow(epoch, &row);
    if (!e) return;
    e->served = text;
    e->alarm = alarm;
    changed(index(static_cast<int>(invocations_.size()) - 1, 0), row, ServedColumn);
}

void InvocationTreeModel::setServedHeader(const QString& text, const QString& toolTip) {
    servedHeader_ = text;
    servedToolTip_ = toolTip;
    emit headerDataChanged(Qt::Horizontal, ServedColumn, ServedColumn);
}

QModelIndex InvocationTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) return {};
    // An epoch row carries its invocation's row + 1; an invocation row carries 0.
    return createIndex(row, column, parent.isValid() ? quintptr(parent.row() + 1) : quintptr(0));
}

QModelIndex InvocationTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == 0) return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int InvocationTreeModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) return static_cast<int>(invocations_.size());
    if (parent.internalId() != 0 || parent.column() != 0) return 0; // epochs have no children
    return static_cast<int>(invocations_[static_cast<std::size_t>(parent.row())].epochs.size());
}

int InvocationTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant InvocationTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    if (index.internalId() == 0) {
        const Invocation& inv = invocations_[static_cast<std::size_t>(index.row())];
        if (role == KeyRole && index.column() == LabelColumn) return inv.dir;
        if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
        switch (index.column()) {
        case LabelColumn: return inv.label;
        case StatusColumn: return inv.status;
        case AuColumn: return inv.au;
        case FolderColumn: return inv.dir;
        default: return {};
        }
    }
    const Epoch& e = invocations_[static_cast<std::size_t>(index.internalId() - 1)].epochs[static_cast<std::size_t>(index.row())];
    if (role == KeyRole && index.column() == LabelColumn) return QVariant::fromValue<qulonglong>(e.epoch);
    if (role == Qt::ForegroundRole && index.column() == ServedColumn && e.alarm.isValid()) return e.alarm;
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
    case LabelColumn: return tr("epoch %1").arg(e.epoch);
    case AuColumn: return e.au;
    case ServedColumn: return e.served;
    default: return {};
    }
}

QVariant InvocationTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole && section == ServedColumn) return servedToolTip_;
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case LabelColumn: return tr("Invocation");
    case StatusColumn: return tr("Status");
    case AuColumn: return tr("AU %");
    case ServedColumn: return servedHeader_;
    case FolderColumn: return tr("Folder");
    default: return {};
    }
}

} // namespace trainio::ui
