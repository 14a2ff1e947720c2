#!/usr/bin/env python3
"""(Re)builds the seed corpora in tests/fuzz/corpus/<target>/ from the test fixtures (tests/data/).

Seeds are named seed-*; inputs that once crashed a target are named crash-* and are kept (they are
the regression tests). Run from anywhere: python3 tests/fuzz/make_seed_corpus.py [TRAINIO_RUN_DIR...]
Each extra argument is an invocation folder TrainIO wrote (trainio-cli run), added as a seed too.
"""
import hashlib
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
data = here.parent / "data"


def write(target, name, body):
    d = here / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(body)


def clear_seeds(target):
    d = here / "corpus" / target
    if d.exists():
        for f in d.glob("seed-*"):
            f.unlink()


# ---- fuzz_config: workload YAML/JSON, optionally followed by "==> overrides <==" and one per line.
clear_seeds("fuzz_config")
configs = sorted((data / "dlio-workloads-v1.0").glob("*.yaml")) + sorted((data / "configs").rglob("*.yaml")) + \
    sorted((data / "configs").glob("*.json")) + sorted((here.parent.parent / "resources" / "presets").glob("*.yaml"))
for p in configs:
    write("fuzz_config", "seed-" + p.parent.name + "-" + p.name, p.read_bytes())
unet = (data / "dlio-workloads-v1.0" / "unet3d_h100.yaml").read_bytes()
write("fuzz_config", "seed-overrides-unet3d", unet + b"==> overrides <==\n++workload.reader.read_threads=8\n"
      b"workload.dataset.num_files_train=400\n~workload.checkpoint\n+workload.train.computation_time.mean=0.3\n")
write("fuzz_config", "seed-overrides-distribution", unet + b"==> overrides <==\n"
      b"++workload.train.computation_time={type: normal, mean: 0.5, stdev: 0.1}\n++workload.reader.sample_shuffle=random\n")

# ---- fuzz_results: an invocation folder as "==> <name> <==" sections (fuzz_support.h).
clear_seeds("fuzz_results")
NAMES = ["summary.json", "0_output.json", "1_output.json", "0_per_epoch_stats.json", "1_per_epoch_stats.json",
         "per_epoch_stats.json", "trainio_run.json", "configs/config.yaml", "configs/overrides.yaml",
         ".hydra/config.yaml", ".hydra/overrides.yaml", "dlio_config/config.yaml", "dlio_config/overrides.yaml",
         "trainio_io.json", "trainio_model.json", "telemetry.json", "trainio_labels.json", "trainio_benchmark.json",
         "sweep.json", "mlperf_storage_report.json"]


def folder(path):
    path = pathlib.Path(path)
    out = b""
    for n in NAMES:
        f = path / n
        if f.is_file():
            out += b"==> " + n.encode() + b" <==\n" + f.read_bytes()
    return out


write("fuzz_results", "seed-dlio-unet3d_small_np2", folder(data / "dlio-runs" / "unet3d_small_np2"))
write("fuzz_results", "seed-dlio-unet3d_256_np1", folder(data / "dlio-runs" / "unet3d_256_np1"))
mlperf = data / "mlperf-storage-v1.0" / "Closed" / "HPE" / "results" / "Cray_C500_4xHDR200_1host"
write("fuzz_results", "seed-mlperf-unet3d-run1", folder(mlperf / "unet3d_h100" / "run-1"))
write("fuzz_results", "seed-mlperf-resnet50-run1", folder(mlperf / "resnet50_h100" / "run-1"))
# The store's other readers: one seed each, from the fixtures (systems files, metadata, a report).
def section(name, body):
    return b"==> " + name.encode() + b" <==\n" + body


v1 = data / "mlperf-storage-v1.0" / "Closed"
for sysfile in sorted(v1.glob("*/systems/*.json"))[:2]:
    write("fuzz_results", "seed-systems-" + sysfile.stem, section("systems/sys.json", sysfile.read_bytes()))
v3 = data / "mlperf-storage-v3.0" / "closed"
for sysfile in sorted(v3.glob("*/systems/*.yaml"))[:2]:
    write("fuzz_results", "seed-systems-" + sysfile.stem, section("systems/sys.yaml", sysfile.read_bytes()))
for meta in sorted(v3.rglob("*_metadata.json"))[:1]:
    run = meta.parent
    write("fuzz_results", "seed-v3-" + run.name, folder(run) + section("training_20250101_000000_metadata.json", meta.read_bytes()))
for rep in sorted(data.rglob("mlperf_storage_report.json"))[:1]:
    write("fuzz_results", "seed-mlperf-report", section("mlperf_storage_report.json", rep.read_bytes()))
write("fuzz_results", "seed-store-small-files",
      section("trainio_labels.json", b'{"system": "lab-01", "description": "ext4", "notes": "", "name": "x"}\n') +
      section("trainio_benchmark.json", b'{"format": "trainio-benchmark", "version": 1, "status": "running", '
              b'"planned_runs": 2, "warmups": ["warmup"], "runs": ["runs/run-1"]}\n') +
      section("sweep.json", b'{"max_passing_accelerators": 4, "complete": true, "trials": [{"accelerators": 4, '
              b'"au_mean_percentage": 91.0, "samples_per_second": null, "read_gib_per_second": 0.5, "passed": true, '
              b'"path": "trial-4-accelerators", "status": "complete"}]}\n') +
      section("trainio_io.json", b'{"engine": "posix", "cache": "drop", "loader": {"policy": "lru"}, "epochs": '
              b'[{"percent_from_cache": 1.5, "bytes_per_tier": {"storage": 10}}], "storage": {"profile": "nvme"}}\n') +
      section("trainio_model.json", b'{"predicted_au_percentage": 80, "max_passing_accelerators": 3}\n') +
      section("telemetry.json", b'{"format": "trainio-telemetry", "version": 1, "interval_s": 1, "notes": [], '
              b'"columns": [{"name": "time_s"}], "rows": [[0], [1]]}\n'))
for extra in sys.argv[1:]:
    body = folder(extra)
    write("fuzz_results", "seed-trainio-" + hashlib.sha1(body).hexdigest()[:8], body)

total = sum(f.stat().st_size for f in (here / "corpus").rglob("*") if f.is_file())
print(f"corpus: {total} bytes")
