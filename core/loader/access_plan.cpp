#include "loader/access_plan.h"

#include "dataset/record_shape.h"
#include "loader/sample_order.h"

#include <algorithm>
#include <limits>
#include <list>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace trainio::loader {

std::uint64_t AccessString::accesses() const {
    std::uint64_t n = 0;
    for (const auto& e : epochs) n += e.size();
    return n;
}

AccessString accessString(const WorkloadConfig& cfg, std::uint64_t rank, std::uint64_t ranks, std::uint64_t runSeed) {
    AccessString s;
    s.rank = rank;
    const ShardPlan plan = planShard(cfg, rank, ranks);
    s.epochs.resize(cfg.train.epochs);
    for (std::uint64_t e = 0; e < cfg.train.epochs; ++e) sampleOrder(cfg, plan, rank, e + 1, runSeed, s.epochs[e]);
    return s;
}

std::uint64_t sampleBytes(const WorkloadConfig& cfg, std::uint64_t sampleId) {
    const std::uint64_t perFile = std::max<std::uint64_t>(1, cfg.dataset.numSamplesPerFile);
    return recordShape(cfg.dataset, cfg.train.seed, Split::Train, sampleId / perFile).bytes();
}

const char* toString(Tier t) {
    switch (t) {
    case Tier::Ram: return "ram";
    case Tier::Ssd: return "ssd";
    case Tier::Storage: break;
    }
    return "storage";
}

std::vector<RankedSample> frequencyRanking(const AccessString& string, const SampleBytes& bytesOf) {
    std::unordered_map<std::uint64_t, std::size_t> index;
    std::vector<RankedSample> out;
    std::uint64_t position = 0;
    for (const auto& epoch : string.epochs)
        for (const std::uint64_t id : epoch) {
            const auto [it, fresh] = index.emplace(id, out.size());
            if (fresh) out.push_back({id, 0, position, bytesOf(id)});
            ++out[it->second].accesses;
            ++position;
        }
    std::sort(out.begin(), out.end(), [](const RankedSample& a, const RankedSample& b) {
        return a.accesses != b.accesses ? a.accesses > b.accesses : a.firstAccess < b.firstAccess;
    });
    return out;
}

Placement placeSamples(std::vector<RankedSample> ranking, const TierCapacity& capacity) {
    Placement p;
    p.ranking = std::move(ranking);
    p.tier.reserve(p.ranking.size());
    for (const RankedSample& s : p.ranking) {
        if (p.ramBytes + s.bytes <= capacity.ramBytes) {
            p.tier.push_back(Tier::Ram);
            p.ramBytes += s.bytes;
            ++p.ramSamples;
        } else if (p.ssdBytes + s.bytes <= capacity.ssdBytes) {
            p.tier.push_back(Tier::Ssd);
            p.ssdBytes += s.bytes;
            ++p.ssdSamples;
        } else {
            p.tier.push_back(Tier::Storage);
            p.storageBytes += s.bytes;
            ++p.storageSamples;
        }
    }
    return p;
}

namespace {

CacheSimulation emptySimulation(const AccessString& string) {
    CacheSimulation r;
    for (const auto& e : string.epochs) {
        r.accessesPerEpoch.push_back(e.size());
        r.accesses += e.size();
    }
    r.hitsPerEpoch.assign(string.epochs.size(), 0);
    return r;
}

} // namespace

CacheSimulation simulateBelady(const AccessString& string, std::uint64_t capacityBytes, const SampleBytes& bytesOf) {
    CacheSimulation r = emptySimulation(string);
    // The whole string in one array, and for each position the next position of the same sample.
    std::vector<std::uint64_t> all;
    all.reserve(r.accesses);
    for (const auto& e : string.epochs) all.insert(all.end(), e.begin(), e.end());
    constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();
    std::vector<std::uint64_t> next(all.size(), kNever);
    {
        std::unordered_map<std::uint64_t, std::uint64_t> seenAt;
        for (std::uint64_t i = all.size(); i-- > 0;) {
            const auto it = seenAt.find(all[i]);
            if (it != seenAt.end()) {
                next[i] = it->second;
                it->second = i;
            } else {
                seenAt.emplace(all[i], i);
            }
        }
    }
    // Residents keyed by their next use, farthest first; ties (several "never") by sample id.
    std::set<std::pair<std::uint64_t, std::uint64_t>, std::greater<>> residents;
    std::unordered_map<std::uint64_t, std::uint64_t> residentNext; // sample -> its key's next use
    std::uint64_t used = 0;
    std::uint64_t position = 0;
    for (std::size_t e = 0; e < string.epochs.size(); ++e)
        for (std::size_t k = 0; k < string.epochs[e].size(); ++k, ++position) {
            const std::uint64_t id = all[position];
            const auto it = residentNext.find(id);
            if (it != residentNext.end()) {
                ++r.hits;
                ++r.hitsPerEpoch[e];
                residents.erase({it->second, id});
                it->second = next[position];
                residents.insert({next[position], id});
                continue;
            }
            const std::uint64_t b = bytesOf(id);
            r.bytesFromStorage += b;
            if (b > capacityBytes) continue;
            while (used + b > capacityBytes) {
                const auto victim = *residents.begin();
                residents.erase(residents.begin());
                residentNext.erase(victim.second);
                used -= bytesOf(victim.second);
            }
            residents.insert({next[position], id});
            residentNext.emplace(id, next[position]);
            used += b;
        }
    return r;
}

CacheSimulation simulateLru(const AccessString& string, std::uint64_t capacityBytes, const SampleBytes& bytesOf) {
    CacheSimulation r = emptySimulation(string);
    std::list<std::uint64_t> order; // most recent first
    std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> where;
    std::uint64_t used = 0;
    for (std::size_t e = 0; e < string.epochs.size(); ++e)
        for (const std::uint64_t id : string.epochs[e]) {
            const auto it = where.find(id);
            if (it != where.end()) {
                ++r.hits;
                ++r.hitsPerEpoch[e];
                order.splice(order.begin(), order, it->second);
                continue;
            }
            const std::uint64_t b = bytesOf(id);
            r.bytesFromStorage += b;
            if (b > capacityBytes) continue;
            while (used + b > capacityBytes) {
                const std::uint64_t victim = order.back();
                order.pop_back();
                where.erase(victim);
                used -= bytesOf(victim);
            }
            order.push_front(id);
            where.emplace(id, order.begin());
            used += b;
        }
    return r;
}

CacheSimulation simulateStatic(const AccessString& string, const Placement& placement) {
    CacheSimulation r = emptySimulation(string);
    std::unordered_map<std::uint64_t, std::uint64_t> placedBytes;
    std::unordered_map<std::uint64_t, std::uint64_t> storageBytes;
    for (std::size_t i = 0; i < placement.ranking.size(); ++i)
        (placement.tier[i] != Tier::Storage ? placedBytes : storageBytes)[placement.ranking[i].sample] = placement.ranking[i].bytes;
    std::unordered_set<std::uint64_t> fetched;
    for (std::size_t e = 0; e < string.epochs.size(); ++e)
        for (const std::uint64_t id : string.epochs[e]) {
            const auto placed = placedBytes.find(id);
            if (placed != placedBytes.end()) {
                if (!fetched.insert(id).second) {
                    ++r.hits;
                    ++r.hitsPerEpoch[e];
                } else {
                    r.bytesFromStorage += placed->second;
                }
                continue;
            }
            const auto s = storageBytes.find(id);
            r.bytesFromStorage += s != storageBytes.end() ? s->second : 0;
        }
    return r;
}

} // namespace trainio::loader
