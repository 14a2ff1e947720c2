#!/usr/bin/env bash
# The clairvoyant-loader demo (issue 13, docs/loader.md): the same data, the same emulated device of
# 100 MiB/s, three loader policies (plain; lru and nopfs with a RAM tier of half the dataset). Prints, per
# policy and epoch: epoch seconds, AU, hit ratio, Belady's bound for the same capacity, stall seconds and
# where the bytes came from. Usage: tests/bench/loader_demo.sh [trainio-cli] [work folder]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cli=${1:-$here/build/release/app/cli/trainio-cli}
work=${2:-$(mktemp -d)}
cfg=$here/docs/loader-demo/loader-demo.yaml
data="++workload.dataset.data_folder=$work/data"
"$cli" datagen --config "$cfg" "$data" --quiet
for policy in plain lru nopfs; do
    extra=()
    [ "$policy" != plain ] && extra=(++workload.trainio.ram_tier_mib=64)
    rm -rf "$work/$policy"
    "$cli" run --config "$cfg" "$data" ++workload.trainio.loader=$policy "${extra[@]}" --output "$work/$policy" --quiet >/dev/null
done
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
print(f"{'policy':7} {'epoch':>5} {'seconds':>8} {'AU %':>6} {'hit':>6} {'Belady':>6} {'stall s':>8} {'storage MiB':>11} {'RAM MiB':>8}")
for policy in ("plain", "lru", "nopfs"):
    d = f"{work}/{policy}"
    io = json.load(open(f"{d}/trainio_io.json"))
    stats = json.load(open(f"{d}/0_per_epoch_stats.json"))
    au = json.load(open(f"{d}/summary.json"))["metric"]["train_au_percentage"]
    for e in io["epochs"]:
        n = e["epoch"]
        t = e["bytes_per_tier"]
        print(f"{policy:7} {n:>5} {float(stats[str(n)]['duration']):>8.2f} {au[n-1]:>6.1f} {e['hit_ratio']:>6.3f} "
              f"{e['belady_hit_ratio']:>6.3f} {e['stall_seconds']:>8.3f} {t['storage']/2**20:>11.1f} {t['ram']/2**20:>8.1f}")
PY
