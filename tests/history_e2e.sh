#!/usr/bin/env bash
# Undo, redo and branches in the viewer under an X server (run it inside xvfb-run), with real key
# and mouse events from xdotool. test_viewer.cpp checks the reports' digests.
#   usage: history_e2e.sh ALLUVIUM OUT_DIR
# Two sessions, each stroking with the raise tool (3) while the simulation runs, then pausing:
#   undo.json:  Ctrl+Z, play, a second stroke (a new branch from the first stroke's start),
#               pause, Ctrl+Z: the state at exit is the second stroke's start.
#   redo.json:  Ctrl+Z, Ctrl+Y, Ctrl+Z, Ctrl+Shift+Z: the state at exit is the first stroke's end.
# And a session without strokes, a snapshot every simulated second:
#   scrub.json: run, drag the panel's timeline to its start, let go: it plays on from there (a
#               new branch); pause, quit.
# Leaves undo.json, redo.json, scrub.json and their logs.
set -euo pipefail
exe=$1
out=$2
mkdir -p "$out"
rm -f "$out"/undo.json "$out"/redo.json "$out"/scrub.json
command -v xdotool >/dev/null || { echo "history_e2e: xdotool is missing (scripts/deps installs it)" >&2; exit 3; }

# shellcheck source=viewer_session.sh
source "$(dirname "$0")/viewer_session.sh"
start() { # name, extra options
    start_viewer "$1" 420 250 --size 96x96 --steps-per-frame 2 $2
}
stroke() { # y: a drag across the middle of the window, away from the panel, while it runs
    xdotool mousemove --window "$wid" 430 "$1"
    act "stroke begins" xdotool mousedown 1
    for x in $(seq 445 15 640); do
        xdotool mousemove --window "$wid" "$x" "$1"
        sleep 0.1
    done
    act "stroke ends" xdotool mouseup 1
}

start undo "--history-every 0"
key 3 "tool 3 raise"
stroke 250
key space paused
key ctrl+z "undo to"
key space playing # the state moves on from the first stroke's start
sleep 0.5
stroke 300
key space paused
key ctrl+z "undo to"
finish

start redo "--history-every 1"
key 3 "tool 3 raise"
stroke 250
key space paused
key ctrl+z "undo to"
key ctrl+y "redo to"
key ctrl+z "undo to"
key ctrl+shift+z "redo to"
finish

start scrub "--history-every 1"
sleep 4 # 20 simulated seconds... at least a few snapshots
# The timeline is the panel's third row (Record; Undo, Redo, |< < > >|; the timeline), 16..345 px.
xdotool mousemove --window "$wid" 335 91 mousedown 1
sleep 0.3
for x in $(seq 320 -30 20); do
    xdotool mousemove --window "$wid" "$x" 91
    sleep 0.2
done
sleep 0.5
xdotool mouseup 1
xdotool mousemove --window "$wid" 600 400
sleep 4 # plays on from the timeline's start
key space paused
finish
trap - EXIT
