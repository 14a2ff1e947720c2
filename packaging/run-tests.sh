#!/usr/bin/env bash
# Installs what is needed (Debian 12, as root), builds, and runs the whole test suite:
#   1. the optimised build with warnings as errors (preset "ci"), all CTest suites;
#   2. clang ASan + UBSan over the whole suite, GUI included (preset "asan"; the same build also holds
#      the libFuzzer targets, so stage 4 compiles nothing new);
#   3. TSan over the threaded engine tests (preset "tsan");
#   4. the libFuzzer targets (test preset "fuzz" on the asan build): the committed corpora replayed,
#      then each target fuzzed for TRAINIO_FUZZ_SECONDS (default 60) — docs/reliability.md.
# Set TRAINIO_SKIP_SANITIZERS=1 to run only stages 1 and 4 (local quick check), TRAINIO_SKIP_FUZZ=1 to skip 4.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/setup-debian.sh --tests

jobs=$(nproc 2>/dev/null || echo 2)
# ccache keys on paths relative to the checkout, so a clone in another folder (CI) reuses what an earlier
# build compiled (CMakeLists.txt: TRAINIO_CCACHE).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
passed=0
failed=0
skipped=0
# Runs ctest, shows its output, and adds its counts to the totals printed at the end. QtTest functions that
# skipped (QSKIP: a privilege or tool the machine lacks) pass as far as ctest is concerned: they are
# counted from ctest's log of the suites' output and listed, never silent.
run_ctest() {
  local log
  log=$(mktemp)
  local rc=0
  ctest "$@" 2>&1 | tee "$log" || rc=$?
  local line total fails
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1 || true)
  if [ -n "$line" ]; then
    total=$(echo "$line" | sed -E 's/.* out of ([0-9]+).*/\1/')
    fails=$(echo "$line" | sed -E 's/.*, ([0-9]+) tests failed.*/\1/')
    passed=$((passed + total - fails))
    failed=$((failed + fails))
  fi
  local preset="" last skips
  for a in "$@"; do case $a in --preset=*) preset=${a#--preset=} ;; esac; done
  [ -z "$preset" ] && preset=$(echo "$*" | sed -nE 's/.*--preset ([a-z]+).*/\1/p')
  last=build/${preset:-ci}/Testing/Temporary/LastTest.log
  if [ "$preset" = fuzz ]; then last=build/asan/Testing/Temporary/LastTest.log; fi
  if [ -f "$last" ]; then
    skips=$(grep -E '^SKIP +: ' "$last" || true)
    if [ -n "$skips" ]; then
      echo "skipped test functions (QSKIP), counted:"
      echo "$skips" | sed 's/^/  /'
      skipped=$((skipped + $(echo "$skips" | wc -l)))
    fi
  fi
  rm -f "$log"
  return $rc
}
stage_start=$SECONDS
stage() {
  if [ -n "${stage_name:-}" ]; then echo "=== ${stage_name}: $((SECONDS - stage_start)) s ==="; fi
  stage_name="$*"
  stage_start=$SECONDS
  echo; echo "=== $* ==="
}

stage "build + test (ci preset)"
# tst_s3's S3 server (a one-node Ceph cluster, ~15 s) starts beside the build; it stays up for the sanitizer
# stages and stops at the end. When it cannot start here, the log says why and tst_s3 skips, counted.
s3_log=$(mktemp)
bash tests/tools/s3-server.sh start >"$s3_log" 2>&1 &
s3_pid=$!
trap 'bash tests/tools/s3-server.sh stop >/dev/null 2>&1 || true' EXIT
cmake --preset ci
cmake --build --preset ci -j "$jobs"
s3_dir=${TRAINIO_S3_DIR:-/tmp/trainio-s3-$(id -u)}
# Before a later stage: a server that answered before and no longer does is said, with its daemons' log
# tails, and started again (the suites would otherwise fail on TRAINIO_S3_REQUIRED=1).
s3_still_up() {
  [ "${TRAINIO_S3_REQUIRED:-0}" = 1 ] || return 0
  bash tests/tools/s3-server.sh status && return 0
  echo "S3 test server stopped answering; the tails of its logs:"
  for f in "$s3_dir"/log/*.log; do [ -s "$f" ] && { echo "--- $f"; tail -n 8 "$f"; }; done
  bash tests/tools/s3-server.sh stop >/dev/null 2>&1 || true
  if bash tests/tools/s3-server.sh start >/dev/null; then echo "S3 test server started again"; else
    echo "S3 test server did not start again (the S3 suites will skip, counted)"; unset TRAINIO_S3_REQUIRED; fi
}
if wait "$s3_pid"; then
  echo "S3 test server: $(grep TRAINIO_S3_ENDPOINT "$s3_log")"
  export TRAINIO_S3_REQUIRED=1
else
  echo "S3 test server did not start (tst_s3 will skip, counted):"; sed 's/^/  /' "$s3_log"
fi
rm -f "$s3_log"
run_ctest --preset ci

# The asan build (clang) serves stages 2 and 4.
asan_configured=0
configure_asan() {
  if [ "$asan_configured" = 0 ]; then
    cmake --preset asan -DTRAINIO_FUZZ_SECONDS="${TRAINIO_FUZZ_SECONDS:-60}"
    asan_configured=1
  fi
}

if [ "${TRAINIO_SKIP_SANITIZERS:-0}" != 1 ]; then
  stage "ASan + UBSan, clang (asan preset)"
  configure_asan
  cmake --build --preset asan -j "$jobs"
  s3_still_up
  run_ctest --preset asan

  stage "TSan: engine tests (tsan preset)"
  cmake --preset tsan
  # Only what the threaded tests need: the core, the CLI they drive, the engine/fault/signal tests.
  cmake --build --preset tsan -j "$jobs" --target trainio-cli $(cd build/tsan && ninja -t targets all | grep -oE '^tst_(engine|fault|signal)[a-z0-9_]*:' | tr -d ':' | sort -u)
  run_ctest --preset tsan
fi

if [ "${TRAINIO_SKIP_FUZZ:-0}" != 1 ]; then
  stage "fuzz: libFuzzer targets (fuzz test preset, asan build)"
  configure_asan
  cmake --build --preset fuzz -j "$jobs"
  run_ctest --preset fuzz
fi
stage "done"
echo
echo "all test stages passed"
echo "tests: $passed passed, $failed failed, $skipped skipped"
