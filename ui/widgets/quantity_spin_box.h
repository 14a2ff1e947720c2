// A number field that keeps exactly what the user typed and parses it strictly with core's quantity
// parser: "4 MiB", "150 ms", "90 %". Unlike QSpinBox it never drops a character, never clamps and never
// reverts silently; text that is not an accepted value leaves the field in error (error() names the key
// and the accepted range) and value() keeps the last accepted value. The arrows and Up/Down keys step
// through accepted values (bytes by doubling); the mouse wheel steps by one of the unit the field shows
// ("512 KiB" → "511 KiB"), never by doubling, and leaves a field in error alone.
#pragma once

#include "config/key_ranges.h"

#include <QAbstractSpinBox>

#include <cstdint>
#include <optional>

namespace trainio::ui {

class QuantitySpinBox final : public QAbstractSpinBox {
    Q_OBJECT
public:
    QuantitySpinBox(QString key, quantity::Kind kind, quantity::Limits limits, QWidget* parent = nullptr,
                    QString expectation = {});
    explicit QuantitySpinBox(const key_ranges::KeyRange& range, QWidget* parent = nullptr);

    QString key() const { return key_; }
    quantity::Kind kind() const { return kind_; }
    const quantity::Limits& limits() const { return limits_; }
    double value() const { return value_; } // the last accepted value
    // The last accepted value exactly, when it is a whole number >= 0 (seeds beyond 2^53 included).
    std::optional<std::uint64_t> wholeValue() const { return whole_; }
    bool isAcceptable() const { return error_.isEmpty(); }
    QString error() const { return error_; } // "train.epochs: '-3' is not allowed: expected …"; empty when accepted

    // Shows `v` in its exact text form (e.g. "256 KiB"); the field is then accepted. Emits nothing.
    void setValue(double v);
    void setWholeValue(std::uint64_t v);
    // Replaces the text as if typed (for a restored session): parsed, may leave the field in error.
    void setTypedText(const QString& text);
    // The text shown is for reading (quantity::formatForReading: bytes with their unit, a long time rounded to
    // "50.66 ms"); this is the text that parses back to exactly value() while the user has not edited it
    // (what a saved session keeps), else what the user typed.
    QString exactText() const;
    // About how much a size typed or shown in bytes is ("≈ 139.8 MiB"); empty for other kinds, sizes in a
    // unit of their own, below 1 KiB and text in error. The form shows it under the field.
    QString approximateSize() const;

    QValidator::State validate(QString& input, int& pos) const override;
    void fixup(QString& input) const override;
    void stepBy(int steps) override;

signals:
    // The user changed the text (typing, pasting, stepping); value() and error() are already updated.
    void edited();

protected:
    StepEnabled stepEnabled() const override;
    void wheelEvent(QWheelEvent* event) override;

private:
    void reparse();
    void display(const QString& text, const QString& exact);

    QString key_;
    quantity::Kind kind_;
    quantity::Limits limits_;
    QString expectation_; // the configuration's words for the range; "" = the parser's own
    double value_ = 0;
    std::optional<std::uint64_t> whole_;
    QString error_;
    QString shown_; // the text last set for value_ (not typed)
    QString exact_; // its exact form when shown_ is rounded; empty when shown_ is exact
};

} // namespace trainio::ui
