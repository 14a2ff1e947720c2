#!/usr/bin/env bash
# Regenerates the measured figures of tests/data/model_anchors.json (docs/model.md, "Anchors"): for every
# anchor (or those named), generates its dataset and runs it with the real trainio-cli on emulated storage,
# then writes train_au_mean_percentage and train_throughput_mean_samples_per_second of the run's summary.json
# into the anchor's "measured" object, with the per-epoch values, the load average before the run, the
# machine's CPU count and the commit. Also prints the model's prediction beside each (`trainio-cli model`).
#
# Every anchor is run --repeat times (default 3, one dataset): "measured" is the run with the median AU,
# and "runs" keeps every run's figures, so that a run disturbed by other load on the machine shows.
#
# Usage: tests/tools/collect_model_anchors.sh [--cli PATH] [--work DIR] [--repeat K] [--keep] [NAME ...]
#   --cli   trainio-cli to use (default build/dev/app/cli/trainio-cli; prefer a quiet machine)
#   --work  where datasets and results go (default /tmp/trainio-anchors; deleted afterwards unless --keep)
set -euo pipefail

here="$(cd "$(dirname "$0")/../.." && pwd)"
cli="$here/build/dev/app/cli/trainio-cli"
work=/tmp/trainio-anchors
keep=0
repeat=3
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cli) cli="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --repeat) repeat="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) names+=("$1"); shift ;;
  esac
done
[ -x "$cli" ] || { echo "collect_model_anchors: $cli is not an executable (build trainio-cli first)" >&2; exit 2; }
anchors="$here/tests/data/model_anchors.json"
mkdir -p "$work"

python3 - "$cli" "$work" "$anchors" "$here" "$repeat" "${names[@]}" <<'PY'
import json, os, subprocess, sys, time
cli, work, path, root, repeat = sys.argv[1:6]
repeat = max(1, int(repeat))
only = set(sys.argv[6:])
data = json.load(open(path))
base = os.path.join(os.path.dirname(path), data["base_config"])
commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()

def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("collect_model_anchors: %s failed (%d):\n%s" % (" ".join(args), r.returncode, r.stderr))
    return r.stdout

for a in data["anchors"]:
    if only and a["name"] not in only:
        continue
    folder = os.path.join(work, a["name"])
    overrides = a["overrides"] + ["++workload.dataset.data_folder=" + os.path.join(folder, "data")]
    run([cli, "datagen", "--config", base, "--quiet"] + overrides)
    runs = []
    for k in range(repeat):
        out = os.path.join(folder, "run-%d" % k)
        subprocess.run(["rm", "-rf", out])
        load = os.getloadavg()[0]
        t0 = time.time()
        run([cli, "run", "--config", base, "--output", out, "--accelerators", str(a["accelerators"]), "--quiet"] + overrides)
        seconds = time.time() - t0
        m = json.load(open(os.path.join(out, "summary.json")))["metric"]
        runs.append({
            "au_percentage": round(m["train_au_mean_percentage"], 3),
            "au_stdev_percentage": round(m["train_au_stdev_percentage"], 3),
            "au_per_epoch": [round(x, 3) for x in m["train_au_percentage"]],
            "samples_per_second": round(m["train_throughput_mean_samples_per_second"], 3),
            "samples_per_second_per_epoch": [round(x, 3) for x in m["train_throughput_samples_per_second"]],
            "run_seconds": round(seconds, 2),
            "load_average_before": round(load, 2),
        })
    median = sorted(runs, key=lambda r: r["au_percentage"])[len(runs) // 2]
    a["measured"] = dict(median)
    a["measured"].update({"rule": "the run with the median AU of %d" % len(runs), "cpus": os.cpu_count(),
                          "commit": commit, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    a["runs"] = runs
    load = median["load_average_before"]
    pred = json.loads(run([cli, "model", "--config", base, "--accelerators", str(a["accelerators"]), "--format", "json"] + overrides))
    print("%-34s measured AU %6.2f %% %9.1f samples/s | model AU %6.2f %% %9.1f samples/s (%s) | load %.2f"
          % (a["name"], a["measured"]["au_percentage"], a["measured"]["samples_per_second"],
             pred["predicted_au_percentage"], pred["predicted_samples_per_second"], pred["bottleneck"], load), flush=True)
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
PY
[ "$keep" = 1 ] || rm -rf "$work"
