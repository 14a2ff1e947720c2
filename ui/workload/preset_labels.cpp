#include "workload/preset_labels.h"

#include "config/config_loader.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QStyle>

#include <algorithm>

namespace trainio::ui {

QString PresetRoundDelegate::textFor(const QModelIndex& index) {
    return presetItemText(index.data(Qt::DisplayRole).toString(), index.data(kPresetRoundRole).toString());
}

// Only the list shows the round; the combo box's own line shows the bare name, as loading uses it.
void PresetRoundDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    option->text = textFor(index);
}

QString presetRound(const std::string& name) { return QString::fromStdString(loadPreset(name).config.trainio.mlperfRound); }

QString presetRoundLabel(const QString& round) {
    return round.isEmpty() ? QObject::tr("not an MLPerf Storage workload") : QObject::tr("MLPerf Storage %1").arg(round);
}

QString presetItemText(const QString& name, const QString& round) {
    return round.isEmpty() ? name : QStringLiteral("%1 — %2").arg(name, presetRoundLabel(round));
}

void showPresetRounds(QComboBox* box) {
    std::vector<std::string> names;
    try {
        names = presetNames();
    } catch (const std::exception&) {
        return; // the caller already says why the list is empty
    }
    for (int i = 0; i < box->count(); ++i) {
        const std::string name = box->itemText(i).toStdString();
        if (std::find(names.begin(), names.end(), name) == names.end()) continue;
        try {
            const QString round = presetRound(name);
            box->setItemData(i, round, kPresetRoundRole);
            box->setItemData(i, QObject::tr("%1: %2").arg(box->itemText(i), presetRoundLabel(round)), Qt::ToolTipRole);
        } catch (const std::exception& e) {
            box->setItemData(i, QString::fromUtf8(e.what()), Qt::ToolTipRole);
        }
    }
    box->setItemDelegate(new PresetRoundDelegate(box));
    // The drop-down as wide as its longest entry: "retinanet_b200 — MLPerf Storage v3.0" and its siblings
    // differ in the middle, which eliding ("retinanet…rage v3.0") would hide.
    int widest = 0;
    const QFontMetrics fm(box->view()->font());
    for (int i = 0; i < box->count(); ++i)
        widest = std::max(widest, fm.horizontalAdvance(presetItemText(box->itemText(i), box->itemData(i, kPresetRoundRole).toString())));
    const int frame = 2 * box->view()->frameWidth() + box->style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 24;
    box->view()->setMinimumWidth(widest + frame);
    box->view()->setTextElideMode(Qt::ElideNone);
}

} // namespace trainio::ui
