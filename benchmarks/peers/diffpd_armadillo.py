"""DiffPD (https://github.com/mit-gfx/diff_pd_public, MIT licence) on its own Armadillo showcase,
python/example/armadillo_3d.py, driven without its env/renderer modules (they pull in pbrt,
matplotlib and more): a peer run for benchmarking softgrad. Build DiffPD first with
benchmarks/peers/diffpd_build.sh (outside the softgrad tree); manual tool, not for CI.

The set-up reproduces armadillo_3d.py with python/py_diff_pd/env/armadillo_env_3d.py:
- asset/mesh/armadillo_10k.node/.ele read as read_tetgen_file does (columns 1-3 / 1-4, element
  indices minus 1, tet vertex order kept as in the file);
- vertices rotated +x by 90 degrees, then z by 180 degrees, min z shifted to 0, divided by 1000;
- TetDeformable, density 1e3, 'neohookean', E = 5e5, nu = 0.45, built from the binary mesh
  file that generate_tet_mesh writes;
- Dirichlet: vertices with z - min_z < 1e-3 fixed in x, y, z; vertices with max_z - z < 1e-3
  fixed in z (values: the vertex's rest coordinates, read back from DiffPD's mesh);
- the 'gravity' state force added with parameters [0, 0, 0], as the env does (no gravity: a zero
  force, so adding it or not gives the same result; it is added to mirror the env exactly);
- q0 = (X - center) + center (the env's rotation by init_rotate_angle 0), v0 = 0, no actuation;
- the twisting point forces of frame_num = 30: f(t) = [cos(-pi/4 + t/30 pi/2),
  sin(-pi/4 + t/30 pi/2), 0] t/30 on every min-x vertex (x - min_x < 1e-3), -f(t) on every
  max-x vertex; step t uses f(t), so step 0 has no force;
- dt = 3e-2, the loss of the env: q_T . g_q + v_T . g_v with g_q then g_v drawn by
  np.random.normal(size=dofs) after np.random.seed(42);
- forward and backward exactly as env_base.py's simulate (PyForward per step, then PyBackward
  from the last step to the first, velocity_bound = inf).

Methods: 'pd_eigen' (default; PD with BFGS options of armadillo_3d.py: max_pd_iter 5000,
max_ls_iter 10, abs_tol 1e-9, rel_tol --rel-tol, use_bfgs 1, bfgs_history_size 10; its backward,
with a non-PD material such as neo-Hookean, is a sparse LDLT of the full Newton matrix),
'pd_eigen_pcg' (the method armadillo_3d.py actually times: the same forward, backward by CG on
the Newton matrix preconditioned by the PD matrix), 'newton_cholesky' and 'newton_pcg' (options
max_newton_iter 5000, max_ls_iter 10, abs_tol 1e-9, rel_tol --rel-tol). thread_ct = --threads.
Each method gets a fresh deformable (the PD prefactorisation is then part of its first step).
Beware: the '*_pcg' backward passes run Eigen's ConjugateGradient with its default limit of
2 x dofs iterations and only then throw "CG solver failed"; on this mesh pd_eigen_pcg did so
after about 577 s on its first backward step (DiffPD offers no option to cap it).

Iteration counts: DiffPD returns none, but prints one line per PD / Newton iteration (and per
line-search halving) at verbose 1; the driver runs at verbose 1 with the process's stdout
redirected to a file and counts those lines (--no-iter-count: verbose 0, counts null). Backward
counts stay null (Eigen's LDLT / CG inside DiffPD report nothing).

    /usr/bin/python3 benchmarks/peers/diffpd_armadillo.py --diffpd /tmp/diffpd \\
        [--steps 5] [--methods pd_eigen,pd_eigen_pcg,newton_cholesky,newton_pcg] \\
        [--rel-tol 1e-4] [--threads 1] [--no-backward] [--no-iter-count] \\
        [--out diffpd_armadillo.json] [--dump-problem DIR [--dump-only]]

--out writes JSON (diffpd_commit, problem, methods: {name: {forward_s_per_step, backward_s,
backward_failed, error, ...}}, final_positions_file: {name: .npy of the final q, n x 3}) and, next
to it, a .npz per method with q, v at the end and the gradients. --dump-problem DIR writes the
problem as plain arrays for the other side: vertices.npy (rest positions after the transforms,
float64, n x 3, as DiffPD's mesh holds them), tets.npy (int64, m x 4, DiffPD's vertex order),
fixed_all.npy, fixed_z.npy, forces.npy (steps x n x 3), min_x_nodes.npy, max_x_nodes.npy, q0.npy,
loss_q_weights.npy, loss_v_weights.npy and meta.json (dt, density, E, nu, DiffPD's mean tet
volume and per-vertex mass read from the core, and notes on how DiffPD weights volume and mass,
checked numerically against PyElasticEnergy).
"""

import argparse
import ctypes
import json
import os
import re
import sys
import tempfile
import time

import numpy as np

FRAME_NUM = 30
DENSITY = 1e3
YOUNGS = 5e5
POISSON = 0.45
DT = 3e-2
SEED = 42

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def read_tetgen(node_file, ele_file):
    """DiffPD's read_tetgen_file: xyz from columns 1-3, elements from columns 1-4 minus 1."""
    with open(node_file) as f:
        lines = [line.split() for line in f]
    n = int(lines[0][0])
    verts = np.array([[float(v) for v in lines[i + 1][1:4]] for i in range(n)], dtype=np.float64)
    with open(ele_file) as f:
        lines = [line.split() for line in f]
    m = int(lines[0][0])
    eles = np.array([[int(e) for e in lines[i + 1][1:5]] for i in range(m)], dtype=int) - 1
    return verts, eles


def transform(verts):
    """armadillo_env_3d.py: rotate +x by 90 degrees, then z by 180, min z to 0, divide by 1000."""
    r1 = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=np.float64)
    verts = verts @ r1.T
    r2 = np.array([[-1, 0, 0], [0, -1, 0], [0, 0, 1]], dtype=np.float64)
    verts = verts @ r2.T
    verts[:, 2] -= np.min(verts, axis=0)[2]
    verts /= 1000
    return verts


def write_tet_mesh(vertices, tets, path):
    """generate_tet_mesh's binary layout: ints 3, 4; (3, n) doubles row by row; (4, m) ints."""
    with open(path, "wb") as f:
        f.write(np.array([3, 4, 3, vertices.shape[0]], dtype=np.int32).tobytes())
        f.write(np.ascontiguousarray(vertices.T, dtype=np.float64).tobytes())
        f.write(np.array([4, tets.shape[0]], dtype=np.int32).tobytes())
        f.write(np.ascontiguousarray(tets.T, dtype=np.int32).tobytes())


class CaptureFds:
    """Redirects the process's fds 1 and 2 (DiffPD's std::cout / std::cerr) to temp files."""

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self._libc = ctypes.CDLL(None)
        self._files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
        self._saved = [os.dup(1), os.dup(2)]
        os.dup2(self._files[0].fileno(), 1)
        os.dup2(self._files[1].fileno(), 2)
        self.out = self.err = ""
        return self

    def __exit__(self, *exc):
        self._libc.fflush(None)
        os.dup2(self._saved[0], 1)
        os.dup2(self._saved[1], 2)
        for fd in self._saved:
            os.close(fd)
        texts = []
        for f in self._files:
            f.seek(0)
            texts.append(_ANSI.sub("", f.read().decode("utf-8", "replace")))
            f.close()
        self.out, self.err = texts
        return False


def count_lines(text, prefix):
    return sum(1 for line in text.splitlines() if line.strip().startswith(prefix))


def other_lines(text):
    """Messages other than the per-iteration ones (warnings), with counts."""
    skip = ("PD iteration:", "Newton's iteration:", "Line search iteration:", "Contact iteration")
    counts = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(skip):
            counts[line] = counts.get(line, 0) + 1
    return counts


def clean_error(exc):
    """DiffPD's exception text without colour codes and the call stack it appends."""
    return _ANSI.sub("", str(exc)).split("Stack trace:")[0].strip()


class Problem:
    def __init__(self, core, src_root, steps):
        self.core = core
        verts, eles = read_tetgen(os.path.join(src_root, "asset", "mesh", "armadillo_10k.node"),
                                  os.path.join(src_root, "asset", "mesh", "armadillo_10k.ele"))
        np.random.seed(SEED)  # the env seeds first; nothing else draws before the loss vectors
        verts = transform(verts)
        self.tets = eles.astype(np.int64)
        self._tmpdir = tempfile.TemporaryDirectory(prefix="diffpd_armadillo_")
        self.mesh_file = os.path.join(self._tmpdir.name, "armadillo.bin")
        write_tet_mesh(verts, eles, self.mesh_file)
        mesh = core.TetMesh3d()
        mesh.Initialize(self.mesh_file)
        n = mesh.NumOfVertices()
        # The env's all_verts: DiffPD's mesh read back (identical doubles to `verts`).
        self.vertices = np.array(mesh.py_vertices(), dtype=np.float64).reshape(n, 3)
        self.mesh_average_element_volume = mesh.average_element_volume()
        self.n = n
        self.dofs = 3 * n
        lo, hi = self.vertices.min(axis=0), self.vertices.max(axis=0)
        center = (hi + lo) / 2
        min_x, max_x, min_z, max_z = lo[0], hi[0], lo[2], hi[2]
        self.min_x_nodes = [i for i in range(n) if self.vertices[i, 0] - min_x < 1e-3]
        self.max_x_nodes = [i for i in range(n) if max_x - self.vertices[i, 0] < 1e-3]
        self.fixed_all = [i for i in range(n) if self.vertices[i, 2] - min_z < 1e-3]
        self.fixed_z = [i for i in range(n) if max_z - self.vertices[i, 2] < 1e-3]
        # init_rotate_angle 0: R = identity, q0[i] = R @ (v_i - center) + center.
        self.q0 = ((self.vertices - center) @ np.eye(3).T + center).ravel()
        self.v0 = np.zeros(self.dofs)
        self.loss_q = np.random.normal(size=self.dofs)
        self.loss_v = np.random.normal(size=self.dofs)
        if steps > FRAME_NUM:
            raise SystemExit(f"--steps {steps}: armadillo_3d.py defines forces for {FRAME_NUM} frames")
        self.steps = steps
        self.forces = np.zeros((FRAME_NUM, n, 3))
        for t in range(FRAME_NUM):
            f_min_x = np.array([np.cos(-np.pi / 4 + t / FRAME_NUM * np.pi / 2),
                                np.sin(-np.pi / 4 + t / FRAME_NUM * np.pi / 2), 0]) * t / FRAME_NUM
            self.forces[t, self.min_x_nodes] = f_min_x
            self.forces[t, self.max_x_nodes] = -f_min_x

    def deformable(self, gravity=(0.0, 0.0, 0.0)):
        d = self.core.TetDeformable()
        d.Initialize(self.mesh_file, DENSITY, "neohookean", YOUNGS, POISSON)
        for i in self.fixed_all:
            vx, vy, vz = self.vertices[i]
            d.SetDirichletBoundaryCondition(3 * i, vx)
            d.SetDirichletBoundaryCondition(3 * i + 1, vy)
            d.SetDirichletBoundaryCondition(3 * i + 2, vz)
        for i in self.fixed_z:
            d.SetDirichletBoundaryCondition(3 * i + 2, self.vertices[i, 2])
        d.AddStateForce("gravity", list(gravity))
        return d

    def probe(self):
        """DiffPD's mean tet volume and per-vertex mass read from the core, and a check of how
        PyElasticEnergy weights the elements (mean volume against each tet's own volume)."""
        d = self.deformable(gravity=(0.0, 0.0, 1.0))
        f = np.array(d.PyForwardStateForce(self.q0, self.v0)).reshape(self.n, 3)
        masses = f[:, 2]
        x = self.vertices
        dm = np.stack([x[self.tets[:, k]] - x[self.tets[:, 0]] for k in (1, 2, 3)], axis=2)
        signed = np.linalg.det(dm) / 6
        vol = np.abs(signed)
        # A smooth non-affine deformation with J > 0 everywhere.
        zmax = x[:, 2].max()
        y = np.column_stack([x[:, 0] * (1 + 0.1 * x[:, 2] / zmax), x[:, 1],
                             x[:, 2] + 0.05 * x[:, 0] + 0.5 * x[:, 1] ** 2])
        ds = np.stack([y[self.tets[:, k]] - y[self.tets[:, 0]] for k in (1, 2, 3)], axis=2)
        F = ds @ np.linalg.inv(dm)
        mu = YOUNGS / (2 * (1 + POISSON))
        la = YOUNGS * POISSON / ((1 + POISSON) * (1 - 2 * POISSON))
        logj = np.log(np.linalg.det(F))
        psi = mu / 2 * (np.einsum("eij,eij->e", F, F) - 3) - mu * logj + la / 2 * logj ** 2
        e_diffpd = d.PyElasticEnergy(y.ravel())
        e_mean = psi.sum() * d.element_volume()
        e_own = (psi * vol).sum()
        return {
            "mean_tet_volume": d.element_volume(),
            "mesh_average_element_volume": self.mesh_average_element_volume,
            "mean_tet_volume_numpy": float(vol.mean()),
            "negatively_oriented_rest_tets": int((signed < 0).sum()),
            "vertex_mass": float(masses[0]),
            "vertex_mass_min": float(masses.min()),
            "vertex_mass_max": float(masses.max()),
            "vertex_mass_expected_density_times_mean_volume": DENSITY * d.element_volume(),
            "total_mass_diffpd": float(masses.sum()),
            "total_mass_true": float(DENSITY * vol.sum()),
            "energy_check": {
                "deformation": "x' = x (1 + 0.1 z / z_max), y' = y, z' = z + 0.05 x + 0.5 y^2",
                "diffpd_PyElasticEnergy": e_diffpd,
                "sum_psi_times_mean_volume": float(e_mean),
                "sum_psi_times_own_volume": float(e_own),
                "rel_diff_mean_weighting": float(abs(e_diffpd - e_mean) / abs(e_diffpd)),
                "rel_diff_own_weighting": float(abs(e_diffpd - e_own) / abs(e_diffpd)),
            },
        }


def method_options(method, rel_tol, threads, verbose):
    if method.startswith("pd"):
        return {"max_pd_iter": 5000, "max_ls_iter": 10, "abs_tol": 1e-9, "rel_tol": rel_tol,
                "verbose": verbose, "thread_ct": threads, "use_bfgs": 1, "bfgs_history_size": 10}
    if method.startswith("newton"):
        return {"max_newton_iter": 5000, "max_ls_iter": 10, "abs_tol": 1e-9, "rel_tol": rel_tol,
                "verbose": verbose, "thread_ct": threads}
    raise SystemExit(f"unknown method {method}")


def run_method(prob, method, opt, backward, count_iters, out_prefix):
    core = prob.core
    dofs = prob.dofs
    iter_prefix = "PD iteration:" if method.startswith("pd") else "Newton's iteration:"
    res = {"forward_failed": False, "backward_failed": None, "error": None,
           "forward_error": None, "backward_error": None, "options": opt,
           "forward_iterations": [] if count_iters else None,
           "forward_line_search_halvings": [] if count_iters else None,
           "backward_iterations": None, "messages": {}}

    def note(text):
        for k, v in other_lines(text).items():
            res["messages"][k] = res["messages"].get(k, 0) + v

    t0 = time.perf_counter()
    d = prob.deformable()
    res["setup_s"] = time.perf_counter() - t0
    act = np.zeros(d.act_dofs())
    q, v = [prob.q0.copy()], [prob.v0.copy()]
    f_ext = [prob.forces[t].ravel().copy() for t in range(prob.steps)]
    contacts = [core.StdIntVector(0)]
    step_s, call_s = [], []
    for i in range(prob.steps):
        t_begin = time.perf_counter()
        q_next = core.StdRealVector(dofs)
        v_next = core.StdRealVector(dofs)
        active = core.StdIntVector(list(contacts[-1]))
        cap = CaptureFds()
        try:
            with cap:
                t_call = time.perf_counter()
                d.PyForward(method, q[-1], v[-1], act, f_ext[i], DT, opt, q_next, v_next, active)
                call_s.append(time.perf_counter() - t_call)
        except Exception as exc:  # DiffPD's CheckError -> RuntimeError
            res["forward_failed"] = True
            res["forward_error"] = res["error"] = f"step {i}: {clean_error(exc)}"
            note(cap.out)
            break
        note(cap.out)
        if count_iters:
            res["forward_iterations"].append(count_lines(cap.out, iter_prefix))
            res["forward_line_search_halvings"].append(count_lines(cap.out, "Line search iteration:"))
        q.append(np.array(q_next, dtype=np.float64))
        v.append(np.array(v_next, dtype=np.float64))
        contacts.append(active)
        step_s.append(time.perf_counter() - t_begin)
    res["steps_done"] = len(step_s)
    res["forward_s_steps"] = step_s
    res["forward_call_s_steps"] = call_s
    res["forward_s_per_step"] = float(np.mean(step_s)) if step_s else None
    res["forward_s_per_step_after_first"] = float(np.mean(step_s[1:])) if len(step_s) > 1 else None
    if count_iters and res["forward_iterations"]:
        res["forward_iterations_per_step"] = float(np.mean(res["forward_iterations"]))
    if res["forward_failed"]:
        return res
    qT, vT = q[-1], v[-1]
    res["loss"] = float(qT.dot(prob.loss_q) + vT.dot(prob.loss_v))
    res["final_positions_file"] = out_prefix + "_q_final.npy" if out_prefix else None
    if out_prefix:
        np.save(res["final_positions_file"], qT.reshape(-1, 3))
    grads = {}
    if backward:
        res["backward_failed"] = False
        mat_w = d.NumOfPdElementEnergies()
        act_w = d.NumOfPdMuscleEnergies()
        state_p = d.NumOfStateForceParameters()
        dl_dq_next, dl_dv_next = prob.loss_q.copy(), prob.loss_v.copy()
        dl_df_ext = np.zeros((prob.steps, dofs))
        back_s = [None] * prob.steps
        t_begin = time.perf_counter()
        for i in reversed(range(prob.steps)):
            t_step = time.perf_counter()
            outs = [core.StdRealVector(k) for k in (dofs, dofs, d.act_dofs(), dofs, mat_w, act_w, state_p)]
            cap = CaptureFds()
            try:
                with cap:
                    d.PyBackward(method, q[i], v[i], act, f_ext[i], DT, q[i + 1], v[i + 1],
                                 contacts[i + 1], dl_dq_next, dl_dv_next, opt, *outs)
            except Exception as exc:
                res["backward_failed"] = True
                res["backward_error"] = f"step {i}: {clean_error(exc)}"
                res["error"] = res["error"] or res["backward_error"]
                note(cap.out)
                break
            note(cap.out)
            dl_dq_next = np.array(outs[0], dtype=np.float64)
            dl_dv_next = np.array(outs[1], dtype=np.float64)  # velocity_bound = inf: no clamping
            dl_df_ext[i] = np.array(outs[3], dtype=np.float64)
            back_s[i] = time.perf_counter() - t_step
        res["backward_s"] = time.perf_counter() - t_begin
        res["backward_s_steps"] = back_s
        if not res["backward_failed"]:
            res["backward_s_per_step"] = res["backward_s"] / prob.steps
            grads = {"dl_dq0": dl_dq_next, "dl_dv0": dl_dv_next, "dl_df_ext": dl_df_ext.reshape(prob.steps, -1, 3)}
            res["grad_norms"] = {k: float(np.linalg.norm(g)) for k, g in grads.items()}
    if out_prefix:
        res["state_file"] = out_prefix + "_state.npz"
        np.savez(res["state_file"], q_final=qT.reshape(-1, 3), v_final=vT.reshape(-1, 3), **grads)
    return res


def dump_problem(prob, probe, folder):
    os.makedirs(folder, exist_ok=True)
    np.save(os.path.join(folder, "vertices.npy"), prob.vertices.astype(np.float64))
    np.save(os.path.join(folder, "tets.npy"), prob.tets.astype(np.int64))
    np.save(os.path.join(folder, "fixed_all.npy"), np.array(prob.fixed_all, dtype=np.int64))
    np.save(os.path.join(folder, "fixed_z.npy"), np.array(prob.fixed_z, dtype=np.int64))
    np.save(os.path.join(folder, "forces.npy"), prob.forces[:prob.steps].copy())
    np.save(os.path.join(folder, "min_x_nodes.npy"), np.array(prob.min_x_nodes, dtype=np.int64))
    np.save(os.path.join(folder, "max_x_nodes.npy"), np.array(prob.max_x_nodes, dtype=np.int64))
    np.save(os.path.join(folder, "q0.npy"), prob.q0.reshape(-1, 3))
    np.save(os.path.join(folder, "loss_q_weights.npy"), prob.loss_q.reshape(-1, 3))
    np.save(os.path.join(folder, "loss_v_weights.npy"), prob.loss_v.reshape(-1, 3))
    meta = {
        "source": "DiffPD python/example/armadillo_3d.py + python/py_diff_pd/env/armadillo_env_3d.py",
        "dt": DT, "density": DENSITY, "youngs_modulus": YOUNGS, "poissons_ratio": POISSON,
        "material": "neohookean: psi = mu/2 (tr(F^T F) - 3) - mu log J + lambda/2 (log J)^2, "
                    "lambda = E nu / ((1 + nu)(1 - 2 nu)), mu = E / (2 (1 + nu)); one sample per tet",
        "lambda": YOUNGS * POISSON / ((1 + POISSON) * (1 - 2 * POISSON)),
        "mu": YOUNGS / (2 * (1 + POISSON)),
        "gravity": [0.0, 0.0, 0.0],
        "n_vertices": prob.n, "n_tets": int(prob.tets.shape[0]),
        "n_fixed_all": len(prob.fixed_all), "n_fixed_z": len(prob.fixed_z),
        "n_min_x_nodes": len(prob.min_x_nodes), "n_max_x_nodes": len(prob.max_x_nodes),
        "forces_steps": prob.steps, "frame_num": FRAME_NUM,
        "forces": "forces[t] = f(t) on min_x_nodes, -f(t) on max_x_nodes, f(t) = [cos(-pi/4 + t/30 pi/2), "
                  "sin(-pi/4 + t/30 pi/2), 0] * t/30 (newtons, point forces); step t uses forces[t]",
        "initial_state": "q0.npy ((vertices - center) + center, equal to vertices up to rounding), v0 = 0",
        "loss": "q_T . loss_q_weights + v_T . loss_v_weights (np.random.seed(42); normal(size=dofs) twice)",
        "time_integration": "backward Euler: q1 = q + h v + h^2/m (f_ext + f_elastic(q1)), v1 = (q1 - q)/h, "
                            "Dirichlet dofs held at their rest values",
        "mean_tet_volume": probe["mean_tet_volume"],
        "vertex_mass": probe["vertex_mass"],
        "probe": probe,
        "notes": [
            "Mesh::Initialize computes each tet's volume as |det(X1-X0, X2-X0, X3-X0)| / 6 and "
            "average_element_volume() = their mean; Deformable::InitializeAfterMesh stores "
            "element_volume_ = mesh_.average_element_volume() (header: 'for now we assume all elements "
            "have equal volume. This is not true for tet or triangle meshes').",
            "Every tet's elastic energy, force and force differential is weighted by that MEAN volume "
            "(deformable.cpp ElasticEnergy/ElasticForce/ElasticForceDifferential: "
            "... * element_volume_ / sample_num, sample_num = 1 for tets), not by its own volume; "
            "probe.energy_check confirms it numerically against PyElasticEnergy.",
            "Every vertex gets the same mass m = density * element_volume_ (mean tet volume): "
            "deformable_projective_dynamics_forward.cpp, deformable_newton_forward.cpp and both backward "
            "files use 'const real mass = element_volume_ * density_' ('TODO: this mass is incorrect for "
            "tri or tet meshes'), and the gravity state force uses the same mass (probe.vertex_mass is "
            "read from PyForwardStateForce with g = [0, 0, 1]). The total mass is therefore "
            "n_vertices * density * mean volume, not density * total volume (see probe).",
            "Rest tet orientation does not matter to DiffPD (F = Ds Dm^-1 and |det| volumes); "
            "probe.negatively_oriented_rest_tets counts tets with det(Dm) < 0 in the file's vertex order.",
            "The PD methods use the PD matrix (mass/h^2 + w A^T A, w = material average stiffness * 0.1) "
            "only as the BFGS initial Hessian; their converged answer is the same backward Euler step.",
        ],
    }
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--diffpd", default="/tmp/diffpd", help="BUILD_DIR of diffpd_build.sh")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--methods", default="pd_eigen")
    ap.add_argument("--rel-tol", type=float, default=1e-4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--no-backward", action="store_true")
    ap.add_argument("--no-iter-count", action="store_true")
    ap.add_argument("--out", default=None, help="JSON file (npy/npz files go next to it)")
    ap.add_argument("--dump-problem", default=None, metavar="DIR")
    ap.add_argument("--dump-only", action="store_true", help="with --dump-problem: no simulation")
    args = ap.parse_args()

    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    src = os.path.join(os.path.abspath(args.diffpd), "src")
    sys.path.insert(0, os.path.join(src, "python"))
    import py_diff_pd.core.py_diff_pd_core as core  # noqa: E402
    commit_file = os.path.join(src, ".diffpd_commit")
    commit = open(commit_file).read().strip() if os.path.exists(commit_file) else None

    prob = Problem(core, src, args.steps)
    probe = prob.probe()
    print(f"DiffPD {commit}: armadillo {prob.n} vertices, {prob.tets.shape[0]} tets, "
          f"{len(prob.fixed_all)} fixed xyz, {len(prob.fixed_z)} fixed z, "
          f"{len(prob.min_x_nodes)}/{len(prob.max_x_nodes)} min/max-x force nodes; "
          f"mean tet volume {probe['mean_tet_volume']:.6e}, vertex mass {probe['vertex_mass']:.6e}")
    if args.dump_problem:
        dump_problem(prob, probe, args.dump_problem)
        print(f"problem written to {args.dump_problem}")
        if args.dump_only:
            return

    out_dir = os.path.dirname(os.path.abspath(args.out)) if args.out else None
    result = {"diffpd_commit": commit, "diffpd_build_dir": os.path.abspath(args.diffpd),
              "problem": {"n_vertices": prob.n, "n_tets": int(prob.tets.shape[0]), "dofs": prob.dofs,
                          "steps": args.steps, "dt": DT, "density": DENSITY, "youngs_modulus": YOUNGS,
                          "poissons_ratio": POISSON, "mean_tet_volume": probe["mean_tet_volume"],
                          "vertex_mass": probe["vertex_mass"]},
              "rel_tol": args.rel_tol, "threads": args.threads,
              "machine": {"cpus": os.cpu_count(), "loadavg_start": list(os.getloadavg())},
              "methods": {}, "final_positions_file": {}}
    for method in [m for m in args.methods.split(",") if m]:
        opt = method_options(method, args.rel_tol, args.threads, 0 if args.no_iter_count else 1)
        prefix = os.path.join(out_dir, f"diffpd_armadillo_{method}") if out_dir else None
        res = run_method(prob, method, opt, not args.no_backward, not args.no_iter_count, prefix)
        result["methods"][method] = res
        result["final_positions_file"][method] = res.get("final_positions_file")
        fwd = res["forward_s_per_step"]
        print(f"{method}: forward {fwd if fwd is None else round(fwd, 3)} s/step "
              f"(iterations {res['forward_iterations']}), backward "
              f"{round(res['backward_s'], 3) if res.get('backward_s') is not None else None} s"
              f"{' FAILED' if res['backward_failed'] or res['forward_failed'] else ''}"
              f"{': ' + res['error'] if res['error'] else ''}")
    result["machine"]["loadavg_end"] = list(os.getloadavg())
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
