#!/usr/bin/env bash
# The collocation model against measured collocations (issue 23's target: predicted AU within ±5 points per
# workload). Two pairs on one emulated device each, none used to build the model: `trainio-cli collocate`
# measures, `trainio-cli model --plan` predicts. Measured AU of a workload = the mean of its epochs that lie
# wholly inside the window where every workload ran (the workloads end at different times; an epoch run
# alone is not collocated). Prints per workload: predicted, measured, difference; and the load average.
#   bash tests/bench/collocation_model.sh [-b BUILD_DIR] [-d DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build/ci
base=${TMPDIR:-/tmp}/trainio-colloc-bench
while getopts "b:d:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    d) base=$OPTARG ;;
    *) sed -n 2,8p "$0"; exit 2 ;;
  esac
done
cli=$build/app/cli/trainio-cli
[ -x "$cli" ] || { echo "collocation_model: $cli not built" >&2; exit 2; }
mkdir -p "$base"
workload() { # name files record_bytes batch threads epochs compute
  printf 'model: {name: %s}\nframework: pytorch\nworkflow: {generate_data: True, train: True}\ndataset: {data_folder: %s/data_%s, format: npz, num_files_train: %s, num_samples_per_file: 1, record_length_bytes: %s}\nreader: {batch_size: %s, read_threads: %s, data_loader: pytorch}\ntrain: {epochs: %s, computation_time: %s}\n' \
    "$1" "$base" "$1" "$2" "$3" "$4" "$5" "$6" "$7" > "$base/$1.yaml"
}
# Pair 1: a bandwidth-bound device with latency; 2 + 4 accelerators, different samples and compute.
workload c 64 2097152 2 2 4 0.03
workload d 128 524288 4 2 12 0.01
cat > "$base/pair1.yaml" <<YAML
workloads:
  - {name: c, config: c.yaml, accelerators: 2}
  - {name: d, config: d.yaml, accelerators: 4}
storage: {bandwidth_mib_s: 150, latency_ms: {type: constant, value: 1}}
YAML
# Pair 2: an IOPS-bound device; one workload with 4 readers per accelerator, one with 1.
workload e 64 1048576 2 4 3 0.02
workload f 128 262144 2 1 6 0.005
cat > "$base/pair2.yaml" <<YAML
workloads:
  - {name: e, config: e.yaml, accelerators: 1}
  - {name: f, config: f.yaml, accelerators: 2}
storage: {iops: 600}
YAML
for pair in pair1 pair2; do
  rm -rf "${base:?}/out-$pair"
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  "$cli" collocate --plan "$base/$pair.yaml" --output "$base/out-$pair" --quiet >/dev/null
  "$cli" model --plan "$base/$pair.yaml" --format json > "$base/$pair-model.json"
  python3 - "$base/out-$pair" "$base/$pair-model.json" "$pair" "$load" <<'PY'
import datetime, json, sys
out, model, pair, load = sys.argv[1:]
c = json.load(open(out + "/trainio_collocation.json"))
lo = max(w["start"] for w in c["workloads"]); hi = min(w["end"] for w in c["workloads"])
pred = {w["name"]: w for w in json.load(open(model))["workloads"]}
def ts(s):
    return datetime.datetime.fromisoformat(s).timestamp()
for w in c["workloads"]:
    au = json.load(open(out + "/" + w["path"] + "/summary.json"))["metric"]["train_au_percentage"]  # paths relative to DIR
    st = json.load(open(out + "/" + w["path"] + "/0_per_epoch_stats.json"))
    inside = [au[int(e) - 1] for e, v in st.items() if e.isdigit() and lo <= ts(v["start"]) and ts(v["end"]) <= hi]
    m = sum(inside) / len(inside) if inside else float("nan")
    p = pred[w["name"]]["collocated"]["predicted_au_percentage"]
    print("%-6s %-3s predicted %6.2f %%  measured %6.2f %% over %d collocated epoch(s)  diff %+6.2f  (alone predicted %6.2f, share %.2f)  load %s"
          % (pair, w["name"], p, m, len(inside), p - m, pred[w["name"]]["alone"]["predicted_au_percentage"], pred[w["name"]]["device_share"], load))
PY
done
