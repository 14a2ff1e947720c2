// The keys the workload page edits, in its groups and order, with the form's labels. Their meaning,
// unit, choices, range and binding to WorkloadConfig come from core's one table of keys
// (config/config_keys.h), so that the form, its tooltips, the validation highlighting, the loader and
// docs/configuration.md cannot disagree.
#pragma once

#include "config/workload_config.h"

#include <QString>
#include <QStringList>
#include <QVariant>

#include <functional>
#include <vector>

namespace trainio::ui {

struct WorkloadField {
    // Quantity: a number parsed strictly against the key's range in core (config/key_ranges.h), with
    // units where the key is bytes or seconds. Accelerator: a name checked as it is typed.
    enum class Kind { Quantity, Text, Folder, Bool, Choice, Accelerator };
    QString section;  // group shown on the page: "dataset", "reader", …
    QString dlioKey;  // canonical dotted DLIO key, as validateConfig names it
    QString label;
    QString unit;     // "" when unitless
    QString meaning;
    Kind kind = Kind::Text;
    QStringList choices;
    QStringList choiceToolTips; // one per choice, or empty
    std::function<QVariant(const WorkloadConfig&)> get;
    std::function<void(WorkloadConfig&, const QVariant&)> set;

    QString toolTip() const;
};

const std::vector<WorkloadField>& workloadFields();
QStringList workloadSections(); // in display order

} // namespace trainio::ui
