#!/usr/bin/env bash
# Recording under an X server (run it inside xvfb-run), with real key and mouse events from
# xdotool: F9 starts a recording and a click on the panel's Record/Stop button (the panel's first
# line) stops it; a click starts a second one, the window is resized, and F9 stops it. The videos
# get generated names in OUT_DIR (the viewer's working folder); test_record.cpp checks them.
#   usage: record_e2e.sh ALLUVIUM OUT_DIR
# Leaves: alluvium-*.mp4, report.json, viewer.log.
set -euo pipefail
exe=$1
out=$2
mkdir -p "$out"
cd "$out"
rm -f alluvium-*.mp4 report.json
command -v xdotool >/dev/null || { echo "record_e2e: xdotool is missing (scripts/deps installs it)" >&2; exit 3; }

"$exe" --validation view --size 64x64 --window 640x400 --report "$out/report.json" >"$out/viewer.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT

wait_for_line() { # pattern, count: until the log holds `count` lines matching it
    for _ in $(seq 1 240); do
        [ "$(grep -c -- "$1" "$out/viewer.log" || true)" -ge "$2" ] && return 0
        kill -0 $pid 2>/dev/null || { echo "record_e2e: the viewer exited early" >&2; cat "$out/viewer.log" >&2; exit 1; }
        sleep 0.25
    done
    echo "record_e2e: timed out waiting for '$1' x$2" >&2
    cat "$out/viewer.log" >&2
    exit 1
}
wait_for_line "viewer ready" 1
wid=$(xdotool search --sync --name '^Alluvium$' | head -1)
sleep 1
# The Record/Stop button: the panel's first line, at (16..97, 36..54) of the window.
button() { xdotool mousemove --window "$wid" 50 45 click 1; }

xdotool key --window "$wid" F9
wait_for_line "alluvium: recording " 1
sleep 1.5
button
wait_for_line "alluvium: wrote alluvium-" 1
xdotool mousemove --window "$wid" 600 380
sleep 0.5
button
wait_for_line "alluvium: recording " 2
sleep 1
# A resize while recording: the video keeps its size, the frames are scaled into it.
xdotool windowsize "$wid" 500 300
sleep 1
xdotool key --window "$wid" F9
wait_for_line "alluvium: wrote alluvium-" 2
# The viewer may close its window before xdotool sends the key releases (BadWindow): the exit
# status that counts is the viewer's.
xdotool key --window "$wid" ctrl+q || true
trap - EXIT
wait $pid
