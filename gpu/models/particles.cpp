// The particles model (seeds 000 and 002): droplets spawned at random, accelerated by the surface
// normal, slowed by friction, eroding and depositing toward an equilibrium concentration,
// evaporating; one invocation a droplet (particles.comp), their height changes summed with 64-bit
// integer atomics and applied (particles_apply.comp): the model's timed passes in order.
#include "model.h"

namespace alluvium::gpu {

const Model& particlesModel() {
    static const Model model = {
        MODEL_PARTICLES,
        "particles",
        "droplets that erode and deposit as they run down (seeds 000 and 002)",
        {Field::Terrain, Field::Sediment, Field::Loose}, // droplets carry no standing water
        {Pass::Particles, Pass::ParticlesApply},
        {},
        {},
        nullptr,
        "droplet water, one particle_volume unit counted as 1 m^3: rained = the droplets that fell (particle_count, "
        "fewer where the rain mask is below 1) x particle_volume per step; "
        "evaporated on the way; drained with droplets that left over an open edge; absorbed where droplets ended on "
        "the "
        "map. The water field is carried over unchanged"};
    return model;
}

} // namespace alluvium::gpu
