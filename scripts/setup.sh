#!/usr/bin/env bash
# Installs softgrad's build dependencies (Debian packages only) and builds it in ./build.
# Run as root on a fresh Debian 12 machine. Re-running only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

# libopenblas0-openmp: an optimised BLAS/LAPACK for CHOLMOD's supernodal factorisation (Debian's
# default ATLAS build is generic; OpenBLAS factorises the 55k-tet Armadillo Hessian ~25% faster).
# libopenmpi-dev, openmpi-bin: MPI, to spread episode batches and sysid starts over processes
# (mpirun); softgrad builds without them too. libtet1.5-dev: TetGen, to fill surface meshes
# (.obj, .off, .stl) with tetrahedra (AGPL-3; -DSOFTGRAD_WITH_TETGEN=OFF builds without it).
# libgmp-dev: GMP's exact rationals, for the tests' exact intersection checks. libhypre-dev:
# hypre's algebraic multigrid (BoomerAMG) for the linear solver "amg" on big meshes (it runs on
# MPI; -DSOFTGRAD_WITH_HYPRE=OFF builds without it).
packages=(cmake g++ make libeigen3-dev libgmp-dev libsuitesparse-dev libceres-dev doctest-dev
          nlohmann-json3-dev libcli11-dev zlib1g-dev clang-format-14 libopenblas0-openmp
          libopenmpi-dev openmpi-bin libtet1.5-dev libhypre-dev)
# The Python package (pybind11) for Debian's /usr/bin/python3, with what its tests and examples
# import (python3-vtk9: a test opens the frames with VTK's own reader); without their
# recommendations (a GUI stack nobody here needs).
python_packages=(pybind11-dev python3-dev python3-numpy python3-torch python3-scipy
                 python3-pytest python3-matplotlib python3-vtk9)
missing() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t missing_packages < <(missing "${packages[@]}")
mapfile -t missing_python < <(missing "${python_packages[@]}")
if ((${#missing_packages[@]} + ${#missing_python[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  if ((${#missing_packages[@]})); then apt-get install -y -qq "${missing_packages[@]}" >/dev/null; fi
  if ((${#missing_python[@]})); then
    apt-get install -y -qq --no-install-recommends "${missing_python[@]}" >/dev/null
  fi
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSOFTGRAD_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build build -j"$(nproc)"
