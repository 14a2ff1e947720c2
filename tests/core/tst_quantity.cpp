// Strict number parsing for the workload form (issue 8, defect 3): text is read entirely or rejected
// with the key and the accepted range — "1e99" is not 199, "abc-12x" is not 12, "-3" is not 3.
// Expected values are written out by hand (powers of 1000 and 1024), never taken from the parser.
#include "testsupport.h"

#include "config/key_ranges.h"
#include "config/value_ranges.h"
#include "util/quantity.h"

using namespace trainio;
using quantity::Kind;

namespace {

quantity::Result count(const char* text, double min = 1, double max = 100000) {
    return quantity::parse(text, Kind::Count, min, max);
}

bool rejected(const quantity::Result& r, const char* part) {
    return !r.ok() && r.error.find(part) != std::string::npos;
}

} // namespace

class TestQuantity : public QObject {
    Q_OBJECT
private slots:
    void plainIntegers() {
        QCOMPARE(*count("42").value, 42.0);
        QCOMPARE(*count("  7\t").value, 7.0); // surrounding blanks are not characters of the number
        QCOMPARE(*count("+5").value, 5.0);
        QCOMPARE(*count("1e3").value, 1000.0);
        QCOMPARE(*count("100000").value, 100000.0);
    }

    void theDefectsOfIssue8() {
        // What QSpinBox did: 1e99 → 199, abc-12x → 12, -3 → 3. Each must be an error now.
        const auto big = count("1e99");
        QVERIFY(rejected(big, "'1e99' is not allowed"));
        QVERIFY2(big.error.find("a whole number 1 … 100000") != std::string::npos, big.error.c_str());
        QVERIFY(rejected(count("abc-12x"), "'abc-12x' is not a number"));
        QVERIFY(rejected(count("-3"), "'-3' is not allowed"));
        QVERIFY(rejected(count("12x"), "unexpected 'x'"));
    }

    void theMessageNamesTheKeyAndTheRange() {
        const auto r = key_ranges::parseKey("train.epochs", "-3");
        QVERIFY(!r.ok());
        QCOMPARE(QString::fromStdString(r.error),
                 QStringLiteral("train.epochs: '-3' is not allowed: expected a whole number 1 … 1000000"));
        QCOMPARE(*key_ranges::parseKey("train.epochs", "12").value, 12.0);
        QVERIFY(!key_ranges::parseKey("no.such.key", "1").ok());
    }

    void overflowAndUnderflow() {
        QVERIFY(rejected(count("99999999999999999999999", 0, 1e15), "is not allowed"));
        QVERIFY(rejected(count("1e999", 0, 1e15), "out of range"));
        QVERIFY(rejected(count("1e99999999999999999999", 0, 1e15), "out of range"));
        QVERIFY(rejected(quantity::parse("1e-999", Kind::Real, 0, 1), "out of range"));
        QVERIFY(rejected(quantity::parse("1e308 PiB", Kind::Bytes, 0, 1e15), "out of range"));
    }

    void notNumbers() {
        for (const char* t : {"", "   ", "abc", "-", ".", "1e", "1e+", "0x10", "inf", "nan", "1,000", "1 2", "--1", "١٢"})
            QVERIFY2(!count(t, 0, 1e15).ok(), t);
        QVERIFY(rejected(count(""), "is empty"));
    }

    void wholeNumbersWhereIntegersAreRequired() {
        QVERIFY(rejected(count("1.5"), "is not a whole number"));
        QCOMPARE(*count("2.0").value, 2.0);
        QVERIFY(rejected(quantity::parse("0.1 KiB", Kind::Bytes, quantity::Limits{0, 1e12, true, false}), "whole number"));
        QCOMPARE(*quantity::parse("0.5 KiB", Kind::Bytes, quantity::Limits{0, 1e12, true, false}).value, 512.0);
    }

    void binaryAndDecimalByteUnits() {
        auto bytes = [](const char* t) { return quantity::parse(t, Kind::Bytes, 0, 1e18); };
        QCOMPARE(*bytes("4 MiB").value, 4.0 * 1024 * 1024);
        QCOMPARE(*bytes("128 KiB").value, 131072.0);
        QCOMPARE(*bytes("1.5 GB").value, 1500000000.0);
        QCOMPARE(*bytes("1.1 MB").value, 1100000.0); // exact: the unit shifts the decimal text
        QCOMPARE(*bytes("2 kB").value, 2000.0);
        QCOMPARE(*bytes("3 TiB").value, 3.0 * 1099511627776.0);
        QCOMPARE(*bytes("1 PB").value, 1e15);
        QCOMPARE(*bytes("512").value, 512.0);
        QCOMPARE(*bytes("512 B").value, 512.0);
        QCOMPARE(*bytes("4MiB").value, 4194304.0);
        // Units are case-insensitive; a unit TrainIO does not know is an error, never ignored.
        QCOMPARE(*bytes("4 mib").value, 4194304.0);
        QCOMPARE(*bytes("4 MIB").value, 4194304.0);
        QCOMPARE(*bytes("4 gb").value, 4e9);
        QVERIFY(rejected(bytes("4 XB"), "unknown unit 'XB'"));
        QVERIFY(rejected(bytes("4 MiBs"), "unknown unit"));
        QVERIFY(rejected(bytes("4 M"), "unknown unit"));
        QVERIFY(rejected(bytes("4 MiB x"), "unknown unit"));
        QVERIFY(rejected(bytes("-1 KiB"), "is not allowed"));
    }

    void secondsAndFractions() {
        auto secs = [](const char* t) { return quantity::parse(t, Kind::Seconds, 0, 86400); };
        QCOMPARE(*secs("150 ms").value, 0.15);
        QCOMPARE(*secs("2 s").value, 2.0);
        QCOMPARE(*secs("300 us").value, 0.0003);
        QCOMPARE(*secs("300 µs").value, 0.0003);
        QCOMPARE(*secs("1.5 min").value, 90.0);
        QCOMPARE(*secs("0.323").value, 0.323);
        QCOMPARE(*secs("2 H").value, 7200.0);
        QVERIFY(rejected(secs("2 days"), "unknown unit 'days'"));
        QVERIFY(rejected(secs("25 h"), "is not allowed"));

        const quantity::Limits au{0, 1, false, true};
        QCOMPARE(*quantity::parse("0.9", Kind::Fraction, au).value, 0.9);
        QCOMPARE(*quantity::parse("90 %", Kind::Fraction, au).value, 0.9);
        QCOMPARE(*quantity::parse("100%", Kind::Fraction, au).value, 1.0);
        QVERIFY(rejected(quantity::parse("0", Kind::Fraction, au), "more than 0 and at most 1"));
        QVERIFY(rejected(quantity::parse("101 %", Kind::Fraction, au), "is not allowed"));
        QVERIFY(rejected(quantity::parse("90 percent", Kind::Fraction, au), "unexpected 'percent'"));
        QVERIFY(rejected(count("5 MiB", 0, 1e9), "unexpected 'MiB'"));
    }

    void formatReadsBack() {
        QCOMPARE(quantity::format(262144, Kind::Bytes), std::string("256 KiB"));
        QCOMPARE(quantity::format(146600628, Kind::Bytes), std::string("146600628"));
        QCOMPARE(quantity::format(1099511627776.0, Kind::Bytes), std::string("1 TiB"));
        QCOMPARE(quantity::format(0.323, Kind::Seconds), std::string("0.323"));
        QCOMPARE(quantity::format(100000, Kind::Count), std::string("100000"));
        for (double v : {0.0, 1.0, 1023.0, 1024.0, 1536.0, 3e9, 0.1, 1e-7, 123456789.0})
            for (Kind k : {Kind::Bytes, Kind::Seconds, Kind::Real})
                QCOMPARE(*quantity::parse(quantity::format(v, k), k, 0, 1e18).value, v);
    }

    void acceleratorNames() {
        for (const char* ok : {"", "a100", "h100", "b200", "mi300x", "h100-sxm", "gb200.nvl"})
            QVERIFY2(key_ranges::acceleratorNameProblem(ok).empty(), ok);
        QVERIFY(key_ranges::acceleratorNameProblem("h100_sxm").find("contains '_'") != std::string::npos);
        QVERIFY(key_ranges::acceleratorNameProblem("H100").find("upper-case") != std::string::npos);
        QVERIFY(key_ranges::acceleratorNameProblem("h 100").find("blank") != std::string::npos);
        QVERIFY(key_ranges::acceleratorNameProblem("h100/2").find("contains '/'") != std::string::npos);
        QVERIFY(key_ranges::acceleratorNameProblem("-h100").find("start") != std::string::npos);
    }

    void rangesComeFromTheConfigurationTable() {
        // key_ranges adds no table of its own: every numeric key has value_ranges' limits and words.
        for (const char* key : {"dataset.num_files_train", "dataset.record_length_bytes", "reader.transfer_size",
                                "train.epochs", "train.seed", "train.computation_time", "metric.au"}) {
            const auto k = key_ranges::find(key);
            const auto v = trainio::valueRange(key);
            QVERIFY2(k && v, key);
            QCOMPARE(k->limits.min, v->min);
            QCOMPARE(k->limits.max, v->max);
            QCOMPARE(k->limits.minExclusive, v->minExclusive);
            QVERIFY2(k->expectation.rfind(v->describe(), 0) == 0, key);
        }
        QCOMPARE(key_ranges::find("reader.transfer_size")->kind, Kind::Bytes);
        QCOMPARE(key_ranges::find("train.computation_time")->kind, Kind::Seconds);
        QCOMPARE(key_ranges::find("train.epochs")->kind, Kind::Count);
        QCOMPARE(key_ranges::find("metric.au")->kind, Kind::Fraction);
        QVERIFY(!key_ranges::find("dataset.data_folder"));
    }

    void wholeNumbersAreExactBeyondDoubles() {
        // 2^64 − 1 is not a double: read through a double it would become 2^64 (and overflow a uint64).
        const auto max = quantity::parse("18446744073709551615", Kind::Count, 0, 18446744073709551615.0);
        QVERIFY(max.ok());
        QCOMPARE(*max.whole, UINT64_MAX);
        const auto odd = quantity::parse("9007199254740993", Kind::Count, 0, 18446744073709551615.0); // 2^53 + 1
        QCOMPARE(*odd.whole, 9007199254740993ull);
        QVERIFY(rejected(quantity::parse("18446744073709551616", Kind::Count, 0, 18446744073709551615.0), "out of range"));
        QVERIFY(rejected(quantity::parse("1.8e19", Kind::Count, 0, 18446744073709551615.0), "read exactly"));
        QCOMPARE(*quantity::parse("4 GiB", Kind::Bytes, quantity::Limits{0, 1e12, true, false}).whole, 4294967296ull);
        QCOMPARE(*quantity::parse("1.5 KiB", Kind::Bytes, quantity::Limits{0, 1e12, true, false}).whole, 1536ull);
        QCOMPARE(*key_ranges::parseKey("train.seed", "18446744073709551615").whole, UINT64_MAX);
        QCOMPARE(quantity::formatWhole(UINT64_MAX, Kind::Count), std::string("18446744073709551615"));
        QCOMPARE(quantity::formatWhole(std::uint64_t{1} << 60, Kind::Bytes), std::string("1 EiB"));
        QCOMPARE(*quantity::parse(quantity::formatWhole(std::uint64_t{3} << 50, Kind::Bytes), Kind::Bytes,
                                  quantity::Limits{0, 1e19, true, false}).whole, std::uint64_t{3} << 50);
    }

    // Text for reading (issue 32 item 11: a byte field showed "146600628", a time "0.05066255668571429").
    void readableText() {
        const quantity::Limits bytes{0, 1e15, true, false};
        bool exact = false;
        QCOMPARE(quantity::formatForReading(146600628, Kind::Bytes, &exact), std::string("146600628 B"));
        QVERIFY(exact);
        QCOMPARE(*quantity::parse("146600628 B", Kind::Bytes, bytes).whole, 146600628ull); // the unit parses back
        QCOMPARE(quantity::formatForReading(4194304, Kind::Bytes), std::string("4 MiB"));
        QCOMPARE(quantity::formatForReading(100, Kind::Bytes), std::string("100 B"));
        QCOMPARE(quantity::formatForReading(0.05066255668571429, Kind::Seconds, &exact), std::string("50.66 ms"));
        QVERIFY(!exact);
        QCOMPARE(quantity::formatForReading(0.0000251234567891, Kind::Seconds), std::string("25.12 \xc2\xb5s"));
        QCOMPARE(quantity::formatForReading(3.0000012345678, Kind::Seconds), std::string("3 s"));
        QCOMPARE(quantity::formatForReading(0.05, Kind::Seconds, &exact), std::string("0.05")); // short: as it was, exact
        QVERIFY(exact);
        QCOMPARE(quantity::formatForReading(0.002, Kind::Seconds), std::string("0.002"));
        QCOMPARE(quantity::formatForReading(0.123456789, Kind::Real), std::string("0.123456789")); // not a time
        QCOMPARE(quantity::approximateBytes(146600628), std::string("\xe2\x89\x88 139.8 MiB")); // 146600628 / 2^20 = 139.808
        QCOMPARE(quantity::approximateBytes(1536), std::string("\xe2\x89\x88 1.5 KiB"));
        QCOMPARE(quantity::approximateBytes(3.5 * 1073741824.0), std::string("\xe2\x89\x88 3.5 GiB"));
        QVERIFY(quantity::approximateBytes(1000).empty());
    }
};

QTEST_GUILESS_MAIN(TestQuantity)
#include "tst_quantity.moc"
