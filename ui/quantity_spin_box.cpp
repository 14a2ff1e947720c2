#include "quantity_spin_box.h"

#include <QLineEdit>

#include <algorithm>
#include <cmath>

namespace trainio::ui {

QuantitySpinBox::QuantitySpinBox(QString key, quantity::Kind kind, quantity::Limits limits, QWidget* parent)
    : QAbstractSpinBox(parent), key_(std::move(key)), kind_(kind), limits_(limits) {
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
    : QuantitySpinBox(QString::fromStdString(range.key), range.kind, range.limits, parent) {}

// Every text is Acceptable to Qt, so that QLineEdit keeps each character typed; acceptance in the
// sense of the configuration is reparse()'s job.
QValidator::State QuantitySpinBox::validate(QString&, int&) const { return QValidator::Acceptable; }
void QuantitySpinBox::fixup(QString&) const {}

void QuantitySpinBox::setValue(double v) {
    value_ = v;
    error_.clear();
    lineEdit()->setText(QString::fromStdString(quantity::format(v, kind_)));
    update();
}

void QuantitySpinBox::setTypedText(const QString& text) {
    lineEdit()->setText(text);
    reparse();
}

void QuantitySpinBox::reparse() {
    const std::string text = lineEdit()->text().toStdString();
    const quantity::Result r = quantity::parse(text, kind_, limits_);
    if (r.ok()) {
        value_ = *r.value;
        error_.clear();
    } else {
        error_ = key_ + QStringLiteral(": ") + QString::fromStdString(r.error);
    }
}

void QuantitySpinBox::stepBy(int steps) {
    double v = value_;
    if (kind_ == quantity::Kind::Bytes) {
        // Sizes span many orders of magnitude: a step doubles or halves (and stays whole).
        for (int i = 0; i < std::abs(steps); ++i) v = steps > 0 ? (v < 1 ? 1 : v * 2) : std::floor(v / 2);
    } else {
        const double unit = kind_ == quantity::Kind::Fraction ? 0.01 : kind_ == quantity::Kind::Seconds ? 0.001 : 1.0;
        v = std::round((v + steps * unit) / unit) * unit;
    }
    const double lowest = limits_.minExclusive ? std::nextafter(limits_.min, limits_.max) : limits_.min;
    v = std::clamp(v, lowest, limits_.max);
    if (kind_ == quantity::Kind::Fraction && limits_.minExclusive && v <= limits_.min) v = limits_.min + 0.01;
    setValue(v);
    emit edited();
}

QAbstractSpinBox::StepEnabled QuantitySpinBox::stepEnabled() const {
    StepEnabled e = StepNone;
    if (value_ < limits_.max) e |= StepUpEnabled;
    if (limits_.minExclusive ? value_ - limits_.min > 0.01 : value_ > limits_.min) e |= StepDownEnabled;
    return e;
}

} // namespace trainio::ui
