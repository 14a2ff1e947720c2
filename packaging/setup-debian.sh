#!/usr/bin/env bash
# Installs the Debian 12 packages TrainIO needs: to build and run it (the main job), and with --tests
# also what only the test suite needs (sanitizer toolchain, Xvfb, PDF tools, the Python oracles, fio,
# the .deb checks). Idempotent: packages already present are skipped; safe to run again.
# Usage (as root): bash packaging/setup-debian.sh [--tests]
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config git ca-certificates
  # core libraries
  nlohmann-json3-dev   # JSON for results and configs (header-only)
  libyaml-cpp-dev      # DLIO workload YAML
  libzip-dev           # npz = zip archive of npy arrays (writer + verifier)
  liburing-dev         # the io_uring I/O engine
  libturbojpeg0-dev    # jpeg datasets: encode as PIL does, full decode in the reader (TurboJPEG API)
  libpng-dev           # png datasets: encode as PIL does, full decode in the reader
  libhdf5-dev          # hdf5 datasets: DLIO's records_0/labels layout, read through the IoBackend (C API)
  libcurl4-openssl-dev # the S3 I/O backend (SigV4-signed requests, curl multi; docs/s3.md)
  libopenmpi-dev openmpi-bin  # multi-process runs under mpirun across client hosts (docs/mpi.md)
  # GUI (and the PDF report the main job writes with it, headless)
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqcustomplot-dev
  libgl-dev libxkbcommon-dev
)
TEST_PACKAGES=(
  clang libclang-rt-14-dev llvm  # the ASan/UBSan/TSan stages and the libFuzzer targets
  lld                  # the test builds link with ld.lld (much faster than ld.bfd on debug binaries)
  ccache               # optional compiler cache: CI re-runs on the same machine rebuild only what changed
  # tests, screenshots, report checks
  xvfb xauth poppler-utils python3 python3-numpy python3-crc32c fio
  python3-dateutil     # MLPerf Storage v1.0 report.py (tst_peer_report)
  python3-pil python3-h5py  # oracles: generated jpeg/png/hdf5 open as DLIO's readers open them (tests/tools/check_image_hdf5.py)
  radosgw ceph-mon ceph-osd curl  # a real S3 server on loopback for tst_s3 (tests/tools/s3-server.sh, docs/s3.md)
  rclone               # the S3 GET throughput reference of tests/bench/s3-vs-rclone.sh
  util-linux           # unshare(1): tst_storage_truth mounts a ramfs in a private mount namespace
  strace               # tst_handover: the files trainio-cli opens (nothing a run wrote is read back)
  python3-torch        # tst_capture's real PyTorch DataLoader job (~140 packages, ~800 MB, ~60 s to install)
  # the .deb (cpack -G DEB) and its test: shlibdeps, man pages from --help, PNG icons, validators
  dpkg-dev file help2man librsvg2-bin man-db desktop-file-utils appstream
)
if [ "${1:-}" = "--tests" ]; then PACKAGES+=("${TEST_PACKAGES[@]}"); fi

need=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    need+=("$p")
  fi
done

if [ ${#need[@]} -eq 0 ]; then
  echo "setup-debian: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "setup-debian: must run as root to install: ${need[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}"
echo "setup-debian: installed ${#need[@]} package(s)"
