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
         ".hydra/config.yaml", ".hydra/overrides.yaml"]


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
for extra in sys.argv[1:]:
    body = folder(extra)
    write("fuzz_results", "seed-trainio-" + hashlib.sha1(body).hexdigest()[:8], body)

total = sum(f.stat().st_size for f in (here / "corpus").rglob("*") if f.is_file())
print(f"corpus: {total} bytes")
