// The parameter table and the parameter block the passes read, in one list that GLSL and C++
// both expand (shared.h declares `struct SimParams` from it; gpu/params.h the table the CLI's
// --set, presets and the viewer's panel read). A parameter is one P row here plus its use in a
// shader: its block field, conversion to SI and place in the panel follow from the row.
//
// P(name, group, default, min, max, unit, to_si, kind, block, meaning): a parameter
//   group   where the panel and `alluvium params` list it
//   default, min, max  in the table's unit
//   to_si   the factor from the table's unit to the SI value the shaders read (mm/s -> m/s)
//   kind    Number; Switch (on/off: 0 or 1); Choice: the unit lists the names, "closed|open",
//           the value is the name's index; a name may give its block value ("left=1")
//   block   Float (value x to_si), Int (rounded; a choice's value), None (read by the host only)
// E(type, name, meaning): a field of the block the engine fills (grid size, workgroups, ...)
//
// The rows are in the block's order, which is also the order of the bytes the state digest
// hashes (gpu/snapshot.h): a new row goes where its block field should be; the listings group
// the rows by `group`. Every field of the block is 4 bytes, so std430 and C++ agree member for
// member.
#ifndef ALLUVIUM_PARAM_TABLE_H
#define ALLUVIUM_PARAM_TABLE_H

// clang-format off
#define ALLUVIUM_PARAMETER_BLOCK(P, E) \
    E(int, width, "cells") \
    E(int, height, "cells") \
    E(int, group_count_x, "the grid passes' workgroups across (WG_X cells each)") \
    E(int, group_count_y, "... and down") \
    E(int, rain_uniform, "1: the rain mask is 1 everywhere (the passes skip reading it)") \
    P(cell_size, "grid", 4.0, 0.1, 1000.0, "m", 1.0, Number, Float, \
      "width of one grid cell") \
    P(time_step, "grid", 0.1, 0.001, 0.5, "s", 1.0, Number, Float, \
      "simulated seconds per step") \
    P(gravity, "flow", 9.81, 0.1, 100.0, "m/s^2", 1.0, Number, Float, \
      "gravitational acceleration") \
    P(edge_mode, "grid", 1, 0, 1, "closed|open", 1.0, Choice, Int, \
      "closed: edges are walls; open: water and sediment leave over the edges and are counted") \
    P(rain_rate, "sources", 0.5, 0.0, 50.0, "mm/s", 1e-3, Number, Float, \
      "rain falling on every cell, times the rain mask") \
    P(evaporation_rate, "evaporation", 0.005, 0.0, 1.0, "1/s", 1.0, Number, Float, \
      "fraction of the water depth that evaporates per second") \
    P(flux_damping, "flow", 0.0, 0.0, 10.0, "1/s", 1.0, Number, Float, \
      "linear drag on the flow through each cell face") \
    P(manning_n, "flow", 0.03, 0.0, 0.2, "s/m^(1/3)", 1.0, Number, Float, \
      "bed roughness (Manning): slows thin and fast water") \
    P(froude_max, "flow", 2.0, 0.0, 20.0, "", 1.0, Number, Float, \
      "the fastest flow, in critical speeds sqrt(g d): steep beds roughen to it, faster faces are held (0 off)") \
    P(dry_depth, "flow", 1e-4, 1e-7, 0.1, "m", 1.0, Number, Float, \
      "water shallower than this does not flow out and has no velocity") \
    P(sediment_capacity, "erosion", 0.2, 0.0, 10.0, "s", 1.0, Number, Float, \
      "Kc: sediment a unit of speed can carry, C = Kc max(sin tilt, min_tilt) |v|") \
    P(capacity_depth, "erosion", 0.05, 0.0, 10.0, "m", 1.0, Number, Float, \
      "water shallower than this carries proportionally less (0 = no depth limit)") \
    P(min_tilt, "erosion", 0.05, 0.0, 1.0, "", 1.0, Number, Float, \
      "lower bound of sin(tilt) so flat ground still erodes a little") \
    P(dissolve_rate, "erosion", 0.3, 0.0, 10.0, "1/s", 1.0, Number, Float, \
      "Ks: how fast ground dissolves when the water carries less than its capacity") \
    P(deposit_rate, "erosion", 0.3, 0.0, 10.0, "1/s", 1.0, Number, Float, \
      "Kd: how fast sediment settles when the water carries more than its capacity") \
    P(settling_velocity, "erosion", 0.0, 0.0, 0.1, "m/s", 1.0, Number, Float, \
      "w_s: how fast grains fall through still water; adds w_s / depth to Kd, so a slowing jet drops its load where the water is shallow (mouth bars, deltas, fans)") \
    P(thermal_rate, "thermal", 8.0, 0.0, 1000.0, "m^2/s", 1.0, Number, Float, \
      "how fast ground above the talus angle slides down: a diffusivity K, a face carries K (slope - talus slope) / 2, so a slope slumps in the same time at any cell size (up to L^2 / dt: a smaller cell needs a shorter time_step)") \
    P(talus_angle, "thermal", 33.0, 1.0, 89.0, "deg", 0.017453292519943295, Number, Float, \
      "steepest stable slope of soft ground (hardness 0)") \
    P(talus_hardness_gain, "thermal", 40.0, 0.0, 88.0, "deg", 0.017453292519943295, Number, Float, \
      "talus angle added at hardness 1 (rock stands steeper); capped at 89 deg") \
    P(enable_flow, "flow", 1, 0, 1, "", 1.0, Switch, Int, \
      "run the outflow-flux and water-update passes") \
    P(enable_erosion, "erosion", 1, 0, 1, "", 1.0, Switch, Int, \
      "run the erosion/deposition pass") \
    P(enable_transport, "transport", 1, 0, 1, "", 1.0, Switch, Int, \
      "carry suspended sediment with the water (semi-Lagrangian)") \
    P(enable_thermal, "thermal", 1, 0, 1, "", 1.0, Switch, Int, \
      "run thermal erosion (two passes)") \
    P(enable_evaporation, "evaporation", 1, 0, 1, "", 1.0, Switch, Int, \
      "run the evaporation pass") \
    E(int, spring_count, "> 0: the spring_rate image holds their sources") \
    P(record_maps, "maps", 0, 0, 1, "", 1.0, Switch, Int, \
      "accumulate the erosion, deposition and flow maps each step (24 more bytes per cell and step; run --out-maps, --save-session and the viewer turn it on)") \
    E(int, model, "MODEL_*") \
    P(talus_slope, "thermal model", 0.6, 0.01, 10.0, "m/m", 1.0, Number, Float, \
      "thermal model: steepest stable slope (rise over run); steeper ground slides") \
    P(olsen_talus_slope, "olsen model", 0.5, 0.01, 10.0, "m/m", 1.0, Number, Float, \
      "olsen model: ground at or below this slope is flattened, steeper cliffs stay") \
    P(talus_fraction, "thermal model", 0.5, 0.01, 1.0, "", 1.0, Number, Float, \
      "thermal/olsen models: fraction of the excess moved per step (Olsen's c)") \
    P(talus_neighbourhood, "thermal model", 2, 0, 2, "von_neumann|rotated|moore", 1.0, Choice, Int, \
      "thermal/olsen models: the 4 axis neighbours, the 4 diagonal ones (seed 001: leaves diagonal streaks), or all 8") \
    P(musgrave_rain_amount, "musgrave model", 0.01, 0.0, 1.0, "m", 1.0, Number, Float, \
      "musgrave model: water added to every cell at each rain event") \
    P(musgrave_rain_interval, "musgrave model", 5, 1, 1000, "steps", 1.0, Number, Int, \
      "musgrave model: steps between rain events (rain frequency)") \
    P(musgrave_capacity, "musgrave model", 0.05, 0.0, 10.0, "m/m", 1.0, Number, Float, \
      "musgrave model: Kc, sediment carried per metre of water moved") \
    P(musgrave_softness, "musgrave model", 0.3, 0.0, 1.0, "", 1.0, Number, Float, \
      "musgrave model: Ks, fraction of the missing capacity dissolved from the ground") \
    P(musgrave_deposition, "musgrave model", 0.1, 0.0, 1.0, "", 1.0, Number, Float, \
      "musgrave model: Kd, fraction of the excess sediment deposited per step") \
    P(musgrave_evaporation, "musgrave model", 0.02, 0.0, 1.0, "1/step", 1.0, Number, Float, \
      "musgrave model: fraction of the water that evaporates per step") \
    P(simple_rain_amount, "simple model", 0.01, 0.0, 1.0, "m", 1.0, Number, Float, \
      "simple model: water added to every cell per step (seed 001: Kr)") \
    P(simple_solubility, "simple model", 0.01, 0.0, 1.0, "m/m", 1.0, Number, Float, \
      "simple model: ground dissolved per metre of water per step (Ks)") \
    P(simple_evaporation, "simple model", 0.5, 0.0, 1.0, "1/step", 1.0, Number, Float, \
      "simple model: fraction of the water that evaporates per step (Ke)") \
    P(simple_capacity, "simple model", 0.01, 0.0, 10.0, "m/m", 1.0, Number, Float, \
      "simple model: sediment a metre of water holds; the excess settles (Kc)") \
    P(particle_count, "particles model", 2000, 0, 4000000, "droplets", 1.0, Number, Int, \
      "particles model: droplets per step, each from a random point; a step's droplets do not see each other's changes, so keep it well below the cell count") \
    P(particle_variant, "particles model", 0, 0, 1, "mass_transfer|capacity", 1.0, Choice, Int, \
      "particles model: seed 002 (toward c_eq = Kc volume speed drop) or seed 000 (capacity Kc speed volume, Ks/Kd)") \
    E(uint, particle_seed, "droplet RNG seed (the run's --seed)") \
    P(particle_lifetime, "particles model", 64, 1, 4096, "iterations", 1.0, Number, Int, \
      "particles model: iterations a droplet lives at most") \
    P(particle_time_step, "particles model", 1.2, 0.01, 2.0, "", 1.0, Number, Float, \
      "particles model: droplet time step dt (seed 002; scales acceleration, motion and rates)") \
    P(particle_density, "particles model", 1.0, 0.01, 100.0, "", 1.0, Number, Float, \
      "particles model: inertia, speed += dt normal / (volume density) (cells per unit time)") \
    P(particle_friction, "particles model", 0.05, 0.0, 0.5, "", 1.0, Number, Float, \
      "particles model: speed *= 1 - dt friction per iteration") \
    P(particle_evaporation, "particles model", 0.001, 0.0, 0.5, "", 1.0, Number, Float, \
      "particles model: volume *= 1 - dt evaporation (capacity: -= dt evaporation initial volume)") \
    P(particle_deposition, "particles model", 0.1, 0.0, 1.0, "", 1.0, Number, Float, \
      "particles model: mass-transfer rate (seed 002) / Kd, fraction of the excess deposited (seed 000)") \
    P(particle_softness, "particles model", 0.3, 0.0, 1.0, "", 1.0, Number, Float, \
      "particles model, capacity variant: Ks, fraction of the missing capacity dissolved") \
    P(particle_capacity, "particles model", 0.1, 0.0, 10.0, "", 1.0, Number, Float, \
      "particles model: Kc, scales the equilibrium concentration (m of soil per m of drop) or capacity") \
    P(particle_volume, "particles model", 1.0, 0.01, 10.0, "", 1.0, Number, Float, \
      "particles model: initial droplet volume") \
    P(particle_min_volume, "particles model", 0.01, 0.0001, 1.0, "", 1.0, Number, Float, \
      "particles model: a droplet whose volume falls below this dies and drops its sediment") \
    P(uplift_rate, "fluvial model", 0.2, 0.0, 100.0, "mm/yr", 1e-3 / 3.15576e7, Number, Float, \
      "fluvial model: U, rock uplift (times the uplift map); the outlet edges stay at base level") \
    P(stream_power_k, "fluvial model", 2e-5, 0.0, 0.1, "m^(1-2m)/yr", 1.0 / 3.15576e7, Number, Float, \
      "fluvial model: K of dz/dt = U - K A^m S^n, times (1 - 0.9 hardness)") \
    P(stream_power_m, "fluvial model", 0.4, 0.0, 2.0, "", 1.0, Number, Float, \
      "fluvial model: drainage-area exponent m of the stream-power law") \
    P(stream_power_n, "fluvial model", 1.0, 0.5, 4.0, "", 1.0, Number, Float, \
      "fluvial model: slope exponent n (1: exact implicit update; else linearised on the slope)") \
    P(hillslope_diffusion, "fluvial model", 2e-4, 0.0, 100.0, "m^2/yr", 1.0 / 3.15576e7, Number, Float, \
      "fluvial model: D of hillslope creep dz/dt = D laplacian(z), capped at its explicit limit") \
    P(fluvial_time_step, "fluvial model", 1000.0, 1.0, 1e6, "yr", 3.15576e7, Number, Float, \
      "fluvial model: geological years per iteration (the implicit update is stable for any)") \
    P(fluvial_outlets, "fluvial model", 0, 0, 6, "all=15|left=1|right=2|top=4|bottom=8|left_right=3|top_bottom=12", 1.0, Choice, Int, \
      "fluvial model: the edges that are outlets (base level); the others are closed") \
    P(fluvial_flat_rounds, "fluvial model", 64, 4, 256, "rounds", 1.0, Number, Int, \
      "fluvial model: safety bound on the rounds across lakes and flats per iteration (each carries a 16-cell tile; they stop once done; the report says if one fell short)") \
    P(fluvial_deposition, "fluvial model", 0.5, 0.0, 10.0, "", 1.0, Number, Float, \
      "fluvial model: G, deposition: a cell keeps G cell_area / A of the sediment passing it (lakes all of it); 0 = off") \
    E(int, fluvial_tile_order, "tests: 0 the natural order of tiles and list chunks; 1 reversed; 2 strided") \
    E(int, fluvial_job_row, "tests: workgroups per row of a job's dispatch (0: JOB_ROW_GROUPS)") \
    P(enable_groundwater, "groundwater", 0, 0, 1, "", 1.0, Switch, Int, \
      "run the groundwater passes (pipe, musgrave and simple models): infiltration, Dupuit flow, seepage") \
    P(infiltration_rate, "groundwater", 0.2, 0.0, 50.0, "mm/s", 1e-3, Number, Float, \
      "surface water soaking into the ground, limited by the free pore space") \
    P(porosity, "groundwater", 0.3, 0.01, 0.6, "", 1.0, Number, Float, \
      "fraction of the ground's volume that holds water (its pores)") \
    P(hydraulic_conductivity, "groundwater", 1e-3, 1e-7, 1.0, "m/s", 1.0, Number, Float, \
      "K: groundwater flux K h grad H (Dupuit-Forchheimer, h the saturated thickness)") \
    P(aquifer_thickness, "groundwater", 20.0, 0.0, 1000.0, "m", 1.0, Number, None, \
      "depth of the aquifer's impermeable base below the initial ground (when the terrain is loaded or reset)") \
    P(initial_table_depth, "groundwater", 2.0, 0.0, 1000.0, "m", 1.0, Number, None, \
      "depth of the water table below the initial ground (when the terrain is loaded or reset)") \
    E(int, groundwater_substeps, "flow sub-steps per step (even, <= GROUNDWATER_MAX_SUBSTEPS)") \
    P(enable_sea, "sea", 0, 0, 1, "", 1.0, Switch, Int, \
      "a sea (pipe model): cells below its surface connected to an open edge (edge_mode open) are ocean, held at the sea's surface") \
    P(sea_level, "sea", 0.0, -10000.0, 10000.0, "m", 1.0, Number, Float, \
      "mean sea level; setting or raising it fills every ocean cell at once") \
    P(tide_amplitude, "sea", 0.0, 0.0, 100.0, "m", 1.0, Number, Float, \
      "the tide: the sea surface is sea_level + amplitude sin(2 pi t / period) (pipe model)") \
    P(tide_period, "sea", 120.0, 1.0, 1e6, "s", 1.0, Number, Float, \
      "period of the tide (simulated seconds)") \
    P(sea_damping, "sea", 0.5, 0.0, 100.0, "1/s", 1.0, Number, Float, \
      "the open sea absorbs currents: the flow's speed decays at this rate in ocean cells (rivers' jets slow down and drop their load; 0: none)") \
    P(table_tension_air, "water table", 1e6, 0.0, 1e8, "m^2", 1.0, Number, Float, \
      "equilibrium water table (seed 003): surface tension where the table is above the ground (lakes, rivers): flat water surfaces") \
    P(table_tension_ground, "water table", 20.0, 0.0, 1e6, "m^2", 1.0, Number, Float, \
      "surface tension of the table inside the ground (the sponge): how far water bodies hold it up") \
    P(table_internal, "water table", 0.0, 0.0, 100.0, "m", 1.0, Number, Float, \
      "internal potential: the penalty for water held in the pores beside free water (it opposes capillarity)") \
    P(table_gravity, "water table", 100.0, 0.0, 1e4, "", 1.0, Number, Float, \
      "gravity's weight: holds lakes at their spill height and water on land at the ground") \
    P(table_capillarity, "water table", 5.0, 0.0, 100.0, "m", 1.0, Number, Float, \
      "capillarity: the pull that lets water climb into the ground beside lakes and the sea") \
    P(table_iterations, "water table", 4000, 1, 1000000, "rounds", 1.0, Number, None, \
      "relaxation rounds of the equilibrium water table (alluvium watertable, the viewer's button)") \
    P(lake_evaporation, "fluvial model", 0.0, 0.0, 100.0, "m/yr", 1.0 / 3.15576e7, Number, Float, \
      "fluvial model: E, evaporation from lakes: a closed lake fills only until its area times E equals its inflow (0: every lake fills to its spill height)") \
    P(fluvial_rainfall, "fluvial model", 1.0, 0.0, 100.0, "m/yr", 1.0 / 3.15576e7, Number, Float, \
      "fluvial model: rain (times the rain mask) that lakes balance against lake_evaporation") \
    P(enable_layers, "layers", 0, 0, 1, "", 1.0, Switch, Int, \
      "layered ground: a loose layer (regolith, sediment) over the bedrock; deposits are loose, erosion takes the loose layer first, every model") \
    P(loose_erodibility, "layers", 1.0, 0.0, 10.0, "", 1.0, Number, Float, \
      "the loose layer's erosion rate, relative to bedrock of hardness 0") \
    P(loose_repose_angle, "layers", 30.0, 1.0, 60.0, "deg", 0.017453292519943295, Number, Float, \
      "the loose material's angle of repose: steeper loose slopes slide (bedrock stands at the talus angle, steeper by hardness)") \
    P(regolith_depth, "layers", 1.0, 0.0, 1000.0, "m", 1.0, Number, None, \
      "the loose layer's thickness when a terrain starts (New terrain, reset, a command's start)") \
    P(strata_contrast, "strata", 0.0, 0.0, 1.0, "", 1.0, Number, Float, \
      "bedrock hardness in bands by elevation: 0 off (the hardness map alone) .. 1 the bands alone") \
    P(strata_thickness, "strata", 20.0, 0.1, 10000.0, "m", 1.0, Number, Float, \
      "the bands' thickness") \
    P(strata_tilt, "strata", 0.0, 0.0, 60.0, "deg", 0.017453292519943295, Number, Float, \
      "the bands' dip, in the direction strata_seed picks") \
    P(strata_seed, "strata", 1, 0, 1000000, "", 1.0, Number, Int, \
      "which bands are hard, and the dip's direction") \
    P(rain_noise, "weather", 0.0, 0.0, 1.0, "", 1.0, Number, Float, \
      "noise rain: 0 off .. 1 from no rain to full rain across the map (seed 001), drifting slowly") \
    P(rain_noise_scale, "weather", 500.0, 1.0, 1e6, "m", 1.0, Number, Float, \
      "noise rain: the size of its wet and dry patches") \
    P(rain_noise_period, "weather", 600.0, 1.0, 1e7, "s", 1.0, Number, Float, \
      "noise rain: how long its patterns take to drift into new ones") \
    P(rain_noise_seed, "weather", 1, 0, 1000000, "", 1.0, Number, Int, \
      "noise rain: which pattern") \
    P(storm_count, "weather", 0, 0, 16, "storms", 1.0, Number, Int, \
      "storms drifting over the terrain, each raining under its cloud (0: none, the rain everywhere)") \
    P(storm_radius, "weather", 150.0, 1.0, 1e6, "m", 1.0, Number, Float, \
      "storms: a cloud's radius") \
    P(storm_intensity, "weather", 1.0, 0.0, 1.0, "", 1.0, Number, Float, \
      "storms: the rain at a cloud's core at the peak of its life, times rain_rate") \
    P(storm_speed, "weather", 8.0, 0.0, 1000.0, "m/s", 1.0, Number, Float, \
      "storms: how fast the clouds drift downwind") \
    P(storm_lifetime, "weather", 120.0, 1.0, 1e6, "s", 1.0, Number, Float, \
      "storms: a cloud's life, from forming to gone") \
    P(storm_background, "weather", 0.05, 0.0, 1.0, "", 1.0, Number, Float, \
      "storms: the rain outside the clouds, times rain_rate") \
    P(storm_seed, "weather", 1, 0, 1000000, "", 1.0, Number, Int, \
      "storms: where the clouds form") \
    P(wind_direction, "weather", 0.0, 0.0, 360.0, "deg", 0.017453292519943295, Number, Float, \
      "where the wind blows to (0: +x, 90: +y): the storms' drift, the slopes orographic rain favours") \
    P(orographic, "weather", 0.0, 0.0, 1.0, "", 1.0, Number, Float, \
      "orographic rain: 0 off .. 1 rain follows the relief alone: more with height and on slopes facing the wind") \
    P(orographic_base, "weather", 0.0, -10000.0, 10000.0, "m", 1.0, Number, Float, \
      "orographic rain: the height below which it rains least (a fifth)") \
    P(orographic_height, "weather", 200.0, 1.0, 1e5, "m", 1.0, Number, Float, \
      "orographic rain: the rise above orographic_base at which it rains fully") \
    P(orographic_slope, "weather", 10.0, 0.0, 100.0, "", 1.0, Number, Float, \
      "orographic rain: the rain gained per unit of slope facing the wind") \
    P(enable_snow, "snow", 0, 0, 1, "", 1.0, Switch, Int, \
      "snow (pipe model): falls where the air is below 0 C, melts by degree-days into the water, slides where steeper than its angle of repose") \
    P(air_temperature, "snow", 1.0, -50.0, 50.0, "degC", 1.0, Number, Float, \
      "the air's temperature at elevation 0 m; it cools by lapse_rate with height") \
    P(lapse_rate, "snow", 6.5, 0.0, 100.0, "degC/km", 1e-3, Number, Float, \
      "how much colder the air is per km of height (the atmosphere's 6.5; more brings a snow line onto a small terrain)") \
    P(season_amplitude, "snow", 0.0, 0.0, 50.0, "degC", 1.0, Number, Float, \
      "the seasons: the air's temperature swings this much above and below (0: no seasons)") \
    P(season_period, "snow", 600.0, 1.0, 1e7, "s", 1.0, Number, Float, \
      "the seasons: the simulated seconds a year lasts (it starts warming)") \
    P(snowfall_rate, "snow", 0.2, 0.0, 50.0, "mm/s", 1e-3, Number, Float, \
      "snow (as water) falling where the air is below 0 C, times the rain mask and the weather") \
    P(melt_factor, "snow", 0.02, 0.0, 10.0, "mm/(degC s)", 1e-3, Number, Float, \
      "degree-day melt: water melted per degree above 0 C per second (real snow: 3-8 mm a degree a day; the sandbox's clock runs faster, as its rain)") \
    P(sun_melt, "snow", 0.5, 0.0, 1.0, "", 1.0, Number, Float, \
      "melt by the sun: 0 the same on every slope .. 1 in proportion to the sunlight a slope gets (none in shade, more facing the sun)") \
    P(sun_azimuth, "snow", 135.0, 0.0, 360.0, "deg", 0.017453292519943295, Number, Float, \
      "where the sun stands, from +y (0) towards +x (90)") \
    P(sun_elevation, "snow", 30.0, 1.0, 90.0, "deg", 0.017453292519943295, Number, Float, \
      "the sun's height above the horizon") \
    P(snow_density, "snow", 300.0, 50.0, 917.0, "kg/m^3", 1.0, Number, Float, \
      "the snowpack's density: it lies 1000 / density times as deep as the water it holds") \
    P(snow_repose_angle, "snow", 38.0, 5.0, 60.0, "deg", 0.017453292519943295, Number, Float, \
      "snow steeper than this slides down (avalanches)") \
    P(enable_vegetation, "vegetation", 0, 0, 1, "", 1.0, Switch, Int, \
      "vegetation (pipe model): grows where the ground is wet and gentle, dies in drought, floods and burial; its roots bind the ground, its stems roughen the flow and slow creep") \
    P(vegetation_growth, "vegetation", 0.05, 0.0, 10.0, "1/s", 1.0, Number, Float, \
      "logistic growth rate where the ground is fully wet and gentle") \
    P(vegetation_decay, "vegetation", 0.02, 0.0, 10.0, "1/s", 1.0, Number, Float, \
      "die-back rate where the ground is dry or too steep (drought)") \
    P(vegetation_wet_depth, "vegetation", 0.005, 0.0001, 10.0, "m", 1.0, Number, Float, \
      "recent surface water at which the ground counts as fully wet") \
    P(vegetation_memory, "vegetation", 30.0, 0.1, 1e6, "s", 1.0, Number, Float, \
      "how long the ground remembers surface water (the wetness is its average over this time)") \
    P(vegetation_root_depth, "vegetation", 2.0, 0.01, 100.0, "m", 1.0, Number, Float, \
      "with groundwater: a water table this near the surface waters the roots") \
    P(vegetation_max_slope, "vegetation", 35.0, 1.0, 89.0, "deg", 0.017453292519943295, Number, Float, \
      "ground steeper than this grows nothing (full growth below three quarters of it)") \
    P(vegetation_seed, "vegetation", 0.01, 0.0, 1.0, "", 1.0, Number, Float, \
      "the density seeds bring to bare ground where plants can grow") \
    P(vegetation_roots, "vegetation", 0.8, 0.0, 1.0, "", 1.0, Number, Float, \
      "roots bind the ground: erosion falls by this share at full density") \
    P(vegetation_roughness, "vegetation", 0.1, 0.0, 1.0, "s/m^(1/3)", 1.0, Number, Float, \
      "stems roughen the flow: Manning's n added at full density") \
    P(vegetation_creep, "vegetation", 0.8, 0.0, 1.0, "", 1.0, Number, Float, \
      "roots slow creep: thermal erosion falls by this share at full density") \
    P(vegetation_shear, "vegetation", 100.0, 0.0, 1e5, "Pa", 1.0, Number, Float, \
      "a flood whose bed shear stress passes this uproots the plants") \
    P(vegetation_uproot_rate, "vegetation", 2.0, 0.0, 100.0, "1/s", 1.0, Number, Float, \
      "how fast such a flood clears them") \
    P(vegetation_burial, "vegetation", 0.5, 0.001, 100.0, "m", 1.0, Number, Float, \
      "a deposit this deep buries the plants (less buries a share of them)") \
    P(enable_lava, "lava", 0, 0, 1, "", 1.0, Switch, Int, \
      "lava (pipe model): erupts at the vent and from the brush, flows as a Bingham fluid that stiffens as it cools, boils the water it meets and turns into hard rock") \
    P(lava_eruption_rate, "lava", 5.0, 0.0, 10000.0, "m^3/s", 1.0, Number, Float, \
      "lava the vent erupts (0: a dormant vent; the brush still pours)") \
    P(lava_vent_x, "lava", 0.5, 0.0, 1.0, "", 1.0, Number, Float, \
      "the vent's place across the grid (0 left .. 1 right)") \
    P(lava_vent_y, "lava", 0.5, 0.0, 1.0, "", 1.0, Number, Float, \
      "the vent's place down the grid (0 top .. 1 bottom)") \
    P(lava_vent_radius, "lava", 8.0, 0.1, 10000.0, "m", 1.0, Number, Float, \
      "the vent's radius (at least the cells around its centre)") \
    P(lava_vent_temperature, "lava", 1400.0, 900.0, 2000.0, "K", 1.0, Number, Float, \
      "the lava's temperature as it erupts") \
    P(lava_solidus, "lava", 1000.0, 300.0, 1500.0, "K", 1.0, Number, Float, \
      "lava cooler than this is rock") \
    P(lava_density, "lava", 2600.0, 1000.0, 4000.0, "kg/m^3", 1.0, Number, Float, \
      "the molten lava's density") \
    P(lava_rock_density, "lava", 2800.0, 1000.0, 4000.0, "kg/m^3", 1.0, Number, Float, \
      "the rock it becomes: a solidified metre of lava leaves lava_density / lava_rock_density m of rock") \
    P(lava_heat_capacity, "lava", 1150.0, 100.0, 5000.0, "J/(kg K)", 1.0, Number, Float, \
      "the lava's specific heat") \
    P(lava_emissivity, "lava", 0.95, 0.0, 1.0, "", 1.0, Number, Float, \
      "radiation from its surface: emissivity x sigma x T^4") \
    P(lava_ground_transfer, "lava", 5.0, 0.0, 10000.0, "W/(m^2 K)", 1.0, Number, Float, \
      "heat lost to the ground under it, per kelvin above the ground's 300 K") \
    P(lava_quench, "lava", 300.0, 0.0, 1e6, "W/(m^2 K)", 1.0, Number, Float, \
      "heat lost to water over it, per kelvin above boiling: the water boils away") \
    P(lava_viscosity, "lava", 1000.0, 1.0, 1e8, "Pa s", 1.0, Number, Float, \
      "the viscosity at the vent's temperature") \
    P(lava_viscosity_rise, "lava", 0.02, 0.0, 1.0, "1/K", 1.0, Number, Float, \
      "the viscosity grows by e for each 1 / this kelvin of cooling") \
    P(lava_yield_strength, "lava", 100.0, 0.0, 1e6, "Pa", 1.0, Number, Float, \
      "the Bingham yield strength at the vent's temperature: thinner or flatter lava stands") \
    P(lava_yield_rise, "lava", 0.01, 0.0, 1.0, "1/K", 1.0, Number, Float, \
      "the yield strength grows by e for each 1 / this kelvin of cooling") \
    P(lava_rock_hardness, "lava", 0.9, 0.0, 1.0, "", 1.0, Number, Float, \
      "the hardness of the rock lava becomes") \
    E(int, tile_count_x, "the fluvial model's FLUVIAL_TILE^2 tiles across") \
    E(int, tile_count_y, "... and down") \
    E(int, partials_per_group, "the step's sums on CPU drivers: partials per workgroup and slot (1 elsewhere)") \
    E(int, subgroup_partials_at, "... and where in partials[] they start") \
    E(int, origin_x, "a block of a grid split over processes (mpirun): the whole grid's column of its cell 0 (0 on one device)") \
    E(int, origin_y, "... and row") \
    E(int, full_width, "the whole grid's cells across (width on one device)") \
    E(int, full_height, "... and down") \
    E(int, own_x0, "the cells this block owns (the others are its ghost bands): first column") \
    E(int, own_y0, "... first row") \
    E(int, own_x1, "... one past the last column") \
    E(int, own_y1, "... one past the last row")

// clang-format on

#endif
