// Statistics over a handful of runs, as pure functions. Every value carries the rule that produced it,
// because a reader comparing TrainIO with a published MLPerf Storage number must know which reduction
// was used. Undefined results (an empty sample, a geometric mean over a value <= 0, a spread of one
// value) are NaN, never a made-up number; JSON writers turn NaN into null.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace trainio::aggregate {

struct Statistic {
    double value = 0.0;
    std::string rule;
};

struct ConfidenceInterval {
    double low = 0.0;
    double high = 0.0;
    double halfWidth = 0.0;
    std::string rule;
};

// Sums like numpy's add.reduce (pairwise summation with an 8-way unrolled base case), so that means
// and standard deviations agree with numpy to the last bit rather than only to rounding.
double numpySum(std::span<const double> values);

Statistic mean(std::span<const double> values);            // numpy.mean
Statistic populationStdev(std::span<const double> values); // numpy.std, ddof = 0 (MLPerf's rule)
Statistic sampleStdev(std::span<const double> values);     // ddof = 1
Statistic median(std::span<const double> values);
Statistic minimum(std::span<const double> values);
Statistic maximum(std::span<const double> values);
Statistic geomean(std::span<const double> values);
Statistic coefficientOfVariation(std::span<const double> values); // sample stdev / mean, a fraction

// Student t: the p-quantile of the t distribution with df degrees of freedom (df > 0, 0 < p < 1),
// by inverting the regularised incomplete beta function. Exact to ~1e-12, any df.
double studentTQuantile(double p, double df);
// Cumulative distribution of Student t (used to invert it, exposed for tests).
double studentTCdf(double t, double df);

// 95 % confidence interval of the mean: mean ± t(0.975, n-1) · s / sqrt(n). NaN bounds for n < 2.
ConfidenceInterval ci95(std::span<const double> values);

// The reductions a user may pick for the headline value (--reduce).
enum class Reduction { Mean, Median, Min, Geomean };
Reduction parseReduction(const std::string& name); // throws InputError naming the allowed values
std::string reductionName(Reduction r);
Statistic reduce(std::span<const double> values, Reduction r);

} // namespace trainio::aggregate
