#!/usr/bin/env bash
# The installed tree is relocatable and complete, and a broken one fails with one line:
#   1. `cmake --install` into a temporary prefix, then move the prefix elsewhere;
#   2. from the moved tree: `presets` lists the built-in presets from the moved tree, `run` and an
#      offscreen `view` work (no build tree, no ALLUVIUM_* variables, no user presets);
#   3. a copied executable alone, damaged shaders, missing presets: one line on stderr, exit 4;
#   4. CPack: the TGZ unpacked anywhere runs; the DEB holds the same tree in /usr and depends on
#      the Debian package of every shared library the executable needs.
# Usage: install_test.sh BUILD_DIR CMAKE CPACK
set -euo pipefail
build=$(cd "$1" && pwd)
cmake=$2
cpack=$3
# Installed inside the build tree, then moved out of it: an executable inside its build tree may
# fall back on the build's own folders, so everything below runs outside it.
first="$build/test-tmp/install"
rm -rf "$first"
work=$(mktemp -d "${TMPDIR:-/tmp}/alluvium-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }
# No environment that could point the executable at the build or source tree.
unset ALLUVIUM_SHADER_DIR ALLUVIUM_ASSET_DIR ALLUVIUM_SHADER_SOURCE_DIR
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"

"$cmake" --install "$build" --prefix "$first" >/dev/null
mv "$first" "$work/moved"
tree="$work/moved"
exe="$tree/bin/alluvium"
[ -x "$exe" ] || fail "no bin/alluvium"
spv=$(ls "$tree"/share/alluvium/shaders/*.spv | wc -l)
[ "$spv" -ge 40 ] || fail "only $spv shaders installed"
presets=$(ls "$tree"/share/alluvium/presets/*.json | wc -l)
[ "$presets" -eq "$(ls "$(dirname "$0")"/../assets/presets/*.json | wc -l)" ] || fail "$presets presets installed"
for f in share/doc/alluvium/README.md share/doc/alluvium/docs/viewer.png; do
  [ -f "$tree/$f" ] || fail "missing $f"
done
echo "install_test: installed tree: $(du -sh "$tree" | cut -f1), $spv shaders, $presets presets"

cd "$work"
# presets: every built-in one, read from the moved tree.
"$exe" presets > presets.txt
grep -q '^default$' presets.txt || fail "presets does not list default"
grep -q '^flash-flood$' presets.txt || fail "presets does not list flash-flood"
grep -q "built-in: $tree/share/alluvium/presets/default.json" presets.txt || fail "presets not read from the moved tree: $(cat presets.txt)"
# run, with a built-in preset.
"$exe" run --preset flash-flood --size 33x21 --steps 5 --out "$work/run.png" --report "$work/run.json" 2>run.err ||
  fail "run: $(cat run.err)"
[ -s run.png ] && [ -s run.json ] || fail "run wrote no output"
# an offscreen frame of the viewer (its render shaders come from the moved tree too).
"$exe" view --offscreen --size 33x33 --window 128x96 --exit-after-frames 2 --screenshot "$work/view.png" 2>view.err ||
  fail "view: $(cat view.err)"
[ -s view.png ] || fail "view wrote no screenshot"
# the Python module from the moved tree: its shaders and presets found beside it, one step run.
PYTHONPATH="$tree/lib/python3/dist-packages" /usr/bin/python3 -c "
import alluvium, numpy
sim = alluvium.Simulation(numpy.zeros((9, 11), numpy.float32) + 5.0, preset='flash-flood')
sim.run(2)
assert sim.report()['steps'] == 2 and 'default' in alluvium.presets()
" 2>python.err || fail "the Python module: $(cat python.err)"
[ -f "$tree/share/alluvium/blender/alluvium_blender.py" ] || fail "missing the Blender add-on"

# One line, exit 4, no abort: `broken DESCRIPTION COMMAND...`.
broken() {
  local what=$1; shift
  set +e
  "$@" >/dev/null 2>broken.err
  local rc=$?
  set -e
  [ $rc -eq 4 ] || fail "$what: exit $rc, expected 4: $(cat broken.err)"
  # The run's usual progress lines (the device, the grid) may come first; the failure is one line.
  grep -v '^alluvium: device \|^alluvium: [0-9]*x[0-9]* cells' broken.err > failure.err || true
  [ "$(wc -l < failure.err)" -eq 1 ] || fail "$what: not one line: $(cat broken.err)"
  grep -q 'installation is incomplete\|damaged installation' failure.err || fail "$what: unclear message: $(cat broken.err)"
  if grep -qi 'terminate\|abort' broken.err; then fail "$what: $(cat broken.err)"; fi
  echo "install_test: $what -> $(cat failure.err)"
}
mkdir -p lonely
cp "$exe" lonely/alluvium
broken "a copied executable without its shaders (run)" lonely/alluvium run --size 9x9 --steps 1 --out "$work/x.f32"
broken "a copied executable without its shaders (view)" lonely/alluvium view --offscreen --size 9x9
broken "a copied executable without its presets" lonely/alluvium presets
cp -r "$tree" damaged
for spv in damaged/share/alluvium/shaders/*.spv; do printf 'not spir-v' > "$spv"; done
broken "damaged shaders" damaged/bin/alluvium run --size 9x9 --steps 1 --out "$work/x.f32"
[ ! -e "$work/x.f32" ] || fail "a failed run left an output"
rm -r damaged/share/alluvium/presets
broken "missing presets (--preset)" damaged/bin/alluvium run --preset default --size 9x9 --steps 1 --out "$work/x.f32"

# CPack: the archive, unpacked elsewhere, runs; the Debian package has the tree and its Depends.
"$cpack" -G "TGZ;DEB" -B "$work/packages" --config "$build/CPackConfig.cmake" >/dev/null 2>"$work/cpack.err" ||
  fail "cpack: $(cat "$work/cpack.err")"
tgz=$(ls "$work"/packages/alluvium-*.tar.gz)
deb=$(ls "$work"/packages/alluvium_*.deb)
mkdir -p unpacked
tar -C unpacked -xzf "$tgz"
unpacked_exe=$(ls unpacked/*/bin/alluvium)
# Listed into a file first: grep -q stops reading at its match, and the listing would die of
# SIGPIPE (a failure under pipefail) as the list grows.
"$unpacked_exe" presets >"$work/presets.txt" || fail "the unpacked TGZ cannot list its presets"
grep -q '^river-delta$' "$work/presets.txt" || fail "the unpacked TGZ lists no presets"
"$unpacked_exe" run --model particles --size 17x13 --steps 3 --out "$work/tgz.f32" 2>tgz.err || fail "TGZ run: $(cat tgz.err)"
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/alluvium ./usr/share/alluvium/shaders/particles.spv ./usr/share/alluvium/presets/default.json \
         ./usr/share/doc/alluvium/README.md; do
  grep -q " $f\$" <<<"$contents" || fail "the DEB lacks $f"
done
grep -q " ./usr/lib/python3/dist-packages/alluvium\.cpython-.*\.so\$" <<<"$contents" || fail "the DEB lacks the Python module"
depends=$(dpkg-deb -f "$deb" Depends)
libraries=$(ldconfig -p)
for lib in $(readelf -d "$exe" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
  path=$(awk -v l="$lib" '$1 == l && !found {print $NF; found = 1}' <<<"$libraries")
  [ -n "$path" ] || fail "$lib not found by ldconfig"
  pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | cut -d: -f1 | head -1 || true)
  [ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | cut -d: -f1 | head -1 || true)
  [ -n "$pkg" ] || fail "no Debian package owns $path"
  sed 's/ *([^)]*)//g; s/ *| */\n/g; s/, */\n/g' <<<"$depends" | grep -qxF "$pkg" ||
    fail "the DEB's Depends ($depends) lacks $pkg for $lib"
done
echo "install_test: $(basename "$tgz") $(du -h "$tgz" | cut -f1), $(basename "$deb") $(du -h "$deb" | cut -f1); Depends: $depends"
echo "install_test: ok"
