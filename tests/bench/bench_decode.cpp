// Client CPU cost of reading images as DLIO's reader does (a full decode, as PIL's np.asarray): decode
// MB/s and samples/s on one core for retinanet-sized images (record_length_bytes 322957 →
// int(sqrt(322957)) = 568 x 568 greyscale, MLPerf Storage's retinanet), jpeg and png. The files come
// from TrainIO's generator into a temporary folder and are read through the sample reader from the
// page cache (second pass), so the figures are decode cost, not storage. This cost is what limits
// retinanet clients (mlcommons/storage#490).
// Usage: bench_decode [SECONDS per format, default 3]
#include "dataset/record_shape.h"
#include "format/format_writer.h"
#include "format/sample_reader.h"
#include "io/io_backend.h"
#include "util/errors.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace trainio;

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
    try {
        DatasetSection ds;
        ds.recordLength = 322957; // configs/dlio/workload/retinanet_*.yaml (mlcommons/storage)
        const std::uint64_t d = meanDimension(ds);
        const fs::path dir = fs::temp_directory_path() / ("bench_decode-" + std::to_string(::getpid()));
        fs::create_directories(dir);
        auto io = makePosixBackend();
        std::printf("retinanet-sized images: %llu x %llu greyscale (%llu pixel bytes), one core\n",
                    static_cast<unsigned long long>(d), static_cast<unsigned long long>(d),
                    static_cast<unsigned long long>(d * d));
        for (DataFormat f : {DataFormat::Jpeg, DataFormat::Png}) {
            constexpr int kFiles = 32;
            std::vector<std::string> paths;
            std::uint64_t fileBytes = 0;
            for (int i = 0; i < kFiles; ++i) {
                DataFileSpec s;
                s.format = f;
                s.d1 = s.d2 = d;
                s.contentSeed = 1000 + static_cast<std::uint64_t>(i);
                paths.push_back((dir / ("img_" + std::to_string(i) + "." + toString(f))).string());
                writeDataFile(*io, s, paths.back(), WriteControl{});
                fileBytes += fs::file_size(paths.back());
            }
            for (const bool decode : {true, false}) {
                SampleReaderOptions o;
                o.decodeSamples = decode;
                auto reader = makeSampleReader(f, *io, o);
                for (const auto& p : paths) reader->read(p, 0); // warm the page cache
                std::uint64_t samples = 0, stored = 0, decoded = 0;
                const auto t0 = std::chrono::steady_clock::now();
                double elapsed = 0;
                while (elapsed < seconds) {
                    for (const auto& p : paths) {
                        reader->reset();
                        const auto r = reader->read(p, 0);
                        stored += r.bytesFromStorage;
                        decoded += r.sampleBytes;
                        ++samples;
                    }
                    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                }
                std::printf("%-4s %-13s %8.1f samples/s  %7.1f MB/s of files  %7.1f MB/s decoded  (%.0f bytes/file)\n",
                            toString(f), decode ? "full decode" : "read only", samples / elapsed, stored / elapsed / 1e6,
                            decode ? decoded / elapsed / 1e6 : 0.0, static_cast<double>(fileBytes) / kFiles);
            }
        }
        fs::remove_all(dir);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    return 0;
}
