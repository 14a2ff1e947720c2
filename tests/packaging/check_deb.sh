#!/usr/bin/env bash
# The package test (CTest "package_deb", label "package"): builds the Debian package from a finished
# optimised build with cpack, into a temporary folder, and checks what a user installing it gets:
# the file name Debian expects, Depends computed by dpkg-shlibdeps, both binaries, the presets where
# the binaries look for them, the desktop entry, icons, AppStream metainfo, man pages that render
# without warnings, the docs and the copyright file. Every check that fails is printed; exit 1 if any.
# Usage: check_deb.sh BUILD_DIR VERSION CPACK
set -uo pipefail
build=$1 version=$2 cpack=${3:-cpack}

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok:   $*"; }

for tool in "$cpack" dpkg dpkg-deb dpkg-shlibdeps desktop-file-validate appstreamcli man gzip; do
  command -v "$tool" >/dev/null || fail "$tool not found (bash packaging/setup-debian.sh installs it)"
done
[ -f "$build/CPackConfig.cmake" ] || fail "$build/CPackConfig.cmake missing: configure the build first"
[ "$failures" -eq 0 ] || exit 1

tmp=$(mktemp -d -t trainio-deb-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if ! "$cpack" --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1; then
  cat "$tmp/cpack.log" >&2
  fail "cpack -G DEB failed (log above)"
  exit 1
fi

arch=$(dpkg --print-architecture)
expected="trainio_${version}_${arch}.deb"
mapfile -t debs < <(cd "$tmp/out" && ls -1 -- *.deb 2>/dev/null)
if [ "${#debs[@]}" -ne 1 ] || [ "${debs[0]}" != "$expected" ]; then
  fail "expected exactly one package named $expected, cpack wrote: ${debs[*]:-nothing}"
  exit 1
fi
deb="$tmp/out/$expected"
ok "package file name $expected"

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = trainio ] && ok "Package: trainio" || fail "Package is '$(field Package)', expected trainio"
[ "$(field Version)" = "$version" ] && ok "Version: $version" || fail "Version is '$(field Version)', expected $version"
[ "$(field Architecture)" = "$arch" ] && ok "Architecture: $arch" || fail "Architecture is '$(field Architecture)', expected $arch"
depends=$(field Depends)
# dpkg-shlibdeps names the runtime libraries' packages with versions; without it Depends is empty.
for lib in libc6 'libstdc\+\+6' libqt6core6 libqt6gui6 libqt6widgets6 libqt6svg6 \
           'libqcustomplot[0-9.]*-qt6' 'libzip[0-9]+' 'libyaml-cpp[0-9.]+'; do
  if grep -Eq "(^|, )${lib} \(>= [^)]+\)" <<<"$depends"; then ok "Depends has $lib (versioned)"
  else fail "Depends lacks a versioned $lib: '$depends'"; fi
done

dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$tmp/contents"
for path in /usr/bin/trainio /usr/bin/trainio-cli \
            /usr/share/trainio/presets/demo.yaml /usr/share/trainio/presets/unet3d_h100.yaml \
            /usr/share/applications/trainio.desktop \
            /usr/share/metainfo/org.trainio.TrainIO.metainfo.xml \
            /usr/share/icons/hicolor/scalable/apps/trainio.svg \
            /usr/share/icons/hicolor/48x48/apps/trainio.png /usr/share/icons/hicolor/256x256/apps/trainio.png \
            /usr/share/man/man1/trainio.1.gz /usr/share/man/man1/trainio-cli.1.gz \
            /usr/share/doc/trainio/copyright /usr/share/doc/trainio/changelog.gz /usr/share/doc/trainio/README.md \
            /usr/share/doc/trainio/docs/user-guide.md /usr/share/doc/trainio/docs/screenshots/run.png \
            /usr/lib/trainio/libtrainio_capture_preload.so /usr/share/trainio/python/trainio_capture/__init__.py; do
  grep -qx -- "$path" "$tmp/contents" && ok "contains $path" || fail "package lacks $path"
done

root="$tmp/root"
dpkg-deb -x "$deb" "$root"
share="$root/usr/share"

if [ -f "$share/applications/trainio.desktop" ]; then
  if out=$(desktop-file-validate "$share/applications/trainio.desktop" 2>&1) && [ -z "$out" ]; then
    ok "desktop-file-validate: clean"
  else fail "desktop-file-validate: $out"; fi
  grep -qx 'Icon=trainio' "$share/applications/trainio.desktop" || fail "the desktop entry does not use Icon=trainio"
fi
metainfo="$share/metainfo/org.trainio.TrainIO.metainfo.xml"
if [ -f "$metainfo" ]; then
  appstreamcli validate --no-net "$metainfo" >"$tmp/as.log" 2>&1 && ok "appstreamcli validate: passed" \
    || fail "appstreamcli validate: $(cat "$tmp/as.log")"
  newest=$(grep -o '<release version="[^"]*"' "$metainfo" | head -n 1 | cut -d'"' -f2)
  [ "$newest" = "$version" ] && ok "metainfo's newest release is $version" \
    || fail "metainfo's newest release is '$newest', the package is $version: add a <release> to resources/org.trainio.TrainIO.metainfo.xml"
fi
changelog="$share/doc/trainio/changelog.gz"
if [ -f "$changelog" ]; then
  top=$(gzip -dc "$changelog" | head -n 1)
  [[ "$top" == "trainio ($version) "* ]] && ok "changelog's newest entry is $version" \
    || fail "changelog's newest entry is '$top', the package is $version: add an entry to packaging/changelog"
fi
for size in 48 256; do
  png="$share/icons/hicolor/${size}x${size}/apps/trainio.png"
  [ -f "$png" ] || continue
  # PNG signature, then the IHDR chunk's big-endian width and height.
  read -r sig w h < <(od -An -tx1 -j0 -N24 "$png" | tr -d ' \n' | sed -E 's/^(.{16}).{16}(.{8})(.{8})$/\1 \2 \3/')
  if [ "$sig" = 89504e470d0a1a0a ] && [ $((16#$w)) -eq "$size" ] && [ $((16#$h)) -eq "$size" ]; then ok "icon ${size}x${size} is a ${size}x${size} PNG"
  else fail "$png is not a ${size}x${size} PNG (signature $sig, ${w}x${h} hex)"; fi
done

# Plain text as a user reads it (man's bold/underline overstrikes removed).
render() { LC_ALL=C.UTF-8 MANWIDTH=100 man -l -P cat "$share/man/man1/$1.1.gz" | sed 's/.\x08//g'; }
for page in trainio trainio-cli; do
  file="$share/man/man1/$page.1.gz"
  [ -f "$file" ] || continue
  gzip -t "$file" || fail "$file is not valid gzip"
  text=$(render "$page" 2>"$tmp/man.err")
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -E UTF-8 -l -Z "$file" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "man $page: groff warnings: $warnings"
  [ -s "$tmp/man.err" ] && fail "man -l $page: $(cat "$tmp/man.err")"
  for want in "NAME" "$page - " "SYNOPSIS\|Usage" "DESCRIPTION" "SEE ALSO" "$version"; do
    grep -q -- "$want" <<<"$text" || fail "man $page does not show '$want'"
  done
  ok "man $page renders ($(wc -l <<<"$text") lines)"
done
man_cli=$(render trainio-cli 2>/dev/null)
for cmd in validate datagen verify clean run benchmark metrics aggregate presets; do
  grep -Eq "^ +$cmd( |$)" <<<"$man_cli" || fail "man trainio-cli does not list the '$cmd' command"
done

# The packaged binaries, run from the unpacked tree: they must find the presets beside themselves
# (bin/../share/trainio/presets), not in the source tree they were built from. A preset that exists
# only in the unpacked tree proves which folder was read.
if [ -x "$root/usr/bin/trainio-cli" ]; then
  printf 'model:\n  name: probe\n' >"$share/trainio/presets/zz_package_probe.yaml"
  v=$(env -u TRAINIO_PRESET_DIR "$root/usr/bin/trainio-cli" --version 2>&1)
  [ "$v" = "trainio-cli $version" ] && ok "trainio-cli --version: $v" || fail "trainio-cli --version printed '$v'"
  presets=$(env -u TRAINIO_PRESET_DIR "$root/usr/bin/trainio-cli" presets 2>&1)
  if grep -qx zz_package_probe <<<"$presets" && grep -qx demo <<<"$presets"; then ok "trainio-cli presets reads <prefix>/share/trainio/presets"
  else fail "trainio-cli presets does not read the packaged presets folder: '$presets'"; fi
fi
if [ -x "$root/usr/bin/trainio" ]; then
  # As in a terminal with no display: --version must not need one.
  v=$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$root/usr/bin/trainio" --version 2>"$tmp/gui.err")
  [ "$v" = "trainio $version" ] && ok "trainio --version (no display): $v" \
    || fail "trainio --version (no display) printed '$v', stderr: $(cat "$tmp/gui.err")"
  # trainio(1) is written by hand: every option the binary's --help names must be in it.
  man_gui=$(render trainio 2>/dev/null)
  for opt in $(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$root/usr/bin/trainio" --help 2>/dev/null | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
    grep -q -- "$opt" <<<"$man_gui" || fail "trainio --help names $opt, man trainio does not (docs/man/trainio.1)"
  done
fi

echo "package: $expected, $(du -k "$deb" | cut -f1) KiB"
echo "Depends: $depends"
if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all package checks passed"
