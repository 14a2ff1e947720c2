// The MLPerf Storage round a shipped preset belongs to (its trainio.mlperf_round), shown where presets
// are chosen: the preset list keeps the bare names as item texts (what loading and the saved form use),
// and its drop-down shows "unet3d_b200 — MLPerf Storage v3.0" with the round in the tooltip.
#pragma once

#include <QString>
#include <QStyledItemDelegate>

#include <string>

class QComboBox;

namespace trainio::ui {

// The item data role that holds an item's round ("v3.0"; empty: not an MLPerf preset).
constexpr int kPresetRoundRole = Qt::UserRole + 41;

// The round of the shipped preset `name` (trainio.mlperf_round), empty when it has none. Throws
// InputError when the preset cannot be loaded, naming it.
QString presetRound(const std::string& name);

// "MLPerf Storage v3.0", or "not an MLPerf Storage workload" for an empty round.
QString presetRoundLabel(const QString& round);

// What the drop-down shows for a preset: "unet3d_b200 — MLPerf Storage v3.0"; the bare name without a round.
QString presetItemText(const QString& name, const QString& round);

// The drop-down's delegate: an item's text followed by its round (presetItemText).
class PresetRoundDelegate final : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    static QString textFor(const QModelIndex& index);

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};

// For every item of `box` whose text names a shipped preset: stores its round (kPresetRoundRole), sets
// its tooltip, and makes the drop-down list show presetItemText — the item texts stay the bare names. A
// preset that fails to load gets the error as its tooltip. Call after the items are added.
void showPresetRounds(QComboBox* box);

} // namespace trainio::ui
