"""Frames written by `softgrad run` open in VTK (python3-vtk9), in each encoding, and hold the
simulated states: bit for bit when binary."""

import os
import subprocess

import numpy as np
import pytest
import softgrad

vtk = pytest.importorskip("vtk", reason="python3-vtk9 is not installed (scripts/setup.sh does)")
from vtk.util.numpy_support import vtk_to_numpy  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXE = os.environ.get("SOFTGRAD_EXE", os.path.join(ROOT, "build", "softgrad"))


def read(path):
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(str(path))
    reader.Update()
    assert reader.GetErrorCode() == 0, path
    return reader.GetOutput()


def arrays(grid):
    point = {grid.GetPointData().GetArrayName(i): vtk_to_numpy(grid.GetPointData().GetArray(i))
             for i in range(grid.GetPointData().GetNumberOfArrays())}
    cell = {grid.GetCellData().GetArrayName(i): vtk_to_numpy(grid.GetCellData().GetArray(i))
            for i in range(grid.GetCellData().GetNumberOfArrays())}
    return point, cell


@pytest.mark.parametrize("scene_file, cell_type", [("cantilever.json", vtk.VTK_TETRA),
                                                   ("biped_2d.json", vtk.VTK_TRIANGLE)])
@pytest.mark.parametrize("encoding", ["zlib", "raw", "ascii"])
def test_frames_open_in_vtk_with_the_simulated_state(tmp_path, scene_file, cell_type, encoding):
    path = os.path.join(ROOT, "scenes", scene_file)
    subprocess.run([EXE, "run", path, "--steps", "2", "--out", str(tmp_path), "--quiet",
                    "--vtu-format", encoding], check=True)
    scene = softgrad.load(path)
    trajectory = scene.simulate(scene.rollout(steps=2))
    name = os.path.splitext(scene_file)[0]
    grid = read(tmp_path / f"{name}_000002.vtu")
    n, dim = trajectory.positions.shape[1:]
    assert grid.GetNumberOfPoints() == n
    assert {grid.GetCellType(i) for i in range(grid.GetNumberOfCells())} == {cell_type}
    points = vtk_to_numpy(grid.GetPoints().GetData())
    point, cell = arrays(grid)
    x, v = trajectory.positions[2], trajectory.velocities[2]
    if encoding == "ascii":  # 9 significant digits
        np.testing.assert_allclose(points[:, :dim], x, rtol=1e-8, atol=1e-12)
    else:
        assert np.array_equal(points[:, :dim], x)
        assert np.array_equal(point["velocity"][:, :dim], v)
    assert np.all(points[:, dim:] == 0.0)
    assert set(cell) >= {"body", "material", "J", "strain_energy_density", "cauchy_stress"}
    assert cell["cauchy_stress"].shape == (grid.GetNumberOfCells(), 9)
    assert np.all(cell["J"] > 0.0) and np.all(np.isfinite(cell["cauchy_stress"]))


def test_binary_frames_are_smaller(tmp_path):
    path = os.path.join(ROOT, "scenes", "cantilever.json")
    sizes = {}
    for encoding in ("zlib", "raw", "ascii"):
        out = tmp_path / encoding
        subprocess.run([EXE, "run", path, "--steps", "1", "--out", str(out), "--quiet",
                        "--vtu-format", encoding], check=True)
        sizes[encoding] = os.path.getsize(out / "cantilever_000001.vtu")
    assert sizes["zlib"] < sizes["raw"] < sizes["ascii"]


def test_rigid_bodies_poses_in_the_frames_the_csv_and_the_summary(tmp_path):
    import csv
    import json

    path = os.path.join(ROOT, "scenes", "pendulum_chain.json")
    subprocess.run([EXE, "run", path, "--steps", "8", "--out", str(tmp_path), "--quiet"],
                   check=True)
    scene = softgrad.load(path)
    t = scene.simulate(scene.rollout(steps=8))
    with open(tmp_path / "pendulum_chain_rigid_bodies.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["step"] for r in rows] == [str(s) for s in (0, 0, 0, 4, 4, 4, 8, 8, 8)]
    for r in rows:
        m = t.rigid_body(r["body"])
        k = int(r["step"])
        for key, value in [("x y z", m.position), ("qw qx qy qz", m.quaternion),
                           ("vx vy vz", m.velocity), ("wx wy wz", m.angular_velocity)]:
            got = [float(r[c]) for c in key.split()]
            assert np.allclose(got, value[k], rtol=0, atol=1e-9), (r["body"], k, key)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [b["name"] for b in summary["rigid_bodies"]] == ["link1", "link2", "link3"]
    assert np.allclose(summary["rigid_bodies"][2]["angular_velocity"],
                       t.rigid_body("link3").angular_velocity[-1], rtol=0, atol=1e-9)
    # The frame's rigid part: per triangle its body's pose, per point its velocity.
    grid = read(tmp_path / "pendulum_chain_000008.vtu")
    point, cell = arrays(grid)
    assert point["velocity"].shape == (grid.GetNumberOfPoints(), 3)
    assert cell["orientation"].shape == (grid.GetNumberOfCells(), 4)
    first = cell["rigid_body"] == 0
    assert np.allclose(cell["center_of_mass"][first], t.rigid_body(0).position[-1], atol=1e-9)
    assert np.allclose(cell["angular_velocity"][first], t.rigid_body(0).angular_velocity[-1],
                       atol=1e-9)
    assert np.abs(point["velocity"]).max() > 0.01  # it swings
