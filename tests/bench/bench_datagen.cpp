// Dataset generation speed (moved out of tst_dataset, where it was a test that always skipped):
// writes 16 files of 64 MiB per format with 2 threads into DIR, prints MB/s, then removes them.
// Usage: bench_datagen DIR
#include "dataset/dataset_generator.h"
#include "util/errors.h"

#include <cstdio>
#include <exception>
#include <filesystem>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_datagen DIR (a folder on the storage to measure)\n");
        return 2;
    }
    try {
        for (trainio::DataFormat f : {trainio::DataFormat::Npz, trainio::DataFormat::Tfrecord}) {
            trainio::WorkloadConfig cfg;
            cfg.dataset.dataFolder = (std::filesystem::path(argv[1]) / trainio::toString(f)).string();
            cfg.dataset.format = f;
            cfg.dataset.numFilesTrain = 16;
            cfg.dataset.numFilesEval = 0;
            cfg.dataset.numSamplesPerFile = 1;
            cfg.dataset.recordLength = 64.0 * 1024 * 1024;
            cfg.dataset.recordLengthStdev = 0;
            trainio::GenerateOptions opts;
            opts.threads = 2;
            const auto r = trainio::generateDataset(cfg, opts);
            std::printf("%s: %.1f MB in %.2f s = %.0f MB/s (2 threads)\n", trainio::toString(f), r.bytesWritten / 1e6,
                        r.seconds, r.bytesWritten / 1e6 / r.seconds);
            trainio::cleanDataset(cfg);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    return 0;
}
