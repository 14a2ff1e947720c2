#include "widgets/quantity_spin_box.h"

#include <QLineEdit>
#include <QRegularExpression>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace trainio::ui {

QuantitySpinBox::QuantitySpinBox(QString key, quantity::Kind kind, quantity::Limits limits, QWidget* parent,
                                 QString expectation)
    : QAbstractSpinBox(parent), key_(std::move(key)), kind_(kind), limits_(limits), expectation_(std::move(expectation)) {
    // Accepted text is whatever the user typed: the parser decides, and says why when it refuses.
    setCorrectionMode(QAbstractSpinBox::CorrectToPreviousValue);
    setKeyboardTracking(true);
    connect(lineEdit(), &QLineEdit::textEdited, this, [this] {
        reparse();
        emit edited();
    });
    setValue(std::clamp(0.0, limits_.min, limits_.max));
}

QuantitySpinBox::QuantitySpinBox(const key_ranges::KeyRange& range, QWidget* parent)
    : QuantitySpinBox(QString::fromStdString(range.key), range.kind, range.limits, parent,
                      QString::fromStdString(range.expectation)) {}

// Every text is Acceptable to Qt, so that QLineEdit keeps each character typed; acceptance in the
// sense of the configuration is reparse()'s job.
QValidator::State QuantitySpinBox::validate(QString&, int&) const { return QValidator::Acceptable; }
void QuantitySpinBox::fixup(QString&) const {}

void QuantitySpinBox::setValue(double v) {
    if (v >= 0 && v < 0x1p53 && v == std::floor(v)) return setWholeValue(static_cast<std::uint64_t>(v));
    value_ = v;
    whole_.reset();
    error_.clear();
    bool exact = true;
    const QString shown = QString::fromStdString(quantity::formatForReading(v, kind_, &exact));
    display(shown, exact ? QString() : QString::fromStdString(quantity::format(v, kind_)));
}

void QuantitySpinBox::setWholeValue(std::uint64_t v) {
    value_ = static_cast<double>(v);
    whole_ = v;
    error_.clear();
    QString text = QString::fromStdString(quantity::formatWhole(v, kind_));
    if (kind_ == quantity::Kind::Bytes && !text.contains(QLatin1Char(' '))) text += QStringLiteral(" B"); // exact, with its unit
    display(text, {});
}

void QuantitySpinBox::display(const QString& text, const QString& exact) {
    shown_ = text;
    exact_ = exact;
    lineEdit()->setText(text);
    update();
}

QString QuantitySpinBox::exactText() const {
    const QString now = lineEdit()->text();
    return now == shown_ && !exact_.isEmpty() ? exact_ : now;
}

void QuantitySpinBox::setTypedText(const QString& text) {
    lineEdit()->setText(text);
    reparse();
}

// "146600628 B" says its value exactly but not its size: "≈ 139.8 MiB" says that.
QString QuantitySpinBox::approximateSize() const {
    static const QRegularExpression inBytes(QStringLiteral("^\\s*[0-9]+\\s*[bB]?\\s*$")); // "146600628", "146600628 B"
    if (kind_ != quantity::Kind::Bytes || !error_.isEmpty() || !inBytes.match(lineEdit()->text()).hasMatch()) return {};
    return QString::fromStdString(quantity::approximateBytes(value_));
}

void QuantitySpinBox::reparse() {
    const std::string text = lineEdit()->text().toStdString();
    const quantity::Result r = quantity::parse(text, kind_, limits_, expectation_.toStdString());
    if (r.ok()) {
        value_ = *r.value;
        whole_ = r.whole;
        error_.clear();
    } else {
        error_ = key_ + QStringLiteral(": ") + QString::fromStdString(r.error);
    }
}

void QuantitySpinBox::stepBy(int steps) {
    const bool bytes = kind_ == quantity::Kind::Bytes;
    auto ladder = [&](long double v) { // sizes span many orders of magnitude: a step doubles or halves
        for (int i = 0; i < std::abs(steps); ++i) v = steps > 0 ? (v < 1 ? 1 : v * 2) : std::floor(v / 2);
        return v;
    };
    if (whole_ || kind_ == quantity::Kind::Count || limits_.integer) {
        // long double holds every uint64 exactly: no seed beyond 2^53 is rounded by a step.
        const long double current = whole_ ? static_cast<long double>(*whole_) : static_cast<long double>(value_);
        long double v = bytes ? ladder(current) : current + steps;
        const long double lowest = std::max<long double>(
            0, limits_.minExclusive ? std::floor(static_cast<long double>(limits_.min)) + 1 : std::ceil(static_cast<long double>(limits_.min)));
        const long double highest = std::min(std::floor(static_cast<long double>(limits_.max)), static_cast<long double>(UINT64_MAX));
        v = std::clamp(v, lowest, std::max(lowest, highest));
        setWholeValue(static_cast<std::uint64_t>(v));
    } else {
        double v = value_;
        if (bytes) {
            v = static_cast<double>(ladder(v));
        } else {
            const double unit = kind_ == quantity::Kind::Fraction ? 0.01 : kind_ == quantity::Kind::Seconds ? 0.001 : 1.0;
            v = std::round((v + steps * unit) / unit) * unit;
        }
        // An exclusive minimum (AU > 0) stops one step above it.
        const double lowest = limits_.minExclusive ? limits_.min + (kind_ == quantity::Kind::Fraction ? 0.01 : 0.001) : limits_.min;
        setValue(std::clamp(v, lowest, std::max(lowest, limits_.max)));
    }
    emit edited();
}

void QuantitySpinBox::wheelEvent(QWheelEvent* event) {
    if (kind_ != quantity::Kind::Bytes) return QAbstractSpinBox::wheelEvent(event);
    // Additive steps in the unit the field shows: a notch over "512 KiB" gives "511 KiB" or "513 KiB". The
    // ladder of stepBy (doubling) would take 512 KiB to 16 B in 15 notches of a wheel.
    const int notches = event->angleDelta().y() / 120;
    event->accept();
    if (notches == 0 || !isAcceptable() || isReadOnly()) return;
    static const QRegularExpression shape(QStringLiteral("^\\s*([0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z]*)\\s*$"));
    const QRegularExpressionMatch m = shape.match(lineEdit()->text());
    if (!m.hasMatch()) return;
    const double shown = m.captured(1).toDouble();
    const QString unit = m.captured(2);
    const double next = std::max(0.0, (notches > 0 ? std::floor(shown) : std::ceil(shown)) + notches);
    if (next == shown) return;
    const QString text = unit.isEmpty() ? QString::number(next, 'f', 0) : QStringLiteral("%1 %2").arg(next, 0, 'f', 0).arg(unit);
    const quantity::Result r = quantity::parse(text.toStdString(), kind_, limits_, expectation_.toStdString());
    if (!r.ok()) return; // past the field's range: the value stays
    lineEdit()->setText(text);
    reparse();
    emit edited();
}

QAbstractSpinBox::StepEnabled QuantitySpinBox::stepEnabled() const {
    StepEnabled e = StepNone;
    if (value_ < limits_.max) e |= StepUpEnabled;
    if (limits_.minExclusive ? value_ - limits_.min > 0.01 : value_ > limits_.min) e |= StepDownEnabled;
    return e;
}

} // namespace trainio::ui
