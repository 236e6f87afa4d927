"""softgrad.io (meshes through meshio, Debian's python3-meshio 5.0): round trips of a real
tetrahedral and a real triangle mesh through .vtu, .vtk, Gmsh .msh (4.1 ASCII and binary, 2.2),
Medit .mesh, TetGen .node/.ele, .off and .obj, with point and cell data; the repository's real
meshes (the TetGen armadillo, Gmsh beam and square) read as softgrad's own scene loader reads
them, and files written here loaded by it; clear errors for missing, unreadable and unusable
files and for arrays of the wrong shape; `import softgrad.io` without meshio."""

import importlib
import os
import sys

import numpy as np
import pytest

import softgrad
import softgrad.io as sio

meshio = pytest.importorskip("meshio")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GMSH = os.path.join(ROOT, "tests", "io", "data", "gmsh")
BEAM = os.path.join(GMSH, "beam_ascii.msh")  # 62 vertices, 145 tetrahedra (+ face triangles)
SQUARE = os.path.join(GMSH, "square_ascii.msh")  # 20 vertices, 26 triangles (+ lines, points)
ARMADILLO = os.path.join(ROOT, "scenes", "meshes", "armadillo_10k.node")


def scene_of(path, dim, **mesh):
    """A one-body scene whose mesh is the file at `path`."""
    return {"name": "io", "dim": dim, "time": {"dt": 0.01, "duration": 0.01},
            "bodies": [{"mesh": {"file": path, **mesh},
                        "material": {"model": "neo_hookean", "youngs": 5e4, "poisson": 0.3}}]}


@pytest.mark.parametrize("name, options", [
    ("m.vtu", {}), ("m.vtk", {}), ("m.msh", {}), ("m.msh", {"binary": True}),
    ("m.msh", {"file_format": "gmsh22"}), ("m.mesh", {}), ("m.node", {}), ("m.ele", {}),
])
def test_tetrahedra_round_trip(tmp_path, name, options):
    vertices, elements = sio.read_mesh(BEAM)
    assert vertices.shape == (62, 3) and elements.shape == (145, 4)
    assert vertices.dtype == np.float64 and elements.dtype == np.int32
    path = tmp_path / name
    sio.write_mesh(path, vertices, elements, **options)
    v, e = sio.read_mesh(path)
    assert v.dtype == np.float64 and e.dtype == np.int32
    assert np.array_equal(v, vertices) and np.array_equal(e, elements)


@pytest.mark.parametrize("name, options", [
    ("m.vtu", {}), ("m.vtk", {}), ("m.msh", {}), ("m.msh", {"file_format": "gmsh22"}),
    ("m.mesh", {}), ("m.off", {}), ("m.obj", {}),
])
def test_triangles_round_trip_in_2d(tmp_path, name, options):
    vertices, elements = sio.read_mesh(SQUARE)  # z = 0 in the file: dropped
    assert vertices.shape == (20, 2) and elements.shape == (26, 3)
    path = tmp_path / name
    sio.write_mesh(path, vertices, elements, **options)
    v, e = sio.read_mesh(path)
    assert v.shape == (20, 2) and np.array_equal(v, vertices) and np.array_equal(e, elements)


def test_point_and_cell_data_are_written(tmp_path):
    vertices, elements = sio.read_mesh(BEAM)
    displacement = 1e-3 * np.sin(vertices)
    stress = np.arange(len(elements), dtype=float)
    for name in ("m.vtu", "m.msh"):
        sio.write_mesh(tmp_path / name, vertices, elements,
                       point_data={"displacement": displacement},
                       cell_data={"stress": stress})
        mesh = meshio.read(tmp_path / name)
        assert np.array_equal(mesh.point_data["displacement"], displacement)
        assert np.array_equal(np.concatenate(mesh.cell_data["stress"]), stress)


def test_the_repository_s_real_meshes_read_as_softgrad_s_loader_reads_them():
    beam = sio.read_mesh(BEAM)
    binary = sio.read_mesh(os.path.join(GMSH, "beam_binary.msh"))
    assert np.allclose(binary[0], beam[0], rtol=0, atol=1e-15)
    assert np.array_equal(binary[1], beam[1])
    for path, dim, (vertices, elements) in ((BEAM, 3, beam), (SQUARE, 2, sio.read_mesh(SQUARE))):
        scene = softgrad.load(scene_of(path, dim))
        assert np.array_equal(scene.rest_positions, vertices)
        assert np.array_equal(scene.elements, elements)
    # The Stanford Armadillo, tetrahedralised by TetGen (scenes/meshes/README.md): 1-based.
    vertices, elements = sio.read_mesh(ARMADILLO)
    assert vertices.shape == (14779, 3) and elements.shape == (54855, 4)
    assert elements.min() == 0 and elements.max() == 14778
    ele = sio.read_mesh(ARMADILLO[:-len(".node")] + ".ele")
    assert np.array_equal(ele[0], vertices) and np.array_equal(ele[1], elements)
    scene = softgrad.load(scene_of(ARMADILLO, 3, scale=0.0066))
    assert np.allclose(scene.rest_positions, 0.0066 * vertices, rtol=1e-15, atol=0)
    assert np.array_equal(scene.elements, elements)


@pytest.mark.parametrize("name, options", [
    ("w.msh", {}), ("w.msh", {"binary": True}), ("w.msh", {"file_format": "gmsh22"}),
    ("w.node", {}),
])
def test_files_written_load_as_a_scene_s_mesh(tmp_path, name, options):
    vertices, elements = sio.read_mesh(BEAM)
    sio.write_mesh(tmp_path / name, vertices, elements, **options)
    scene = softgrad.load(scene_of(str(tmp_path / name), 3))
    assert np.array_equal(scene.rest_positions, vertices)
    assert np.array_equal(scene.elements, elements)


def test_meshio_meshes_convert_both_ways():
    vertices, elements = sio.read_mesh(BEAM)
    mesh = sio.to_meshio(vertices, elements, point_data={"u": vertices},
                         cell_data={"id": np.arange(len(elements))})
    assert isinstance(mesh, meshio.Mesh) and [c.type for c in mesh.cells] == ["tetra"]
    assert np.array_equal(mesh.cell_data["id"][0], np.arange(len(elements)))
    v, e = sio.from_meshio(mesh)
    assert np.array_equal(v, vertices) and np.array_equal(e, elements)
    # Blocks of tetrahedra are joined; boundary triangles, lines and points are ignored.
    split = meshio.Mesh(vertices, [("vertex", [[0]]), ("tetra", elements[:50]),
                                   ("triangle", elements[:3, :3]), ("tetra", elements[50:])])
    v, e = sio.from_meshio(split)
    assert np.array_equal(e, elements)
    # 2D stays 2D in to_meshio; a zero z column is dropped by from_meshio.
    square_v, square_e = sio.read_mesh(SQUARE)
    assert sio.to_meshio(square_v, square_e).points.shape == (20, 2)
    flat = meshio.Mesh(np.column_stack([square_v, np.zeros(20)]), [("triangle", square_e)])
    v, e = sio.from_meshio(flat)
    assert np.array_equal(v, square_v) and np.array_equal(e, square_e)


def write_raw(path, points, cells):
    """A file written by meshio itself, past softgrad.io's checks."""
    meshio.write(path, meshio.Mesh(np.asarray(points, dtype=float), cells))
    return str(path)


def test_reading_refuses_what_it_cannot_use_and_names_the_file(tmp_path):
    tet = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1.0]])
    cube = np.array([[i & 1, (i >> 1) & 1, i >> 2] for i in range(8)], dtype=float)
    cases = {
        str(tmp_path / "missing.vtu"): "no such file",
        str(tmp_path / "garbage.vtu"): "cannot read it as vtu",
        str(tmp_path / "unknown.abc"): "cannot tell the mesh format",
        write_raw(tmp_path / "hex.vtu", cube, [("hexahedron", [list(range(8))])]):
            "hexahedron cells and no 4-node tetrahedra",
        write_raw(tmp_path / "mixed.vtu", np.vstack([cube, tet]),
                  [("hexahedron", [list(range(8))]), ("tetra", [[8, 9, 10, 11]])]):
            "tetrahedra mixed with hexahedron cells",
        write_raw(tmp_path / "quads.vtu", cube[:4], [("triangle", [[0, 1, 2]]),
                                                      ("quad", [[0, 1, 3, 2]])]):
            "triangles mixed with quad cells",
        write_raw(tmp_path / "lines.vtu", tet, [("line", [[0, 1], [1, 2]])]):
            r"no tetrahedra or triangles \(cells: line\)",
        write_raw(tmp_path / "surface.vtu", tet, [("triangle", [[0, 1, 3]])]):
            "triangles with z != 0",
        write_raw(tmp_path / "nan.vtu", np.where(tet == 1, np.nan, tet),
                  [("tetra", [[0, 1, 2, 3]])]): "non-finite coordinates at vertex 1",
    }
    (tmp_path / "garbage.vtu").write_text("not a mesh\n")
    (tmp_path / "unknown.abc").write_text("1 2 3\n")
    for path, message in cases.items():
        with pytest.raises(ValueError, match=message) as error:
            sio.read_mesh(path)
        assert path in str(error.value)
    # A TetGen element naming vertex 9 of 4 (0-based 8), and one without its .node file.
    (tmp_path / "bad.node").write_text("4 3 0 0\n" + "".join(
        f"{i} {x} {y} {z}\n" for i, (x, y, z) in enumerate(tet[:4])))
    (tmp_path / "bad.ele").write_text("2 4 0\n0 0 1 2 3\n1 1 2 3 9\n")
    with pytest.raises(ValueError, match=r"bad.node: vertex index 9 of element 1 out of range"):
        sio.read_mesh(tmp_path / "bad.node")
    (tmp_path / "lone.ele").write_text("1 4 0\n0 0 1 2 3\n")
    with pytest.raises(ValueError, match="lone.ele: cannot read it as tetgen"):
        sio.read_mesh(tmp_path / "lone.ele")


def test_writing_refuses_arrays_of_the_wrong_shape_and_formats_that_cannot_hold_the_mesh(
        tmp_path):
    vertices, elements = sio.read_mesh(BEAM)
    square_v, square_e = sio.read_mesh(SQUARE)
    out = str(tmp_path / "out.vtu")
    cases = [
        ((out, np.zeros((4, 4)), elements), r"vertices must have the shape \(n, 2\) or \(n, 3\)"),
        ((out, vertices, elements[:, :2]), r"elements must have the shape \(m, 4\) \(tetra"),
        ((out, square_v, elements), r"tetrahedra \(m, 4\) need vertices \(n, 3\)"),
        ((out, vertices, elements + 0.5), "elements must be integer vertex indices"),
        ((out, vertices, elements + 1), "vertex index 62 of element .* out of range"),
        ((out, vertices, elements - 1), "vertex index -1 of element .* out of range"),
        ((out, np.where(vertices == vertices.max(), np.inf, vertices), elements),
         "non-finite coordinates"),
        ((out, vertices, elements, {"u": vertices[:-1]}),
         r"point_data 'u' must have one row per vertex \(62\)"),
        ((out, vertices, elements, None, {"s": np.zeros(3)}),
         r"cell_data 's' must have one row per element \(145\)"),
        ((str(tmp_path / "out.obj"), vertices, elements), "obj format holds surface triangles"),
        ((str(tmp_path / "out.node"), square_v, square_e), "tetgen format holds tetrahedra"),
        ((str(tmp_path / "out.abc"), vertices, elements), "cannot tell the mesh format"),
    ]
    for args, message in cases:
        with pytest.raises(ValueError, match=message) as error:
            sio.write_mesh(*args)
        assert args[0] in str(error.value)
    assert not os.listdir(tmp_path)  # nothing written
    with pytest.raises(ValueError, match="to_meshio: elements must have the shape"):
        sio.to_meshio(vertices, elements[:, :2].T)


def test_softgrad_io_imports_without_meshio_and_then_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "meshio", None)  # import meshio raises ImportError
    try:
        module = importlib.reload(sio)
        for call in (lambda: module.read_mesh(BEAM), lambda: module.to_meshio([[0, 0]], []),
                     lambda: module.write_mesh("x.vtu", [[0.0, 0.0]], [[0, 0, 0]])):
            with pytest.raises(ImportError, match="install python3-meshio"):
                call()
    finally:
        monkeypatch.undo()
        importlib.reload(sio)
    assert sio.read_mesh(BEAM)[1].shape == (145, 4)
