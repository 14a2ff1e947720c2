// The Run page's "MPI (client hosts)" group (off by default): the client hosts — a host list
// (host[:slots], comma-separated) or an Open MPI hostfile — processes per host and accelerators per
// process; shows hosts × P × K, the run's accelerators, or what is wrong. Remembered in the settings
// (run/mpi/…) as the page's other fields are. The run itself goes through RunController (RunRequest::mpi).
#pragma once

#include "dist/mpi_launch.h"

#include <QGroupBox>

#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;

namespace trainio::ui {

class MpiControls final : public QGroupBox {
    Q_OBJECT
public:
    // `enabledKey`: where "on" is remembered (each page its own); the hosts and counts are shared.
    explicit MpiControls(QWidget* parent = nullptr, const QString& enabledKey = QStringLiteral("run/mpi/enabled"));
    // The Collocate page: no accelerators per process (each workload's own count is spread over the
    // processes); the summary counts hosts × processes.
    void setProcessesOnly();
    // hosts × P, or 0 while the fields do not form a launch.
    std::uint64_t totalProcesses() const;

    // The launch as the fields give it, or nullopt with the problem in words (a bad host entry, an
    // unreadable hostfile, too few slots).
    std::optional<dist::MpiLaunch> launch(QString* problem = nullptr) const;
    // hosts × P × K, or 0 while the fields do not form a launch.
    std::uint64_t totalAccelerators() const;
    // What the summary line says: "1 host × 2 processes × 2 accelerators = 4 accelerators" or the problem.
    QString summaryText() const;

    // Set the fields (the tests and the screenshot tour; a user types them).
    void setHostList(const QString& hosts);
    void setHostfile(const QString& file);
    void setProcessesPerHost(int p);
    void setAcceleratorsPerProcess(int k);
    void setOversubscribe(bool on);

    QLineEdit* hostsEdit() const { return hosts_; }

signals:
    // Any field changed, or the group was switched on or off.
    void changed();

private:
    bool usesHostfile() const;
    void refresh();
    void save() const;

    QWidget* body_;
    QComboBox* source_;
    QLineEdit* hosts_;
    QToolButton* browse_;
    QSpinBox* processes_;
    QSpinBox* accelerators_;
    QLabel* acceleratorsLabel_ = nullptr;
    QString enabledKey_;
    bool processesOnly_ = false;
    QCheckBox* oversubscribe_;
    QLabel* summary_;
    QString hostList_, hostfile_; // the text of the mode not shown
    bool restoring_ = false;
};

} // namespace trainio::ui
