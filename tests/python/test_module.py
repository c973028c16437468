"""`import alluvium` (python/alluvium_module.cpp) against the executable (ALLUVIUM_EXE): the same
terrain, parameters and steps give the same state digest; fields come back with their shapes,
dtypes and units; a bad parameter raises ValueError with the command line's message; a long run
releases the GIL; sessions go on where they stopped."""

import json
import os
import subprocess
import tempfile
import threading
import unittest

import numpy as np

import alluvium

EXE = os.environ["ALLUVIUM_EXE"]
TMP = os.environ.get("ALLUVIUM_TEST_TMP_DIR", tempfile.gettempdir())


def cli(*args):
    """Runs the executable; returns (exit status, stderr)."""
    done = subprocess.run([EXE, *args], capture_output=True, text=True, check=False)
    return done.returncode, done.stderr


def cli_report(*args):
    """The report of `alluvium run ARGS`."""
    with tempfile.TemporaryDirectory(dir=TMP) as d:
        code, err = cli("run", *args, "--out", os.path.join(d, "out.f32"), "--report", os.path.join(d, "r.json"))
        assert code == 0, err
        with open(os.path.join(d, "r.json"), encoding="utf-8") as f:
            return json.load(f)


def random_heights(w, h, seed):
    """Smooth random hills (m), float32, rows north to south."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    z = 40.0 + 0.4 * x
    for _ in range(4):
        fx, fy, p = rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.3), rng.uniform(0, 6.28)
        z += rng.uniform(2, 8) * np.sin(fx * x + p) * np.cos(fy * y + p)
    return z.astype(np.float32)


class SameAsTheCommandLine(unittest.TestCase):
    def test_procedural_terrain_same_digest(self):
        report = cli_report("--size", "48x40", "--seed", "3", "--steps", "100")
        sim = alluvium.Simulation(size=(48, 40), seed=3)
        sim.run(100)
        mine = sim.report()
        self.assertEqual(mine["state_digest"], report["state_digest"])
        self.assertEqual(mine["steps"], 100)
        self.assertEqual(mine["water"].keys(), report["water"].keys())

    def test_array_same_digest_as_its_file(self):
        heights = random_heights(37, 29, seed=5)
        with tempfile.TemporaryDirectory(dir=TMP) as d:
            path = os.path.join(d, "h.f32")
            heights.tofile(path)
            report = cli_report("--in", path, "--size", "37x29", "--steps", "100", "--set", "rain_rate=2",
                                "--set", "enable_layers=1")
        sim = alluvium.Simulation(heights, params={"enable_layers": True})  # as --set: the loose layer laid
        sim.set("rain_rate", 2.0)
        sim.run(60)
        sim.run(40)
        self.assertEqual(sim.report()["state_digest"], report["state_digest"])
        self.assertEqual(sim.get("rain_rate"), 2.0)


class Fields(unittest.TestCase):
    def test_shapes_dtypes_and_units(self):
        heights = random_heights(33, 21, seed=2)
        sim = alluvium.Simulation(heights, cell_size=2.0)
        self.assertEqual((sim.width, sim.height, sim.model), (33, 21, "pipe"))
        terrain = sim.field("terrain")
        self.assertEqual(terrain.dtype, np.float32)
        self.assertEqual(terrain.shape, (21, 33))
        np.testing.assert_array_equal(terrain, heights)  # metres, rows as given
        sim.set("rain_rate", 20.0)
        sim.run(50)
        water = sim.field("water")
        self.assertEqual(water.shape, (21, 33))
        self.assertTrue((water >= 0).all() and water.max() > 0)
        velocity = sim.field("velocity")
        self.assertEqual(velocity.shape, (21, 33, 2))  # u, v in m/s
        report = sim.report()
        self.assertEqual(report["cell_size"], 2.0)
        # The water in the field (m deep, cells of 2 m) is the report's stored water (m^3).
        self.assertAlmostEqual(float(water.astype(np.float64).sum()) * 4.0, report["water"]["stored_final"],
                               delta=1e-4 * report["water"]["stored_final"])
        with self.assertRaises(ValueError) as e:
            sim.field("no_such_field")
        self.assertIn("terrain", str(e.exception))


class Maps(unittest.TestCase):
    def test_write_maps_as_out_maps(self):
        with tempfile.TemporaryDirectory(dir=TMP) as d:
            sim = alluvium.Simulation(random_heights(25, 19, seed=4), params={"record_maps": 1, "rain_rate": 10})
            sim.run(20)
            sim.write_maps(os.path.join(d, "maps"))
            names = set(os.listdir(os.path.join(d, "maps")))
            self.assertTrue({"erosion.exr", "splat0.png", "splat1.png", "splat.json"} <= names, names)
            quiet = alluvium.Simulation(size=(8, 8))
            with self.assertRaises(ValueError) as e:
                quiet.write_maps(os.path.join(d, "none"))
            self.assertIn("record_maps", str(e.exception))
            self.assertFalse(os.path.exists(os.path.join(d, "none")))


class Errors(unittest.TestCase):
    def test_bad_parameter_has_the_command_lines_message(self):
        sim = alluvium.Simulation(size=(16, 16))
        for name, value in (("rain_rate", -5), ("no_such_parameter", 1)):
            with self.assertRaises(ValueError) as e:
                sim.set(name, value)
            code, err = cli("run", "--size", "8x8", "--steps", "1", "--set", f"{name}={value}",
                            "--out", os.path.join(TMP, "never.png"))
            self.assertEqual(code, 2)
            self.assertEqual(str(e.exception), err.strip().removeprefix("alluvium: "))

    def test_bad_heights_and_files_raise_value_error(self):
        bad = np.zeros((8, 9), np.float32)
        bad[3, 4] = np.nan
        with self.assertRaises(ValueError) as e:
            alluvium.Simulation(bad)
        self.assertIn("cell (4, 3) is NaN", str(e.exception))
        with self.assertRaises(ValueError):
            alluvium.Simulation(np.zeros(10, np.float32))
        with self.assertRaises(ValueError):
            alluvium.Simulation(os.path.join(TMP, "missing.png"))
        with self.assertRaises(ValueError):
            alluvium.Simulation(size=(8, 8), model="no_such_model")


class Threads(unittest.TestCase):
    def test_a_long_run_releases_the_gil(self):
        sim = alluvium.Simulation(size=(48, 48))
        count = [0]
        stop = threading.Event()
        started = threading.Event()

        def spin():
            while not stop.is_set():
                count[0] += 1
                started.set()

        thread = threading.Thread(target=spin)
        thread.start()
        started.wait()
        before = count[0]
        sim.run(1000)
        during = count[0] - before
        stop.set()
        thread.join()
        # Holding the GIL, the run would leave the other thread a few switch intervals at most.
        self.assertGreater(during, 10000)


class Sessions(unittest.TestCase):
    def test_a_session_goes_on_as_a_straight_run(self):
        heights = random_heights(29, 23, seed=9)
        straight = alluvium.Simulation(heights, preset="flash-flood")
        straight.run(60)
        with tempfile.TemporaryDirectory(dir=TMP) as d:
            first = alluvium.Simulation(heights, preset="flash-flood")
            first.run(25)
            path = os.path.join(d, "s.alluvium")
            first.save_session(path)
            resumed = alluvium.Simulation.from_session(path)
        self.assertEqual(resumed.steps, 25)
        resumed.run(35)
        self.assertEqual(resumed.report()["state_digest"], straight.report()["state_digest"])
        self.assertIn("volcano-island", alluvium.presets())


if __name__ == "__main__":
    unittest.main()
