"""Meshes from and to files in any format meshio reads or writes (Gmsh .msh, VTK .vtu and .vtk,
TetGen .node/.ele, Medit .mesh, Abaqus .inp, ...), as the arrays softgrad's scenes use:
vertices (n, dim) float64 in the file's units and elements (m, dim + 1) int32, 0-based vertex
indices (tetrahedra in 3D, triangles in 2D).

    vertices, elements = softgrad.io.read_mesh("part.vtu")
    softgrad.io.write_mesh("part.msh", vertices, elements)  # Gmsh 4.1: a scene's mesh.file

A scene reads Gmsh and TetGen files itself; this module converts the other formats to them,
and writes results (point_data, cell_data) for viewers such as ParaView. meshio is imported
when a function is called: `import softgrad.io` works without it, and the functions then raise
ImportError (install Debian's python3-meshio; meshio 5.0 or later).
"""

import os as _os

import numpy as _np

# Cell types by the dimension of the cell, as meshio names them (with their higher-order and
# Lagrange variants: "tetra10", "VTK_LAGRANGE_TETRAHEDRON", ...). Lines and vertices, the
# boundary of 2D meshes, are ignored when a mesh is read.
_VOLUME_CELLS = ("tetra", "hexahedron", "wedge", "pyramid", "polyhedron",
                 "VTK_LAGRANGE_TETRAHEDRON", "VTK_LAGRANGE_HEXAHEDRON", "VTK_LAGRANGE_WEDGE",
                 "VTK_LAGRANGE_PYRAMID")
_AREA_CELLS = ("triangle", "quad", "polygon", "VTK_LAGRANGE_TRIANGLE",
               "VTK_LAGRANGE_QUADRILATERAL")
# Formats that hold only surface triangles (tetrahedra are skipped or refused by meshio), those
# that hold only volume cells, and those that keep 2D points as they are (the others are given
# a zero z column: their readers, or meshio's writers, want three coordinates).
_SURFACE_FORMATS = {"obj", "off", "ply", "stl", "wkt"}
_VOLUME_FORMATS = {"tetgen", "flac3d"}
_FORMATS_WITH_2D_POINTS = {"medit", "abaqus", "dolfin-xml", "su2", "tecplot"}


def _meshio():
    try:
        import meshio
    except ImportError as e:
        raise ImportError("softgrad.io needs the meshio package: install python3-meshio "
                          "(apt install python3-meshio), or meshio from PyPI") from e
    return meshio


def _formats(meshio, path, file_format, where):
    """meshio's format names for `path`: file_format, or those of the path's extension (the
    longest that meshio knows: ".vol.gz" before ".gz"), Gmsh before ANSYS for .msh."""
    if file_format is not None:
        return [file_format]
    suffixes = _os.path.basename(path).split(".")[1:]
    for k in range(len(suffixes)):
        ext = "." + ".".join(suffixes[k:]).lower()
        formats = list(meshio.extension_to_filetypes.get(ext, ()))
        if formats:
            return sorted(formats, key=lambda f: f != "gmsh")
    known = " ".join(sorted(meshio.extension_to_filetypes))
    raise ValueError(f"{where}: cannot tell the mesh format of {path} from its extension "
                     f"(meshio knows {known}); give file_format")


def _cell_dimension(cell_type):
    if cell_type.startswith(_VOLUME_CELLS):
        return 3
    if cell_type.startswith(_AREA_CELLS):
        return 2
    return None


def _vertices(vertices, where):
    x = _np.asarray(vertices)
    if x.ndim != 2 or x.shape[1] not in (2, 3):
        raise ValueError(f"{where}: vertices must have the shape (n, 2) or (n, 3), "
                         f"got {x.shape}")
    if not (_np.issubdtype(x.dtype, _np.floating) or _np.issubdtype(x.dtype, _np.integer)):
        raise ValueError(f"{where}: vertices must be real numbers, got {x.dtype}")
    x = x.astype(_np.float64)
    bad = _np.flatnonzero(~_np.isfinite(x).all(axis=1))
    if bad.size:
        raise ValueError(f"{where}: non-finite coordinates at vertex {bad[0]} ({x[bad[0]]}); "
                         f"{bad.size} such vertices")
    return x


def _elements(elements, n, width, where):
    e = _np.asarray(elements)
    if e.ndim != 2 or e.shape[1] != width:
        raise ValueError(f"{where}: elements must have the shape (m, {width}), got {e.shape}")
    if e.size and not _np.issubdtype(e.dtype, _np.integer):
        raise ValueError(f"{where}: elements must be integer vertex indices, got {e.dtype}")
    if e.size and (e.min() < 0 or e.max() >= n):
        bad = e.min() if e.min() < 0 else e.max()
        row = int(_np.flatnonzero((e == bad).any(axis=1))[0])
        raise ValueError(f"{where}: vertex index {bad} of element {row} out of range "
                         f"({n} vertices, 0-based)")
    return e.astype(_np.int32)


def _data(data, count, what, where):
    out = {}
    for name, values in (data or {}).items():
        if not isinstance(name, str):
            raise ValueError(f"{where}: {what} names must be strings, got {name!r}")
        values = _np.asarray(values)
        if values.ndim == 0 or values.shape[0] != count:
            row = "vertex" if what == "point_data" else "element"
            raise ValueError(f"{where}: {what} {name!r} must have one row per {row} "
                             f"({count}), got the shape {values.shape}")
        out[name] = values
    return out


def _to_meshio(meshio, vertices, elements, point_data, cell_data, where):
    x = _vertices(vertices, where)
    shape = _np.shape(elements)
    if len(shape) != 2 or shape[1] not in (3, 4):
        raise ValueError(f"{where}: elements must have the shape (m, 4) (tetrahedra) or "
                         f"(m, 3) (triangles), got {shape}")
    if shape[1] == 4 and x.shape[1] != 3:
        raise ValueError(f"{where}: tetrahedra (m, 4) need vertices (n, 3), got {x.shape}")
    e = _elements(elements, len(x), shape[1], where)
    point_data = _data(point_data, len(x), "point_data", where)
    cell_data = {name: [values] for name, values in
                 _data(cell_data, len(e), "cell_data", where).items()}
    return meshio.Mesh(x, [("tetra" if shape[1] == 4 else "triangle", e)],
                       point_data=point_data, cell_data=cell_data)


def to_meshio(vertices, elements, point_data=None, cell_data=None):
    """A meshio.Mesh of one block of tetrahedra (vertices (n, 3), elements (m, 4)) or triangles
    (vertices (n, 2) or (n, 3) with elements (m, 3)); vertices stay as given (2D stays 2D).
    point_data and cell_data map names to arrays with one row per vertex (n, ...) and per
    element (m, ...); meshio's cell_data lists of one array per block are made here. Raises
    ValueError for shapes that do not fit, non-finite coordinates or vertex indices out of
    range; ImportError without meshio."""
    return _to_meshio(_meshio(), vertices, elements, point_data, cell_data, "to_meshio")


def _from_meshio(mesh, where):
    points = _np.asarray(mesh.points)
    if points.ndim != 2 or points.shape[1] not in (2, 3):
        raise ValueError(f"{where}: points of the shape {points.shape}: expected 2D or 3D "
                         "points, (n, 2) or (n, 3)")
    blocks = {}
    for block in mesh.cells:
        data = _np.asarray(block.data)
        if len(data):
            blocks.setdefault(block.type, []).append(data)
    volume = sorted(t for t in blocks if _cell_dimension(t) == 3)
    area = sorted(t for t in blocks if _cell_dimension(t) == 2)
    if "tetra" in blocks:
        if volume != ["tetra"]:
            others = ", ".join(t for t in volume if t != "tetra")
            raise ValueError(f"{where}: tetrahedra mixed with {others} cells: softgrad's 3D "
                             "meshes are 4-node tetrahedra only (convert or remove the others)")
        if points.shape[1] != 3:
            raise ValueError(f"{where}: tetrahedra with {points.shape[1]}D points")
        kind = "tetra"
    elif volume:
        raise ValueError(f"{where}: {', '.join(volume)} cells and no 4-node tetrahedra "
                         "('tetra'): softgrad's 3D meshes are 4-node tetrahedra")
    elif "triangle" in blocks:
        if area != ["triangle"]:
            others = ", ".join(t for t in area if t != "triangle")
            raise ValueError(f"{where}: triangles mixed with {others} cells: softgrad's 2D "
                             "meshes are 3-node triangles only (convert or remove the others)")
        if points.shape[1] == 3:
            if _np.any(points[:, 2] != 0):
                raise ValueError(f"{where}: triangles with z != 0, a surface in 3D rather "
                                 "than a 2D mesh (2D meshes lie in the plane z = 0; a closed "
                                 "surface is filled with tetrahedra by a scene's mesh.file "
                                 "as .obj, .off or .stl)")
            points = points[:, :2]
        kind = "triangle"
    else:
        found = ", ".join(sorted(blocks)) or "none"
        raise ValueError(f"{where}: no tetrahedra or triangles (cells: {found})")
    vertices = _vertices(points, where)
    elements = _elements(_np.concatenate(blocks[kind]), len(vertices),
                         4 if kind == "tetra" else 3, where)
    return vertices, elements


def from_meshio(mesh):
    """(vertices, elements) of a meshio.Mesh: its tetrahedra with vertices (n, 3) float64 and
    elements (m, 4) int32, or, where it has none, its triangles with vertices (n, 2) (a z
    column of zeros dropped) and elements (m, 3). The blocks of that cell type are joined in
    order; lines, vertices and boundary triangles beside tetrahedra are ignored; all the
    points are kept, used or not. Raises ValueError for other area or volume cells beside
    them (quads, hexahedra, second-order cells), no usable cells, triangles off the plane
    z = 0, non-finite coordinates or vertex indices out of range."""
    return _from_meshio(mesh, "from_meshio")


def read_mesh(path, file_format=None):
    """(vertices, elements) of a mesh file in any format meshio reads, chosen by the extension
    (or meshio's `file_format` name, e.g. "gmsh"): vertices (n, dim) float64 in the file's
    units, elements (m, dim + 1) int32, 0-based. The tetrahedra (dim 3), or where the file has
    none its triangles (dim 2, a z column of zeros dropped); see from_meshio. A TetGen mesh
    is read from either of its .node and .ele files. Raises ValueError naming the file when it
    is missing, cannot be read or holds no mesh softgrad can use; ImportError without
    meshio."""
    meshio = _meshio()
    path = _os.fspath(path)
    where = f"read_mesh: {path}"
    if not _os.path.isfile(path):
        raise ValueError(f"{where}: {'not a file' if _os.path.exists(path) else 'no such file'}")
    formats = _formats(meshio, path, file_format, "read_mesh")
    # meshio.read prints each reader's failure and calls sys.exit when none reads the file:
    # the readers are called here one by one instead, where meshio exposes them.
    readers = getattr(getattr(meshio, "_helpers", None), "reader_map", None)
    failures = []
    for name in formats:
        try:
            if readers is not None:
                if name not in readers:
                    raise ValueError(f"meshio has no reader for {name!r}")
                mesh = readers[name](path)
            else:
                mesh = meshio.read(path, file_format=name)
        except (Exception, SystemExit) as e:
            failures.append(f"{name}: {str(e).strip() or type(e).__name__}")
            continue
        return _from_meshio(mesh, where)
    raise ValueError(f"{where}: cannot read it as {' or '.join(formats)} "
                     f"({'; '.join(failures)})")


def write_mesh(path, vertices, elements, point_data=None, cell_data=None, file_format=None,
               **options):
    """Writes tetrahedra (vertices (n, 3), elements (m, 4)) or triangles (vertices (n, 2) or
    (n, 3), elements (m, 3)) in any format meshio writes, chosen by the extension (or meshio's
    `file_format` name). point_data and cell_data map names to arrays with one row per vertex
    and per element (e.g. displacements (n, dim) [m], stresses (m, ...) [Pa]). .msh is Gmsh
    4.1 (file_format="gmsh22" for 2.2), ASCII unless binary=True; `options` go to meshio's
    writer. 2D vertices get a z column of zeros where the format wants three coordinates. A
    TetGen mesh is written as its .node and .ele files, whichever of them `path` names.
    Raises ValueError for shapes that do not fit, vertex indices out of range, or a format
    that cannot hold the mesh (tetrahedra in a surface format such as .obj, triangles in
    TetGen's); OSError where the file cannot be created; ImportError without meshio (or a
    package the format needs, such as h5py for XDMF)."""
    meshio = _meshio()
    path = _os.fspath(path)
    where = f"write_mesh: {path}"
    mesh = _to_meshio(meshio, vertices, elements, point_data, cell_data, where)
    fmt = _formats(meshio, path, file_format, "write_mesh")[0]
    tetrahedra = mesh.cells[0].type == "tetra"
    if tetrahedra and fmt in _SURFACE_FORMATS:
        raise ValueError(f"{where}: the {fmt} format holds surface triangles, not tetrahedra")
    if not tetrahedra and fmt in _VOLUME_FORMATS:
        raise ValueError(f"{where}: the {fmt} format holds tetrahedra, not triangles")
    if mesh.points.shape[1] == 2 and fmt not in _FORMATS_WITH_2D_POINTS:
        mesh.points = _np.column_stack([mesh.points, _np.zeros(len(mesh.points))])
    if fmt.startswith("gmsh"):
        options.setdefault("binary", False)
    if fmt == "gmsh22":  # the element tags meshio would otherwise fill in with a warning
        for tag in ("gmsh:physical", "gmsh:geometrical"):
            mesh.cell_data.setdefault(tag, [_np.zeros(len(mesh.cells[0].data), dtype=int)])
    try:
        meshio.write(path, mesh, file_format=fmt, **options)
    except (ImportError, OSError):
        raise
    except Exception as e:
        raise ValueError(f"{where}: meshio cannot write it as {fmt}: "
                         f"{str(e).strip() or type(e).__name__}") from e
