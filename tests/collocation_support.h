// What the collocation suites check the same way in one process (tst_collocation) and under mpirun
// (tst_mpi_collocation), from the trainio_collocation.json the run wrote.
#pragma once

#include "testsupport.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <string>

namespace collocationtest {

// A training workload's YAML for the collocation suites: npz files of `recordKiB`, batch 2, 2 read threads.
inline std::string workloadYaml(const std::filesystem::path& data, int files, int recordKiB, int epochs, double compute) {
    return "model: {name: col}\nframework: pytorch\nworkflow: {generate_data: True, train: True}\n"
           "dataset: {data_folder: " + data.string() + ", format: npz, num_files_train: " + std::to_string(files) +
           ", num_samples_per_file: 1, record_length_bytes: " + std::to_string(recordKiB * 1024) +
           "}\nreader: {batch_size: 2, read_threads: 2, data_loader: pytorch}\ntrain: {epochs: " + std::to_string(epochs) +
           ", computation_time: " + std::to_string(compute) + "}\nmetric: {au: 0.5}\n";
}

// An invocation's read rate, as its summary.json says (DLIO's train_io_mean_MB_per_second).
inline double mibPerSecond(const std::filesystem::path& invocation) {
    return nlohmann::json::parse(testsupport::readText(invocation / "summary.json"))["metric"]["train_io_mean_MB_per_second"]
        .get<double>();
}

// `trainio-cli collocate --runs R --warmup 1` of two workloads a and b (b the slower) into `out`: it exited 0,
// each workload has `rounds` invocations and a benchmark file, every round started together (within 0.5 s),
// and a's round k+1 not before b's round k ended (50 ms of clock slack).
inline void checkRoundsStartTogether(const testsupport::CliResult& run, const std::filesystem::path& out, std::size_t rounds) {
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const auto c = nlohmann::json::parse(testsupport::readText(out / "trainio_collocation.json"));
    const nlohmann::json& ia = c["workloads"][0]["invocations"];
    const nlohmann::json& ib = c["workloads"][1]["invocations"];
    QCOMPARE(ia.size(), rounds);
    QCOMPARE(ib.size(), rounds);
    for (std::size_t k = 0; k < rounds; ++k) {
        if (k > 0) QVERIFY(ia[k]["start"].get<double>() >= ib[k - 1]["end"].get<double>() - 0.05);
        QVERIFY(std::abs(ia[k]["start"].get<double>() - ib[k]["start"].get<double>()) < 0.5);
    }
    for (const char* n : {"a", "b"}) QVERIFY(std::filesystem::exists(out / n / "trainio_benchmark.json"));
}

// trainio_collocation.json of a `collocate --alone` run into `out` that exited 0, with one interference entry per
// workload (`workloads`); its lost_most must name the entry with the most AU points lost, returned in lostMost.
inline void readInterference(const testsupport::CliResult& run, const std::filesystem::path& out, std::size_t workloads,
                             nlohmann::json& collocation, std::string& lostMost) {
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    collocation = nlohmann::json::parse(testsupport::readText(out / "trainio_collocation.json"));
    const nlohmann::json& list = collocation["interference"]["workloads"];
    QCOMPARE(list.size(), workloads);
    double most = -1;
    for (const auto& x : list)
        if (x["au_points_lost"].get<double>() > most) most = x["au_points_lost"].get<double>(), lostMost = x["name"].get<std::string>();
    QCOMPARE(collocation["interference"]["lost_most"].get<std::string>(), lostMost);
}

} // namespace collocationtest
