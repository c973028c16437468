#!/usr/bin/env bash
# A run split over processes (mpirun) against the same run in one process: the same state to the
# bit (the report's state digest: every state field, the totals and the host's state, and the
# heightmap's bytes), for every grid model, the pipe model's parts (the sea and its tide too) and
# the particles (droplets handed between blocks), on odd grid sizes in 2, 3, 4 and 6 blocks; a
# session saved split and resumed split; `alluvium fill` (the lake fill by a spill graph across
# the blocks) to the bit; the refusals, one line each.
# Usage: mpi_test.sh ALLUVIUM_EXE TMP_DIR
set -uo pipefail
exe=$1
tmp=$2/mpi
rm -rf "$tmp" && mkdir -p "$tmp"
# As root (CI containers), with OpenMPI's shared-memory transport copying (no ptrace across
# containers' processes), as many processes as asked on two cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

digest() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["state_digest"])' "$1"; }
field() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval("r" + sys.argv[2]))' "$1" "$2"; }

# alike NAME DIR_ONE DIR_SPLIT [GLOB]: each file of DIR_ONE (matching GLOB) is the same file in
# DIR_SPLIT; sets `alike` to their count.
alike() {
  local name=$1 one=$2 split=$3 glob=${4:-*} file
  alike=0
  for file in "$one"/$glob; do
    cmp -s "$file" "$split/$(basename "$file")" || fail "$name: $(basename "$file") differs"
    alike=$((alike + 1))
  done
}
# same_keys NAME JSON_ONE JSON_SPLIT KEY...: both reports give each top-level KEY alike.
same_keys() {
  local name=$1 one=$2 split=$3 key
  shift 3
  for key in "$@"; do
    [ "$(field "$one" "[\"$key\"]")" = "$(field "$split" "[\"$key\"]")" ] || fail "$name: the reports' $key differ"
  done
}
# clean NAME JSON PATH: the processes' validation layers said nothing (PATH: the report's processes).
clean() {
  [ "$(field "$2" "$3[\"validation_errors\"]")" = "0.0" ] || fail "$1: validation errors"
}

# both NAME NP COMMAND OPTION ARGS...: `COMMAND ARGS` on one process, then on NP, each with --out
# NAME-N.f32, --report NAME-N.json and (unless OPTION is -) OPTION NAME-N.dir (--out-maps,
# --timelapse); returns 1 when either failed (said).
both() {
  local name=$1 np=$2 command=$3 option=$4 n
  shift 4
  for n in 1 "$np"; do
    local launch=("$exe") outs=(--out "$tmp/$name-$n.f32" --report "$tmp/$name-$n.json")
    [ "$n" = 1 ] || launch=(mpirun -np "$np" "$exe")
    [ "$option" = - ] || outs+=("$option" "$tmp/$name-$n.dir")
    "${launch[@]}" --validation "$command" "$@" "${outs[@]}" >"$tmp/$name-$n.log" 2>&1 ||
      { fail "$name: $n process(es): $(grep alluvium "$tmp/$name-$n.log" | tail -1)"; return 1; }
  done
}

# same NAME NP ARGS...: one process, then NP, the same bits.
same() {
  local name=$1 np=$2
  shift 2
  both "$name" "$np" run - "$@" || return
  local one split
  one=$(digest "$tmp/$name-1.json")
  split=$(digest "$tmp/$name-$np.json")
  [ "$one" = "$split" ] || fail "$name: state digest $split on $np processes, $one on one"
  cmp -s "$tmp/$name-1.f32" "$tmp/$name-$np.f32" || fail "$name: the heightmaps differ"
  # The report's net change of the ground (rank 0's initial heights against the final ones).
  [ "$(field "$tmp/$name-1.json" '["soil"]["net_lowered"]')" = "$(field "$tmp/$name-$np.json" '["soil"]["net_lowered"]')" ] ||
    fail "$name: the reports' net_lowered differ"
  [ "$(field "$tmp/$name-$np.json" '["processes"]["count"]')" = "$np" ] || fail "$name: not split over $np"
  clean "$name" "$tmp/$name-$np.json" '["processes"]'
  echo "ok   $name on $np processes ($(field "$tmp/$name-$np.json" '["processes"]["blocks"]') blocks): $split"
}

same pipe 4 --size 61x97 --seed 3 --steps 60 --set rain_rate=5
same pipe-wide 3 --size 211x37 --seed 5 --steps 30
# Deep fast water: 17 CFL sub-steps a step, the bands swapped between them.
same substeps 4 --size 61x97 --steps 30 --set time_step=0.5 --set cell_size=0.5 --set rain_rate=50
# Every part of the pipe step that reads neighbours or depends on where a cell lies.
same parts 4 --size 61x97 --steps 40 --set enable_groundwater=1 --set enable_snow=1 --set enable_vegetation=1 \
  --set enable_layers=1 --set rain_noise=0.5 --set storm_count=2 --set strata_contrast=0.5
same lava 3 --size 61x97 --steps 40 --set enable_lava=1
# The sea and its tide: the spill relaxation's rounds, their bands and counts of changed cells.
same volcano-island 4 --size 61x97 --steps 40 --preset volcano-island
# Blocks big enough that a submission holds fewer than 8 steps, the edge blocks (one band: 508
# rows) and the middle one (two: 520) on either side of a batch size: every process must batch
# alike, or one carries its sediment correction into the next step while its neighbour applies it
# (batched by their own cells, the processes' states differed here).
same big-blocks 3 --size 1024x1488 --seed 2 --steps 16 --set rain_rate=20 --set time_step=0.25
same alpine 2 --size 61x97 --steps 20 --preset alpine
same thermal 3 --size 61x77 --model thermal --steps 30
same olsen 2 --size 61x77 --model olsen --steps 30
same musgrave 4 --size 61x77 --model musgrave --steps 30 --set enable_groundwater=1
same simple 6 --size 61x77 --model simple --steps 30
# Droplets handed from block to block: both variants, open and closed edges, and droplets fast
# enough (no friction, little inertia) to jump past the next block in one iteration.
same particles 3 --size 61x97 --model particles --steps 20
same particles-capacity 4 --size 61x97 --model particles --steps 20 --set particle_variant=1
same particles-fast 4 --size 61x97 --model particles --steps 10 --set particle_friction=0 \
  --set particle_density=0.05 --set particle_lifetime=300
rounds=$(field "$tmp/particles-fast-4.json" '["processes"]["droplet_rounds"]')
[ "$rounds" -gt 20 ] || fail "particles-fast: $rounds rounds of hand-overs in 10 steps: the droplets hardly crossed"
same particles-closed 3 --size 61x97 --model particles --steps 10 --set edge_mode=0 --set particle_friction=0 \
  --set particle_density=0.05
# Random droplet parameters from the table's whole ranges (variants, edges, layers, lifetimes from
# 1 to 600 iterations, light fast droplets and heavy slow ones), on random grids and processes.
for case in 6 9 10 12 27 29; do # seeds drawing both variants, edges, layers on and off, 2 x 2 blocks
  read -r np wg args < <(python3 -c 'import random, sys
r = random.Random(int(sys.argv[1]))
p = dict(particle_count=r.choice([100, 2000, 20000]), particle_variant=r.randint(0, 1),
         particle_lifetime=r.choice([1, 8, 64, 600]), particle_time_step=round(r.uniform(0.01, 2.0), 3),
         particle_density=round(10 ** r.uniform(-2, 2), 3), particle_friction=round(r.uniform(0, 0.5), 3),
         particle_evaporation=round(r.uniform(0, 0.5), 3), particle_deposition=round(r.uniform(0, 1), 3),
         particle_softness=round(r.uniform(0, 1), 3), particle_capacity=round(r.uniform(0, 10), 3),
         particle_volume=round(r.uniform(0.01, 10), 3), particle_min_volume=round(10 ** r.uniform(-4, 0), 4),
         edge_mode=r.randint(0, 1), enable_layers=r.randint(0, 1))
print(r.randint(2, 4), r.choice(["64x4", "16x16", "32x8"]),
      f"--size {r.randint(97, 160)}x{r.randint(97, 160)} --seed {r.randint(1, 99)} --steps {r.randint(1, 12)}",
      " ".join(f"--set {k}={v}" for k, v in p.items()))' "$case")
  # shellcheck disable=SC2086 # the generated options, split on spaces
  ALLUVIUM_WORKGROUP=$wg same "particles-random-$case" "$np" --model particles $args
done
# Droplets fall where a painted rain mask lets them (read in each block at the droplet's cell).
python3 -c 'import struct, sys
open(sys.argv[1], "wb").write(b"".join(struct.pack("<f", 1.0 if (x // 8 + y // 8) % 2 else 0.2)
                                       for y in range(97) for x in range(61)))' "$tmp/mask.f32"
same particles-mask 4 --size 61x97 --model particles --steps 10 --rain-mask "$tmp/mask.f32"

# Blocks across and down, their corners from the diagonal neighbours: with square workgroups
# (a GPU's: 32x8 on NVIDIA, 16x16 elsewhere) the bands are narrow enough for a grid of blocks.
export ALLUVIUM_WORKGROUP=16x16
same pipe-2d 4 --size 97x89 --seed 4 --steps 60 --set rain_rate=5
same pipe-2d 6 --size 97x89 --seed 4 --steps 60 --set rain_rate=5
same parts-2d 4 --size 97x89 --steps 30 --set enable_groundwater=1 --set enable_snow=1 --set enable_vegetation=1 \
  --set enable_layers=1 --set rain_noise=0.5 --set storm_count=2 --set strata_contrast=0.5 --set enable_lava=1
same musgrave-2d 4 --size 97x89 --model musgrave --steps 30
same coastal-2d 4 --size 97x89 --steps 40 --preset coastal
same particles-2d 6 --size 97x89 --model particles --steps 20 --set particle_count=20000 --set enable_layers=1 \
  --set strata_contrast=0.5 --set rain_noise=0.5 --set storm_count=2 --set particle_variant=1 \
  --set particle_lifetime=500
export ALLUVIUM_WORKGROUP=32x8
same pipe-32x8 6 --size 131x71 --seed 6 --steps 30
# Bands k steps wide swapped every k (sub-)steps (ALLUVIUM_BAND_STEPS): the same bits.
export ALLUVIUM_BAND_STEPS=3
same band-steps-3 4 --size 61x197 --steps 30 --set time_step=0.5 --set cell_size=0.5 --set rain_rate=50
export ALLUVIUM_WORKGROUP=16x16 ALLUVIUM_BAND_STEPS=2
same band-steps-2-2d 4 --size 127x119 --steps 30 --set enable_groundwater=1 --set enable_snow=1 \
  --set enable_vegetation=1 --set enable_layers=1 --set rain_noise=0.5 --set storm_count=2 --set enable_lava=1
# (Droplets change only their block's cells: the particles' bands are swapped every step.)
same band-steps-2-particles 4 --size 97x89 --model particles --steps 10 --set particle_count=10000
unset ALLUVIUM_WORKGROUP ALLUVIUM_BAND_STEPS

# maps NAME NP ARGS...: a run's --out-maps on one process and on NP: every file alike (the final
# state's fields gathered; its lakes and drainage filled and routed across the blocks).
maps() {
  local name=$1 np=$2
  shift 2
  both "$name" "$np" run --out-maps "$@" || return
  alike "$name" "$tmp/$name-1.dir" "$tmp/$name-$np.dir"
  [ "$alike" -gt 40 ] || fail "$name: only $alike map files"
  clean "$name" "$tmp/$name-$np.json" '["processes"]["maps_analysis"]'
  echo "ok   $name on $np processes: $alike map files alike \
($(field "$tmp/$name-$np.json" '["processes"]["maps_analysis"]["flats_rounds"]') flats rounds)"
}
maps run-maps 4 --size 127x119 --steps 15 --preset volcano-island --set enable_groundwater=1 --set enable_snow=1 \
  --set enable_vegetation=1 --set enable_layers=1
# lake_evaporation is the fluvial model's: a pipe run's maps have no closed lakes, split or not.
maps run-maps-lakes 2 --size 97x61 --seed 4 --terrain fractal --steps 5 --set lake_evaporation=2

# frames NAME NP ARGS...: a run's --timelapse on one process and on NP: the same frames (rank 0
# draws the whole grid, its fields gathered from the blocks before each frame).
frames() {
  local name=$1 np=$2
  shift 2
  both "$name" "$np" run --timelapse "$@" || return
  alike "$name" "$tmp/$name-1.dir" "$tmp/$name-$np.dir" 'frame-*.png'
  [ "$alike" = "$(field "$tmp/$name-$np.json" '["timelapse"]["frames"]')" ] || fail "$name: $alike frames"
  clean "$name" "$tmp/$name-$np.json" '["processes"]'
  echo "ok   $name on $np processes: $alike frames alike"
}
frames timelapse 4 --size 127x119 --steps 20 --preset volcano-island --set enable_snow=1 --set enable_lava=1 \
  --every 10 --timelapse-size 320x180
# Storms: their clouds' shadows follow the simulated time, which rank 0's whole grid takes too.
frames timelapse-storms 4 --size 127x119 --steps 30 --preset storms --every 15 --timelapse-size 320x180

# tables NAME NP ARGS...: `alluvium watertable` on one process and on NP (the relaxation's
# half-rounds swap the blocks' bands): the same table to the bit, the same report, every map alike.
tables() {
  local name=$1 np=$2
  shift 2
  both "$name" "$np" watertable --out-maps "$@" || return
  cmp -s "$tmp/$name-1.f32" "$tmp/$name-$np.f32" || fail "$name: the tables differ"
  same_keys "$name" "$tmp/$name-1.json" "$tmp/$name-$np.json" lake_cells lake_volume_m3 wet_land_cells \
    cells_still_moving ocean_cells mean_depth_below_ground_m rivers
  alike "$name" "$tmp/$name-1.dir" "$tmp/$name-$np.dir"
  clean "$name" "$tmp/$name-$np.json" '["processes"]'
  echo "ok   $name on $np processes: the same table, $alike map files alike \
($(field "$tmp/$name-$np.json" '["cells_still_moving"]') cells still moving)"
}
tables table 2 --size 97x61 --seed 4 --terrain fractal --set table_iterations=300
# The sea, and a relaxation cut short (cells still moving, counted once each over the blocks).
tables table-sea 4 --size 127x119 --preset volcano-island --set table_iterations=20

# fills NAME NP ARGS...: `alluvium fill` on one process, then on NP (each block filled on its own,
# their spill graph solved on rank 0; the flats, receivers and drainage routed across the blocks):
# the same filled heightmap to the bit, the same sums, and every map (lake depth, drainage area...)
# the same file.
fills() {
  local name=$1 np=$2
  shift 2
  both "$name" "$np" fill --out-maps "$@" || return
  cmp -s "$tmp/$name-1.f32" "$tmp/$name-$np.f32" || fail "$name: the filled heightmaps differ"
  same_keys "$name" "$tmp/$name-1.json" "$tmp/$name-$np.json" fill_volume_m3 filled_cells deepest_fill_m \
    unreached_cells largest_drainage_area_m2
  alike "$name" "$tmp/$name-1.dir" "$tmp/$name-$np.dir"
  [ "$alike" -gt 40 ] || fail "$name: only $alike map files"
  clean "$name" "$tmp/$name-$np.json" '["processes"]'
  echo "ok   $name on $np processes ($(field "$tmp/$name-$np.json" '["processes"]["blocks"]') blocks, \
$(field "$tmp/$name-$np.json" '["filled_cells"]') cells filled, \
$(field "$tmp/$name-$np.json" '["processes"]["spill_graph_edges"]') spill graph edges, \
$(field "$tmp/$name-$np.json" '["processes"]["flats_rounds"]') flats rounds, $alike map files alike)"
}
fills fill-fractal 4 --size 97x61 --seed 4 --terrain fractal
fills fill-ridged-2d 6 --size 131x77 --seed 7 --terrain ridged
fills fill-bottom 3 --size 97x61 --seed 4 --terrain fractal --set fluvial_outlets=bottom
fills fill-sea 4 --size 97x61 --preset volcano-island
# A cell size no float holds exactly: the volume sums the depths in doubles as one process does.
fills fill-cell-size 4 --size 97x61 --seed 4 --terrain fractal --set cell_size=0.3
# A rain mask: the drainage sums what falls where it rains, across the blocks.
fills fill-rain-mask 4 --size 61x97 --seed 4 --terrain fractal --rain-mask "$tmp/mask.f32"
data=$(dirname "$0")/../../shared/data
fills fill-front-range 4 --in "$data/srtm_frontrange_240x144_240x144.f32" --size 240x144 --set fluvial_outlets=bottom
fills fill-olinda 6 --in "$data/olinda_111x111.f32" --size 111x111
# A valley that winds across the block edges dozens of times to its one outlet side, a deep pit at
# its far end: the spill graph's rounds do not grow with the crossings.
python3 -c 'import random, struct, sys
r = random.Random(1)
z = [[50.0 + 0.01 * r.random() for x in range(96)] for y in range(96)]
for wx in range(2, 95, 4):
    for y in range(96):
        if (wx // 4) % 2 == 0 and y < 93 or (wx // 4) % 2 == 1 and y > 2: z[y][wx] = 200.0
z[48][93] = 10.0
open(sys.argv[1], "wb").write(b"".join(struct.pack("<f", v) for row in z for v in row))' "$tmp/serpentine.f32"
fills fill-serpentine 6 --in "$tmp/serpentine.f32" --size 96x96 --set fluvial_outlets=left

# resumes NAME SAVE_NP RESUME_NP MODEL STEPS [SAVE_SET [RESUME_SET]]: a session saved on SAVE_NP
# processes (with --set SAVE_SET) is the file one process saves, and resumed on RESUME_NP (with
# --set RESUME_SET) it gives the one-process resume's state.
resumes() {
  local name=$1 save=$2 resume=$3 model=$4 steps=$5
  local run=(run --model "$model" --steps "$steps") saving=() resuming=()
  [ -z "${6:-}" ] || saving=(--set "$6")
  [ -z "${7:-}" ] || resuming=(--set "$7")
  "$exe" "${run[@]}" "${saving[@]}" --size 61x97 --out "$tmp/$name-s1.f32" --save-session "$tmp/$name-1.session" \
    2>/dev/null && "$exe" "${run[@]}" "${resuming[@]}" --load-session "$tmp/$name-1.session" \
    --out "$tmp/$name-r1.f32" --report "$tmp/$name-r1.json" 2>/dev/null || fail "$name: one process"
  mpirun -np "$save" "$exe" "${run[@]}" "${saving[@]}" --size 61x97 --out "$tmp/$name-s$save.f32" \
    --save-session "$tmp/$name-$save.session" >/dev/null 2>&1 || fail "$name: saved on $save processes"
  cmp -s "$tmp/$name-1.session" "$tmp/$name-$save.session" ||
    fail "$name: the sessions saved on 1 and $save processes differ"
  mpirun -np "$resume" "$exe" "${run[@]}" "${resuming[@]}" --load-session "$tmp/$name-$save.session" \
    --out "$tmp/$name-r$resume.f32" --report "$tmp/$name-r$resume.json" >/dev/null 2>&1 ||
    fail "$name: resumed on $resume processes"
  [ "$(digest "$tmp/$name-r1.json")" = "$(digest "$tmp/$name-r$resume.json")" ] || fail "$name: the resumed states differ"
  echo "ok   $name: a $model session saved on $save processes and resumed on $resume ${7:-}"
}
resumes resume 2 4 pipe 20
# (The droplets' seeds follow the step.)
resumes particles-resume 3 2 particles 10
# A session whose step reaches further than the resumed run's: restored with its own parameters
# first, so the band holds both.
resumes groundwater-off 2 2 pipe 10 enable_groundwater=on enable_groundwater=off
# The sea's control holds the workgroups of the last relaxation: a session keeps the whole grid's.
resumes sea-resume 4 3 pipe 20 enable_sea=on

# refused NAME STATUS PATTERN NP COMMAND ARGS...: one line naming why, that status, no output written.
refused() {
  local name=$1 status=$2 pattern=$3 np=$4
  shift 4
  mpirun -np "$np" "$exe" "$@" --out "$tmp/$name.f32" >"$tmp/$name.log" 2>&1
  local rc=$?
  [ "$rc" = "$status" ] || fail "$name: exit status $rc, not $status"
  # (mpirun adds its own notice of a non-zero exit; the device line is not an error)
  local said
  said=$(grep '^alluvium:' "$tmp/$name.log" | grep -v '^alluvium: device [0-9]')
  [ "$(echo "$said" | wc -l)" = 1 ] || fail "$name: not one line: $said"
  echo "$said" | grep -q "$pattern" || fail "$name: no '$pattern' in: $said"
  [ ! -e "$tmp/$name.f32" ] || fail "$name: wrote its output"
  echo "ok   refused: $name ($said)"
}
refused fluvial 2 "fluvial model does not run split" 2 run --size 61x97 --steps 2 --model fluvial
refused too-small 3 "does not split into 6 blocks" 6 run --size 30x20 --steps 2
refused missing-input 2 "nowhere.png" 3 run --in "$tmp/nowhere.png" --steps 2
refused fill-lakes 2 "lake_evaporation" 3 fill --size 61x97 --set lake_evaporation=1
refused table-too-small 3 "does not split into 6 blocks" 6 watertable --size 30x20
refused fill-too-small 3 "does not split into 6 blocks" 6 fill --size 30x20
refused bad-device 3 "device index 7 out of range" 4 --device 7 run --size 61x97 --steps 2
refused same-outputs 2 "each output needs a path of its own" 2 run --size 61x97 --steps 2 \
  --save-session "$tmp/same-outputs.f32"
# Rank 0 holds the whole grid on the host: a machine with too little memory for it (10 MB here)
# is told so before the GPU starts.
export ALLUVIUM_HOST_MEMORY_MB=10
refused host-memory 3 "needs about 46 MB there" 2 run --size 1024x1024 --steps 2
refused host-memory-session 3 "and the session" 3 run --size 512x512 --steps 2 --save-session "$tmp/hm.session"
refused host-memory-maps 3 "the final heights, the maps and a field" 2 run --size 256x256 --steps 2 \
  --out-maps "$tmp/hm-maps"
refused table-host-memory 3 "the table gathered" 2 watertable --size 1024x1024
refused fill-host-memory 3 "holds the whole grid on the host" 4 fill --size 1024x1024
unset ALLUVIUM_HOST_MEMORY_MB
# Processes that would split the grid otherwise (16 x 16 workgroups beside lavapipe's 64 x 4: one
# of them cannot cut 96 columns in two) are refused together, in one line, never left waiting.
timeout 120 mpirun -np 1 -x ALLUVIUM_WORKGROUP=16x16 "$exe" run --size 96x40 --steps 2 --out "$tmp/mixed.f32" : \
  -np 1 "$exe" run --size 96x40 --steps 2 --out "$tmp/mixed.f32" >"$tmp/mixed.log" 2>&1
rc=$?
[ "$rc" = 3 ] || fail "mixed workgroups: exit status $rc, not 3"
said=$(grep '^alluvium:' "$tmp/mixed.log" | grep -v '^alluvium: device [0-9]')
[ "$(echo "$said" | wc -l)" = 1 ] && echo "$said" | grep -q "chose differently" ||
  fail "mixed workgroups: not one line naming why: $said"
[ ! -e "$tmp/mixed.f32" ] || fail "mixed workgroups: wrote its output"
echo "ok   refused: processes with different workgroups ($said)"
# Processes started with different arguments (`A : B`) would run different commands' exchanges.
timeout 120 mpirun -np 1 "$exe" run --size 97x83 --steps 2 --out "$tmp/args.f32" : \
  -np 1 "$exe" run --size 97x83 --steps 2 --out "$tmp/args.f32" --out-maps "$tmp/args-maps" >"$tmp/args.log" 2>&1
rc=$?
said=$(grep '^alluvium:' "$tmp/args.log")
[ "$rc" = 2 ] && [ "$(echo "$said" | wc -l)" = 1 ] && echo "$said" | grep -q "different arguments" ||
  fail "different arguments: status $rc: $said"
[ ! -e "$tmp/args.f32" ] && [ ! -e "$tmp/args-maps" ] || fail "different arguments: wrote an output"
echo "ok   refused: processes started with different arguments ($said)"
# bench reads its preset on rank 0 alone: a missing one is one line, exit 2.
timeout 120 mpirun -np 2 "$exe" bench --preset "$tmp/nowhere.json" --sizes 128 --steps 2 >"$tmp/bench-preset.log" 2>&1
rc=$?
said=$(grep '^alluvium:' "$tmp/bench-preset.log" | grep -v '^alluvium: device [0-9]')
[ "$rc" = 2 ] && [ "$(echo "$said" | wc -l)" = 1 ] || fail "bench's missing preset: status $rc: $said"
echo "ok   refused: bench's missing preset ($said)"
# The commands that are one process's: refused, not run N times over the same files.
mpirun -np 2 "$exe" convert --in "$tmp/pipe-1.f32" --size 61x97 --out "$tmp/converted.png" >"$tmp/convert.log" 2>&1 &&
  fail "convert under mpirun: exit status 0"
[ "$(grep -c '^alluvium:' "$tmp/convert.log")" = 1 ] || fail "convert under mpirun: $(grep alluvium "$tmp/convert.log")"
[ ! -e "$tmp/converted.png" ] || fail "convert under mpirun wrote its output"
echo "ok   refused: convert under mpirun ($(grep '^alluvium:' "$tmp/convert.log"))"

# A process killed mid-run (a lost device, a crashed node) ends the run: every process stops, the
# exit status is not 0, a line names the process, and no output is written, not even in part.
mpirun -np 2 "$exe" run --size 61x97 --steps 200000 --out "$tmp/killed.f32" >"$tmp/killed.log" 2>&1 &
launcher=$!
victim=""
for _ in $(seq 1 100); do # the second process, once it runs
  for pid in $(pgrep -f -- "--out $tmp/killed.f32" || true); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then victim=$pid; fi
  done
  [ -n "$victim" ] && break
  sleep 0.1
done
sleep 2 # into its steps
if [ -z "$victim" ]; then
  fail "killed: the second process never started"
  kill "$launcher" 2>/dev/null
else
  kill -9 "$victim"
fi
wait "$launcher"
rc=$?
[ "$rc" != 0 ] || fail "killed: exit status 0"
grep -q "rank 1" "$tmp/killed.log" || fail "killed: no line names the process: $(tail -3 "$tmp/killed.log")"
[ -z "$(ls "$tmp" | grep killed.f32)" ] || fail "killed: an output was written"
pgrep -f -- "--out $tmp/killed.f32" >/dev/null && fail "killed: a process is still running"
echo "ok   a process killed mid-run ends the run (status $rc, $(grep -o 'process rank 1[^.]*' "$tmp/killed.log" | head -1))"

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all split runs equal one process's"
