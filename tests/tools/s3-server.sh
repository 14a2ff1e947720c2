#!/usr/bin/env bash
# A real S3 server on loopback for the tests: a one-node Ceph cluster from Debian 12 (ceph-mon, one
# memstore ceph-osd, radosgw with the beast frontend), run as the current user from one state folder, no
# systemd, no cephx (the cluster's daemons trust each other on 127.0.0.1; S3 clients are still checked:
# radosgw verifies every request's SigV4 signature against the user's secret, so a wrong secret fails).
#
#   s3-server.sh start   starts what is not running (idempotent), waits until S3 answers a signed request,
#                        creates the test user and prints the environment (as `env`)
#   s3-server.sh env     prints TRAINIO_S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION
#                        (exit 1 when the server is not answering)
#   s3-server.sh stop    stops the daemons and removes the state folder
#   s3-server.sh status  exit 0 when S3 answers
#
# Environment: TRAINIO_S3_DIR (state, default /tmp/trainio-s3-$UID), TRAINIO_S3_PORT (rgw, default 7481),
# TRAINIO_S3_MON_PORT (default 6791), TRAINIO_S3_MEM_MIB (the memstore OSD's size, default 2048),
# TRAINIO_S3_START_S (start's whole time bound, default 150 s: every step and every ceph command is bounded
# by the clock, so start never hangs; on failure it names the step and prints the tail of every daemon log).
# Packages: radosgw ceph-mon ceph-osd curl (packaging/setup-debian.sh --tests). docs/s3.md.
set -euo pipefail

dir=${TRAINIO_S3_DIR:-/tmp/trainio-s3-$(id -u)}
port=${TRAINIO_S3_PORT:-7481}
mon_port=${TRAINIO_S3_MON_PORT:-6791}
mem_mib=${TRAINIO_S3_MEM_MIB:-2048}
endpoint="http://127.0.0.1:${port}"
region=us-east-1
# Test-only credentials of a server that listens on 127.0.0.1 only.
access_key=TRAINIOTESTACCESSKEY0
secret_key=trainio-test-secret-0123456789abcdefABCD
conf="$dir/ceph.conf"

start_bound=${TRAINIO_S3_START_S:-150}
deadline=$((SECONDS + start_bound))
step="setting up"

die() {
    echo "s3-server: $* (step: $step, after ${SECONDS}s)" >&2
    local f
    for f in "$dir"/log/*.log; do
        [ -s "$f" ] || continue
        echo "--- tail of $f" >&2
        tail -n 12 "$f" >&2
    done
    exit 1
}

# Every cluster command is bounded: a client that cannot reach the monitor would otherwise wait for ever.
cephc() { timeout 20 ceph -c "$conf" --connect-timeout 5 "$@"; }
rgwadmin() { timeout 60 radosgw-admin -c "$conf" "$@"; }

print_env() {
    echo "TRAINIO_S3_ENDPOINT=$endpoint"
    echo "AWS_ACCESS_KEY_ID=$access_key"
    echo "AWS_SECRET_ACCESS_KEY=$secret_key"
    echo "AWS_REGION=$region"
}

# A signed ListBuckets (curl 7.88 signs but does not add x-amz-content-sha256, which rgw requires): 200 only when rgw is up and the user exists with this secret.
answers() {
    local code
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" --aws-sigv4 "aws:amz:${region}:s3" \
        --user "${access_key}:${secret_key}" "$endpoint/" 2>/dev/null) || return 1
    [ "$code" = 200 ]
}

alive() { [ -f "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }
# A daemon that wrote its pid file and is gone (before it writes one, it is still starting).
died() { [ -f "$dir/$1.pid" ] && ! kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }

write_conf() {
    cat > "$conf" <<EOF
[global]
fsid = $(cat "$dir/fsid")
mon host = [v1:127.0.0.1:${mon_port}]
auth cluster required = none
auth service required = none
auth client required = none
run dir = $dir/run
log file = $dir/log/\$name.log
admin socket = $dir/run/\$name.asok
pid file = $dir/\$name.pid
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon max pg per osd = 1000
osd crush chooseleaf type = 0
mon warn on pool no redundancy = false
ms bind ipv6 = false
[mon]
mon data = $dir/mon
[osd]
osd data = $dir/osd
osd objectstore = memstore
memstore device bytes = $((mem_mib * 1024 * 1024))
osd max object name len = 460
osd max object namespace len = 64
[client.admin]
client mount timeout = 10
rados mon op timeout = 20
rados osd op timeout = 30
[client.rgw.trainio]
rgw frontends = beast endpoint=127.0.0.1:${port}
rgw data = $dir/rgw
rgw dns name = localhost
rgw thread pool size = 64
# A deleted object's data (its tail beyond the first 4 MiB, multipart parts) is freed by rgw's garbage
# collector, by default 2 hours later: the suites and the benchmark write and delete hundreds of MiB, so
# the memory store would fill (a full OSD blocks every write). Collected within seconds instead.
rgw gc obj min wait = 0
rgw gc processor period = 5
rgw gc processor max time = 5
EOF
}

# Waits by the clock (a try of a python-based ceph command can itself take seconds on a loaded machine),
# never past start's whole bound, and gives up at once when the daemon it waits for has died.
wait_for() { # seconds, description, daemon (pid file name, or -), command...
    local t=$1 what=$2 daemon=$3; shift 3
    step="waiting for $what"
    local until=$((SECONDS + t))
    [ "$until" -gt "$deadline" ] && until=$deadline
    while [ "$SECONDS" -lt "$until" ]; do
        if "$@"; then return 0; fi
        if [ "$daemon" != - ] && died "$daemon"; then die "$daemon exited while starting"; fi
        sleep 0.2
    done
    die "$what did not come up within ${t}s (start's bound ${start_bound}s; logs in $dir/log)"
}

start() {
    for b in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph curl flock; do
        command -v "$b" >/dev/null || die "missing $b: install radosgw ceph-mon ceph-osd curl (bash packaging/setup-debian.sh --tests)"
    done
    if answers; then print_env; return 0; fi
    # One start at a time: suites that find no server start it together (ctest -j), and two clusters in one
    # state folder collide (the second monitor's admin socket: "File exists"). The later start waits, then
    # finds the server answering.
    step="waiting for another start to finish"
    exec 9>"${dir}.lock"
    flock -w "$start_bound" 9 || die "another s3-server.sh start held ${dir}.lock for ${start_bound}s"
    if answers; then print_env; return 0; fi
    mkdir -p "$dir/run" "$dir/log" "$dir/rgw"
    [ -f "$dir/fsid" ] || cat /proc/sys/kernel/random/uuid > "$dir/fsid"
    write_conf
    if [ ! -f "$dir/mon/done" ]; then
        rm -rf "$dir/mon"
        monmaptool --create --clobber --fsid "$(cat "$dir/fsid")" --addv a "[v1:127.0.0.1:${mon_port}]" \
            "$dir/monmap" >/dev/null
        step="ceph-mon --mkfs"
        timeout 60 ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" >"$dir/log/mkfs.log" 2>&1 \
            || die "ceph-mon --mkfs failed"
        [ -d "$dir/mon" ] || die "ceph-mon --mkfs made no $dir/mon"
        touch "$dir/mon/done"
    fi
    step="starting ceph-mon"
    alive mon.a || timeout 30 ceph-mon -c "$conf" -i a 2>>"$dir/log/start.log" 9>&- || die "ceph-mon did not start"
    wait_for 40 "ceph-mon" mon.a eval 'cephc mon stat >/dev/null 2>&1'
    # memstore keeps the objects in the OSD's memory: a restarted OSD starts empty, so it is made anew.
    if ! alive osd.0; then
        step="creating osd.0"
        cephc osd ls 2>/dev/null | grep -qx 0 || cephc osd create >/dev/null || die "ceph osd create failed"
        rm -rf "$dir/osd"; mkdir -p "$dir/osd"
        timeout 60 ceph-osd -c "$conf" -i 0 --mkfs >"$dir/log/osd-mkfs.log" 2>&1 || die "ceph-osd --mkfs failed"
        cephc osd crush add osd.0 1.0 host=localhost root=default >/dev/null 2>&1 || true
        step="starting ceph-osd"
        timeout 30 ceph-osd -c "$conf" -i 0 2>>"$dir/log/start.log" 9>&- || die "ceph-osd did not start"
    fi
    wait_for 40 "ceph-osd" osd.0 eval 'cephc osd stat 2>/dev/null | grep -q "1 up"'
    step="starting radosgw"
    alive client.rgw.trainio || timeout 30 radosgw -c "$conf" -n client.rgw.trainio 2>>"$dir/log/start.log" 9>&- \
        || die "radosgw did not start"
    step="looking up the test user"
    if ! rgwadmin user info --uid=trainio >/dev/null 2>&1; then
        # rgw creates its pools on its first start: the user can be written once they exist.
        wait_for 60 "radosgw's pools" client.rgw.trainio eval 'cephc osd pool ls 2>/dev/null | grep -q "\.rgw\.meta"'
        step="creating the test user"
        rgwadmin user create --uid=trainio --display-name="TrainIO tests" \
            --access-key="$access_key" --secret-key="$secret_key" >/dev/null || die "radosgw-admin user create failed"
    fi
    wait_for 60 "radosgw (S3 on $endpoint)" client.rgw.trainio answers
    print_env
}

stop() {
    local n p
    for n in client.rgw.trainio osd.0 mon.a; do
        if alive "$n"; then
            p=$(cat "$dir/$n.pid")
            kill "$p" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$p" 2>/dev/null || true
        fi
    done
    rm -rf "$dir"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    env) answers || die "no S3 server answering on $endpoint (run: $0 start)"; print_env ;;
    status) answers ;;
    *) echo "usage: $0 start|stop|env|status" >&2; exit 2 ;;
esac
