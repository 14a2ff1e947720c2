#include "model/pipeline_model.h"

#include "dataset/dataset_generator.h"
#include "loader/sample_order.h"
#include "io/storage_profile.h"
#include "loader/access_plan.h"
#include "metrics/dlio_metrics.h"
#include "util/errors.h"
#include "util/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <sstream>
#include <thread>

namespace trainio::model {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool wholeFileFormat(DataFormat f) {
    return f == DataFormat::Npz || f == DataFormat::Npy || f == DataFormat::Hdf5 || f == DataFormat::Jpeg ||
           f == DataFormat::Png;
}

double phi(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi); }
double bigPhi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// E[max of n independent standard normals], by integrating n·x·φ(x)·Φ(x)^(n−1) (trapezoid on [-8, 8]).
double expectedMaxStdNormal(std::uint64_t n) {
    if (n <= 1) return 0.0;
    const int steps = 4000;
    const double a = -8, b = 8, h = (b - a) / steps;
    double s = 0;
    for (int i = 0; i <= steps; ++i) {
        const double x = a + h * i;
        const double f = static_cast<double>(n) * x * phi(x) * std::pow(bigPhi(x), static_cast<double>(n - 1));
        s += (i == 0 || i == steps) ? f / 2 : f;
    }
    return s * h;
}

// The probe's aggregate bandwidth at `threads` readers: linear between measured points, the last
// point's value beyond it (a device does not get faster with more readers than were measured).
double curveAt(const std::vector<ProbePoint>& curve, double threads) {
    if (curve.empty()) return 0;
    if (threads <= curve.front().threads)
        return curve.front().bytesPerSecond * threads / std::max(1u, curve.front().threads);
    for (std::size_t i = 1; i < curve.size(); ++i) {
        if (threads <= curve[i].threads) {
            const auto& p = curve[i - 1];
            const auto& q = curve[i];
            const double f = (threads - p.threads) / static_cast<double>(q.threads - p.threads);
            return p.bytesPerSecond + f * (q.bytesPerSecond - p.bytesPerSecond);
        }
    }
    return curve.back().bytesPerSecond;
}

double peakOf(const std::vector<ProbePoint>& curve) {
    double m = 0;
    for (const auto& p : curve) m = std::max(m, p.bytesPerSecond);
    return m;
}

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

nlohmann::ordered_json numberOrNull(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); }

} // namespace

const char* toString(StorageSource s) {
    switch (s) {
    case StorageSource::Probe: return "probe";
    case StorageSource::StorageProfile: return "storage-profile";
    case StorageSource::ConfigStorage: return "config trainio.storage";
    }
    return "?";
}

double meanLatencySeconds(const LatencyDistribution& l) {
    switch (l.kind) {
    case LatencyKind::None: return 0;
    case LatencyKind::Constant: return l.centerMs / 1000.0;
    case LatencyKind::Exponential: return l.centerMs / 1000.0;
    case LatencyKind::Lognormal: return l.centerMs * std::exp(l.spread * l.spread / 2.0) / 1000.0;
    case LatencyKind::Normal: {
        // Draws below 0 are served as 0: E[max(0, X)] = μΦ(μ/σ) + σφ(μ/σ).
        if (l.spread <= 0) return std::max(0.0, l.centerMs) / 1000.0;
        const double z = l.centerMs / l.spread;
        return (l.centerMs * bigPhi(z) + l.spread * phi(z)) / 1000.0;
    }
    }
    return 0;
}

SampleFigures sampleFigures(const WorkloadConfig& cfg, std::uint64_t maxFiles) {
    SampleFigures s;
    const std::uint64_t files = cfg.dataset.numFilesTrain;
    if (files == 0) throw InputError(describeProblem("", "dataset.num_files_train", "0", "at least 1"));
    const std::uint64_t spf = std::max<std::uint64_t>(1, cfg.dataset.numSamplesPerFile);
    const double chunk = static_cast<double>(cfg.reader.transferSize > 0 ? cfg.reader.transferSize : 262144);
    const std::uint64_t m = std::min(files, std::max<std::uint64_t>(1, maxFiles));
    double sum = 0, sumSq = 0, req = 0;
    for (std::uint64_t k = 0; k < m; ++k) {
        const std::uint64_t i = k * files / m;
        const double size = static_cast<double>(expectedDatasetFileSize(cfg, Split::Train, i));
        sum += size;
        sumSq += size * size;
        // Whole-file formats: the file in transfer_size preads; record formats: each record in its own
        // preads (core/format/sample_reader.cpp).
        req += wholeFileFormat(cfg.dataset.format) ? std::ceil(size / chunk) / static_cast<double>(spf)
                                                   : std::ceil(size / static_cast<double>(spf) / chunk);
    }
    const double meanFile = sum / static_cast<double>(m);
    s.bytesPerSample = meanFile / static_cast<double>(spf);
    s.bytesStdev = std::sqrt(std::max(0.0, sumSq / static_cast<double>(m) - meanFile * meanFile));
    s.requestsPerSample = req / static_cast<double>(m);
    s.filesExamined = m;
    return s;
}

std::vector<double> loaderHitFractions(const WorkloadConfig& cfg, std::uint64_t accelerators) {
    const std::uint64_t epochs = std::max<std::uint64_t>(1, cfg.train.epochs);
    std::vector<double> h(epochs, 0.0);
    const auto& ld = cfg.trainio.loader;
    const bool lru = ld.policy == "lru", nopfs = ld.policy == "nopfs";
    const double ram = ld.ramTierMiB * kMiB, ssd = nopfs && !ld.ssdTier.path.empty() ? ld.ssdTier.capacityMiB * kMiB : 0.0;
    if ((!lru && !nopfs) || ram + ssd <= 0) return h;
    // The engine's own planning (loader/access_plan.h) on rank 0's access string: what the tiers will hit,
    // epoch by epoch (the ranks' shards are alike). The seed is train.seed (a "random" shuffle draws its own,
    // which changes which samples hit, not how many on average). A string longer than kMaxSimulated accesses
    // (the GUI asks at every edit) is simulated on a proxy: the dataset, the capacities and a fixed step count
    // scaled down alike, so that the tiers hold the same share of the shard (docs/model.md).
    constexpr double kMaxSimulated = 100000;
    const ShardPlan plan = planShard(cfg, 0, accelerators);
    const double accesses = static_cast<double>(plan.stepsPerEpoch) * static_cast<double>(std::max<std::uint64_t>(1, cfg.reader.batchSize)) *
                            static_cast<double>(epochs);
    WorkloadConfig proxy = cfg;
    double scale = 1.0;
    if (accesses > kMaxSimulated) {
        scale = kMaxSimulated / accesses;
        const auto shrink = [scale](std::uint64_t v) {
            return v == 0 ? v : std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(static_cast<double>(v) * scale)));
        };
        proxy.dataset.numFilesTrain = shrink(cfg.dataset.numFilesTrain);
        proxy.train.totalTrainingSteps = shrink(cfg.train.totalTrainingSteps);
    }
    const loader::AccessString s = loader::accessString(proxy, 0, accelerators, cfg.train.seed);
    const loader::SampleBytes bytesOf = [&proxy](std::uint64_t id) { return loader::sampleBytes(proxy, id); };
    const auto ramBytes = static_cast<std::uint64_t>(ram * scale), ssdBytes = static_cast<std::uint64_t>(ssd * scale);
    const loader::CacheSimulation sim =
        nopfs ? loader::simulateStatic(s, loader::placeSamples(loader::frequencyRanking(s, bytesOf), {ramBytes, ssdBytes}))
              : loader::simulateLru(s, ramBytes, bytesOf);
    for (std::size_t e = 0; e < h.size() && e < sim.accessesPerEpoch.size(); ++e)
        h[e] = sim.accessesPerEpoch[e] ? static_cast<double>(sim.hitsPerEpoch[e]) / static_cast<double>(sim.accessesPerEpoch[e]) : 0.0;
    return h;
}

Prediction predictAt(const WorkloadConfig& cfg, std::uint64_t accelerators, const StorageParameters& storage,
                     const SampleFigures& sample, const ModelConstants& k, MetricSemantics semantics) {
    if (cfg.reader.batchSize == 0) throw InputError(describeProblem("", "reader.batch_size", "0", "at least 1"));
    if (accelerators == 0) throw InputError(describeProblem("", "accelerators", "0", "at least 1"));
    Prediction p;
    const std::uint64_t R = accelerators;
    p.accelerators = R;
    p.stepsPerEpoch = planShard(cfg, 0, R).stepsPerEpoch; // throws InputError when the dataset gives no step
    const double B = static_cast<double>(cfg.reader.batchSize);
    const double T = static_cast<double>(std::max<std::uint64_t>(1, cfg.reader.readThreads));
    const std::uint64_t W = std::max<std::uint64_t>({cfg.reader.prefetchSize, cfg.reader.readThreads, 1});
    const double N = static_cast<double>(R) * T; // readers of all ranks share the device
    const double b = sample.bytesPerSample;
    const double n = std::max(1e-9, sample.requestsPerSample);
    const unsigned cores = k.cores > 0 ? k.cores : std::max(1u, std::thread::hardware_concurrency());

    // One epoch whose accesses hit the loader's tiers with fraction h (0: every sample from storage): the
    // storage-side roofs carry only the misses, a hit costs the copy out of the tier (docs/model.md).
    const auto epochAt = [&](double h, Prediction& q) -> EpochRankMetrics {
        const double miss = std::clamp(1.0 - h, 0.0, 1.0);
        // One reader, one sample, nothing queued (Z), and the client CPU per sample.
        const double copy = b * k.clientSecondsPerByte;
        double parse = k.clientSecondsPerSample;
        double copyPart = copy;
        if (storage.clientSecondsPerSample >= 0) { // measured by the probe: copy and parse together
            copyPart = 0;
            parse = storage.clientSecondsPerSample;
        }
        const double L = meanLatencySeconds(storage.shape.latency);
        const double x = copyPart / n;                // the real call of one request (page cache)
        // The emulated latency counts the real call (emulation only adds); a latency sleep ends late when other
        // processes keep the cores busy.
        const double busyShare = std::clamp(k.otherCores - (static_cast<double>(cores) - 1.0), 0.0, 1.0);
        const double wakeLate = L > 0 ? busyShare * k.busyWakeDelaySeconds : 0.0;
        const double perRequest = std::max(L, x) + wakeLate;
        const double spin = std::clamp(L - x, 0.0, k.latencySpinSeconds);
        q.meanLatencySeconds = L;
        // A hit is a copy out of the tier (RAM; the SSD tier taken as fast as RAM — docs/model.md).
        q.readerSecondsPerSample = miss * (n * perRequest + parse) + h * copy;
        q.clientSecondsPerSample = miss * (copyPart + parse + n * spin) + h * copy;

        // The roofs, samples/s over all ranks.
        std::vector<RoofLine> roofs;
        if (storage.fromProbe()) {
            const double bw = curveAt(storage.curve, N);
            // The curve holds the latency: below the peak the readers are too few (latency), at it the device.
            const bool saturated = bw >= 0.9 * peakOf(storage.curve);
            roofs.push_back({saturated ? "bandwidth" : "latency", bw > 0 && b > 0 && miss > 0 ? bw / (b * miss) : kInf});
        } else {
            roofs.push_back({"latency", q.readerSecondsPerSample > 0 ? N / q.readerSecondsPerSample : kInf});
            const double bw = storage.shape.bandwidthBytesPerSecond;
            roofs.push_back({"bandwidth", bw > 0 && b > 0 && miss > 0 ? bw / (b * miss) : kInf});
            roofs.push_back({"iops", storage.shape.iops > 0 && miss > 0 ? storage.shape.iops / (n * miss) : kInf});
            const double q = storage.shape.maxInflight;
            roofs.push_back({"inflight", q > 0 && q < N && miss > 0 ? q / (n * miss * (perRequest + k.inflightHandoffSeconds)) : kInf});
        }
        roofs.push_back({"client CPU", q.clientSecondsPerSample > 0 ? cores / q.clientSecondsPerSample : kInf});
        std::stable_sort(roofs.begin(), roofs.end(),
                         [](const RoofLine& a, const RoofLine& c) { return a.samplesPerSecond < c.samplesPerSecond; });
        const double rho = roofs.front().samplesPerSecond; // all ranks
        q.readerSamplesPerSecond = rho;

        // Compute per step: the drawn time's mean, the sleep's late wake-up; with several ranks and a spread
        // (normal), the barrier waits for the slowest draw: E[max of R] − mean.
        const ComputeTime& ct = cfg.train.computationTime;
        const double c = ct.expectedSeconds();
        q.computeSeconds = c + (c > 0 ? k.computeOverheadSeconds : 0.0);
        double barrierWait = k.barrierSecondsPerStep;
        if (ct.distribution == ComputeDistribution::Normal && ct.stdev > 0) barrierWait += ct.stdev * expectedMaxStdNormal(R);
        const double stepFloor = q.computeSeconds + k.loadOverheadSeconds + barrierWait;
        q.computeSamplesPerSecond = stepFloor > 0 ? static_cast<double>(R) * B / stepFloor : kInf;

        // The fluid simulation of one rank's epoch (the ranks are alike; the barrier keeps them in step).
        const double rankRate = rho / static_cast<double>(R);
        const double batchTime = std::isfinite(rankRate) && rankRate > 0 ? B / rankRate : 0.0;
        const double turn = std::isfinite(rankRate) && rankRate > 0 ? std::max(q.readerSecondsPerSample, T / rankRate)
                                                                    : q.readerSecondsPerSample;
        const double batchAlone = std::ceil(B / T) * turn; // a batch whose slot just freed: T readers on it
        const std::uint64_t S = q.stepsPerEpoch;
        std::vector<double> taken(S, 0.0); // when each batch was taken (frees its slot for batch + W)
        BlockRecord block;
        block.block = 1;
        block.start = 0;
        block.load.reserve(S);
        block.compute.reserve(S);
        block.proc.reserve(S);
        double t = 0, lastReady = 0;
        for (std::uint64_t s = 0; s < S; ++s) {
            const double slotFree = s < W ? 0.0 : taken[s - W];
            const double ready = std::max((s == 0 ? 0.0 : lastReady) + batchTime, slotFree + batchAlone);
            lastReady = ready;
            const double t0 = t;
            const double t1 = std::max(t0, ready) + k.loadOverheadSeconds;
            taken[s] = t1;
            const double t2 = t1 + q.computeSeconds;
            block.load.push_back(t1 - t0);
            block.compute.push_back(semantics == MetricSemantics::DlioV1 ? c : t2 - t1);
            block.proc.push_back(t2 - t0);
            t = t2 + barrierWait;
        }
        block.end = t;
        q.firstLoadSeconds = S > 0 ? block.load.front() : 0;
        q.steadyLoadSeconds = S > 0 ? block.load.back() : 0;
        q.epoch.epoch = 1;
        q.epoch.start = 0;
        q.epoch.end = t;
        q.epoch.complete = true;
        q.epoch.blocks.push_back(std::move(block));

        // The bottleneck: compute when the readers outrun the accelerators, else the lowest roof.
        q.bottleneck = rho >= q.computeSamplesPerSecond ? "compute" : roofs.front().name;
        roofs.insert(roofs.begin(), RoofLine{"compute", q.computeSamplesPerSecond});
        std::stable_sort(roofs.begin(), roofs.end(),
                         [](const RoofLine& a, const RoofLine& c2) { return a.samplesPerSecond < c2.samplesPerSecond; });
        q.roofs = std::move(roofs);
        MetricOptions mo;
        mo.semantics = semantics;
        mo.excludeStartSteps = cfg.metric.excludeStartSteps;
        mo.excludeEndSteps = cfg.metric.excludeEndSteps;
        mo.expectedSteps = S;
        mo.batchSize = cfg.reader.batchSize;
        return epochRankMetrics(q.epoch, mo);
    };

    // Every epoch (those with the same hit fraction alike), then DLIO's formulas over all of them; the
    // figures of the last epoch (the steady state) describe the prediction.
    const std::vector<double> hits = loaderHitFractions(cfg, R);
    std::vector<std::vector<EpochRankMetrics>> perEpoch;
    std::vector<std::pair<double, EpochRankMetrics>> seen;
    for (std::size_t e = 0; e < hits.size(); ++e) {
        const auto known = std::find_if(seen.begin(), seen.end(), [&](const auto& x) { return x.first == hits[e]; });
        Prediction q = p;
        const bool last = e + 1 == hits.size();
        if (known != seen.end() && !last) {
            perEpoch.emplace_back(R, known->second);
            continue;
        }
        const EpochRankMetrics erm = epochAt(hits[e], q);
        if (known == seen.end()) seen.emplace_back(hits[e], erm);
        perEpoch.emplace_back(R, erm);
        if (last) p = std::move(q);
    }
    p.loaderHitFraction = hits.back();
    const InvocationMetrics im = invocationMetrics(perEpoch, cfg.dataset.recordLength, cfg.metric.au);
    p.auPercent = im.auMean;
    p.samplesPerSecond = im.throughputMean;
    p.ioMiBPerSecond = im.ioMeanMiB;
    p.pass = im.pass;
    return p;
}

ModelResult runModel(const WorkloadConfig& cfg, std::uint64_t accelerators, const StorageParameters& storage,
                     const ModelConstants& constants, MetricSemantics semantics) {
    ModelResult r;
    r.storage = storage;
    r.constants = constants;
    r.semantics = semantics;
    r.auLinePercent = cfg.metric.au * 100.0;
    r.sample = sampleFigures(cfg);
    r.atAccelerators = predictAt(cfg, accelerators, storage, r.sample, constants, semantics);
    r.loaderPolicy = cfg.trainio.loader.policy;
    r.loaderHitFractions = loaderHitFractions(cfg, accelerators);

    // The largest count such that it and every smaller count pass (as the sweep assumes AU falls with the
    // count); the search stops where the dataset gives a rank no step.
    r.searchLimit = constants.maxAccelerators;
    for (std::uint64_t R = 1; R <= constants.maxAccelerators; ++R) {
        Prediction pr;
        try {
            pr = R == accelerators ? r.atAccelerators : predictAt(cfg, R, storage, r.sample, constants, semantics);
        } catch (const InputError&) {
            r.searchLimit = R - 1; // the dataset cannot feed R ranks
            break;
        }
        if (!pr.pass) break;
        r.maxPassingAccelerators = R;
    }
    r.maxLimitedBySearch = r.maxPassingAccelerators == r.searchLimit && r.searchLimit > 0;

    const double c = cfg.train.computationTime.expectedSeconds();
    const double perStep = static_cast<double>(cfg.reader.batchSize) * r.sample.bytesPerSample / kMiB;
    r.requiredMiBPerSecondPerAcceleratorFullAu = c > 0 ? perStep / c : kInf;
    r.requiredMiBPerSecondPerAccelerator = c > 0 ? cfg.metric.au * perStep / c : kInf;

    {
        MetricOptions mo;
        mo.semantics = semantics;
        mo.excludeStartSteps = cfg.metric.excludeStartSteps;
        mo.excludeEndSteps = cfg.metric.excludeEndSteps;
        mo.expectedSteps = r.atAccelerators.stepsPerEpoch;
        if (std::string w = metricWindowWarning(mo); !w.empty()) r.warnings.push_back(std::move(w));
    }
    auto& a = r.assumptions;
    a.push_back(storage.fromProbe()
                    ? "every epoch alike and every read from the device: a dataset that fits in RAM is read from the page cache after the first epoch, which the probe does not see"
                    : "every epoch alike: no page-cache effect (the emulated device shapes every read) and no first-epoch warm-up");
    if (constants.otherCores > 0)
        a.push_back("other processes keep " + fmt("%.2f", constants.otherCores) + " cores busy (--other-cores)");
    if (cfg.trainio.loader.policy == "plain")
        a.push_back("the plain loader: every sample from storage");
    else
        a.push_back("the " + cfg.trainio.loader.policy + " loader's hits per epoch from its own planning (loader/access_plan.h) on rank 0's "
                    "access string; a hit costs a copy out of RAM (an SSD-tier hit is taken as fast as RAM); nopfs' prefetchers "
                    "in epoch 1 are not modelled (epoch 1 is all misses)");
    a.push_back("reader roofs are bounds (min of latency, bandwidth, IOPS, in-flight, client CPU); near a knee the measured rate is lower");
    a.push_back("compute jitter only through the barrier's wait for the slowest of R normal draws");
    if (!storage.fromProbe() && storage.clientSecondsPerSample < 0)
        a.push_back("client cost per sample not measured: " + fmt("%.3g", constants.clientSecondsPerSample * 1e6) +
                    " us + bytes at " + fmt("%.3g", 1.0 / constants.clientSecondsPerByte / kMiB) + " MiB/s (docs/model.md)");
    if (cfg.trainio.ioEngine == "io_uring")
        a.push_back("io_engine io_uring hands whole samples to the device (one request per sample); the model counts transfer_size requests");
    if (cfg.workflow.checkpoint) a.push_back("checkpoints are not modelled (their writes and block splits)");
    return r;
}

nlohmann::ordered_json modelResultJson(const ModelResult& r) {
    const Prediction& p = r.atAccelerators;
    nlohmann::ordered_json j;
    j["predicted_au_percentage"] = p.auPercent;
    j["predicted_samples_per_second"] = p.samplesPerSecond;
    j["max_passing_accelerators"] = r.maxPassingAccelerators;
    j["required_mib_s_per_accelerator"] = numberOrNull(r.requiredMiBPerSecondPerAccelerator);
    j["required_mib_s_per_accelerator_full_au"] = numberOrNull(r.requiredMiBPerSecondPerAcceleratorFullAu);
    j["predicted_io_mib_per_second"] = p.ioMiBPerSecond;
    j["predicted_pass"] = p.pass;
    j["au_line_percentage"] = r.auLinePercent;
    j["accelerators"] = p.accelerators;
    j["max_passing_search_limit"] = r.searchLimit;
    j["max_passing_limited_by_search"] = r.maxLimitedBySearch;
    j["semantics"] = semanticsName(r.semantics);
    j["bottleneck"] = p.bottleneck;
    j["loader"] = r.loaderPolicy;
    j["loader_hit_fraction_per_epoch"] = r.loaderHitFractions;
    nlohmann::ordered_json roofs = nlohmann::ordered_json::object();
    for (const auto& roof : p.roofs) roofs[roof.name] = numberOrNull(roof.samplesPerSecond);
    j["roofs_samples_per_second"] = roofs;
    j["reader_samples_per_second"] = numberOrNull(p.readerSamplesPerSecond);
    j["compute_samples_per_second"] = numberOrNull(p.computeSamplesPerSecond);
    j["steps_per_epoch"] = p.stepsPerEpoch;
    j["predicted_step"] = {{"first_load_seconds", p.firstLoadSeconds},
                           {"steady_load_seconds", p.steadyLoadSeconds},
                           {"compute_seconds", p.computeSeconds},
                           {"reader_seconds_per_sample", p.readerSecondsPerSample},
                           {"client_cpu_seconds_per_sample", p.clientSecondsPerSample},
                           {"mean_request_latency_seconds", p.meanLatencySeconds}};
    j["sample"] = {{"bytes_per_sample", r.sample.bytesPerSample},
                   {"bytes_stdev_per_file", r.sample.bytesStdev},
                   {"requests_per_sample", r.sample.requestsPerSample},
                   {"files_examined", r.sample.filesExamined}};
    nlohmann::ordered_json st;
    st["source"] = toString(r.storage.source);
    st["origin"] = r.storage.origin;
    st["parameters"] = storageShapeJson(r.storage.shape);
    st["description"] = describeStorageShape(r.storage.shape);
    if (r.storage.fromProbe()) {
        nlohmann::ordered_json curve = nlohmann::ordered_json::array();
        for (const auto& pt : r.storage.curve)
            curve.push_back({{"threads", pt.threads},
                             {"mib_per_second", pt.bytesPerSecond / kMiB},
                             {"request_latency_ms", pt.requestLatencySeconds * 1000.0}});
        st["probe_curve"] = curve;
        st["client_cpu_seconds_per_sample"] = r.storage.clientSecondsPerSample;
    }
    j["storage"] = st;
    j["constants"] = {{"client_seconds_per_byte", r.constants.clientSecondsPerByte},
                      {"client_seconds_per_sample", r.constants.clientSecondsPerSample},
                      {"load_overhead_seconds", r.constants.loadOverheadSeconds},
                      {"compute_overhead_seconds", r.constants.computeOverheadSeconds},
                      {"barrier_seconds_per_step", r.constants.barrierSecondsPerStep},
                      {"latency_spin_seconds", r.constants.latencySpinSeconds},
                      {"inflight_handoff_seconds", r.constants.inflightHandoffSeconds},
                      {"other_cores", r.constants.otherCores},
                      {"busy_wake_delay_seconds", r.constants.busyWakeDelaySeconds},
                      {"cores", r.constants.cores > 0 ? r.constants.cores : std::max(1u, std::thread::hardware_concurrency())}};
    j["assumptions"] = r.assumptions;
    j["warnings"] = r.warnings;
    return j;
}

nlohmann::ordered_json predictionJson(const WorkloadConfig& cfg, std::uint64_t accelerators,
                                      const StorageParameters& storage, const ModelConstants& constants,
                                      MetricSemantics semantics) {
    return modelResultJson(runModel(cfg, accelerators, storage, constants, semantics));
}

std::string modelResultText(const ModelResult& r) {
    const Prediction& p = r.atAccelerators;
    std::ostringstream o;
    o << "Predicted at " << p.accelerators << " accelerator(s), " << p.stepsPerEpoch << " steps per epoch ("
      << semanticsName(r.semantics) << " metrics):\n";
    o << "  AU                 " << fmt("%.2f", p.auPercent) << " % (line " << fmt("%.1f", r.auLinePercent) << " %: "
      << (p.pass ? "pass" : "fail") << ")\n";
    o << "  samples/s          " << fmt("%.1f", p.samplesPerSecond) << " (" << fmt("%.1f", p.ioMiBPerSecond) << " MiB/s)\n";
    o << "  bottleneck         " << p.bottleneck << "\n";
    o << "  max accelerators   " << r.maxPassingAccelerators
      << (r.maxLimitedBySearch ? " (every count up to the search limit passed)" : "") << "\n";
    o << "  required per accelerator " << fmt("%.1f", r.requiredMiBPerSecondPerAccelerator) << " MiB/s at the AU line ("
      << fmt("%.1f", r.requiredMiBPerSecondPerAcceleratorFullAu) << " MiB/s for 100 %)\n";
    o << "  step               first load " << fmt("%.4f", p.firstLoadSeconds) << " s, steady load "
      << fmt("%.4f", p.steadyLoadSeconds) << " s, compute " << fmt("%.4f", p.computeSeconds) << " s\n";
    o << "  roofs (samples/s)  ";
    for (std::size_t i = 0; i < p.roofs.size(); ++i)
        o << (i ? ", " : "") << p.roofs[i].name << " "
          << (std::isfinite(p.roofs[i].samplesPerSecond) ? fmt("%.1f", p.roofs[i].samplesPerSecond) : "unlimited");
    o << "\n  storage            " << toString(r.storage.source) << (r.storage.origin.empty() ? "" : " ") << r.storage.origin << ": "
      << describeStorageShape(r.storage.shape) << "\n";
    o << "  sample             " << fmt("%.0f", r.sample.bytesPerSample) << " bytes, "
      << fmt("%.2f", r.sample.requestsPerSample) << " requests\n";
    o << "Assumptions:\n";
    for (const auto& a : r.assumptions) o << "  - " << a << "\n";
    if (!r.warnings.empty()) o << "Warnings:\n";
    for (const auto& w : r.warnings) o << "  - " << w << "\n";
    return o.str();
}

StorageParameters storageFromConfig(const WorkloadConfig& cfg) {
    const auto& s = cfg.trainio.storage;
    if (!s.any())
        throw InputError("no storage to model: give --probe DIR (measure the data folder), --storage-profile NAME|FILE, "
                         "or trainio.storage keys in the workload (profile, bandwidth_mib_s, latency_ms, iops, max_inflight)");
    StorageParameters p;
    p.source = StorageSource::ConfigStorage;
    p.origin = s.profile.empty() ? "" : "profile " + s.profile;
    p.shape = storageShapeFor(s);
    return p;
}

StorageParameters storageFromProfile(const WorkloadConfig& cfg, const std::string& profile) {
    StorageEmulationSection s = cfg.trainio.storage;
    s.profile = profile;
    StorageParameters p;
    p.source = StorageSource::StorageProfile;
    p.origin = profile;
    p.shape = storageShapeFor(s);
    return p;
}

} // namespace trainio::model
