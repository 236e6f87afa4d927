#!/usr/bin/env bash
# Installs softgrad's build dependencies (Debian packages only) and builds it in ./build.
# Run as root on a fresh Debian 12 machine. Re-running only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

# libopenblas0-openmp: an optimised BLAS/LAPACK for CHOLMOD's supernodal factorisation (Debian's
# default ATLAS build is generic; OpenBLAS factorises the 55k-tet Armadillo Hessian ~25% faster).
# libopenmpi-dev, openmpi-bin: MPI, to spread episode batches and sysid starts over processes
# (mpirun); softgrad builds without them too.
packages=(cmake g++ make libeigen3-dev libsuitesparse-dev libceres-dev doctest-dev
          nlohmann-json3-dev libcli11-dev clang-format-14 libopenblas0-openmp
          libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSOFTGRAD_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build build -j"$(nproc)"
