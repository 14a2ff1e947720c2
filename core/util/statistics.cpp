#include "util/statistics.h"

#include "util/errors.h"
#include "util/units.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainio::aggregate {

namespace {


// numpy's pairwise_sum for contiguous doubles: below 8 values a plain left-to-right loop; up to the
// block size, eight interleaved partial sums combined as a balanced tree; above it, split in two
// halves at a multiple of 8 and recurse.
double pairwiseSum(const double* a, std::size_t n) {
    constexpr std::size_t kBlock = 128;
    if (n < 8) {
        double res = 0.0;
        for (std::size_t i = 0; i < n; ++i) res += a[i];
        return res;
    }
    if (n <= kBlock) {
        double r[8];
        for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
        std::size_t i = 8;
        for (; i < n - (n % 8); i += 8)
            for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i) res += a[i];
        return res;
    }
    std::size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwiseSum(a, n2) + pairwiseSum(a + n2, n - n2);
}

// Continued fraction of the regularised incomplete beta function (modified Lentz evaluation),
// valid where x < (a + 1) / (a + b + 2); the caller uses the symmetry relation elsewhere.
double betaContinuedFraction(double a, double b, double x) {
    constexpr double kTiny = 1e-300;
    constexpr double kEps = 1e-15;
    double c = 1.0;
    double d = 1.0 - (a + b) * x / (a + 1.0);
    if (std::fabs(d) < kTiny) d = kTiny;
    d = 1.0 / d;
    double f = d;
    for (int m = 1; m <= 10000; ++m) {
        const double m2 = 2.0 * m;
        double coef = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + coef * d;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = 1.0 + coef / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1.0 / d;
        f *= d * c;
        coef = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + coef * d;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = 1.0 + coef / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1.0 / d;
        const double delta = d * c;
        f *= delta;
        if (std::fabs(delta - 1.0) < kEps) break;
    }
    return f;
}

double regularisedIncompleteBeta(double a, double b, double x) {
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    const double logFront =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(logFront) * betaContinuedFraction(a, b, x) / a;
    return 1.0 - std::exp(logFront) * betaContinuedFraction(b, a, 1.0 - x) / b;
}

std::vector<double> sortedCopy(std::span<const double> values) {
    std::vector<double> v(values.begin(), values.end());
    std::sort(v.begin(), v.end());
    return v;
}

} // namespace

double numpySum(std::span<const double> values) { return pairwiseSum(values.data(), values.size()); }

Statistic mean(std::span<const double> values) {
    Statistic s{kNaN, "arithmetic mean (numpy.mean)"};
    if (!values.empty()) s.value = numpySum(values) / static_cast<double>(values.size());
    return s;
}

Statistic populationStdev(std::span<const double> values) {
    Statistic s{kNaN, "population standard deviation, divisor n (numpy.std, ddof=0)"};
    if (values.empty()) return s;
    const double m = mean(values).value;
    std::vector<double> sq(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) sq[i] = (values[i] - m) * (values[i] - m);
    s.value = std::sqrt(numpySum(sq) / static_cast<double>(values.size()));
    return s;
}

Statistic sampleStdev(std::span<const double> values) {
    Statistic s{kNaN, "sample standard deviation, divisor n-1"};
    if (values.size() < 2) return s;
    const double m = mean(values).value;
    std::vector<double> sq(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) sq[i] = (values[i] - m) * (values[i] - m);
    s.value = std::sqrt(numpySum(sq) / static_cast<double>(values.size() - 1));
    return s;
}

Statistic median(std::span<const double> values) {
    Statistic s{kNaN, "median (middle value; mean of the two middle values for an even count)"};
    if (values.empty()) return s;
    const auto v = sortedCopy(values);
    const std::size_t n = v.size();
    s.value = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
    return s;
}

Statistic minimum(std::span<const double> values) {
    Statistic s{kNaN, "minimum"};
    if (!values.empty()) s.value = *std::min_element(values.begin(), values.end());
    return s;
}

Statistic maximum(std::span<const double> values) {
    Statistic s{kNaN, "maximum"};
    if (!values.empty()) s.value = *std::max_element(values.begin(), values.end());
    return s;
}

Statistic geomean(std::span<const double> values) {
    Statistic s{kNaN, "geometric mean, exp(mean(ln x)); undefined if any value <= 0"};
    if (values.empty()) return s;
    double logSum = 0.0;
    for (double x : values) {
        if (!(x > 0.0)) return s;
        logSum += std::log(x);
    }
    s.value = std::exp(logSum / static_cast<double>(values.size()));
    return s;
}

Statistic coefficientOfVariation(std::span<const double> values) {
    Statistic s{kNaN, "coefficient of variation, sample stdev / mean (a fraction)"};
    const double m = mean(values).value;
    const double sd = sampleStdev(values).value;
    if (std::isfinite(m) && std::isfinite(sd) && m != 0.0) s.value = sd / m;
    return s;
}

double studentTCdf(double t, double df) {
    if (!(df > 0.0) || std::isnan(t)) return kNaN;
    if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
    const double x = df / (df + t * t);
    const double tail = 0.5 * regularisedIncompleteBeta(df / 2.0, 0.5, x);
    return t >= 0.0 ? 1.0 - tail : tail;
}

double studentTQuantile(double p, double df) {
    if (!(df > 0.0) || !(p > 0.0) || !(p < 1.0)) return kNaN;
    if (p == 0.5) return 0.0;
    if (p < 0.5) return -studentTQuantile(1.0 - p, df);
    // The CDF is monotone, so bisection is certain to converge; 200 halvings exhaust a double.
    double lo = 0.0, hi = 1.0;
    while (studentTCdf(hi, df) < p && hi < 1e300) hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (studentTCdf(mid, df) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

ConfidenceInterval ci95(std::span<const double> values) {
    ConfidenceInterval ci{kNaN, kNaN, kNaN,
                          "95 % confidence interval of the mean: mean ± t(0.975, n-1) · s / sqrt(n), "
                          "Student t, s = sample stdev; undefined for n < 2"};
    if (values.size() < 2) return ci;
    const double n = static_cast<double>(values.size());
    const double m = mean(values).value;
    ci.halfWidth = studentTQuantile(0.975, n - 1.0) * sampleStdev(values).value / std::sqrt(n);
    ci.low = m - ci.halfWidth;
    ci.high = m + ci.halfWidth;
    return ci;
}

Reduction parseReduction(const std::string& name) {
    if (name == "mean") return Reduction::Mean;
    if (name == "median") return Reduction::Median;
    if (name == "min") return Reduction::Min;
    if (name == "geomean") return Reduction::Geomean;
    throw InputError(describeProblem("--reduce", "", name, "one of mean, median, min, geomean"));
}

std::string reductionName(Reduction r) {
    switch (r) {
    case Reduction::Mean: return "mean";
    case Reduction::Median: return "median";
    case Reduction::Min: return "min";
    case Reduction::Geomean: return "geomean";
    }
    return "mean";
}

Statistic reduce(std::span<const double> values, Reduction r) {
    switch (r) {
    case Reduction::Mean: return mean(values);
    case Reduction::Median: return median(values);
    case Reduction::Min: return minimum(values);
    case Reduction::Geomean: return geomean(values);
    }
    return mean(values);
}

} // namespace trainio::aggregate
