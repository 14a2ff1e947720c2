#!/usr/bin/env bash
# MPI parity (issue 19): the AU of `mpirun -np P trainio-cli run --accelerators-per-process K` against the
# same P·K accelerators as threads of one process, on CosmoFlow's step (batch 1, 3.5 ms compute, one
# 2,828,486-byte sample per npz file, 4 read threads), page-cached. Target: within 1 AU point (median of
# alternating pairs), P ≤ cores. Measured, not asserted; run by hand:
#
#   bash tests/bench/mpi_parity.sh [-b BUILD_DIR] [-d DATA_DIR] [-f FILES] [-e EPOCHS] [-n PAIRS]
#                                   [-p "1x4 2x2"] [-l]      # -l: both sides with --live-json (the MPI relay)
#
# Each pair runs the two sides back to back, the order alternating from pair to pair, so that a drift in
# the machine's load falls on both alike. Prints every pair with the load average before it, then the
# medians and their difference per P×K.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build/release
data=${TMPDIR:-/tmp}/trainio-bench/cosmoflow-mpi
files=1024
epochs=3
pairs=3
shapes="1x4 2x2"
live=0
while getopts "b:d:f:e:n:p:l" opt; do
  case $opt in
    b) build=$OPTARG ;;
    d) data=$OPTARG ;;
    f) files=$OPTARG ;;
    e) epochs=$OPTARG ;;
    n) pairs=$OPTARG ;;
    p) shapes=$OPTARG ;;
    l) live=1 ;;
    *) sed -n 2,12p "$0"; exit 2 ;;
  esac
done
cli=$build/app/cli/trainio-cli
[ -x "$cli" ] || { echo "mpi_parity: $cli not built (cmake --build --preset release --target trainio-cli)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "mpi_parity: mpirun not found (openmpi-bin)" >&2; exit 2; }

work=$(mktemp -d -t trainio-mpi-parity-XXXXXX)
trap 'rm -rf "$work"' EXIT
yaml=$work/cosmoflow_step.yaml
cat >"$yaml" <<EOF
model: cosmoflow
framework: tensorflow
workflow:
  generate_data: False
  train: True
dataset:
  data_folder: $data
  format: npz
  num_files_train: $files
  num_samples_per_file: 1
  record_length_bytes: 2828486
reader:
  data_loader: tensorflow
  batch_size: 1
  read_threads: 4
  file_shuffle: seed
  sample_shuffle: seed
train:
  epochs: $epochs
  computation_time: 0.0035
EOF

"$cli" datagen --config "$yaml" --quiet 2>>"$work/log"
# One untimed pass with no compute, so that every file is in the page cache.
"$cli" run --config "$yaml" ++workload.train.epochs=1 ++workload.train.computation_time=0 --output "$work/warm" --quiet >/dev/null 2>>"$work/log"

au() { python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["metric"]["train_au_mean_percentage"])' "$1/summary.json"; }
median() { python3 -c 'import statistics,sys; print("%.2f" % statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

echo "MPI parity: CosmoFlow step, $files page-cached files in $data, $epochs epochs, $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))"
[ "$live" = 1 ] && echo "both sides with --live-json (process 0 relays every rank's steps)"
printf '%-6s %-5s %-8s %9s %9s   %s\n' "P×K" "pair" "order" "threads" "mpirun" "loadavg before"
for shape in $shapes; do
  P=${shape%x*}
  K=${shape#*x}
  R=$((P * K))
  t_all=()
  m_all=()
  for i in $(seq 1 "$pairs"); do
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    extra_t=()
    extra_m=()
    if [ "$live" = 1 ]; then extra_t=(--live-json "$work/t$i.jsonl"); extra_m=(--live-json "$work/m$i.jsonl"); fi
    run_threads() { "$cli" run --config "$yaml" --accelerators "$R" --output "$work/t_${shape}_$i" --quiet "${extra_t[@]}" >/dev/null 2>>"$work/log"; }
    run_mpi() {
      mpirun --allow-run-as-root --oversubscribe -np "$P" "$cli" run --config "$yaml" --accelerators-per-process "$K" \
        --output "$work/m_${shape}_$i" --quiet "${extra_m[@]}" >/dev/null 2>>"$work/log"
    }
    if [ $((i % 2)) = 1 ]; then order="t,m"; run_threads; run_mpi; else order="m,t"; run_mpi; run_threads; fi
    t=$(au "$work/t_${shape}_$i")
    m=$(au "$work/m_${shape}_$i")
    t_all+=("$t")
    m_all+=("$m")
    printf '%-6s %-5s %-8s %9s %9s   %s\n' "${P}x${K}" "$i" "$order" "$t" "$m" "$load"
  done
  tm=$(median "${t_all[@]}")
  mm=$(median "${m_all[@]}")
  printf '%-6s median: threads %s %%, mpirun %s %%, difference %s points\n' "${P}x${K}" "$tm" "$mm" \
    "$(python3 -c "print('%.2f' % ($mm - $tm))")"
done
echo "(dataset kept: $data; remove with: $cli clean --config $yaml)"
