#version 450
// Shading of the ground (LAYER_TERRAIN) and of the water surface (LAYER_WATER), or of an
// overlay view. Normals come from the full-resolution images at each fragment; the output is
// sRGB-encoded by hand (the targets are UNORM, like the panel expects).
#include "render.glsl"

layout(constant_id = SPEC_LAYER) const int LAYER = LAYER_TERRAIN;
layout(constant_id = SPEC_SPLIT_OUTFLOW) const bool SPLIT_OUTFLOW = false;

layout(location = 0) in vec2 v_cell;
layout(location = 1) in vec3 v_world;
layout(location = 2) in float v_skirt;
layout(location = 0) out vec4 out_color;

const vec3 kSky = vec3(0.26, 0.42, 0.68); // linear
const vec3 kSunColor = vec3(1.0, 0.95, 0.85);

// Height (x) and gradient (yz, m per cell) of the bilinear patch at p, from its four cells:
// the ground (which 0) or the water surface (which 1; depth: the water's there).
// Ground height (x) and a smooth gradient (yz): central differences at the four surrounding cell
// centres, interpolated, so the light does not crease along cell edges (16 loads).
vec3 groundAt(vec2 p) {
    Bilinear b = bilinearAt(p);
    float hs[16];
    for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k) hs[j * 4 + k] = terrainAt(b.i + ivec2(k - 1, j - 1));
    vec2 g00 = 0.5 * vec2(hs[6] - hs[4], hs[9] - hs[1]), g10 = 0.5 * vec2(hs[7] - hs[5], hs[10] - hs[2]);
    vec2 g01 = 0.5 * vec2(hs[10] - hs[8], hs[13] - hs[5]), g11 = 0.5 * vec2(hs[11] - hs[9], hs[14] - hs[6]);
    return vec3(bilerp(b, hs[5], hs[6], hs[9], hs[10]), bilerp(b, g00, g10, g01, g11));
}

vec4 patchAt(vec2 p, int which, out float depth) {
    Bilinear b = bilinearAt(p);
    ivec2 i = b.i;
    vec2 t = b.t;
    vec4 g = vec4(terrainAt(i), terrainAt(i + ivec2(1, 0)), terrainAt(i + ivec2(0, 1)), terrainAt(i + ivec2(1, 1)));
    depth = 0.0;
    if (which == 1) {
        vec4 w = vec4(waterAt(i), waterAt(i + ivec2(1, 0)), waterAt(i + ivec2(0, 1)), waterAt(i + ivec2(1, 1)));
        depth = bilerp(b, w.x, w.y, w.z, w.w);
        g += w;
    }
    // The patch's slopes along x and y (per cell), each interpolated across the other axis.
    return vec4(bilerp(b, g.x, g.y, g.z, g.w), mix(g.y - g.x, g.w - g.z, t.y), mix(g.z - g.x, g.w - g.y, t.x), 0.0);
}

// Sunlight (0..1) at p: surface_sun.comp's cells, bilinear.
float sunAt(vec2 p) {
    Bilinear b = bilinearAt(p);
    return IMAGE_BILINEAR_R(sun_img, b);
}

vec3 normalFrom(vec2 g) {
    // World: x = cell * L, y = height * exaggeration.
    float e = f.grid.w / f.grid.z;
    return normalize(vec3(-g.x * e, 1.0, -g.y * e));
}

// Perceptual sequential map (viridis-like), t in 0..1.
vec3 sequential(float t) {
    t = clamp(t, 0.0, 1.0);
    vec3 c0 = vec3(0.267, 0.005, 0.329), c1 = vec3(0.229, 0.322, 0.546), c2 = vec3(0.128, 0.567, 0.551);
    vec3 c3 = vec3(0.369, 0.789, 0.383), c4 = vec3(0.993, 0.906, 0.144);
    if (t < 0.25) return mix(c0, c1, t * 4.0);
    if (t < 0.5) return mix(c1, c2, t * 4.0 - 1.0);
    if (t < 0.75) return mix(c2, c3, t * 4.0 - 2.0);
    return mix(c3, c4, t * 4.0 - 3.0);
}

// Diverging map: -1 red (eroded) .. 0 white .. 1 blue (deposited).
vec3 diverging(float t) {
    t = clamp(t, -1.0, 1.0);
    return t < 0.0 ? mix(vec3(0.97), vec3(0.70, 0.09, 0.17), -t) : mix(vec3(0.97), vec3(0.13, 0.40, 0.67), t);
}

float overlayValue(ivec2 c, int mode) {
    if (mode == OVERLAY_WATER_DEPTH) return waterAt(c);
    if (mode == OVERLAY_WATER_TABLE) return max(terrainAt(c) - imageLoad(water_table_img, c).r, 0.0);
    if (mode == OVERLAY_DRAINAGE)
        return log(max(imageLoad(drainage_img, c).r / (f.grid.z * f.grid.z), 1.0)) / log(10.0);
    if (mode == OVERLAY_SPEED) return length(imageLoad(velocity_img, c).rg);
    if (mode == OVERLAY_SEDIMENT) return imageLoad(sediment_img, c).r;
    if (mode == OVERLAY_HARDNESS) return imageLoad(hardness_img, c).r;
    if (mode == OVERLAY_LOOSE) return imageLoad(loose_img, c).r;
    if (mode == OVERLAY_SNOW) return imageLoad(snow_img, c).r * f.ground.z;
    if (mode == OVERLAY_VEGETATION) return imageLoad(vegetation_img, c).r;
    if (mode == OVERLAY_LAVA) return imageLoad(lava_img, c).g;
    if (mode == OVERLAY_FLUX) {
        vec4 w = SPLIT_OUTFLOW ? vec4(imageLoad(outflow_xy_img, c).xy, imageLoad(outflow_zw_img, c).xy)
                               : imageLoad(outflow_img, c);
        return (w.x + w.y + w.z + w.w) * imageLoad(water_img, c).r * f.grid.z; // m^3/s out
    }
    vec2 wear = imageLoad(wear_img, c).rg;
    return wear.y - wear.x;
}

// A hue wheel, t in turns (fract): red, yellow, green, cyan, blue, magenta, red.
vec3 hueWheel(float t) {
    vec3 k = abs(fract(t + vec3(1.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0) - 1.0;
    return clamp(k, 0.0, 1.0);
}

// The palette is written in sRGB; light adds up in linear values.
// Gamma 2 instead of 2.2: a square and a square root cost far less than pow on CPU drivers.
vec3 toLinear(vec3 srgb) { return srgb * srgb; }

// Hardness (x) and wear (yz: eroded, deposited) at p, bilinear: nearest cells would draw the
// strata as staircases.
vec3 materialAt(vec2 p) {
    Bilinear b = bilinearAt(p);
    vec3 m[4];
    for (int k = 0; k < 4; ++k) {
        ivec2 c = bilinearCell(b, k);
        m[k] = vec3(imageLoad(hardness_img, c).r, imageLoad(wear_img, c).rg);
    }
    return bilerp(b, m[0], m[1], m[2], m[3]);
}

// How deep snow lies at p (m), bilinear: nearest cells would draw its edge as squares.
float snowDepthAt(vec2 p) {
    Bilinear b = bilinearAt(p);
    return IMAGE_BILINEAR_R(snow_img, b) * f.ground.z;
}

// The vegetation's density at p, bilinear.
float vegetationDensityAt(vec2 p) {
    Bilinear b = bilinearAt(p);
    return IMAGE_BILINEAR_R(vegetation_img, b);
}

// The crust's cracks at p (cells): 1 on a crack between the plates of a cellular pattern (about
// a plate a cell), falling to 0 at `width` (in units of the plates' size) from it.
float lavaCracks(vec2 p, float width) {
    vec2 q = p, base = floor(q);
    float f1 = 8.0, f2 = 8.0;
    for (int j = -1; j <= 1; ++j)
        for (int k = -1; k <= 1; ++k) {
            vec2 cell = base + vec2(k, j);
            uint key = uint(int(cell.x) & 0xffff) | (uint(int(cell.y) & 0xffff) << 16);
            vec2 site = cell + vec2(hashUnit(key), hashUnit(key ^ 0x9e3779b9u));
            float d = distance(q, site);
            f2 = d < f1 ? f1 : min(f2, d);
            f1 = min(f1, d);
        }
    return 1.0 - smoothstep(0.0, width, f2 - f1);
}

// Lava over the lit ground: its own light, not the sun's. A flow's surface crusts over within
// seconds while its inside stays molten (the temperature here is the inside's), so a flow shows
// a dark crust broken by glowing cracks, wide near the vent, hairline once it nears the Draper
// point (798 K), where the glow ends. The glow's colour by temperature:
// dull red at 850 K, orange by 1100 K, yellow-orange at 1400 K.
vec3 lavaOver(vec3 colour, vec2 p) {
    if (f.lava.x < 0.5) return colour;
    Bilinear b = bilinearAt(p);
    vec2 t = b.t;
    vec2 l[4];
    for (int k = 0; k < 4; ++k) l[k] = imageLoad(lava_img, bilinearCell(b, k)).rg;
    vec4 w = vec4((1.0 - t.x) * (1.0 - t.y), t.x * (1.0 - t.y), (1.0 - t.x) * t.y, t.x * t.y);
    vec4 depth = vec4(l[0].x, l[1].x, l[2].x, l[3].x);
    // The temperature weighted by the lava's depth too: a cell without lava (T 0) does not cool
    // its neighbour's edge into a dark rim.
    float held = dot(w, depth);
    vec2 lava = vec2(held, held > 0.0 ? dot(w * depth, vec4(l[0].y, l[1].y, l[2].y, l[3].y)) / held : 0.0);
    float cover = smoothstep(0.0, 0.01, lava.x); // a film of a centimetre already shows
    if (cover <= 0.0) return colour;
    float heat = clamp((lava.y - 800.0) / 600.0, 0.0, 1.0);
    // Linear colours (sRGB dull red 0.55 0.10 0, orange 1 0.5 0.12, yellow-orange 1 0.68 0.25).
    vec3 glow = mix(vec3(0.26, 0.01, 0.0), mix(vec3(1.0, 0.21, 0.012), vec3(1.0, 0.42, 0.05), heat * heat), heat);
    // Lava just out of the vent (within 10 K of its temperature) has no crust yet; a flow's crust
    // thickens as it travels and cools, its cracks narrowing to hairlines by the Draper point.
    float fresh = smoothstep(f.lava.y - 10.0, f.lava.y - 2.0, lava.y);
    float age = clamp((f.lava.y - lava.y) / max(f.lava.y - 800.0, 1.0), 0.0, 1.0);
    float open = heat <= 0.0 ? 0.0 : max(lavaCracks(p, mix(0.25, 0.02, sqrt(age))), fresh);
    vec3 crust = toLinear(vec3(0.10, 0.09, 0.09));
    return mix(colour, mix(crust, glow * (0.55 + 0.45 * heat), open), cover);
}

vec3 groundColour(vec2 p, vec3 n, float h) {
    ivec2 c = clampCell(ivec2(p));
    vec3 material = materialAt(p);
    float hardness = material.x;
    vec2 wear = material.yz;
    float altitude = clamp((h - f.relief.x) / max(f.relief.y - f.relief.x, 1e-3), 0.0, 1.2);
    float slope = 1.0 - n.y;
    vec3 soft_rock = vec3(0.58, 0.50, 0.42), hard_rock = vec3(0.36, 0.35, 0.37);
    vec3 colour = mix(soft_rock, hard_rock, clamp(hardness, 0.0, 1.0));
    // Layered ground: loose material as sand, bare bedrock as rock.
    if (f.ground.x > 0.5)
        colour = mix(colour, vec3(0.76, 0.66, 0.47), smoothstep(0.0, 0.5, imageLoad(loose_img, c).r) * 0.75);
    // Grass: where the simulation's vegetation grows, by its density; without it, on gentle, low
    // ground, thinning out with altitude.
    float grass =
        f.ground.w > 0.5 ? vegetationDensityAt(p) : smoothstep(0.22, 0.08, slope) * smoothstep(0.75, 0.45, altitude);
    colour = mix(colour, vec3(0.30, 0.42, 0.18), grass * 0.85);
    // Fresh deposits: sand where more settled than was taken since the start.
    float fresh = smoothstep(0.0, 0.5, wear.y - wear.x);
    colour = mix(colour, vec3(0.80, 0.70, 0.50), fresh * 0.8);
    // Snow: where it lies, by its depth (a few centimetres already whiten the ground); without the
    // simulation's snow, on high, not too steep ground.
    float snow = f.ground.y > 0.5 ? smoothstep(0.0, 0.08, snowDepthAt(p))
                                  : smoothstep(0.70, 0.80, altitude) * smoothstep(0.45, 0.25, slope);
    colour = mix(colour, vec3(0.95, 0.96, 0.98), snow);
    // Wet ground is darker.
    float wet = smoothstep(0.0, 0.05, waterAt(c));
    return toLinear(colour * (1.0 - 0.2 * wet));
}

// Springs: where groundwater seeps out, 0..1, and a sparkle that moves with time.
float springAt(vec2 p) {
    float rate = imageLoad(seepage_img, clampCell(ivec2(p))).r;
    float spring = smoothstep(2e-6, 5e-5, rate);
    if (spring <= 0.0) return 0.0;
    vec2 cell = fract(p) - 0.5;
    float pulse = 0.75 + 0.25 * sin(f.mesh.w * 4.0 + dot(floor(p), vec2(1.7, 2.3)));
    return spring * pulse * (1.0 - smoothstep(0.15, 0.5, length(cell)));
}

vec3 light(vec3 albedo, vec3 n, float sun) {
    vec3 s = normalize(f.sun_dir.xyz);
    float diffuse = max(dot(n, s), 0.0) * sun;
    vec3 ambient = mix(vec3(0.08, 0.07, 0.06), kSky * 0.6, n.y * 0.5 + 0.5);
    return albedo * (kSunColor * diffuse * 2.2 + ambient);
}

vec3 fog(vec3 colour) {
    float dist = length(v_world - f.camera_pos.xyz);
    float extent = max(f.grid.x, f.grid.y) * f.grid.z;
    float k = f.camera_pos.w > 0.5 ? 0.0 : clamp((dist - 1.5 * extent) / (4.0 * extent), 0.0, 0.4);
    return mix(colour, kSky, k);
}

float brushRing(vec2 p) {
    if (f.brush.w < 0.5) return 0.0;
    float d = length(p - f.brush.xy);
    float w = max(fwidth(d) * 1.5, 0.05);
    return 1.0 - smoothstep(0.0, w, abs(d - f.brush.z));
}

vec4 shadeTerrain() {
    if (v_skirt > 0.0) {
        // The sides of the block: layered soil, lit by the face's own normal.
        vec3 n = normalize(cross(dFdy(v_world), dFdx(v_world)));
        float band = 0.5 + 0.5 * sin(v_world.y / (f.grid.z * f.grid.w) * 3.0);
        vec3 soil = toLinear(mix(vec3(0.36, 0.27, 0.20), vec3(0.45, 0.35, 0.26), band));
        return vec4(fog(light(soil, n, 1.0) * 0.9), 1.0);
    }
    vec2 p = v_cell;
    vec3 ground = groundAt(p);
    vec3 n = normalFrom(ground.yz);
    float h = ground.x;
    int mode = int(f.overlay.x);
    vec3 colour;
    if (mode == OVERLAY_WATER_LEVEL) {
        // Seed 003's hue for the water: its surface's elevation as a hue, a turn every `range`
        // metres, so water bodies at different levels read apart; the ground, and the film rain
        // leaves on it (under 1 cm, fading in to 10 cm), in grey.
        ivec2 c = clampCell(ivec2(p));
        float d = waterAt(c);
        float shade = 0.55 + 0.45 * max(dot(n, normalize(f.sun_dir.xyz)), 0.0);
        vec3 grey = vec3(dot(groundColour(p, n, h), vec3(0.3, 0.59, 0.11)));
        vec3 water = toLinear(0.15 + 0.8 * hueWheel((terrainAt(c) + d) / max(f.overlay.y, 1e-6)));
        colour = mix(grey, water, smoothstep(0.01, 0.1, d)) * shade;
    } else if (mode != OVERLAY_NONE) {
        float v = overlayValue(clampCell(ivec2(p)), mode);
        float range = max(f.overlay.y, 1e-9);
        vec3 c = toLinear(mode == OVERLAY_WEAR ? diverging(v / range) : sequential(v / range));
        if (mode == OVERLAY_SPEED) {
            // The direction: streaks along the flow (stripes across the perpendicular).
            vec2 vel = imageLoad(velocity_img, clampCell(ivec2(p))).rg;
            if (length(vel) > 1e-3) {
                vec2 across = normalize(vec2(-vel.y, vel.x));
                c *= 0.75 + 0.25 * smoothstep(-0.3, 0.3, sin(dot(p, across) * 2.5));
            }
        }
        float shade = 0.55 + 0.45 * max(dot(n, normalize(f.sun_dir.xyz)), 0.0);
        colour = c * shade;
    } else {
        // Under a cloud the sky's light dims too, less than the sun's.
        float cloud = cloudShadow(p);
        colour = light(groundColour(p, n, h), n, sunAt(p) * cloud) * mix(1.0, cloud, 0.5);
        colour = mix(colour, toLinear(vec3(0.55, 0.92, 1.0)), springAt(p) * 0.8);
        colour = lavaOver(colour, p);
    }
    colour = fog(colour);
    colour = mix(colour, vec3(1.0, 0.85, 0.2), brushRing(p));
    return vec4(colour, 1.0);
}

vec4 shadeWater() {
    vec2 p = v_cell;
    float d;
    vec4 patch_ = patchAt(p, 1, d);
    if (d < WET_DEPTH) discard;
    ivec2 c = clampCell(ivec2(p));
    vec3 n = v_skirt > 0.0 ? normalize(cross(dFdy(v_world), dFdx(v_world))) : normalFrom(patch_.yz);
    vec3 view = normalize(f.camera_pos.w > 0.5 ? vec3(0.0, 1.0, 0.0) : f.camera_pos.xyz - v_world);
    vec3 s = normalize(f.sun_dir.xyz);
    // Absorption with depth; turbidity from the suspended sediment's concentration.
    float depth_m = d;
    vec3 shallow = toLinear(vec3(0.10, 0.42, 0.72)), deep = toLinear(vec3(0.02, 0.10, 0.35));
    vec3 colour = mix(shallow, deep, 1.0 - exp(-depth_m * 0.5));
    float concentration = imageLoad(sediment_img, c).r / max(d, 1e-3);
    float turbid = clamp(concentration * 2.0, 0.0, 0.25);
    colour = mix(colour, toLinear(vec3(0.55, 0.42, 0.25)), turbid);
    // Films of a few millimetres (rain on a slope) stay see-through; pools and rivers read blue.
    float alpha = clamp(1.0 - exp(-depth_m * 3.0), 0.8, 0.97);
    alpha = max(alpha, turbid);
    float film = smoothstep(0.003, 0.03, d);
    float cloud = cloudShadow(p);
    float sun = sunAt(p) * cloud;
    colour *= (0.6 + 0.4 * (max(dot(n, s), 0.0) * sun + 0.3)) * mix(1.0, cloud, 0.5);
    // Fresnel reflection of the sky and the sun's highlight.
    float fresnel = 0.02 + 0.3 * pow(1.0 - max(dot(n, view), 0.0), 5.0);
    colour = mix(colour, kSky * 0.8, fresnel);
    alpha = mix(alpha, 1.0, fresnel);
    vec3 half_vector = normalize(s + view);
    colour += kSunColor * pow(max(dot(n, half_vector), 0.0), 120.0) * 1.5 * sun;
    // Foam where the water runs fast.
    float speed = length(imageLoad(velocity_img, c).rg);
    float foam = 0.6 * smoothstep(10.0, 30.0, speed) * smoothstep(0.05, 0.3, d);
    colour = mix(colour, vec3(0.95), foam * 0.8);
    // A spring wells up: bright where groundwater seeps out.
    float spring = springAt(p);
    colour = mix(colour, toLinear(vec3(0.70, 0.97, 1.0)), spring * 0.7);
    alpha = max(max(alpha, foam * 0.8), spring * 0.8) * film;
    colour = fog(colour);
    colour = mix(colour, vec3(1.0, 0.85, 0.2), brushRing(p));
    return vec4(colour, alpha);
}

void main() {
    vec4 c = LAYER == LAYER_WATER ? shadeWater() : shadeTerrain();
    out_color = vec4(sqrt(max(c.rgb, 0.0)), c.a);
}
