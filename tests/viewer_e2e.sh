#!/usr/bin/env bash
# End-to-end run of the viewer under an X server (run it inside xvfb-run): real key and mouse
# events from xdotool. test_viewer.cpp checks what it leaves in OUT_DIR.
#   usage: viewer_e2e.sh ALLUVIUM OUT_DIR
# Leaves: before.png (F12 before the stroke), after.png (F12 after it), resized.png (F12 after
# the window was resized to 640x400; the hand moved ground in between), last.png (--screenshot on
# exit), viewer.json (the report), viewer.log, ctrl_s.alluvium (the session Ctrl+S saved) and session.alluvium (--save-session, saved on exit).
set -euo pipefail
exe=$1
out=$2
mkdir -p "$out"
rm -f "$out"/*.png "$out"/viewer.json "$out"/*.alluvium
command -v xdotool >/dev/null || { echo "viewer_e2e: xdotool is missing (scripts/deps installs it)" >&2; exit 3; }

# shellcheck source=viewer_session.sh
source "$(dirname "$0")/viewer_session.sh"
wait_for() { # file, tries of 0.25 s
    for _ in $(seq 1 "${2:-240}"); do
        [ -e "$1" ] && return 0
        kill -0 $pid 2>/dev/null || { echo "viewer_e2e: the viewer exited early" >&2; cat "$log" >&2; exit 1; }
        sleep 0.25
    done
    echo "viewer_e2e: timed out waiting for $1" >&2
    exit 1
}
# F12 writes <--screenshot stem>-N.png next to it.
shot() { # name, N
    xdotool key --window "$wid" F12
    wait_for "$out/last-$2.png"
    mv "$out/last-$2.png" "$out/$1.png"
}

# The stroke: across the middle of an 800x500 window, away from the panel on the left.
start_viewer viewer 420 250 --size 96x96 --steps-per-frame 2 --screenshot "$out/last.png" \
    --save-session "$out/session.alluvium"
shot before 1
# Choose remove-water first, then water: the report shows water added only if key 1 worked.
key 2 "tool 2 remove water"
key 1 "tool 1 add water"
xdotool mousemove --window "$wid" 430 250
act "stroke begins" xdotool mousedown 1
for x in $(seq 442 12 690); do
    xdotool mousemove --window "$wid" "$x" 250
    sleep 0.12
done
act "stroke ends" xdotool mouseup 1
xdotool mousemove --window "$wid" 780 480 # the ring off the stroke
sleep 1
shot after 2
# The hand (9): pick ground up along a short stroke, let go, click elsewhere to drop it all.
key 9 "tool 9 hand"
xdotool mousemove --window "$wid" 560 300
act "stroke begins" xdotool mousedown 1
for x in $(seq 570 10 620); do
    xdotool mousemove --window "$wid" "$x" 300
    sleep 0.12
done
act "stroke ends" xdotool mouseup 1
xdotool mousemove --window "$wid" 520 200
sleep 0.5 # the pick under the cursor arrives a frame late
act "hand drops" xdotool click 1
xdotool windowsize "$wid" 640 400
sleep 2
shot resized 3
xdotool key --window "$wid" ctrl+s
wait_for "$out/session.alluvium"
mv "$out/session.alluvium" "$out/ctrl_s.alluvium"
finish
trap - EXIT
