# Sourced by the viewer's Xvfb scripts (history_e2e.sh, brush_e2e.sh) once they have set `exe`
# and `out`: one viewer session at a time, driven by xdotool. The viewer is killed if the script
# ends early.
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null || true' EXIT

# start_viewer NAME X Y OPTIONS...: `view` with OPTIONS in an 800x500 window without rain, its
# report in $out/NAME.json and its log in $out/NAME.log; waits until it is ready, then rests the
# cursor at X, Y for a few frames (the pick under the cursor arrives a frame late).
start_viewer() {
    local name=$1 x=$2 y=$3
    shift 3
    "$exe" --validation view --set rain_rate=0 --window 800x500 --report "$out/$name.json" "$@" \
        >"$out/$name.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 240); do grep -q "viewer ready" "$out/$name.log" && break; sleep 0.25; done
    grep -q "viewer ready" "$out/$name.log" ||
        { echo "${0##*/}: the viewer did not start" >&2; cat "$out/$name.log" >&2; exit 1; }
    wid=$(xdotool search --sync --name '^Alluvium$' | head -1)
    xdotool mousemove --window "$wid" "$x" "$y"
    sleep 2
}
key() {
    xdotool key --window "$wid" "$1"
    sleep 0.6
}
finish() {
    xdotool key --window "$wid" ctrl+q
    wait $pid
    pid=
}
