#include "models/results_tree_model.h"

#include <QApplication>
#include <QColor>
#include <QIcon>
#include <QPainter>
#include <QPalette>
#include <QPixmap>

#include <cmath>
#include <functional>
#include <map>

namespace trainio::ui {

using aggregate::LibraryNode;
using aggregate::NodeKind;
using aggregate::NodeMetric;

namespace {

QIcon badgeIcon(QColor fill, QChar glyph) {
    QPixmap pm(32, 32);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setBrush(fill);
    p.setPen(Qt::NoPen);
    p.drawEllipse(2, 2, 28, 28);
    p.setPen(Qt::white);
    QFont f = p.font();
    f.setBold(true);
    f.setPixelSize(20);
    p.setFont(f);
    p.drawText(QRect(0, 0, 32, 32), Qt::AlignCenter, QString(glyph));
    return QIcon(pm);
}

const QIcon& passIcon() {
    static const QIcon icon = badgeIcon(QColor(0x2e7d32), QChar(0x2713));
    return icon;
}
const QIcon& failIcon() {
    static const QIcon icon = badgeIcon(QColor(0xc62828), QChar(0x2717));
    return icon;
}
const QIcon& ruleIcon() {
    static const QIcon icon = badgeIcon(QColor(0xe69f00), QLatin1Char('!'));
    return icon;
}

// Status badges: shape and glyph as well as colour, so that they read without colour vision.
const QIcon& statusIcon(aggregate::InvocationStatus status) {
    using S = aggregate::InvocationStatus;
    static const QIcon complete = badgeIcon(QColor(0x2e7d32), QChar(0x25CF));   // ●
    static const QIcon incomplete = badgeIcon(QColor(0xb26a00), QChar(0x25D0)); // ◐
    static const QIcon cancelled = badgeIcon(QColor(0x616161), QChar(0x25A0));  // ■
    static const QIcon failed = badgeIcon(QColor(0xc62828), QLatin1Char('!'));
    switch (status) {
    case S::Complete: return complete;
    case S::Incomplete: return incomplete;
    case S::Cancelled: return cancelled;
    case S::Failed: return failed;
    }
    return failed;
}

const NodeMetric& metricOf(const LibraryNode& n, int column) {
    switch (column) {
    case ResultsTreeModel::SamplesColumn: return n.samplesPerSecond;
    case ResultsTreeModel::MibColumn: return n.mibPerSecond;
    case ResultsTreeModel::GibColumn: return n.readGibPerSecond;
    case ResultsTreeModel::CkptWriteColumn: return n.checkpointWriteGibPerSecond;
    case ResultsTreeModel::CkptReadColumn: return n.checkpointReadGibPerSecond;
    default: return n.au;
    }
}

QString number(double v, int decimals) {
    if (!std::isfinite(v)) return QStringLiteral("—");
    return QLocale().toString(v, 'f', decimals);
}

int decimalsFor(int column) {
    if (column == ResultsTreeModel::GibColumn || column == ResultsTreeModel::CkptWriteColumn ||
        column == ResultsTreeModel::CkptReadColumn)
        return 3;
    return column == ResultsTreeModel::AuColumn ? 2 : 1;
}

QString kindName(NodeKind k) { return QString::fromStdString(aggregate::nodeKindName(k)); }

} // namespace

ResultsTreeModel::ResultsTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void ResultsTreeModel::setLibrary(std::shared_ptr<const aggregate::ResultsLibrary> library) {
    // Remember what was checked by a stable key (kind + path + label chain) across re-imports.
    QSet<QString> wasChecked;
    for (auto it = checks_.cbegin(); it != checks_.cend(); ++it)
        if (it.value() == Qt::Checked) wasChecked.insert(keyOf(it.key()));
    beginResetModel();
    library_ = std::move(library);
    checks_.clear();
    endResetModel();
    if (!library_ || (wasChecked.isEmpty() && restore_.isEmpty())) return;
    std::vector<const LibraryNode*> stack{&library_->root()};
    std::vector<const LibraryNode*> restored;
    while (!stack.empty()) {
        const LibraryNode* n = stack.back();
        stack.pop_back();
        if (n != &library_->root() && wasChecked.contains(keyOf(n))) checks_[n] = Qt::Checked;
        if (n != &library_->root() && restore_.contains(keyOf(n))) restored.push_back(n);
        for (const auto& c : n->children) stack.push_back(c.get());
    }
    for (const LibraryNode* n : restored) setSubtree(n, Qt::Checked);
    const auto checked = checks_.keys();
    for (const LibraryNode* n : checked) updateAncestors(n);
    emit checkedChanged();
}

QStringList ResultsTreeModel::checkedKeys() const {
    QSet<QString> keys = restore_;
    for (auto it = checks_.cbegin(); it != checks_.cend(); ++it)
        if (it.value() == Qt::Checked && !(it.key()->parent && it.key()->parent->parent && checkState(it.key()->parent) == Qt::Checked))
            keys.insert(keyOf(it.key()));
    QStringList out(keys.cbegin(), keys.cend());
    out.sort();
    return out;
}

void ResultsTreeModel::restoreChecked(const QStringList& keys) {
    restore_ = QSet<QString>(keys.cbegin(), keys.cend());
    if (library_) setLibrary(library_);
}

QString ResultsTreeModel::keyOf(const LibraryNode* node) const {
    QString key;
    for (const LibraryNode* n = node; n && n->parent; n = n->parent)
        key.prepend(QString::number(static_cast<int>(n->kind)) + QLatin1Char(':') + QString::fromStdString(n->label) +
                    QLatin1Char('@') + QString::fromStdString(n->path.string()) + QLatin1Char('/'));
    return key;
}

const LibraryNode* ResultsTreeModel::node(const QModelIndex& index) const {
    if (!library_) return nullptr;
    if (!index.isValid()) return &library_->root();
    return static_cast<const LibraryNode*>(index.internalPointer());
}

QModelIndex ResultsTreeModel::indexOf(const LibraryNode* n, int column) const {
    if (!n || !n->parent) return {};
    return createIndex(n->row(), column, const_cast<LibraryNode*>(n));
}

QModelIndex ResultsTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!library_ || row < 0 || column < 0 || column >= ColumnCount) return {};
    if (parent.isValid() && parent.column() != 0) return {};
    const LibraryNode* p = node(parent);
    if (!p || row >= static_cast<int>(p->children.size())) return {};
    return createIndex(row, column, p->children[static_cast<std::size_t>(row)].get());
}

QModelIndex ResultsTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    const LibraryNode* n = node(child);
    if (!n || !n->parent || !n->parent->parent) return {};
    return createIndex(n->parent->row(), 0, n->parent);
}

int ResultsTreeModel::rowCount(const QModelIndex& parent) const {
    if (!library_) return 0;
    if (parent.isValid() && parent.column() != 0) return 0;
    const LibraryNode* n = node(parent);
    return n ? static_cast<int>(n->children.size()) : 0;
}

int ResultsTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QString ResultsTreeModel::ruleText(const LibraryNode& n) {
    switch (n.kind) {
    case NodeKind::Epoch: return tr("the epoch's value as DLIO computed it (n = 1)");
    case NodeKind::Invocation:
        return tr("DLIO's headline: mean over the epochs; spread: population stdev over the epochs");
    case NodeKind::Benchmark:
        return tr("mean of per-run means, population stdev (MLPerf Storage's rule); warm-up excluded; "
                  "95 % CI: Student t over runs");
    case NodeKind::Workload:
        return tr("no aggregate: the workload's benchmarks (different accelerator counts) stand side by side; "
                  "the details name the best passing one");
    case NodeKind::Collocation:
        return tr("no aggregate: workloads that ran at the same time on one storage; each item's numbers are its "
                  "own, measured under the others' load; the details give what each lost against itself alone");
    case NodeKind::System:
    case NodeKind::Root:
        return tr("no aggregate: a number averaged across workloads means nothing; the details hold a "
                  "per-workload summary");
    }
    return {};
}

QString ResultsTreeModel::statusText(const LibraryNode& n) {
    QString s = QString::fromStdString(aggregate::statusName(n.status));
    if (!n.statusReason.empty()) s += QStringLiteral(": ") + QString::fromStdString(n.statusReason);
    if (n.excluded) s += tr(" (excluded from every statistic)");
    return s;
}

QString ResultsTreeModel::itemStatusCounts(const LibraryNode& n) {
    std::map<int, int> counts; // by InvocationStatus, items only (benchmarks and single invocations)
    std::function<void(const LibraryNode&)> walk = [&](const LibraryNode& x) {
        if (aggregate::isLibraryItem(x)) {
            if (!x.warmup) ++counts[static_cast<int>(x.status)];
            return;
        }
        for (const auto& c : x.children) walk(*c);
    };
    walk(n);
    int total = 0;
    for (const auto& [k, v] : counts) total += v;
    if (counts.size() == 1 && counts.begin()->first == static_cast<int>(aggregate::InvocationStatus::Complete))
        return tr("complete");
    QStringList parts;
    for (const auto& [k, v] : counts)
        parts << QStringLiteral("%1 %2").arg(v).arg(QString::fromStdString(aggregate::statusName(static_cast<aggregate::InvocationStatus>(k))));
    return total ? parts.join(QStringLiteral(" · ")) : QString();
}

QStringList ResultsTreeModel::violations(const LibraryNode& n) {
    QStringList out;
    for (const auto& c : n.checks) out << QString::fromStdString(c);
    if (n.kind != NodeKind::Benchmark)
        for (const auto& c : n.children) out << violations(*c);
    return out;
}

QString ResultsTreeModel::advisoriesHtml(const LibraryNode& n) {
    if (n.advisories.empty()) return {};
    QString items;
    for (const auto& sentence : n.advisories) items += QStringLiteral("<li>") + QString::fromStdString(sentence).toHtmlEscaped() + QStringLiteral("</li>");
    return tr("Advisories (known defects of the tool that measured it):<ul>%1</ul>").arg(items);
}

QString ResultsTreeModel::checksTip(const LibraryNode& node) {
    const LibraryNode* n = &node;
    const QStringList v = violations(*n);
    if (n->warmup) return tr("Warm-up invocation: shown, excluded from every statistic.");
    if (!v.isEmpty()) {
        QString items;
        for (const QString& sentence : v) items += QStringLiteral("<li>") + sentence.toHtmlEscaped() + QStringLiteral("</li>");
        return tr("MLPerf Storage rule checks failed:<ul>%1</ul>").arg(items);
    }
    if (!n->badge.evaluated) return tr("Nothing to check here (no AU threshold known).");
    if (n->badge.passed && !n->notSubmission.empty()) {
        QString items;
        for (const auto& sentence : n->notSubmission)
            items += QStringLiteral("<li>") + QString::fromStdString(sentence).toHtmlEscaped() + QStringLiteral("</li>");
        return tr("AU met the threshold; %1:<ul>%2</ul>")
            .arg(QString::fromStdString(aggregate::notSubmissionText(n->notSubmission.size())).toHtmlEscaped(), items);
    }
    return n->badge.passed ? tr("AU met the threshold; every rule check passed.") : tr("AU below the threshold.");
}

QString ResultsTreeModel::efficiencyTip(const LibraryNode& n) {
    if (!aggregate::isLibraryItem(n)) return {};
    QString items;
    for (const auto& line : aggregate::efficiencySources(n.efficiency))
        items += QStringLiteral("<li>") + QString::fromStdString(line).toHtmlEscaped() + QStringLiteral("</li>");
    const std::string text = aggregate::efficiencyText(n.efficiency);
    return (text.empty() ? tr("No efficiency: no read GiB/s, or the system gives none of its figures.")
                         : tr("Efficiency: %1").arg(QString::fromStdString(text).toHtmlEscaped())) +
           tr("<br/>Read GiB/s over the system's figures:<ul>%1</ul>").arg(items);
}

QVariant ResultsTreeModel::data(const QModelIndex& index, int role) const {
    const LibraryNode* n = index.isValid() ? node(index) : nullptr;
    if (!n) return {};
    const int col = index.column();
    const bool metricColumn = col == AuColumn || col == SamplesColumn || col == MibColumn || col == GibColumn ||
                              col == CkptWriteColumn || col == CkptReadColumn;
    switch (role) {
    case Qt::DisplayRole:
        if (col == NameColumn) return QString::fromStdString(n->label);
        if (metricColumn) {
            const NodeMetric& m = metricOf(*n, col);
            if (!n->hasMetrics || m.n == 0) return QStringLiteral("—");
            QString s = number(m.mean, decimalsFor(col));
            if (m.n > 1 && std::isfinite(m.stdev)) s += QStringLiteral(" ± ") + number(m.stdev, decimalsFor(col));
            return s;
        }
        if (col == CountColumn) {
            if (!n->fromTable.empty()) return tr("table row"); // MLCommons' table: the row's figures, no runs
            if (!n->hasMetrics) return {};
            const std::size_t count = n->type == aggregate::BenchmarkType::Checkpointing
                                          ? std::max(n->checkpointWriteGibPerSecond.n, n->checkpointReadGibPerSecond.n)
                                          : n->au.n;
            return QVariant(static_cast<qulonglong>(count));
        }
        if (col == StatusColumn) {
            // Above the items, one failed run must not make a whole system read "failed": count them.
            if (n->kind == NodeKind::System || n->kind == NodeKind::Workload || n->kind == NodeKind::Collocation ||
                n->kind == NodeKind::Root)
                return itemStatusCounts(*n);
            const QString name = QString::fromStdString(aggregate::statusName(n->status));
            return n->excluded ? tr("%1 · excluded").arg(name) : name;
        }
        if (col == EfficiencyColumn) {
            if (!aggregate::isLibraryItem(*n)) return {};
            const std::string text = aggregate::efficiencyText(n->efficiency, true);
            return text.empty() ? QStringLiteral("—") : QString::fromStdString(text);
        }
        if (col == ChecksColumn) {
            // The advisories' badge (issue 33): known defects of the tool that measured it, beside the checks.
            const QString advised = n->advisories.empty()
                                        ? QString()
                                        : n->advisories.size() == 1 ? tr(" · 1 advisory")
                                                                    : tr(" · %1 advisories").arg(n->advisories.size());
            if (n->warmup) return tr("warm-up") + advised;
            if (!n->badge.evaluated) return tr("not checked") + advised;
            if (n->badge.violations) return tr("%n violation(s)", nullptr, static_cast<int>(n->badge.violations)) + advised;
            // A benchmark not meant as a submission: the rules it would not meet are not failures.
            if (n->badge.passed && !n->notSubmission.empty()) return tr("pass · not a submission") + advised;
            return (n->badge.passed ? tr("pass") : tr("fail")) + advised;
        }
        return {};
    case Qt::DecorationRole:
        if (col == StatusColumn) return statusIcon(n->status);
        if (col != ChecksColumn || n->warmup || !n->badge.evaluated) return {};
        if (n->badge.violations) return ruleIcon();
        return n->badge.passed ? passIcon() : failIcon();
    case Qt::ForegroundRole:
        if (n->warmup || n->excluded) return QApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        return {};
    case Qt::TextAlignmentRole:
        if (metricColumn || col == CountColumn) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole: {
        if (metricColumn && !n->hasMetrics) return QStringLiteral("<i>") + ruleText(*n) + QStringLiteral("</i>");
        if (metricColumn && !n->fromTable.empty()) // the row's figure, no runs behind it here: no spread to show
            return QString::fromStdString(n->fromTable).toHtmlEscaped();
        if (col == CountColumn && !n->fromTable.empty()) return QString::fromStdString(n->fromTable).toHtmlEscaped();
        if (metricColumn) {
            const NodeMetric& m = metricOf(*n, col);
            QString tip = tr("mean %1, population stdev %2, n = %3").arg(number(m.mean, 3), number(m.stdev, 3)).arg(m.n);
            if (std::isfinite(m.ci95.low) && std::isfinite(m.ci95.high))
                tip += tr("<br/>95 % CI [%1, %2]").arg(number(m.ci95.low, 3), number(m.ci95.high, 3));
            // The noise floor (issue 33): the run-to-run spread itself, not only the CI of the mean.
            if (m.values.size() > 1) {
                const auto [low, high] = std::minmax_element(m.values.begin(), m.values.end());
                tip += tr("<br/>%1 from %2 to %3 (the run-to-run spread)")
                           .arg(n->kind == NodeKind::Invocation ? tr("epochs") : tr("runs"), number(*low, 3), number(*high, 3));
            }
            return tip + QStringLiteral("<br/><i>") + ruleText(*n) + QStringLiteral("</i>");
        }
        if (col == StatusColumn) return statusText(*n).toHtmlEscaped();
        if (col == EfficiencyColumn) return efficiencyTip(*n);
        if (col == ChecksColumn) {
            const QString advisories = advisoriesHtml(*n);
            return advisories + checksTip(*n);
        }
        if (col == NameColumn)
            return QStringLiteral("%1: %2%3%4")
                .arg(kindName(n->kind), QString::fromStdString(n->label).toHtmlEscaped(),
                     n->path.empty() ? QString() : QStringLiteral("<br/>") + QString::fromStdString(n->path.string()).toHtmlEscaped(),
                     n->excluded ? QStringLiteral("<br/><b>") + statusText(*n).toHtmlEscaped() + QStringLiteral("</b>") : QString());
        return {};
    }
    case Qt::CheckStateRole:
        if (col == NameColumn) return checkState(n);
        return {};
    case NodeKindRole: return static_cast<int>(n->kind);
    case PathRole: return QString::fromStdString(n->path.string());
    case MeanRole:
        if (metricColumn && n->hasMetrics) return metricOf(*n, col).mean;
        return {};
    case SpreadRole:
        if (metricColumn && n->hasMetrics) return metricOf(*n, col).stdev;
        return {};
    case PassedRole:
        if (!n->badge.evaluated) return {};
        return n->badge.passed;
    case StatusRole: return static_cast<int>(n->status);
    case ExcludedRole: return n->excluded;
    default: return {};
    }
}

Qt::CheckState ResultsTreeModel::checkState(const LibraryNode* n) const { return checks_.value(n, Qt::Unchecked); }

bool ResultsTreeModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::CheckStateRole || index.column() != NameColumn) return false;
    const LibraryNode* n = node(index);
    if (!n || !index.isValid()) return false;
    const auto state = static_cast<Qt::CheckState>(value.toInt()) == Qt::Unchecked ? Qt::Unchecked : Qt::Checked;
    restore_.clear(); // the user's checks from here on
    setSubtree(n, state);
    updateAncestors(n);
    emit checkedChanged();
    return true;
}

void ResultsTreeModel::setSubtree(const LibraryNode* n, Qt::CheckState state) {
    if (state == Qt::Unchecked) checks_.remove(n);
    else checks_[n] = state;
    for (const auto& c : n->children) setSubtree(c.get(), state);
    if (!n->children.empty())
        emit dataChanged(index(0, NameColumn, indexOf(n)),
                         index(static_cast<int>(n->children.size()) - 1, NameColumn, indexOf(n)), {Qt::CheckStateRole});
    if (n->parent) {
        const QModelIndex i = indexOf(n);
        emit dataChanged(i, i, {Qt::CheckStateRole});
    }
}

void ResultsTreeModel::updateAncestors(const LibraryNode* n) {
    for (const LibraryNode* p = n->parent; p && p->parent; p = p->parent) {
        int checked = 0, partial = 0;
        for (const auto& c : p->children) {
            const Qt::CheckState s = checkState(c.get());
            checked += s == Qt::Checked;
            partial += s == Qt::PartiallyChecked;
        }
        const int total = static_cast<int>(p->children.size());
        const Qt::CheckState s = checked == total ? Qt::Checked : (checked || partial) ? Qt::PartiallyChecked : Qt::Unchecked;
        if (s == checkState(p)) break;
        if (s == Qt::Unchecked) checks_.remove(p);
        else checks_[p] = s;
        const QModelIndex i = indexOf(p);
        emit dataChanged(i, i, {Qt::CheckStateRole});
    }
}

void ResultsTreeModel::setAllChecked(bool checked) {
    if (!library_) return;
    restore_.clear();
    for (const auto& c : library_->root().children) setSubtree(c.get(), checked ? Qt::Checked : Qt::Unchecked);
    emit checkedChanged();
}

std::vector<const LibraryNode*> ResultsTreeModel::checkedNodes() const {
    std::vector<const LibraryNode*> out;
    if (!library_) return out;
    // Depth-first in display order, stopping at the first fully checked benchmark, invocation or epoch
    // of each branch: a checked system or workload stands for its benchmarks, which are what one compares.
    std::vector<const LibraryNode*> stack;
    for (auto it = library_->root().children.rbegin(); it != library_->root().children.rend(); ++it) stack.push_back(it->get());
    while (!stack.empty()) {
        const LibraryNode* n = stack.back();
        stack.pop_back();
        const Qt::CheckState s = checkState(n);
        const bool aboveBenchmark = n->kind == NodeKind::System || n->kind == NodeKind::Workload || n->kind == NodeKind::Collocation;
        // An excluded invocation (cancelled, failed) has no values to compare: a checked parent does
        // not bring it along; checked on its own, it is listed with the reason.
        const bool byParent = n->parent && checkState(n->parent) == Qt::Checked;
        if (s == Qt::Checked && !aboveBenchmark) {
            if (!(n->excluded && byParent)) out.push_back(n);
        } else if (s != Qt::Unchecked) {
            for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) stack.push_back(it->get());
        }
    }
    return out;
}

int ResultsTreeModel::groupCount() const { return library_ ? static_cast<int>(library_->imported().groups.size()) : 0; }

int ResultsTreeModel::runCount() const {
    if (!library_) return 0;
    int n = 0;
    for (const auto& g : library_->imported().groups) n += static_cast<int>(g.runs.size());
    return n;
}

Qt::ItemFlags ResultsTreeModel::flags(const QModelIndex& index) const {
    if (!index.isValid()) return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == NameColumn) f |= Qt::ItemIsUserCheckable;
    return f;
}

QVariant ResultsTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn: return tr("Result");
        case StatusColumn: return tr("Status");
        case AuColumn: return tr("AU % (mean ± sd)");
        case SamplesColumn: return tr("Samples/s");
        case MibColumn: return tr("MiB/s");
        case GibColumn: return tr("Read GiB/s");
        case EfficiencyColumn: return tr("Efficiency (GiB/s per)");
        case CkptWriteColumn: return tr("Ckpt write GiB/s");
        case CkptReadColumn: return tr("Ckpt read GiB/s");
        case CountColumn: return tr("n");
        case ChecksColumn: return tr("Checks");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case StatusColumn:
            return tr("complete / incomplete / cancelled / failed; cancelled and failed invocations are excluded "
                      "from every statistic");
        case AuColumn:
        case SamplesColumn:
        case MibColumn:
        case GibColumn:
            return tr("Mean ± population stdev (over a benchmark's complete runs, an invocation's epochs); hover a "
                      "cell for the 95 % CI and the rule. System and workload rows carry no aggregate (—)");
        case CkptWriteColumn:
        case CkptReadColumn:
            return tr("Checkpointing (MLPerf Storage v3.0): the runs' save_/load_checkpoint_io_mean_GB_per_second (GiB/s), "
                      "mean over the runs that wrote, resp. read");
        case EfficiencyColumn:
            return tr("Read GiB/s per usable TiB, per kW and per rack unit (U) of the item's system: its figures from the labels "
                      "(trainio_labels.json, the label editor) or the MLPerf systems file; — where the system gives none");
        case CountColumn: return tr("How many values the aggregate is over (runs, epochs, …)");
        case ChecksColumn: return tr("AU threshold and MLPerf Storage closed-division rule checks");
        default: return {};
        }
    }
    return {};
}

} // namespace trainio::ui
