// Text helpers every room of the UI uses: one definition each.
#pragma once

#include <QString>

#include <string>

namespace trainio::ui {

// A core string as a QString (UTF-8).
inline QString q(const std::string& s) { return QString::fromStdString(s); }

// Seconds as h:mm:ss ("0:01:05"); "—" when not known (negative, NaN) or beyond 1e7 s.
inline QString clockDuration(double seconds) {
    if (!(seconds >= 0) || seconds > 1e7) return QStringLiteral("—");
    const auto s = static_cast<qint64>(seconds + 0.5);
    return QStringLiteral("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
}

} // namespace trainio::ui
