"""Scenes from arrays: a body's mesh given as NumPy (vertices, elements) arrays or a meshio.Mesh
is the same scene as the one whose mesh is the file those arrays were read from, bit for bit
(model, trajectory, gradient); bad arrays are refused with the key and the element named."""

import copy
import os

import numpy as np
import pytest

import softgrad
import softgrad.io

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GMSH = os.path.join(ROOT, "tests", "io", "data", "gmsh")


def beam_scene(mesh):
    """The gmsh beam clamped at its x = 0 end, sagging under gravity for three steps."""
    return {
        "name": "beam", "dim": 3, "time": {"dt": 0.01, "duration": 0.03},
        "bodies": [{"mesh": mesh, "density": 1000,
                    "material": {"model": "neo_hookean", "youngs": 1e5, "poisson": 0.3}}],
        "solver": {"newton_tolerance": 1e-12},
        "boundary": [{"region": {"plane": {"point": [0, 0, 0], "normal": [-1, 0, 0]}}}],
        "loss": [{"type": "position", "vertex": 3, "target": [0, 0, 0], "weight": 1}],
    }


def same_scene(a, b):
    assert np.array_equal(a.rest_positions, b.rest_positions)
    assert np.array_equal(a.elements, b.elements)
    assert np.array_equal(a.masses, b.masses)
    ta, tb = a.simulate(a.rollout()), b.simulate(b.rollout())
    assert np.array_equal(ta.positions, tb.positions)
    assert np.array_equal(ta.velocities, tb.velocities)
    assert np.array_equal(a.gradient(ta, ["youngs", "v0"])[1], b.gradient(tb, ["youngs", "v0"])[1])
    assert np.abs(ta.positions[-1] - ta.positions[0]).max() > 1e-6  # it moves


def test_a_scene_from_arrays_equals_the_scene_from_the_file_bit_for_bit():
    path = os.path.join(GMSH, "beam_ascii.msh")
    from_file = softgrad.load(beam_scene({"file": path, "scale": 2.0}))
    vertices, elements = softgrad.io.read_mesh(path)
    from_arrays = softgrad.load(beam_scene({"vertices": vertices, "elements": elements,
                                            "scale": 2.0}))
    same_scene(from_file, from_arrays)
    # Elements of either orientation are oriented as a file's are; nested lists work too.
    flipped = elements.copy()
    flipped[::2, [0, 1]] = flipped[::2, [1, 0]]
    same_scene(from_file, softgrad.load(beam_scene({"vertices": vertices.tolist(),
                                                    "elements": flipped.tolist(), "scale": 2.0})))
    # A meshio.Mesh as the mesh.
    meshio_mesh = softgrad.io.to_meshio(vertices * 2.0, elements)
    same_scene(from_file, softgrad.load(beam_scene(meshio_mesh)))


def test_the_real_armadillo_from_arrays_equals_the_scene_file():
    scene_file = os.path.join(ROOT, "scenes", "armadillo_gradient.json")
    from_file = softgrad.load(scene_file)
    vertices, elements = softgrad.io.read_mesh(os.path.join(ROOT, "scenes", "meshes",
                                                            "armadillo_10k.node"))
    import json
    with open(scene_file) as f:
        scene = json.load(f)
    scene["bodies"][0]["mesh"] = {"vertices": vertices, "elements": elements,
                                  "scale": 0.0066, "translate": [0, 0.36, 0]}
    from_arrays = softgrad.load(scene, origin=scene_file)
    assert from_arrays.n_vertices == from_file.n_vertices == 14779
    assert np.array_equal(from_file.rest_positions, from_arrays.rest_positions)
    assert np.array_equal(from_file.elements, from_arrays.elements)
    assert np.array_equal(from_file.masses, from_arrays.masses)


def test_bad_arrays_are_refused_naming_the_key_and_the_element():
    vertices, elements = softgrad.io.read_mesh(os.path.join(GMSH, "beam_ascii.msh"))
    where = r"/bodies/0/mesh/elements"

    def load(**mesh):
        return softgrad.load(beam_scene(mesh))

    bad = elements.copy()
    bad[5, 2] = len(vertices) + 7
    with pytest.raises(ValueError, match=where + f": element 5 names vertex {len(vertices) + 7}"):
        load(vertices=vertices, elements=bad)
    flat = copy.deepcopy(elements)
    flat[2] = [flat[2][0], flat[2][0], flat[2][1], flat[2][2]]
    with pytest.raises(ValueError, match=where + ": element 2 is degenerate"):
        load(vertices=vertices, elements=flat)
    with pytest.raises(ValueError, match=r"vertices: \d+ numbers, not a positive multiple of dim"):
        load(vertices=vertices.ravel()[:-1], elements=elements)
    with pytest.raises(ValueError, match="elements: .* indices, not a positive multiple of 4"):
        load(vertices=vertices, elements=elements.ravel()[:-1])
    nan = vertices.copy()
    nan[4, 1] = np.nan
    with pytest.raises(ValueError, match=r"mesh/vertices: value 13 \(vertex 4\) is nan"):
        load(vertices=nan, elements=elements)
    with pytest.raises(ValueError, match="needs 'elements' too"):
        load(vertices=vertices)
    with pytest.raises(ValueError, match="give exactly one of 'file'"):
        load(vertices=vertices, elements=elements, generator="box")
    with pytest.raises(ValueError, match="give exactly one of 'file'"):
        load(elements=elements, file="beam.msh")
    with pytest.raises(ValueError, match="'size' does not go with an inline mesh"):
        load(vertices=vertices, elements=elements, size=[1, 1, 1])
    with pytest.raises(ValueError, match=r"/bodies/0/mesh/elements/\d+: -\d+ is outside"):
        load(vertices=vertices, elements=elements - 10)  # negative indices


def test_arrays_whose_rows_do_not_fit_the_scene_s_dim_are_refused():
    vertices, elements = softgrad.io.read_mesh(os.path.join(GMSH, "square_ascii.msh"))
    scene = {"dim": 2, "time": {"dt": 0.01, "duration": 0.01},
             "bodies": [{"mesh": {"vertices": np.c_[vertices, np.zeros(len(vertices))],
                                  "elements": elements},
                         "material": {"model": "neo_hookean", "youngs": 1e4, "poisson": 0.3}}]}
    with pytest.raises(ValueError, match=r"/bodies/0/mesh/vertices: an array of shape .*, 3\); "
                                         r"a 2D scene's vertices take 2 values per row"):
        softgrad.load(scene)
    scene["bodies"][0]["mesh"]["vertices"] = list(vertices)  # a list of rows (arrays) works
    assert softgrad.load(scene).n_vertices == len(vertices)
