#include "run/checkpoint_tally.h"
#include "util/units.h"

#include <algorithm>
#include <cmath>

namespace trainio::ui {

namespace {
// DLIO's checkpoint_size: bytes / 1024^3 (base_checkpointing.py:164) — kGiB (util/units.h)
} // namespace

MeanStd meanStd(const std::vector<double>& values) {
    MeanStd m;
    m.count = values.size();
    if (values.empty()) return m;
    double sum = 0;
    for (double v : values) sum += v;
    m.mean = sum / static_cast<double>(values.size());
    double squares = 0;
    for (double v : values) squares += (v - m.mean) * (v - m.mean);
    m.stdev = std::sqrt(squares / static_cast<double>(values.size()));
    return m;
}

void CheckpointTally::reset(bool rankSync, double sizeGiB) {
    rankSync_ = rankSync;
    sizeGiB_ = sizeGiB;
    for (Op& op : ops_) op = Op{};
    any_ = false;
    errors_.clear();
}

void CheckpointTally::add(const checkpoint::CheckpointEvent& e) {
    Op& op = ops_[slot(e.op)];
    const auto i = static_cast<std::size_t>(e.index);
    if (op.bars.size() <= i) {
        const std::size_t from = op.bars.size();
        op.bars.resize(i + 1);
        op.shares.resize(i + 1);
        for (std::size_t k = from; k <= i; ++k) op.bars[k].index = k;
    }
    CheckpointBar& bar = op.bars[i];
    bar.epoch = e.epoch;
    bar.step = e.step;
    RankShare& share = op.shares[i][e.rank];
    share.started = true;
    switch (e.phase) {
    case checkpoint::CheckpointEvent::Phase::Started: break;
    case checkpoint::CheckpointEvent::Phase::Completed:
        share.done = true;
        share.bytes = e.bytes;
        share.realBytes = e.realBytes;
        share.seconds = e.seconds;
        break;
    case checkpoint::CheckpointEvent::Phase::Failed:
        share.failed = true;
        errors_.push_back(e.error);
        break;
    }
    lastOp_ = e.op;
    lastIndex_ = e.index;
    any_ = true;
    recompute(op, i);
}

void CheckpointTally::recompute(Op& op, std::size_t i) const {
    CheckpointBar& bar = op.bars[i];
    bar.bytes = bar.realBytes = bar.ranksDone = 0;
    bar.failed = false;
    double slowest = 0, rankZero = 0;
    bool rankZeroDone = false;
    for (const auto& [rank, s] : op.shares[i]) {
        bar.failed = bar.failed || s.failed;
        if (!s.done) continue;
        ++bar.ranksDone;
        bar.bytes += s.bytes;
        bar.realBytes += s.realBytes;
        slowest = std::max(slowest, s.seconds);
        if (rank == 0) {
            rankZeroDone = true;
            rankZero = s.seconds;
        }
    }
    bar.seconds = rankSync_ || !rankZeroDone ? slowest : rankZero;
    const double gib = sizeGiB_ > 0 ? sizeGiB_ : static_cast<double>(bar.bytes) / kGiB;
    bar.gibPerSecond = bar.seconds > 0 ? gib / bar.seconds : 0.0;
}

std::map<std::uint64_t, RankCheckpointStats> CheckpointTally::perRank(checkpoint::Operation which) const {
    const Op& op = ops_[slot(which)];
    std::map<std::uint64_t, std::vector<double>> seconds, rates;
    std::map<std::uint64_t, RankCheckpointStats> out;
    for (const auto& shares : op.shares)
        for (const auto& [rank, s] : shares) {
            RankCheckpointStats& r = out[rank];
            if (!s.done) continue;
            ++r.done;
            r.bytes += s.bytes;
            seconds[rank].push_back(s.seconds);
            if (s.seconds > 0) rates[rank].push_back(static_cast<double>(s.bytes) / kGiB / s.seconds);
        }
    for (auto& [rank, r] : out) {
        r.seconds = meanStd(seconds[rank]);
        r.gibPerSecond = meanStd(rates[rank]);
    }
    return out;
}

CheckpointSummary CheckpointTally::summary(checkpoint::Operation which) const {
    std::vector<double> rates, seconds;
    for (const CheckpointBar& b : ops_[slot(which)].bars) {
        if (b.ranksDone == 0 || b.failed || !(b.seconds > 0)) continue;
        rates.push_back(b.gibPerSecond);
        seconds.push_back(b.seconds);
    }
    return {meanStd(rates), meanStd(seconds)};
}

CheckpointTally::InFlight CheckpointTally::inFlight() const {
    InFlight f;
    if (!any_) return f;
    const Op& op = ops_[slot(lastOp_)];
    const auto& shares = op.shares[static_cast<std::size_t>(lastIndex_)];
    for (const auto& [rank, s] : shares) {
        f.ranksStarted += s.started ? 1 : 0;
        f.ranksDone += s.done || s.failed ? 1 : 0;
    }
    f.active = f.ranksDone < f.ranksStarted;
    f.op = lastOp_;
    f.index = lastIndex_;
    return f;
}

} // namespace trainio::ui
