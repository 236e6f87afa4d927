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
# ninja-build: compiles the library's parts side by side (cmake/pip_backend.py).
packages=(cmake g++ ninja-build libeigen3-dev libsuitesparse-dev libceres-dev nlohmann-json3-dev
          libcli11-dev zlib1g-dev libopenblas0-openmp libopenmpi-dev openmpi-bin libtet1.5-dev
          libhypre-dev)
# The Python package (pybind11) for Debian's /usr/bin/python3 and its venv; NumPy is a
# requirement pip checks before it builds.
python_packages=(pybind11-dev python3-dev python3-venv python3-numpy)
# What `softgrad render` draws with (meshio reads the frames, matplotlib paints them). Nothing
# compiles against them, so they install in the background while the library compiles: about
# half of a fresh machine's packages (matplotlib brings SciPy, SymPy and Boost's headers).
render_packages=(python3-matplotlib python3-meshio)
missing() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t missing_packages < <(missing "${packages[@]}" "${python_packages[@]}")
mapfile -t missing_render < <(missing "${render_packages[@]}")
n_missing=$((${#missing_packages[@]} + ${#missing_render[@]}))
installed_count() { dpkg-query -W -f='${db:Status-Abbrev}\n' | grep -c '^ii'; }
installed_before=$(installed_count)
export DEBIAN_FRONTEND=noninteractive
# Without recommendations: they add a GUI stack, GraphBLAS and Fortran coarrays, none used.
apt_install() { apt-get install -y -qq --no-install-recommends "$@"; }
if ((n_missing)); then
  echo "setup: installing ${n_missing} Debian packages and what they depend on"
  apt-get update -qq
fi
((${#missing_packages[@]} == 0)) || apt_install "${missing_packages[@]}" >/dev/null
packages_done=$(ms)
mkdir -p build
render_pid=
# Never leave apt running behind an interrupted or failed set-up (dpkg would stay locked).
trap '[ -z "$render_pid" ] || wait "$render_pid" 2>/dev/null || true' EXIT
if ((${#missing_render[@]})); then
  apt_install "${missing_render[@]}" >build/setup_render_packages.log 2>&1 &
  render_pid=$!
fi

# The venv sees Debian's NumPy, PyTorch and matplotlib (--system-site-packages); pip installs
# softgrad into it without a package index (--no-build-isolation: the build backend needs only
# CMake).
[ -x .venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv
# --verbose shows the compile as it goes (it takes minutes on two cores).
.venv/bin/python -m pip install --no-build-isolation --no-index --disable-pip-version-check \
  --verbose .
build_done=$(ms)
if [ -n "$render_pid" ] && ! wait "$render_pid"; then
  echo "setup: installing ${missing_render[*]} failed (build/setup_render_packages.log):" >&2
  tail -5 build/setup_render_packages.log >&2
  exit 1
fi
.venv/bin/softgrad --version >/dev/null  # fails here, not later, if the install is broken
done_at=$(ms)

n_installed=$(($(installed_count) - installed_before))  # the names missing and their dependencies
seconds() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
packages_s=$(seconds $((packages_done - start)))
build_s=$(seconds $((build_done - packages_done)))
wait_s=$(seconds $((done_at - build_done)))
total_s=$(seconds $((done_at - start)))
cat > build/setup_times.json <<JSON
{"packages_installed": ${n_installed}, "packages_seconds": ${packages_s},
 "build_and_install_seconds": ${build_s}, "render_packages_wait_seconds": ${wait_s},
 "total_seconds": ${total_s}, "cores": $(nproc)}
JSON
printf 'setup: done in %.0f s (%d packages; %.0f s installing them before the build; build and\n' \
  "$total_s" "$n_installed" "$packages_s"
printf '  pip install %.0f s, matplotlib and meshio installing beside it; %d cores).\n' \
  "$build_s" "$(nproc)"
echo "setup: activate the environment with '. .venv/bin/activate'; then 'softgrad --help'."
