// A plotted line whose memory and drawing cost stay bounded however long a run grows (CosmoFlow has
// 524,288 steps per epoch per accelerator). The most recent points are kept exactly; older points are
// merged into buckets of equal key width that keep their minimum and maximum (and where they happened),
// so a single slow step stays visible as a spike. When there are more buckets than the budget, the
// bucket width doubles and neighbours merge pairwise, so at most `buckets` buckets span any run.
// Drawing a bucket as its minimum and maximum in key order is what a line plot shows of those points at
// a bucket per pixel column or finer. No Qt: the live plots copy the points into their graphs.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace trainio::ui {

struct EnvelopePoint {
    double key = 0;
    double value = 0;
};

struct EnvelopeLimits {
    std::size_t recentPoints = 1024; // kept exactly, however many came before
    std::size_t buckets = 2048;      // between 1024 and 2048 after merging: a pixel column or finer
};

class SeriesEnvelope {
public:
    using Limits = EnvelopeLimits;
    struct Bucket {
        std::int64_t index = 0; // floor(key / bucketWidth())
        EnvelopePoint min, max;
        double sum = 0;
        std::uint64_t count = 0;
        double mean() const { return count ? sum / static_cast<double>(count) : 0.0; }
    };

    explicit SeriesEnvelope(Limits limits = {});

    void clear();
    // Keys are expected in non-decreasing order (step numbers); an earlier key is still placed where it
    // belongs. A point with a non-finite key or value, or a key beyond ±2^62, cannot be drawn: it is
    // counted in received() and notDrawable() but not kept.
    void add(double key, double value);

    std::uint64_t received() const { return received_; }
    std::uint64_t notDrawable() const { return notDrawable_; }
    double bucketWidth() const { return width_; }
    const std::vector<Bucket>& buckets() const { return buckets_; }
    const std::deque<EnvelopePoint>& recent() const { return recent_; }
    // Smallest and largest value ever added (every minimum and maximum survives merging); false if none.
    bool valueRange(double& lower, double& upper) const;

    // The points to draw, in key order: each bucket's minimum and maximum (one point when isOnePoint()),
    // then the recent points.
    template <typename Sink> void forEachDrawPoint(Sink&& sink) const {
        for (const Bucket& b : buckets_) {
            const bool one = isOnePoint(b);
            const EnvelopePoint& first = one || b.min.key < b.max.key ? b.min : b.max;
            sink(first);
            if (!one) sink(&first == &b.min ? b.max : b.min);
        }
        for (const EnvelopePoint& p : recent_)
            sink(p);
    }
    std::size_t drawPointCount() const;
    // A bucket whose minimum and maximum are drawn as one point: the same key and the same value.
    static bool isOnePoint(const Bucket& b) { return b.min.key == b.max.key && b.min.value == b.max.value; }

private:
    void absorb(const EnvelopePoint& p);
    void coarsen();

    Limits limits_;
    double width_ = 1;
    std::vector<Bucket> buckets_;
    std::deque<EnvelopePoint> recent_;
    std::uint64_t received_ = 0;
    std::uint64_t notDrawable_ = 0;
    bool hasRange_ = false;
    double lower_ = 0, upper_ = 0;
};

} // namespace trainio::ui
