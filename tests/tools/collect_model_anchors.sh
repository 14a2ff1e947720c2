#!/usr/bin/env bash
# Regenerates the measured figures of tests/data/model_anchors.json (docs/model.md, "Anchors"): for every
# anchor (or those named), generates its dataset and runs it with the real trainio-cli on emulated storage,
# then writes train_au_mean_percentage and train_throughput_mean_samples_per_second of the run's summary.json
# into the anchor's "measured" object, with the per-epoch values, the load average before the run, the
# machine's CPU count and the commit. Also prints the model's prediction beside each (`trainio-cli model
# --other-cores` with the other processes' cores measured during the median run).
#
# Every anchor is run --repeat times (default 3, one dataset): "measured" is the run with the median AU,
# and "runs" keeps every run's figures. Other processes' CPU load changes what latency-bound runs measure
# (their readers wake late; docs/model.md): before each run the script waits (up to --quiet-wait seconds,
# default 600) until the other processes use less than 0.15 cores over 3 s, and it records the cores they
# used during the run ("others_cores") beside the load average.
#
# Usage: tests/tools/collect_model_anchors.sh [--cli PATH] [--work DIR] [--repeat K] [--quiet-wait S] [--keep] [NAME ...]
#   --cli   trainio-cli to use (default build/dev/app/cli/trainio-cli; prefer a quiet machine)
#   --work  where datasets and results go (default /tmp/trainio-anchors; deleted afterwards unless --keep)
set -euo pipefail

here="$(cd "$(dirname "$0")/../.." && pwd)"
cli="$here/build/dev/app/cli/trainio-cli"
work=/tmp/trainio-anchors
keep=0
repeat=3
quietwait=600
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cli) cli="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --repeat) repeat="$2"; shift 2 ;;
    --quiet-wait) quietwait="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) names+=("$1"); shift ;;
  esac
done
[ -x "$cli" ] || { echo "collect_model_anchors: $cli is not an executable (build trainio-cli first)" >&2; exit 2; }
anchors="$here/tests/data/model_anchors.json"
mkdir -p "$work"

python3 - "$cli" "$work" "$anchors" "$here" "$repeat" "$quietwait" "${names[@]}" <<'PY'
import json, os, resource, subprocess, sys, time
cli, work, path, root, repeat, quietwait = sys.argv[1:7]
repeat = max(1, int(repeat))
quietwait = float(quietwait)
only = set(sys.argv[7:])
hz = os.sysconf("SC_CLK_TCK")

def busy_jiffies():
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(f) - f[3] - f[4]  # all but idle and iowait

def wait_quiet():
    deadline = time.time() + quietwait
    while True:
        b0 = busy_jiffies(); time.sleep(3); cores = (busy_jiffies() - b0) / hz / 3
        if cores < 0.15 or time.time() > deadline:
            return round(cores, 3)

def timed_run(args):
    b0 = busy_jiffies(); t0 = time.time()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate()
    wall = time.time() - t0
    if p.returncode != 0:
        sys.exit("collect_model_anchors: %s failed (%d):\n%s" % (" ".join(args), p.returncode, err))
    return wall, (busy_jiffies() - b0) / hz
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
        idle_before = wait_quiet()
        load = os.getloadavg()[0]
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds, busy = timed_run([cli, "run", "--config", base, "--output", out, "--accelerators", str(a["accelerators"]), "--quiet"] + overrides)
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        own = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
        m = json.load(open(os.path.join(out, "summary.json")))["metric"]
        runs.append({
            "au_percentage": round(m["train_au_mean_percentage"], 3),
            "au_stdev_percentage": round(m["train_au_stdev_percentage"], 3),
            "au_per_epoch": [round(x, 3) for x in m["train_au_percentage"]],
            "samples_per_second": round(m["train_throughput_mean_samples_per_second"], 3),
            "samples_per_second_per_epoch": [round(x, 3) for x in m["train_throughput_samples_per_second"]],
            "run_seconds": round(seconds, 2),
            "load_average_before": round(load, 2),
            "others_cores_before": idle_before,
            "others_cores": round(max(0.0, busy - own) / seconds, 3),
        })
    median = sorted(runs, key=lambda r: r["au_percentage"])[len(runs) // 2]
    a["measured"] = dict(median)
    a["measured"].update({"rule": "the run with the median AU of %d" % len(runs), "cpus": os.cpu_count(),
                          "commit": commit, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    a["runs"] = runs
    load = median["load_average_before"]
    pred = json.loads(run([cli, "model", "--config", base, "--accelerators", str(a["accelerators"]), "--format", "json",
                           "--other-cores", str(median.get("others_cores", 0))] + overrides))
    print("%-34s measured AU %6.2f %% %9.1f samples/s | model AU %6.2f %% %9.1f samples/s (%s) | load %.2f"
          % (a["name"], a["measured"]["au_percentage"], a["measured"]["samples_per_second"],
             pred["predicted_au_percentage"], pred["predicted_samples_per_second"], pred["bottleneck"], load), flush=True)
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
PY
[ "$keep" = 1 ] || rm -rf "$work"
