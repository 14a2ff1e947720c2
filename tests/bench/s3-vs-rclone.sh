#!/usr/bin/env bash
# S3 GET throughput on loopback: TrainIO's run against rclone (Debian's, S3 backend) reading the same
# objects with the same concurrency from the test server (tests/tools/s3-server.sh). docs/s3.md.
#
#   bash tests/bench/s3-vs-rclone.sh [BUILD_DIR]     (default build/ci; needs rclone, the server's packages)
# Environment: FILES (16), MIB per object (32), READERS (concurrency: TrainIO's read_threads and rclone's
# --transfers, 4), TRANSFER (reader.transfer_size bytes, 4194304), DEPTH (trainio.io_depth, 1).
# TrainIO reads through its real run (npz samples parsed, computation_time 0); its figure is the bytes
# delivered over the epoch's span from trainio_io.json / summary.json. rclone copies the objects to a
# tmpfs folder (/dev/shm), its figure is bytes over wall time of the copy (its start and listing included).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/ci}
files=${FILES:-16} mib=${MIB:-32} readers=${READERS:-4} transfer=${TRANSFER:-4194304} depth=${DEPTH:-1}
command -v rclone >/dev/null || { echo "rclone is not installed (apt-get install rclone)" >&2; exit 1; }
eval "$(TRAINIO_S3_MEM_MIB=${TRAINIO_S3_MEM_MIB:-3072} bash tests/tools/s3-server.sh start | sed 's/^/export /')"
bucket=trainio-bench
curl -s -o /dev/null -X PUT -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" --aws-sigv4 "aws:amz:us-east-1:s3" \
    --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" "$TRAINIO_S3_ENDPOINT/$bucket"
work=$(mktemp -d /dev/shm/trainio-s3-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat > "$work/bench.yaml" <<YAML
model: {name: s3bench, type: cnn}
framework: pytorch
workflow: {generate_data: False, train: True}
dataset: {data_folder: s3://$bucket/bench, format: npz, num_files_train: $files, num_samples_per_file: 1,
          record_length_bytes: $((mib * 1048576)), record_length_bytes_stdev: 0}
storage:
  storage_type: s3
  storage_root: $bucket
  storage_options: {endpoint_url: $TRAINIO_S3_ENDPOINT, region: us-east-1, s3_force_path_style: True}
reader: {data_loader: pytorch, batch_size: 1, read_threads: $readers, transfer_size: $transfer,
         file_shuffle: seed, sample_shuffle: seed}
trainio: {io_depth: $depth}
train: {epochs: 1, computation_time: 0}
metric: {au: 0.5}
YAML
"$build/app/cli/trainio-cli" datagen --config "$work/bench.yaml" --quiet
"$build/app/cli/trainio-cli" run --config "$work/bench.yaml" --output "$work/run" >"$work/run.log" 2>&1 ||
    { cat "$work/run.log" >&2; exit 1; }
trainio=$(python3 - "$work/run" <<'PY'
import json, sys, glob
d = sys.argv[1]
io = json.load(open(d + "/trainio_io.json"))
ep = io["s3"]["epochs"][0]
s = json.load(open(d + "/summary.json"))
# The epoch's span as the run measured it (DLIO's summary: the epoch's start and end).
import datetime
m = s["metric"] if "metric" in s else {}
secs = None
for k in ("epoch_durations", "train_epoch_durations"):
    if k in m: secs = m[k][0]
if secs is None:
    st = datetime.datetime.fromisoformat(s["start"]); en = datetime.datetime.fromisoformat(s["end"])
    secs = (en - st).total_seconds()
print("%.1f %d %.3f %.2f %.2f" % (ep["bytes_delivered"] / secs / 1048576, ep["bytes_delivered"], secs,
      ep["get_first_byte_ms"]["p50"], ep["get_request_ms"]["p50"]))
PY
)
conf="$work/rclone.conf"
cat > "$conf" <<RC
[bench]
type = s3
provider = Ceph
access_key_id = $AWS_ACCESS_KEY_ID
secret_access_key = $AWS_SECRET_ACCESS_KEY
endpoint = $TRAINIO_S3_ENDPOINT
force_path_style = true
RC
start=$(date +%s.%N)
# (AWS_CA_BUNDLE, if set for the machine's HTTPS, makes rclone 1.60 refuse an http:// endpoint.)
env -u AWS_CA_BUNDLE rclone --config "$conf" copy "bench:$bucket/bench/train" "$work/rclone" --transfers "$readers" --checkers "$readers" \
    --multi-thread-streams 0
end=$(date +%s.%N)
bytes=$(du -sb "$work/rclone" | cut -f1)
rclone_mibs=$(python3 -c "print('%.1f' % ($bytes / ($end - $start) / 1048576))")
read -r t_mibs t_bytes t_secs t_fb t_req <<<"$trainio"
echo "objects: $files x $mib MiB, concurrency $readers, transfer_size $transfer, io_depth $depth"
echo "trainio: $t_mibs MiB/s ($t_bytes bytes in $t_secs s; GET first byte p50 $t_fb ms, request p50 $t_req ms)"
echo "rclone:  $rclone_mibs MiB/s ($bytes bytes in $(python3 -c "print('%.3f' % ($end - $start))") s)"
python3 -c "print('ratio trainio/rclone: %.2f' % ($t_mibs / $rclone_mibs))"
