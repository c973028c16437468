"""The Blender add-on inside Blender (blender --background --python this file -- ADDON.py):
installed and enabled as a user would, its operator run on a 256 x 256 grid mesh and on a
displacement image; the mesh's heights, the written images and the reports checked. The last
line says OK or FAIL (ctest reads it)."""

import sys
import traceback

import bpy
import numpy as np


def fail(message):
    print("blender_e2e: FAIL: " + message, flush=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def vertex_heights(mesh):
    coords = np.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", coords)
    return coords.reshape(-1, 3)


def erode_grid_mesh():
    bpy.ops.object.select_all(action="SELECT")
    bpy.ops.object.delete()
    # 256 x 256 vertices, 510 m a side: cells of 2 m; hills so that water runs and cuts.
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=255, y_subdivisions=255, size=510.0)
    obj = bpy.context.active_object
    co = vertex_heights(obj.data)
    co[:, 2] = 20.0 * np.sin(co[:, 0] / 40.0) * np.cos(co[:, 1] / 55.0) + 0.05 * co[:, 0]
    obj.data.vertices.foreach_set("co", co.reshape(-1))
    before = co.copy()

    s = bpy.context.scene.alluvium
    s.source = "MESH"
    s.preset = "default"
    s.steps = 60
    s.use_preset_values = False
    s.rain_rate = 5.0
    result = bpy.ops.alluvium.erode()
    check(result == {"FINISHED"}, f"the operator on the mesh returned {result}")
    after = vertex_heights(obj.data)
    check(len(after) == 256 * 256, f"{len(after)} vertices after, 65536 before")
    np.testing.assert_array_equal(after[:, :2], before[:, :2])  # only heights move
    check(np.isfinite(after[:, 2]).all(), "non-finite heights")
    moved = np.abs(after[:, 2] - before[:, 2]).max()
    check(moved > 0.0, "the mesh's heights did not move")
    for name in ("water", "erosion", "deposition"):
        image = bpy.data.images.get("alluvium_" + name)
        check(image is not None, f"no image alluvium_{name}")
        check(tuple(image.size) == (256, 256), f"alluvium_{name} is {tuple(image.size)}")
    px = np.empty(256 * 256 * 4, dtype=np.float32)
    bpy.data.images["alluvium_water"].pixels.foreach_get(px)
    check(px[0::4].max() > 0.0, "the water image is empty after 60 steps of rain")
    print(f"blender_e2e: mesh 256 x 256 eroded, heights moved up to {moved:.4f} m", flush=True)


def erode_displacement_image():
    w, h = 96, 80
    image = bpy.data.images.new("displacement", w, h, float_buffer=True)
    y, x = np.mgrid[0:h, 0:w]
    grey = 0.5 + 0.4 * np.sin(x / 9.0) * np.cos(y / 7.0)
    px = np.repeat(grey.reshape(-1), 4).astype(np.float32)
    px[3::4] = 1.0
    image.pixels.foreach_set(px)
    s = bpy.context.scene.alluvium
    s.source = "IMAGE"
    s.image = "displacement"
    s.relief = 80.0
    s.cell_size = 3.0
    s.steps = 40
    result = bpy.ops.alluvium.erode()
    check(result == {"FINISHED"}, f"the operator on the image returned {result}")
    out = np.empty(w * h * 4, dtype=np.float32)
    image.pixels.foreach_get(out)
    check(np.isfinite(out).all(), "non-finite pixels")
    check(np.abs(out[0::4] - px[0::4]).max() > 0.0, "the image did not change")
    check(bpy.data.images["alluvium_water"].size[0] == w, "the maps were not resized to the image")
    s.image = "no such image"
    try:  # in the background an operator's error report comes back as a RuntimeError
        bpy.ops.alluvium.erode()
        refused = False
    except RuntimeError as e:
        refused = "no displacement image named 'no such image'" in str(e)
    check(refused, "a missing image was not refused with its message")
    print(f"blender_e2e: image {w} x {h} eroded", flush=True)


def main():
    args = sys.argv[sys.argv.index("--") + 1:]
    addon_file = args[0]
    bpy.ops.preferences.addon_install(filepath=addon_file, overwrite=True)
    bpy.ops.preferences.addon_enable(module="alluvium_blender")
    check(hasattr(bpy.context.scene, "alluvium"), "the add-on did not register its settings")
    check(hasattr(bpy.types, "ALLUVIUM_PT_panel"), "the add-on's panel is not registered")
    erode_grid_mesh()
    erode_displacement_image()
    print("blender_e2e: OK", flush=True)


try:
    main()
except SystemExit:
    raise
except BaseException:  # pylint: disable=broad-except
    traceback.print_exc()
    fail("exception")
sys.exit(0)
