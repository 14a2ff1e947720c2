#include "run/mpi_controls.h"

#include "plots/plot_theme.h"

#include "util/errors.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace trainio::ui {

namespace {

const QString kSourceKey = QStringLiteral("run/mpi/source"); // "hosts" or "hostfile"
const QString kHostsKey = QStringLiteral("run/mpi/hosts");
const QString kHostfileKey = QStringLiteral("run/mpi/hostfile");
const QString kProcessesKey = QStringLiteral("run/mpi/processesPerHost");
const QString kAcceleratorsKey = QStringLiteral("run/mpi/acceleratorsPerProcess");
const QString kOversubscribeKey = QStringLiteral("run/mpi/oversubscribe");
constexpr int kHostListIndex = 0, kHostfileIndex = 1;

} // namespace

MpiControls::MpiControls(QWidget* parent, const QString& enabledKey) : QGroupBox(tr("MPI (client hosts)"), parent), enabledKey_(enabledKey) {
    setObjectName(QStringLiteral("mpiControls"));
    setCheckable(true);
    setChecked(false);
    setToolTip(tr("Run as mpirun … trainio-cli on client hosts (Open MPI): every process hosts K emulated "
                  "accelerators, process 0 writes the results and streams every rank's steps here (docs/mpi.md)"));
    // Off, the group is its title's check box alone: the fields show when it is switched on.
    auto* outer = new QVBoxLayout(this);
    body_ = new QWidget(this);
    outer->addWidget(body_);
    auto* row = new QHBoxLayout(body_);
    row->setContentsMargins(0, 0, 0, 0);
    source_ = new QComboBox(this);
    source_->setObjectName(QStringLiteral("mpiHostSource"));
    source_->addItems({tr("Host list"), tr("Hostfile")});
    row->addWidget(source_);
    hosts_ = new QLineEdit(this);
    hosts_->setObjectName(QStringLiteral("mpiHosts"));
    hosts_->setMinimumWidth(220);
    row->addWidget(hosts_, 1);
    browse_ = new QToolButton(this);
    browse_->setText(QStringLiteral("…"));
    browse_->setToolTip(tr("Choose an Open MPI hostfile"));
    row->addWidget(browse_);
    row->addSpacing(8);
    // A labelled count of 1 … 1024.
    auto count = [this, row](const QString& label, const char* name, const QString& tip) {
        acceleratorsLabel_ = new QLabel(label, this); // the last one made: accelerators per process
        row->addWidget(acceleratorsLabel_);
        auto* box = new QSpinBox(this);
        box->setObjectName(QLatin1String(name));
        box->setRange(1, 1024);
        box->setToolTip(tip);
        row->addWidget(box);
        return box;
    };
    processes_ = count(tr("Processes per host:"), "mpiProcessesPerHost",
                       tr("MPI processes started on each host (mpirun --npernode P)"));
    accelerators_ = count(tr("Accelerators per process:"), "mpiAcceleratorsPerProcess",
                          tr("Emulated accelerators (threads) in each process (trainio-cli --accelerators-per-process K)"));
    oversubscribe_ = new QCheckBox(tr("Oversubscribe"), this);
    oversubscribe_->setObjectName(QStringLiteral("mpiOversubscribe"));
    oversubscribe_->setToolTip(tr("Allow more processes on a host than it has slots (cores): mpirun --oversubscribe"));
    row->addWidget(oversubscribe_);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("mpiSummary"));
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row->addSpacing(8);
    row->addWidget(summary_);

    {
        restoring_ = true;
        const QSettings s;
        hostList_ = s.value(kHostsKey, QStringLiteral("localhost")).toString();
        hostfile_ = s.value(kHostfileKey).toString();
        const bool hostfile = s.value(kSourceKey).toString() == QLatin1String("hostfile");
        source_->setCurrentIndex(hostfile ? kHostfileIndex : kHostListIndex);
        hosts_->setText(hostfile ? hostfile_ : hostList_);
        processes_->setValue(s.value(kProcessesKey, 1).toInt());
        accelerators_->setValue(s.value(kAcceleratorsKey, 1).toInt());
        oversubscribe_->setChecked(s.value(kOversubscribeKey, false).toBool());
        setChecked(s.value(enabledKey_, false).toBool());
        restoring_ = false;
    }

    connect(source_, &QComboBox::currentIndexChanged, this, [this] {
        const QSignalBlocker block(hosts_);
        hosts_->setText(usesHostfile() ? hostfile_ : hostList_);
        refresh();
    });
    connect(hosts_, &QLineEdit::textChanged, this, [this](const QString& text) {
        (usesHostfile() ? hostfile_ : hostList_) = text;
        refresh();
    });
    connect(browse_, &QToolButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Open MPI hostfile"), hostfile_);
        if (!file.isEmpty()) setHostfile(file);
    });
    connect(processes_, &QSpinBox::valueChanged, this, &MpiControls::refresh);
    connect(accelerators_, &QSpinBox::valueChanged, this, &MpiControls::refresh);
    connect(oversubscribe_, &QCheckBox::toggled, this, &MpiControls::refresh);
    connect(this, &QGroupBox::toggled, this, &MpiControls::refresh);
    refresh();
}

bool MpiControls::usesHostfile() const { return source_->currentIndex() == kHostfileIndex; }

std::optional<dist::MpiLaunch> MpiControls::launch(QString* problem) const {
    dist::MpiLaunch l;
    l.processesPerHost = static_cast<std::uint64_t>(processes_->value());
    l.acceleratorsPerProcess = static_cast<std::uint64_t>(accelerators_->value());
    l.oversubscribe = oversubscribe_->isChecked();
    std::vector<dist::HostSlots> hosts;
    try {
        if (usesHostfile()) {
            if (hostfile_.trimmed().isEmpty()) throw InputError("no hostfile chosen: expected an Open MPI hostfile");
            l.hostfile = hostfile_.trimmed().toStdString();
        } else {
            l.hosts = dist::parseHostList(hostList_.toStdString());
        }
        hosts = dist::launchHosts(l);
    } catch (const InputError& e) {
        if (problem) *problem = QString::fromUtf8(e.what());
        return std::nullopt;
    }
    if (const auto problems = dist::launchProblems(l, hosts); !problems.empty()) {
        if (problem) *problem = QString::fromStdString(problems.front());
        return std::nullopt;
    }
    return l;
}

std::uint64_t MpiControls::totalAccelerators() const {
    const auto l = launch();
    if (!l) return 0;
    try {
        return dist::totalAccelerators(*l, dist::launchHosts(*l).size());
    } catch (const InputError&) {
        return 0;
    }
}

void MpiControls::setProcessesOnly() {
    processesOnly_ = true;
    accelerators_->setValue(1);
    accelerators_->hide();
    acceleratorsLabel_->hide();
    setToolTip(tr("Run as mpirun … trainio-cli collocate on client hosts (Open MPI): every process runs every workload "
                  "with its accelerators ÷ processes, process 0 writes the results (docs/collocation.md, \"Under mpirun\")"));
    refresh();
}

std::uint64_t MpiControls::totalProcesses() const {
    const auto l = launch();
    if (!l) return 0;
    const std::size_t hosts = l->hostfile.empty() ? l->hosts.size() : dist::readHostfile(l->hostfile).size();
    return static_cast<std::uint64_t>(hosts) * l->processesPerHost;
}

QString MpiControls::summaryText() const {
    QString problem;
    const auto l = launch(&problem);
    if (!l) return problem;
    const std::size_t hosts = l->hostfile.empty() ? l->hosts.size() : dist::readHostfile(l->hostfile).size();
    auto counted = [](std::uint64_t n, const QString& one, const QString& many) {
        return (n == 1 ? one : many).arg(n);
    };
    if (processesOnly_)
        return tr("%1 × %2 = %3: each workload's accelerators spread over them")
            .arg(counted(hosts, tr("%1 host"), tr("%1 hosts")), counted(l->processesPerHost, tr("%1 process"), tr("%1 processes")),
                 counted(hosts * l->processesPerHost, tr("%1 process"), tr("%1 processes")));
    return tr("%1 × %2 × %3 = %4")
        .arg(counted(hosts, tr("%1 host"), tr("%1 hosts")), counted(l->processesPerHost, tr("%1 process"), tr("%1 processes")),
             counted(l->acceleratorsPerProcess, tr("%1 accelerator"), tr("%1 accelerators")),
             counted(dist::totalAccelerators(*l, hosts), tr("%1 accelerator"), tr("%1 accelerators")));
}

void MpiControls::refresh() {
    body_->setVisible(isChecked());
    setFlat(!isChecked()); // off: a check box line, no empty frame
    layout()->setContentsMargins(isChecked() ? QMargins(9, 9, 9, 9) : QMargins(0, 0, 0, 0));
    browse_->setVisible(usesHostfile());
    hosts_->setPlaceholderText(usesHostfile() ? tr("/path/to/hostfile (name slots=N per line)")
                                              : tr("node1:4,node2:4 (host[:slots], comma-separated)"));
    hosts_->setToolTip(usesHostfile() ? tr("An Open MPI hostfile: one host per line, \"name [slots=N]\"; process 0 "
                                           "runs on the first host")
                                      : tr("Client hosts, comma-separated, each host[:slots]; names are letters, digits, "
                                           "'.' and '-'. Process 0 runs on the first host"));
    QString problem;
    const bool ok = launch(&problem).has_value();
    summary_->setText(summaryText());
    summary_->setToolTip(ok ? tr("The run's accelerators: hosts × processes per host × accelerators per process. The "
                                 "Workload page's Accelerators field follows it while MPI is on.")
                            : problem);
    summary_->setStyleSheet(ok || !isChecked() ? QString() : QStringLiteral("color: %1").arg(isDarkPalette(palette()) ? QLatin1String("#ff6b6b") : QLatin1String("#c0392b")));
    if (!restoring_) {
        save();
        emit changed();
    }
}

void MpiControls::save() const {
    QSettings s;
    s.setValue(enabledKey_, isChecked());
    s.setValue(kSourceKey, usesHostfile() ? QStringLiteral("hostfile") : QStringLiteral("hosts"));
    s.setValue(kHostsKey, hostList_);
    s.setValue(kHostfileKey, hostfile_);
    s.setValue(kProcessesKey, processes_->value());
    s.setValue(kAcceleratorsKey, accelerators_->value());
    s.setValue(kOversubscribeKey, oversubscribe_->isChecked());
}

void MpiControls::setHostList(const QString& hosts) {
    source_->setCurrentIndex(kHostListIndex);
    hosts_->setText(hosts);
}

void MpiControls::setHostfile(const QString& file) {
    source_->setCurrentIndex(kHostfileIndex);
    hosts_->setText(file);
}

void MpiControls::setProcessesPerHost(int p) { processes_->setValue(p); }
void MpiControls::setAcceleratorsPerProcess(int k) { accelerators_->setValue(k); }
void MpiControls::setOversubscribe(bool on) { oversubscribe_->setChecked(on); }

} // namespace trainio::ui
