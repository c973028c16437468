"""The Blender add-on's logic (python/alluvium_blender.py) without Blender (blender_e2e.py runs it
inside Blender where Blender is installed): a grid mesh's vertices, in Blender's shuffled order,
to a height grid and back, the maps to image pixels, and the operator's whole path on a 256 x 256
grid."""

import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import alluvium_blender as addon  # noqa: E402  pylint: disable=wrong-import-position


def grid_mesh(w, h, cell, seed):
    """A Blender grid's vertices (x, y centred on the origin, z the height), shuffled."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    z = 5.0 * np.sin(0.2 * x) + 3.0 * np.cos(0.15 * y) + 0.05 * x
    coords = np.stack([(x - (w - 1) / 2) * cell, (y - (h - 1) / 2) * cell, z], axis=-1).reshape(-1, 3)
    return coords[rng.permutation(len(coords))], z


class GridLogic(unittest.TestCase):
    def test_vertices_to_grid_and_back(self):
        coords, z = grid_mesh(17, 11, 0.5, seed=1)
        heights, index, cell = addon.grid_from_vertices(coords)
        self.assertEqual(heights.shape, (11, 17))
        self.assertAlmostEqual(cell, 0.5)
        # Rows north (largest y) first: the mesh's last row of y is the grid's first.
        np.testing.assert_allclose(heights, z[::-1].astype(np.float32))
        moved = addon.vertices_with_heights(coords, index, heights + 1.0)
        np.testing.assert_allclose(moved[:, :2], coords[:, :2])
        np.testing.assert_allclose(moved[:, 2], coords[:, 2] + 1.0, rtol=1e-6)

    def test_not_a_grid_is_refused(self):
        coords, _ = grid_mesh(6, 5, 1.0, seed=2)
        with self.assertRaises(ValueError):
            addon.grid_from_vertices(coords[:-1])  # a vertex missing
        uneven = coords.copy()
        uneven[:, 0] = np.where(uneven[:, 0] > 0, uneven[:, 0] * 1.5, uneven[:, 0])
        with self.assertRaises(ValueError):
            addon.grid_from_vertices(uneven)

    def test_image_pixels_bottom_row_first(self):
        values = np.array([[0.0, 1.0], [2.0, 4.0]])
        px = addon.image_pixels(values).reshape(2, 2, 4)
        np.testing.assert_allclose(px[0, :, 0], [0.5, 1.0])  # Blender's first row: the map's last
        np.testing.assert_allclose(px[1, :, 0], [0.0, 0.25])
        np.testing.assert_allclose(px[..., 3], 1.0)


class DisplacementImage(unittest.TestCase):
    def test_pixels_to_heights_and_back(self):
        heights = np.array([[0.0, 50.0, 100.0], [25.0, 75.0, 10.0]], np.float32)  # rows north first
        pixels = addon.image_pixels(heights, scale=100.0)
        back = addon.heights_from_pixels(pixels, 3, 2, relief=100.0)
        np.testing.assert_allclose(back, heights, atol=1e-4)


class OperatorPath(unittest.TestCase):
    def test_erodes_a_256_grid_end_to_end(self):
        coords, _ = grid_mesh(256, 256, 2.0, seed=3)
        heights, index, cell = addon.grid_from_vertices(coords)
        result, maps = addon.erode(heights, cell, "default", 60, {"rain_rate": 5.0})
        self.assertEqual(result.shape, (256, 256))
        self.assertTrue(np.isfinite(result).all())
        self.assertGreater(np.abs(result - heights).max(), 0.0)  # the ground moved
        self.assertGreater(maps["water"].max(), 0.0)
        for values in maps.values():
            self.assertEqual(values.shape, (256, 256))
            self.assertEqual(len(addon.image_pixels(values)), 256 * 256 * 4)
        moved = addon.vertices_with_heights(coords, index, result)
        self.assertEqual(moved.shape, coords.shape)


if __name__ == "__main__":
    unittest.main()
