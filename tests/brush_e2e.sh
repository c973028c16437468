#!/usr/bin/env bash
# The brush at rates per second of real time, under an X server (run it inside xvfb-run), with
# real events from xdotool. test_viewer.cpp checks the reports.
#   usage: brush_e2e.sh ALLUVIUM OUT_DIR
# The same stroke (the raise tool held still for 2.5 s at one point) in three sessions: paused, at
# 1 and at 10 steps per frame: paused.json, one.json, ten.json. And two paused sessions: a stroke
# then Ctrl+Z (undo.json), a stroke, Ctrl+Z, Ctrl+Y (redo.json). Their logs beside them.
set -euo pipefail
exe=$1
out=$2
mkdir -p "$out"
rm -f "$out"/{paused,one,ten,undo,redo}.json
command -v xdotool >/dev/null || { echo "brush_e2e: xdotool is missing (scripts/deps installs it)" >&2; exit 3; }

# shellcheck source=viewer_session.sh
source "$(dirname "$0")/viewer_session.sh"
start() { # name, steps per frame
    start_viewer "$1" 520 250 --size 64x64 --steps-per-frame "$2" --history-every 0
}
hold() { # seconds: the raise tool pressed at one point, the mouse still
    act "stroke begins" xdotool mousedown --window "$wid" 1
    sleep "$1"
    act "stroke ends" xdotool mouseup --window "$wid" 1
}

start paused 1
key space paused
key 3 "tool 3 raise"
hold 2.5
finish

start one 1
key 3 "tool 3 raise"
hold 2.5
finish

start ten 10
key 3 "tool 3 raise"
hold 2.5
finish

start undo 1
key space paused
key 3 "tool 3 raise"
hold 1
key ctrl+z "undo to"
finish

start redo 1
key space paused
key 3 "tool 3 raise"
hold 1
key ctrl+z "undo to"
key ctrl+y "redo to"
finish
trap - EXIT
