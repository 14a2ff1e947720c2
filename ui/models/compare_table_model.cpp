#include "models/compare_table_model.h"

#include <QBrush>
#include <QFont>
#include <QIcon>
#include <QLocale>
#include <QPixmap>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace trainio::ui {

namespace {

constexpr int kMetrics = 4;

int decimalsOf(int which) { return which == 0 ? 2 : which == 1 ? 1 : which == 2 ? 3 : 1; }

QString fmt(double v, int decimals) { return std::isfinite(v) ? QLocale().toString(v, 'f', decimals) : QStringLiteral("—"); }
// "+1.2", "-0.3", and "0.0" for what rounds to zero (never "-0.0").
QString signedFmt(double v, int decimals) {
    const double rounded = std::round(v * std::pow(10.0, decimals)) / std::pow(10.0, decimals);
    if (rounded == 0.0) return fmt(0.0, decimals);
    return (v > 0 ? QStringLiteral("+") : QString()) + fmt(v, decimals);
}

// A difference's unit: AU % differs in points (percentage points), the others in their own unit.
// In the cells "per accelerator" is "/acc." (the header says it in full).
QString deltaUnit(int which, const QString& unit) {
    return which == 0 ? QObject::tr("points") : QString(unit).replace(QObject::tr(" per accelerator"), QObject::tr("/acc."));
}

QVariant finiteOrNone(double v) { return std::isfinite(v) ? QVariant(v) : QVariant(); }

} // namespace

QString CompareTableModel::metricName(int which) {
    return which == 0 ? tr("AU") : which == 1 ? tr("Throughput") : which == 2 ? tr("Read B/W") : tr("Bandwidth");
}

QString CompareTableModel::defaultUnit(int which) {
    return which == 0 ? QStringLiteral("%") : which == 1 ? tr("samples/s") : which == 2 ? tr("GiB/s") : tr("MiB/s");
}

CompareTableModel::CompareTableModel(QObject* parent) : QAbstractTableModel(parent) { build(tr("runs")); }

void CompareTableModel::setResult(const aggregate::CompareResult& result, const QString& spreadOver, const Colors& colors) {
    beginResetModel();
    result_ = result;
    colors_ = colors;
    build(spreadOver);
    endResetModel();
    if (sortColumn_ >= 0) sort(sortColumn_, sortOrder_);
}

void CompareTableModel::build(const QString& over) {
    QStringList units;
    headers_ = QStringList{tr("#"), tr("Item"), tr("n")};
    for (int m = 0; m < kMetrics; ++m) {
        QString unit = defaultUnit(m);
        for (const auto& row : result_.rows)
            if (row.metrics.size() > static_cast<std::size_t>(m)) {
                unit = QString::fromStdString(row.metrics[static_cast<std::size_t>(m)].unit);
                break;
            }
        units << unit;
        QString brokenUnit = unit;
        brokenUnit.replace(QStringLiteral(" per "), QStringLiteral("\nper "));
        headers_ << tr("%1\n%2\nmean ± sd\nover %3").arg(metricName(m), brokenUnit, over);
    }
    headers_ << tr("Efficiency\nGiB/s per usable TiB,\nper kW, per rack unit");
    for (int m = 0; m < kMetrics; ++m)
        headers_ << tr("Δ %1\nvs baseline\nin %2\n(% of baseline)").arg(metricName(m), m == 0 ? tr("points") : units[m]);
    for (int m = 0; m < kMetrics; ++m) headers_ << tr("Δ %1\n95 % CI (Welch)\nin %2").arg(metricName(m), m == 0 ? tr("points") : units[m]);

    cells_.assign(result_.rows.size(), std::vector<Cell>(ColumnCount));
    for (std::size_t r = 0; r < result_.rows.size(); ++r) {
        const aggregate::CompareRow& row = result_.rows[r];
        std::vector<Cell>& cells = cells_[r];
        cells[IndexColumn].text = QString::number(r + 1);
        cells[IndexColumn].sortKey = static_cast<double>(r + 1);
        Cell& name = cells[ItemColumn];
        name.text = QString::fromStdString(row.label);
        name.sortKey = name.text;
        name.align = Qt::AlignLeft | Qt::AlignVCenter;
        name.bold = row.baseline;
        if (row.node) name.toolTip = QString::fromStdString(row.node->path.string());
        if (row.node && !row.node->advisories.empty()) {
            // The advisories' badge (issue 33): after the name, the sentences in the tooltip.
            name.text += row.node->advisories.size() == 1 ? tr("  ⚑ 1 advisory") : tr("  ⚑ %1 advisories").arg(row.node->advisories.size());
            for (const auto& a : row.node->advisories) name.toolTip += QStringLiteral("\nadvisory: ") + QString::fromStdString(a);
        }
        if (row.node) {
            // The item's efficiency (issue 33): its own system's figures, never compared across systems.
            Cell& eff = cells[EfficiencyColumn];
            const std::string text = aggregate::efficiencyText(row.node->efficiency, true);
            eff.text = text.empty() ? QStringLiteral("—") : QString::fromStdString(text);
            eff.sortKey = row.node->efficiency.perUsableTiB ? QVariant(*row.node->efficiency.perUsableTiB) : QVariant();
            for (const auto& line : aggregate::efficiencySources(row.node->efficiency))
                eff.toolTip += (eff.toolTip.isEmpty() ? QString() : QStringLiteral("\n")) + QString::fromStdString(line);
        }
        if (!row.metrics.empty()) {
            cells[CountColumn].text = QString::number(row.metrics.front().value.n);
            cells[CountColumn].sortKey = static_cast<double>(row.metrics.front().value.n);
        }
        for (int m = 0; m < kMetrics && m < static_cast<int>(row.metrics.size()); ++m) {
            const aggregate::NodeMetric& v = row.metrics[static_cast<std::size_t>(m)].value;
            const int d = decimalsOf(m);
            Cell& cell = cells[ValueColumn + m];
            if (!row.valuesShown) {
                cell.text = QStringLiteral("—");
                cell.toolTip = tr("Not comparable: check \"Compare anyway\" to see the values");
                continue;
            }
            cell.text = v.n > 1 ? QStringLiteral("%1 ± %2").arg(fmt(v.mean, d), fmt(v.stdev, d)) : fmt(v.mean, d);
            cell.sortKey = finiteOrNone(v.mean);
            if (std::isfinite(v.ci95.low))
                cell.toolTip = tr("95 % CI of the mean [%1, %2], n = %3").arg(fmt(v.ci95.low, d), fmt(v.ci95.high, d)).arg(v.n);
            // The noise floor (issue 33): the run-to-run spread itself, lowest to highest of what the mean is
            // over (a benchmark's runs, an invocation's epochs), not only the CI of the mean.
            if (v.values.size() > 1) {
                const auto [low, high] = std::minmax_element(v.values.begin(), v.values.end());
                const QString what = QString::fromStdString(row.replication.empty() ? std::string("runs") : row.replication);
                cell.text += QStringLiteral("\n%1 %2–%3").arg(what, fmt(*low, d), fmt(*high, d));
                cell.toolTip += (cell.toolTip.isEmpty() ? QString() : QStringLiteral("\n")) +
                                tr("± the population stdev of the %1; %1 %2–%3: the lowest and the highest of them, the "
                                   "run-to-run spread (the plots' dots)")
                                    .arg(what, fmt(*low, d), fmt(*high, d));
            }
        }
        if (row.baseline || !row.comparable) {
            // One statement across the delta columns: the baseline, or why there is no delta.
            Cell& statement = cells[DeltaColumn];
            statement.text = row.baseline ? tr("baseline") : tr("not comparable: %1").arg(QString::fromStdString(row.reason));
            statement.toolTip = statement.text;
            statement.align = Qt::AlignLeft | Qt::AlignVCenter;
            if (!row.baseline) {
                statement.foreground = colors_.worse;
                name.toolTip = statement.text + QLatin1Char('\n') + name.toolTip;
            }
            continue;
        }
        for (int m = 0; m < kMetrics && m < static_cast<int>(row.metrics.size()); ++m) {
            const auto& metric = row.metrics[static_cast<std::size_t>(m)];
            Cell& pct = cells[DeltaColumn + m];
            Cell& ciCell = cells[CiColumn + m];
            if (!metric.delta) {
                pct.text = ciCell.text = QStringLiteral("—");
                continue;
            }
            const aggregate::MetricDelta& delta = *metric.delta;
            const int d = decimalsOf(m);
            // Units on every delta, as the PDF: AU differs in points (of AU %), the others in their unit, and
            // each also relative to the baseline in % ("+1.20 points" is not "+1.2 %").
            const QString absolute = QStringLiteral("%1 %2").arg(signedFmt(delta.absolute, d), deltaUnit(m, units[m]));
            pct.text = std::isfinite(delta.percent) ? tr("%1\n(%2 %)").arg(absolute, signedFmt(delta.percent, 1)) : absolute;
            pct.sortKey = finiteOrNone(delta.absolute);
            pct.toolTip = tr("%1 against the baseline%2")
                              .arg(absolute, std::isfinite(delta.percent) ? tr(", %1 % of its value").arg(signedFmt(delta.percent, 1)) : QString());
            if (!delta.ciNote.empty()) {
                ciCell.text = tr("— differ in kind");
            } else if (!delta.withinNoise) {
                ciCell.text = tr("— (n < 2)");
            } else {
                ciCell.text = QStringLiteral("[%1, %2] %3").arg(signedFmt(delta.ci95.low, d), signedFmt(delta.ci95.high, d), deltaUnit(m, units[m]));
                ciCell.sortKey = finiteOrNone(delta.ci95.low);
                if (*delta.withinNoise) ciCell.text += tr("\nwithin noise");
            }
            ciCell.toolTip = !delta.ciNote.empty()
                                 ? tr("No CI: the items %1 (runs compare with runs, epochs with epochs)").arg(QString::fromStdString(delta.ciNote))
                                 : tr("95 % confidence interval of the difference of means (Welch's t, unequal variances); "
                                      "\"within noise\" when it contains 0");
            pct.foreground = ciCell.foreground = delta.withinNoise.value_or(true) ? colors_.muted : delta.absolute > 0 ? colors_.better : colors_.worse;
        }
    }
    order_.resize(cells_.size());
    std::iota(order_.begin(), order_.end(), 0);
}

int CompareTableModel::rowOfItem(int item) const {
    const auto it = std::find(order_.begin(), order_.end(), item);
    return it == order_.end() ? -1 : static_cast<int>(it - order_.begin());
}

int CompareTableModel::itemOfRow(int row) const {
    return row >= 0 && row < static_cast<int>(order_.size()) ? order_[static_cast<std::size_t>(row)] : -1;
}

bool CompareTableModel::spansDeltas(int row) const {
    const int item = itemOfRow(row);
    if (item < 0) return false;
    const aggregate::CompareRow& r = result_.rows[static_cast<std::size_t>(item)];
    return r.baseline || !r.comparable;
}

int CompareTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(cells_.size()); }

int CompareTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareTableModel::data(const QModelIndex& index, int role) const {
    const int item = itemOfRow(index.row());
    if (!index.isValid() || item < 0 || index.column() < 0 || index.column() >= ColumnCount) return {};
    const Cell& cell = cells_[static_cast<std::size_t>(item)][static_cast<std::size_t>(index.column())];
    switch (role) {
    case Qt::DisplayRole: return cell.text;
    case Qt::ToolTipRole: return cell.toolTip.isEmpty() ? QVariant() : QVariant(cell.toolTip);
    case Qt::TextAlignmentRole: return QVariant::fromValue(cell.align);
    case Qt::ForegroundRole: return cell.foreground.isValid() ? QVariant(QBrush(cell.foreground)) : QVariant();
    case Qt::FontRole:
        if (!cell.bold) return {};
        {
            QFont f;
            f.setBold(true);
            return f;
        }
    case Qt::DecorationRole:
        if (index.column() != IndexColumn || colors_.series.empty()) return {};
        {
            QPixmap swatch(10, 10);
            swatch.fill(colors_.series[static_cast<std::size_t>(item) % colors_.series.size()]);
            return QIcon(swatch);
        }
    case SortRole: return cell.sortKey;
    case ItemNumberRole: return item + 1;
    default: return {};
    }
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole && section >= 0 && section < headers_.size()) return headers_[section];
    return QAbstractTableModel::headerData(section, orientation, role);
}

void CompareTableModel::sort(int column, Qt::SortOrder order) {
    if (column < 0 || column >= ColumnCount) return;
    sortColumn_ = column;
    sortOrder_ = order;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<int> items;
    for (const QModelIndex& i : before) items.push_back(itemOfRow(i.row()));
    // Numbers by value, names by text; a cell without a value ("—", a span) after every value in either order.
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
        const QVariant& ka = cells_[static_cast<std::size_t>(a)][static_cast<std::size_t>(column)].sortKey;
        const QVariant& kb = cells_[static_cast<std::size_t>(b)][static_cast<std::size_t>(column)].sortKey;
        if (!ka.isValid() || !kb.isValid()) return ka.isValid() && !kb.isValid();
        const bool less = ka.typeId() == QMetaType::QString ? QString::localeAwareCompare(ka.toString(), kb.toString()) < 0 : ka.toDouble() < kb.toDouble();
        const bool greater = ka.typeId() == QMetaType::QString ? QString::localeAwareCompare(kb.toString(), ka.toString()) < 0 : kb.toDouble() < ka.toDouble();
        return order == Qt::AscendingOrder ? less : greater;
    });
    QModelIndexList after;
    for (std::size_t i = 0; i < items.size(); ++i) after << index(rowOfItem(items[i]), before[static_cast<int>(i)].column());
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

} // namespace trainio::ui
