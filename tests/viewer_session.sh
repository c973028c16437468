# Sourced by the viewer's Xvfb scripts (viewer_e2e.sh, history_e2e.sh, brush_e2e.sh) once they have set `exe`
# and `out`: one viewer session at a time, driven by xdotool. The viewer runs with --log-actions,
# and each input waits for the line that says it was carried out: on a loaded machine a frame
# can take a second, and inputs sent faster than frames would be carried out together. The
# viewer is killed if the script ends early.
pid=
log=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null || true' EXIT

# start_viewer NAME X Y OPTIONS...: `view` with OPTIONS in an 800x500 window without rain, its
# report in $out/NAME.json and its log in $out/NAME.log; waits until it is ready, then rests the
# cursor at X, Y for a few frames (the pick under the cursor arrives a frame late).
start_viewer() {
    local name=$1 x=$2 y=$3
    shift 3
    log="$out/$name.log"
    "$exe" --validation view --log-actions --set rain_rate=0 --window 800x500 --report "$out/$name.json" "$@" \
        >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 1 240); do grep -q "viewer ready" "$log" && break; sleep 0.25; done
    grep -q "viewer ready" "$log" || { echo "${0##*/}: the viewer did not start" >&2; cat "$log" >&2; exit 1; }
    wid=$(xdotool search --sync --name '^Alluvium$' | head -1)
    xdotool mousemove --window "$wid" "$x" "$y"
    sleep 2
}
# act ACTION COMMAND...: runs COMMAND, then waits (60 s at most) for one more "frame F: ACTION"
# line in the viewer's log (ACTION is an extended regular expression).
act() {
    local action=$1 before
    shift
    before=$(grep -cE "frame [0-9]+: ($action)" "$log" || true)
    "$@"
    for _ in $(seq 1 1200); do
        [ "$(grep -cE "frame [0-9]+: ($action)" "$log" || true)" -gt "$before" ] && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    echo "${0##*/}: the viewer did not log '$action' after: $*" >&2
    cat "$log" >&2
    exit 1
}
# key KEYS ACTION: presses KEYS and waits for ACTION.
key() { act "$2" xdotool key --window "$wid" "$1"; }
finish() {
    xdotool key --window "$wid" ctrl+q
    wait $pid
    pid=
}
