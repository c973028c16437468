"""Alluvium in Blender: erodes the active grid mesh, or a displacement image, with the `alluvium`
module and writes the result back: the heights into the mesh (or the image, its relief kept), the
water depth, erosion and deposition as images (alluvium_water, alluvium_erosion,
alluvium_deposition) for the material's textures.

Install: Edit > Preferences > Add-ons > Install..., this file; `alluvium` must be importable by
Blender's Python (the install's lib/python3/dist-packages on its path: the add-on adds it when it
lies beside this file's folder). The panel is in the 3D view's sidebar (N), tab Alluvium.

The grid logic (a mesh's vertices to a height grid and back, the maps to image pixels) is plain
numpy, tested without Blender (tests/python/test_blender_addon.py)."""

import os
import sys

import numpy as np

bl_info = {
    "name": "Alluvium erosion",
    "author": "Alluvium",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Sidebar > Alluvium",
    "description": "Erode a grid mesh with Alluvium (GPU hydraulic and thermal erosion)",
    "category": "Object",
}


def grid_from_vertices(coords):
    """A regular grid's heights from its vertices (N x 3, any order): (heights (rows, columns),
    cell index of each vertex, cell size). Rows run from the largest y (north) to the smallest,
    as an image's. Raises ValueError when the vertices are not one height per grid point."""
    coords = np.asarray(coords, dtype=np.float64).reshape(-1, 3)
    if len(coords) < 4:
        raise ValueError("the mesh needs a grid of at least 2 x 2 vertices")
    xs, ix = np.unique(np.round(coords[:, 0], 5), return_inverse=True)
    ys, iy = np.unique(np.round(coords[:, 1], 5), return_inverse=True)
    w, h = len(xs), len(ys)
    if w < 2 or h < 2 or w * h != len(coords):
        raise ValueError(f"the mesh is not a regular grid ({len(coords)} vertices on {w} x {h} positions)")
    steps = np.concatenate([np.diff(xs), np.diff(ys)])
    cell = float(np.median(steps))
    if cell <= 0 or np.abs(steps - cell).max() > 1e-3 * cell:
        raise ValueError("the mesh's grid is not evenly spaced (the same step along x and y)")
    row = (h - 1) - iy  # north first
    index = row * w + ix
    if len(np.unique(index)) != len(index):
        raise ValueError("two vertices share a grid point")
    heights = np.empty(w * h, dtype=np.float32)
    heights[index] = coords[:, 2]
    return heights.reshape(h, w), index, cell


def vertices_with_heights(coords, index, heights):
    """The vertices (N x 3) with their z from the height grid (rows north first)."""
    out = np.array(coords, dtype=np.float64).reshape(-1, 3)
    out[:, 2] = np.asarray(heights, dtype=np.float64).reshape(-1)[index]
    return out


def image_pixels(values, scale=None):
    """A map (rows north first) as Blender image pixels: RGBA floats, bottom row first, grey
    values / scale (the map's largest by default, so 0..1)."""
    values = np.asarray(values, dtype=np.float64)
    top = float(values.max()) if scale is None else float(scale)
    grey = np.clip(values / top, 0.0, 1.0) if top > 0 else np.zeros_like(values)
    rgba = np.ones(values.shape + (4,), dtype=np.float32)
    rgba[..., 0] = rgba[..., 1] = rgba[..., 2] = grey[::-1]
    return rgba.reshape(-1)


def heights_from_pixels(pixels, width, height, relief):
    """A displacement image's heights (m, rows north first) from Blender pixels (RGBA floats,
    bottom row first): the grey value (the mean of R, G and B) times `relief` metres."""
    rgba = np.asarray(pixels, dtype=np.float64).reshape(height, width, 4)
    return (rgba[..., :3].mean(axis=-1)[::-1] * relief).astype(np.float32)


def erode(heights, cell_size, preset, steps, settings):
    """Runs Alluvium on a height grid: (new heights, {"water", "erosion", "deposition"} in m)."""
    import alluvium  # pylint: disable=import-outside-toplevel

    sim = alluvium.Simulation(np.ascontiguousarray(heights, dtype=np.float32), cell_size=cell_size, preset=preset,
                              params={"record_maps": 1})
    for name, value in settings.items():
        sim.set(name, value)
    sim.run(int(steps))
    wear = sim.field("wear")
    maps = {"water": sim.field("water"), "erosion": wear[..., 0], "deposition": wear[..., 1]}
    return sim.field("terrain"), maps


# [SECTION] Blender: the operator and the panel (only inside Blender) -------------------------

try:
    import bpy  # pylint: disable=import-error
except ImportError:  # outside Blender: the functions above only
    bpy = None

if bpy is not None:
    _here = os.path.dirname(os.path.abspath(__file__))
    for _candidate in (os.path.join(_here, "..", "..", "..", "lib", "python3", "dist-packages"), _here):
        if os.path.isdir(_candidate) and _candidate not in sys.path:
            sys.path.append(_candidate)

    def _preset_items(_self, _context):
        try:
            import alluvium  # pylint: disable=import-outside-toplevel

            names = alluvium.presets()
        except ImportError:
            names = ["default"]
        return [(n, n, "") for n in names]

    class AlluviumSettings(bpy.types.PropertyGroup):
        preset: bpy.props.EnumProperty(name="Preset", items=_preset_items)
        steps: bpy.props.IntProperty(name="Steps", default=500, min=1, max=1000000)
        rain_rate: bpy.props.FloatProperty(name="Rain (mm/s)", default=0.5, min=0.0, max=50.0)
        dissolve_rate: bpy.props.FloatProperty(name="Erosion (1/s)", default=0.3, min=0.0, max=10.0)
        use_preset_values: bpy.props.BoolProperty(name="Preset's rain and erosion", default=True)
        source: bpy.props.EnumProperty(
            name="Erode",
            items=[("MESH", "Active mesh", "the active object's grid mesh"),
                   ("IMAGE", "Displacement image", "an image's grey values as heights")])
        image: bpy.props.StringProperty(name="Image", description="the displacement image's name")
        relief: bpy.props.FloatProperty(name="Relief (m)", default=100.0, min=0.001, max=100000.0,
                                        description="the height of white in the image")
        cell_size: bpy.props.FloatProperty(name="Cell (m)", default=4.0, min=0.001, max=10000.0,
                                           description="metres between the image's pixels")

    class ALLUVIUM_OT_erode(bpy.types.Operator):
        """Erode the active grid mesh with Alluvium"""

        bl_idname = "alluvium.erode"
        bl_label = "Erode"
        bl_options = {"REGISTER", "UNDO"}

        def execute(self, context):
            if context.scene.alluvium.source == "IMAGE":
                return self.erode_image(context)
            obj = context.active_object
            if obj is None or obj.type != "MESH":
                self.report({"ERROR"}, "select a grid mesh")
                return {"CANCELLED"}
            s = context.scene.alluvium
            mesh = obj.data
            coords = np.empty(len(mesh.vertices) * 3, dtype=np.float64)
            mesh.vertices.foreach_get("co", coords)
            try:
                heights, index, cell = grid_from_vertices(coords)
                settings = {} if s.use_preset_values else {"rain_rate": s.rain_rate, "dissolve_rate": s.dissolve_rate}
                result, maps = erode(heights, cell, s.preset, s.steps, settings)
            except (ValueError, RuntimeError, ImportError) as e:
                self.report({"ERROR"}, str(e))
                return {"CANCELLED"}
            mesh.vertices.foreach_set("co", vertices_with_heights(coords, index, result).reshape(-1))
            mesh.update()
            self.write_maps(maps)
            h, w = result.shape
            self.report({"INFO"}, f"eroded {w} x {h} cells of {cell:g} m, {s.steps} steps")
            return {"FINISHED"}

        def erode_image(self, context):
            s = context.scene.alluvium
            image = bpy.data.images.get(s.image)
            if image is None or image.size[0] < 2 or image.size[1] < 2:
                self.report({"ERROR"}, f"no displacement image named '{s.image}'")
                return {"CANCELLED"}
            w, h = image.size
            pixels = np.empty(w * h * 4, dtype=np.float32)
            image.pixels.foreach_get(pixels)
            try:
                settings = {} if s.use_preset_values else {"rain_rate": s.rain_rate, "dissolve_rate": s.dissolve_rate}
                result, maps = erode(heights_from_pixels(pixels, w, h, s.relief), s.cell_size, s.preset, s.steps,
                                     settings)
            except (ValueError, RuntimeError, ImportError) as e:
                self.report({"ERROR"}, str(e))
                return {"CANCELLED"}
            image.pixels.foreach_set(image_pixels(result, scale=s.relief))  # the same relief: white stays white
            image.update()
            self.write_maps(maps)
            self.report({"INFO"}, f"eroded the image {s.image}, {w} x {h}, {s.steps} steps")
            return {"FINISHED"}

        @staticmethod
        def write_maps(maps):
            for name, values in maps.items():
                h, w = values.shape
                image = bpy.data.images.get("alluvium_" + name) or bpy.data.images.new(
                    "alluvium_" + name, w, h, float_buffer=True)
                if tuple(image.size) != (w, h):
                    image.scale(w, h)
                image.pixels.foreach_set(image_pixels(values))
                image.update()

    class ALLUVIUM_PT_panel(bpy.types.Panel):
        bl_label = "Alluvium"
        bl_space_type = "VIEW_3D"
        bl_region_type = "UI"
        bl_category = "Alluvium"

        def draw(self, context):
            s = context.scene.alluvium
            col = self.layout.column()
            col.prop(s, "source")
            if s.source == "IMAGE":
                col.prop_search(s, "image", bpy.data, "images")
                col.prop(s, "relief")
                col.prop(s, "cell_size")
            col.prop(s, "preset")
            col.prop(s, "steps")
            col.prop(s, "use_preset_values")
            sub = col.column()
            sub.enabled = not s.use_preset_values
            sub.prop(s, "rain_rate")
            sub.prop(s, "dissolve_rate")
            col.operator("alluvium.erode")

    _classes = (AlluviumSettings, ALLUVIUM_OT_erode, ALLUVIUM_PT_panel)

    def register():
        for cls in _classes:
            bpy.utils.register_class(cls)
        bpy.types.Scene.alluvium = bpy.props.PointerProperty(type=AlluviumSettings)

    def unregister():
        del bpy.types.Scene.alluvium
        for cls in reversed(_classes):
            bpy.utils.unregister_class(cls)
