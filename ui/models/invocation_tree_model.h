// The Run page's invocation list as a Qt tree model: one row per invocation of the run (its label,
// status, AU, folder) and under it one row per epoch as the epoch ends (its AU, and what served its bytes:
// the share from the page cache, or the epoch's S3 requests). Rows are appended as the run reports them;
// a figure that changes is changed in place (dataChanged), so a view keeps its scroll position and
// expansion while a run goes on.
#pragma once

#include <QAbstractItemModel>
#include <QColor>
#include <QString>

#include <cstdint>
#include <vector>

namespace trainio::ui {

class InvocationTreeModel final : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { LabelColumn, StatusColumn, AuColumn, ServedColumn, FolderColumn, ColumnCount };
    // Qt::UserRole of column 0: an invocation's folder, an epoch's number (1-based).
    static constexpr int KeyRole = Qt::UserRole;

    using QAbstractItemModel::QAbstractItemModel;

    void clear();
    void addInvocation(const QString& label, const QString& dir); // status "running"
    // The latest invocation with this folder ended: its status and AU text.
    void finishInvocation(const QString& dir, const QString& status, const QString& auText);
    // Every invocation still "running" (never reported its end: an error after the measurement, a cancel
    // between invocations) takes the run's end.
    void endRunning(const QString& ended);
    // The latest invocation's epoch row (created when it is the first figure of that epoch).
    void setEpochAu(std::uint64_t epoch, const QString& auText);
    // What served the epoch's bytes; alarm colours the cell (the share says the page cache was measured).
    void setEpochServed(std::uint64_t epoch, const QString& text, const QColor& alarm = {});
    // The served column's heading: "From page cache", or "S3 requests" for a run on object storage.
    void setServedHeader(const QString& text, const QString& toolTip);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Epoch {
        std::uint64_t epoch = 0;
        QString au, served;
        QColor alarm;
    };
    struct Invocation {
        QString label, status, au, dir;
        std::vector<Epoch> epochs;
    };
    // Internal id of an index: 0 for an invocation row, invocation row + 1 for its epochs' rows.
    Epoch* epochRow(std::uint64_t epoch, int* row);
    void changed(const QModelIndex& parent, int row, int column);

    std::vector<Invocation> invocations_;
    QString servedHeader_ = tr("From page cache"), servedToolTip_;
};

} // namespace trainio::ui
