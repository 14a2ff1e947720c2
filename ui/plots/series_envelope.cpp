#include "plots/series_envelope.h"

#include <algorithm>

namespace trainio::ui {

namespace {

void merge(SeriesEnvelope::Bucket& into, const SeriesEnvelope::Bucket& other) {
    // Ties keep the earlier sample, so the drawn spike sits where it first happened.
    const auto earlierWins = [](const EnvelopePoint& a, const EnvelopePoint& b) { return a.key <= b.key; };
    if (other.min.value < into.min.value ||
        (other.min.value == into.min.value && !earlierWins(into.min, other.min)))
        into.min = other.min;
    if (other.max.value > into.max.value ||
        (other.max.value == into.max.value && !earlierWins(into.max, other.max)))
        into.max = other.max;
    into.sum += other.sum;
    into.count += other.count;
}

} // namespace

SeriesEnvelope::SeriesEnvelope(Limits limits) : limits_(limits) {
    limits_.buckets = std::max<std::size_t>(2, limits_.buckets); // one bucket could never be split in two
}

void SeriesEnvelope::clear() {
    width_ = 1;
    buckets_.clear();
    recent_.clear();
    received_ = notDrawable_ = 0;
    hasRange_ = false;
    lower_ = upper_ = 0;
}

void SeriesEnvelope::add(double key, double value) {
    ++received_;
    // Beyond ±2^62 a key has no bucket index (and is no step number).
    if (!std::isfinite(key) || !std::isfinite(value) || std::abs(key) > 0x1p62) {
        ++notDrawable_;
        return;
    }
    lower_ = hasRange_ ? std::min(lower_, value) : value;
    upper_ = hasRange_ ? std::max(upper_, value) : value;
    hasRange_ = true;
    const EnvelopePoint p{key, value};
    if (recent_.empty() || recent_.back().key <= key)
        recent_.push_back(p);
    else
        recent_.insert(std::upper_bound(recent_.begin(), recent_.end(), key,
                                        [](double k, const EnvelopePoint& q) { return k < q.key; }),
                       p);
    while (recent_.size() > limits_.recentPoints) {
        absorb(recent_.front());
        recent_.pop_front();
    }
}

void SeriesEnvelope::absorb(const EnvelopePoint& p) {
    Bucket b;
    b.index = static_cast<std::int64_t>(std::floor(p.key / width_));
    b.min = b.max = p;
    b.sum = p.value;
    b.count = 1;
    if (buckets_.empty() || buckets_.back().index < b.index) {
        buckets_.push_back(b);
    } else {
        auto it = std::lower_bound(buckets_.begin(), buckets_.end(), b.index,
                                   [](const Bucket& x, std::int64_t i) { return x.index < i; });
        if (it != buckets_.end() && it->index == b.index)
            merge(*it, b);
        else
            buckets_.insert(it, b);
    }
    while (buckets_.size() > limits_.buckets)
        coarsen();
}

void SeriesEnvelope::coarsen() {
    width_ *= 2;
    std::size_t out = 0;
    for (std::size_t i = 0; i < buckets_.size(); ++i) {
        Bucket b = buckets_[i];
        b.index >>= 1; // floor(floor(key / w) / 2) == floor(key / 2w), negative keys included
        if (out > 0 && buckets_[out - 1].index == b.index)
            merge(buckets_[out - 1], b);
        else
            buckets_[out++] = b;
    }
    buckets_.resize(out);
}

bool SeriesEnvelope::valueRange(double& lower, double& upper) const {
    if (!hasRange_) return false;
    lower = lower_;
    upper = upper_;
    return true;
}

std::size_t SeriesEnvelope::drawPointCount() const {
    std::size_t n = recent_.size();
    for (const Bucket& b : buckets_)
        n += isOnePoint(b) ? 1 : 2;
    return n;
}

} // namespace trainio::ui
