// A most-recent-first list kept in QSettings (recent configs, result folders, system names).
#pragma once

#include <QSettings>
#include <QString>
#include <QStringList>

namespace trainio::ui {

// Moves `value` to the front of the list under `key`, keeps at most `max` entries, stores and returns it.
inline QStringList pushRecent(QSettings& settings, const QString& key, const QString& value, int max) {
    QStringList list = settings.value(key).toStringList();
    list.removeAll(value);
    list.prepend(value);
    while (list.size() > max) list.removeLast();
    settings.setValue(key, list);
    return list;
}

} // namespace trainio::ui
