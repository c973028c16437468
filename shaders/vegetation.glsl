// Vegetation (the pipe model's step, gpu/models/vegetation.cpp): a density 0..1 per cell and the
// ground's recent wetness (the vegetation field's x and y).
//   wetness     the surface water averaged over vegetation_memory s (an exponential average)
//   moisture    the wetness over vegetation_wet_depth, or with groundwater a water table within
//               vegetation_root_depth of the surface, whichever is more (0..1)
//   suitability moisture, times 0 on ground steeper than vegetation_max_slope (1 below three
//               quarters of it, smooth between)
//   growth      logistic, dv/dt = r v (1 - v) with r = vegetation_growth q - vegetation_decay (1 - q)
//               for suitability q: it spreads where wet and gentle, dies back where dry or steep;
//               stepped by its exact solution, so any time step follows the curve. Bare ground
//               that could grow is seeded to vegetation_seed.
//   death       a flood whose bed shear stress (Manning) passes vegetation_shear uproots it at
//               vegetation_uproot_rate; a deposit of vegetation_burial m buries it all (in
//               proportion below); lava burns it
// What it does to the step (STEP_VEGETATION): roots bind the ground (erosion times
// 1 - vegetation_roots v), stems roughen the flow (Manning's n plus vegetation_roughness v) and
// slow creep (thermal erosion times 1 - vegetation_creep v).

bool vegetationOn() { return partOn(STEP_VEGETATION, p.enable_vegetation != 0 && p.model == MODEL_PIPE); }
float vegetationAt(ivec2 c) { return vegetationOn() ? imageLoad(vegetation_img, c).r : 0.0; }
float rootBinding(ivec2 c) { return 1.0 - p.vegetation_roots * vegetationAt(c); }
float creepSlowing(ivec2 c) { return 1.0 - p.vegetation_creep * vegetationAt(c); }
