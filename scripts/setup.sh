#!/usr/bin/env bash
# Sets softgrad up on a fresh Debian 12 machine (as root): the Debian packages the first scene
# needs, a virtual environment in .venv (with Debian's NumPy and PyTorch visible), and
# `pip install --no-build-isolation .` into it, which builds the library, the `softgrad` command
# and the Python module in ./build (scripts/test.sh builds the tests in the same folder, on the
# same compiled library). Re-running only rebuilds what changed. Prints how long each part took
# and writes the times to build/setup_times.json.
set -euo pipefail
cd "$(dirname "$0")/.."
ms() { echo $(($(date +%s%N) / 1000000)); }
start=$(ms)

# libopenblas0-openmp: an optimised BLAS/LAPACK for CHOLMOD's supernodal factorisation (Debian's
# default ATLAS build is generic; OpenBLAS factorises the 55k-tet Armadillo Hessian ~25% faster).
# libopenmpi-dev, openmpi-bin: MPI, to spread episode batches and sysid starts over processes
# (mpirun). libtet1.5-dev: TetGen, to fill surface meshes (.obj, .off, .stl) with tetrahedra
# (AGPL-3, built into a module of its own; -DSOFTGRAD_WITH_TETGEN=OFF builds without it).
# libhypre-dev: hypre's algebraic multigrid (BoomerAMG) for the linear solver "amg" on big meshes.
packages=(cmake g++ make libeigen3-dev libsuitesparse-dev libceres-dev nlohmann-json3-dev
          libcli11-dev zlib1g-dev libopenblas0-openmp libopenmpi-dev openmpi-bin libtet1.5-dev
          libhypre-dev)
# The Python package (pybind11) for Debian's /usr/bin/python3 and its venv; matplotlib and VTK
# draw `softgrad render`'s pictures. Without their recommendations (a GUI stack nobody needs).
python_packages=(pybind11-dev python3-dev python3-venv python3-numpy python3-matplotlib
                 python3-vtk9)
missing() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t missing_packages < <(missing "${packages[@]}")
mapfile -t missing_python < <(missing "${python_packages[@]}")
n_installed=$((${#missing_packages[@]} + ${#missing_python[@]}))
if ((n_installed)); then
  echo "setup: installing ${n_installed} Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  if ((${#missing_packages[@]})); then apt-get install -y -qq "${missing_packages[@]}" >/dev/null; fi
  if ((${#missing_python[@]})); then
    apt-get install -y -qq --no-install-recommends "${missing_python[@]}" >/dev/null
  fi
fi
packages_done=$(ms)

# The venv sees Debian's NumPy, PyTorch and VTK (--system-site-packages); pip installs softgrad
# into it without a package index (--no-build-isolation: the build backend needs only CMake).
[ -x .venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv
# --verbose shows the compile as it goes (it takes minutes on two cores).
.venv/bin/python -m pip install --no-build-isolation --no-index --disable-pip-version-check \
  --verbose .
.venv/bin/softgrad --version >/dev/null  # fails here, not later, if the install is broken
done_at=$(ms)

seconds() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
packages_s=$(seconds $((packages_done - start)))
build_s=$(seconds $((done_at - packages_done)))
mkdir -p build
cat > build/setup_times.json <<JSON
{"packages_installed": ${n_installed}, "packages_seconds": ${packages_s},
 "build_and_install_seconds": ${build_s}, "cores": $(nproc)}
JSON
printf 'setup: done in %.0f s (%d packages installed in %.0f s; build and pip install %.0f s, %d cores).\n' \
  "$(seconds $((done_at - start)))" "$n_installed" "$packages_s" "$build_s" "$(nproc)"
echo "setup: activate the environment with '. .venv/bin/activate'; then 'softgrad --help'."
