#!/usr/bin/env bash
# What the capture interposer costs a training job (issue 24's target: < 5 % of the job's step time).
# The job (tests/tools/capture_job.py) reads 256 KiB npz files itself with np.load, 4 samples and ~52
# recorded calls a 4 ms step, so every recorded call is on the step's critical path: the worst case.
# Pairs run back to back, alternating: the job alone (trainio_capture on PYTHONPATH, no interposer) and
# the same job under `trainio-cli capture` (the user's path). Prints per pair and as medians:
#   CPU  — the job's added CPU time per step (process_time, the interposer's writer thread included) as a
#          share of the step time alone: an upper bound of the step-time overhead, which the machine's load
#          barely moves;
#   wall — the step time with vs without (moves with the machine's load far more than with the interposer).
# And the load average before the series. Not a ctest: a speed figure for the note, not a pass/fail.
#   bash tests/bench/capture_overhead.sh [-b BUILD_DIR] [-n PAIRS] [-d DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$(pwd)
build=build/ci
pairs=7
base=${TMPDIR:-/tmp}/trainio-capture-bench
while getopts "b:n:d:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    n) pairs=$OPTARG ;;
    d) base=$OPTARG ;;
    *) sed -n 2,12p "$0"; exit 2 ;;
  esac
done
cli=$build/app/cli/trainio-cli
[ -x "$cli" ] || { echo "capture_overhead: $cli not built" >&2; exit 2; }
python=/usr/bin/python3
"$python" -c "import numpy" 2>/dev/null || { echo "capture_overhead: python3-numpy is missing" >&2; exit 2; }
rm -rf "${base:?}"; mkdir -p "$base"
printf 'model: {name: capbench}\nframework: pytorch\nworkflow: {generate_data: true, train: false}\ndataset: {data_folder: %s/data, format: npz, num_files_train: 64, num_samples_per_file: 1, record_length_bytes: 262144}\n' \
  "$base" > "$base/gen.yaml"
"$cli" datagen --config "$base/gen.yaml" --quiet
job=("$python" "$src/tests/tools/capture_job.py" --data "$base/data/train" --loader python --read numpy --marker
     --batch 4 --epochs 3 --compute-ms 4)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
: > "$base/pairs.txt"
for i in $(seq 1 "$pairs"); do
  alone=$(PYTHONPATH="$src/resources/python" "${job[@]}")
  captured=$("$cli" capture --output "$base/trace-$i" -- "${job[@]}" 2>/dev/null)
  echo "$alone|$captured" >> "$base/pairs.txt"
done
"$python" - "$base/pairs.txt" <<'PY'
import json, statistics, sys
rows = []
for line in open(sys.argv[1]):
    a, c = (json.loads(x) for x in line.strip().split("|"))
    assert a["steps"] == c["steps"], (a, c)
    step = a["seconds"] / a["steps"]
    cpu = (c["cpu"] - a["cpu"]) / c["steps"] / step
    wall = c["seconds"] / a["seconds"] - 1
    rows.append((cpu, wall, step))
    print("pair %d: step %.2f ms alone; added CPU %+.2f %% of the step; wall %+.2f %%" % (len(rows), 1e3 * step, 100 * cpu, 100 * wall))
cpu = [r[0] for r in rows]; wall = [r[1] for r in rows]
print("interposer overhead: CPU %+.2f %% of the step time (median of %d pairs, %+.2f … %+.2f); wall %+.2f %% (median, %+.2f … %+.2f)"
      % (100 * statistics.median(cpu), len(rows), 100 * min(cpu), 100 * max(cpu), 100 * statistics.median(wall),
         100 * min(wall), 100 * max(wall)))
PY
