#!/usr/bin/env bash
# The screenshot tour on an offscreen screen of a given size, no display needed:
#   tests/tools/screenshots.sh 1280x720 OUT_DIR [RESULTS_FOLDER...]
# The main window fills the screen; the presentation view is full-screen. Build first (build/ci).
set -euo pipefail
size=${1:?usage: $0 WIDTHxHEIGHT OUT_DIR [RESULTS_FOLDER...]}
out=${2:?usage: $0 WIDTHxHEIGHT OUT_DIR [RESULTS_FOLDER...]}
shift 2
[[ $size =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "$0: size '$size' is not WIDTHxHEIGHT (e.g. 1280x720)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
gui=${TRAINIO_GUI:-$root/build/ci/app/gui/trainio}
[[ -x $gui ]] || { echo "$0: $gui is not built (cmake --build build/ci --target trainio)" >&2; exit 2; }
config=$(mktemp --suffix=.json)
trap 'rm -f "$config"' EXIT
printf '{"screens": [{"name": "room", "x": 0, "y": 0, "width": %s, "height": %s, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}\n' \
    "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" > "$config"
mkdir -p "$out"
QT_QPA_PLATFORM="offscreen:configfile=$config" "$gui" --screenshot "$out" "$@"
