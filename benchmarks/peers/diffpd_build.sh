#!/usr/bin/env bash
# Builds DiffPD (https://github.com/mit-gfx/diff_pd_public, MIT licence,
# Copyright (c) 2020 Tao Du et al.) outside the softgrad tree, so that
# benchmarks/peers/diffpd_armadillo.py can run it as a peer. Manual tool for a
# developer's machine: it must never run in CI (it refuses when CI is set) and
# it never writes inside the softgrad tree (it refuses a BUILD_DIR there).
#
# Usage: bash benchmarks/peers/diffpd_build.sh [SNAPSHOT_GIT_DIR] [BUILD_DIR]
#   SNAPSHOT_GIT_DIR  a (bare) git dir of diff_pd_public
#                     (default /work/.mirror/mit-gfx+diff_pd_public/repo)
#   BUILD_DIR         where everything goes (default /tmp/diffpd)
#   DIFFPD_JOBS       make's -j (default 2)
#
# What it does, each step skipped when its output is already there:
#   1. exports HEAD's cpp/, python/, asset/mesh/, LICENSE, README.md and
#      install.sh into BUILD_DIR/src (git archive; the snapshot has no
#      submodules: external/eigen is replaced by Debian's Eigen 3.4 in
#      /usr/include/eigen3, external/pbrt-v3 is rendering only and skipped;
#      the snapshot also lacks some large texture blobs, which git archive
#      reports as "invalid object" and which nothing here needs);
#   2. applies the patches below (each marked "softgrad-peer patch");
#   3. runs swig -c++ -python on cpp/core/src/py_diff_pd_core.i;
#   4. configures DiffPD's own cpp/CMakeLists.txt unchanged (Release, i.e.
#      -O3 -DNDEBUG, its -Wall -mpreferred-stack-boundary=4, OpenMP,
#      PARDISO_AVAILABLE=OFF) with Eigen added as -isystem /usr/include/eigen3
#      and /usr/bin first on PATH so that its python3-config call picks the
#      system Python 3.11 (not a pyenv one), and builds only the SWIG module
#      target py_diff_pd_core (it compiles the whole core library into itself;
#      the separate libdiff_pd_core.so and the C++ demo would compile the same
#      sources a second time and are not needed by Python);
#   5. installs py_diff_pd_core.py and _py_diff_pd_core.so into
#      BUILD_DIR/src/python/py_diff_pd/core and writes
#      python/py_diff_pd/common/project_path.py, as DiffPD's install.sh does,
#      so that `import py_diff_pd.core.py_diff_pd_core` works with
#      BUILD_DIR/src/python on sys.path (use /usr/bin/python3);
#   6. prints the commit it built (also written to BUILD_DIR/diffpd_commit.txt).
#
# Patches (minimal; nothing else in DiffPD is changed):
#   P1 cpp/core/include/solver/deformable_preconditioner.h: the preconditioner
#      used by the 'pd_*_pcg' backward pass (ConjugateGradient with
#      DeformablePreconditioner) only sets rows_/cols_ in its one-argument
#      constructor, but Eigen's IterativeSolverBase default-constructs it and
#      then calls analyzePattern/factorize/compute(mat); Eigen 3.4 sizes the
#      preconditioner's Solve<> expression from rows()/cols(), which were left
#      uninitialised. The patch zero-initialises them in the default
#      constructor and sets them from mat in analyzePattern/factorize/compute.
#   No other patch was needed: GCC 12.2 and Eigen 3.4.0 compile the rest of DiffPD
#   (commit 1594aa07, 2022-03-11) with warnings only (-Wmaybe-uninitialized inside Eigen).
#
# Needs: git, cmake, g++ with OpenMP, swig, Debian's libeigen3-dev and
# python3-dev (apt-get install -y --no-install-recommends libeigen3-dev swig
# python3-dev), /usr/bin/python3 with numpy.
# Time it took: about a quarter of an hour to get it building; the build itself
# took 419 s wall (DIFFPD_JOBS=1, nice 10, Debian 12, GCC 12.2, 2 cores shared
# with another compile); a re-run with everything in place takes under 1 s.
# The last line printed gives each run's wall time.
set -euo pipefail

SNAP=${1:-/work/.mirror/mit-gfx+diff_pd_public/repo}
BUILD=${2:-/tmp/diffpd}
JOBS=${DIFFPD_JOBS:-2}
T0=$SECONDS

die() { echo "diffpd_build: $*" >&2; exit 1; }

if [ -n "${CI:-}" ] || [ -n "${GITHUB_ACTIONS:-}" ]; then
    die "refusing to run in CI (manual peer-benchmark tool)"
fi

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
SOFTGRAD_ROOT=$(cd "$HERE/../.." && pwd -P)
BUILD=$(realpath -m "$BUILD")   # resolved before anything is created
case "$BUILD/" in
    "$SOFTGRAD_ROOT"/*) die "BUILD_DIR $BUILD is inside the softgrad tree; pick one outside (e.g. /tmp/diffpd)";;
esac
mkdir -p "$BUILD"

git --git-dir="$SNAP" rev-parse --verify -q HEAD >/dev/null || die "no git HEAD in $SNAP"
COMMIT=$(git --git-dir="$SNAP" rev-parse HEAD)
SRC=$BUILD/src
CPP=$SRC/cpp
export PATH=/usr/bin:$PATH   # DiffPD's CMakeLists calls python3-config: use the system one.

for tool in cmake make g++ swig; do command -v $tool >/dev/null || die "missing $tool"; done
[ -f /usr/include/eigen3/Eigen/Core ] || die "missing /usr/include/eigen3 (apt-get install libeigen3-dev)"
[ -f /usr/include/python3.11/Python.h ] || die "missing Python headers (apt-get install python3-dev)"

# 1. Export the snapshot.
if [ -f "$SRC/.diffpd_commit" ]; then
    [ "$(cat "$SRC/.diffpd_commit")" = "$COMMIT" ] \
        || die "$SRC holds commit $(cat "$SRC/.diffpd_commit"), not $COMMIT: remove $BUILD or pick another BUILD_DIR"
    echo "diffpd_build: source already exported ($SRC)"
else
    rm -rf "$SRC"
    mkdir -p "$SRC"
    echo "diffpd_build: exporting $COMMIT into $SRC"
    git --git-dir="$SNAP" archive --format=tar HEAD -- cpp python asset/mesh LICENSE README.md install.sh \
        2>"$BUILD/export.log" | tar -x -C "$SRC"
    for f in cpp/CMakeLists.txt cpp/core/src/py_diff_pd_core.i asset/mesh/armadillo_10k.node \
             asset/mesh/armadillo_10k.ele python/py_diff_pd/core/__init__.py LICENSE; do
        [ -f "$SRC/$f" ] || die "export incomplete: $f missing (see $BUILD/export.log)"
    done
    echo "$COMMIT" > "$SRC/.diffpd_commit"
fi

# 2. Patches.
PRECOND=$CPP/core/include/solver/deformable_preconditioner.h
if grep -q 'softgrad-peer patch P1' "$PRECOND"; then
    echo "diffpd_build: P1 already applied"
else
    echo "diffpd_build: applying P1 (DeformablePreconditioner rows/cols for Eigen 3.4)"
    (cd "$SRC" && patch -p1 --forward --no-backup-if-mismatch) <<'EOF'
--- a/cpp/core/include/solver/deformable_preconditioner.h
+++ b/cpp/core/include/solver/deformable_preconditioner.h
@@ -18,7 +18,8 @@
         MaxColsAtCompileTime = Dynamic
     };
 
-    DeformablePreconditioner() {}
+    // softgrad-peer patch P1: Eigen 3.4 reads rows()/cols(); set them (here and below).
+    DeformablePreconditioner() : rows_(0), cols_(0) {}
 
     template<typename MatType>
     explicit DeformablePreconditioner(const MatType& mat)
@@ -30,13 +31,13 @@
     Index cols() const { return cols_; }
 
     template<typename MatType>
-    DeformablePreconditioner& analyzePattern(const MatType& ) { return *this; }
+    DeformablePreconditioner& analyzePattern(const MatType& mat) { rows_ = mat.rows(); cols_ = mat.cols(); return *this; }
 
     template<typename MatType>
-    DeformablePreconditioner& factorize(const MatType& mat) { return *this; }
+    DeformablePreconditioner& factorize(const MatType& mat) { rows_ = mat.rows(); cols_ = mat.cols(); return *this; }
 
     template<typename MatType>
-    DeformablePreconditioner& compute(const MatType& mat) { return *this; }
+    DeformablePreconditioner& compute(const MatType& mat) { rows_ = mat.rows(); cols_ = mat.cols(); return *this; }
 
     template<typename Rhs, typename Dest>
     void _solve_impl(const Rhs& b, Dest& x) const {
EOF
fi

# 3. SWIG wrapper.
WRAP=$CPP/core/src/py_diff_pd_core_wrap.cxx
if [ -f "$WRAP" ] && [ -f "$CPP/core/src/py_diff_pd_core.py" ]; then
    echo "diffpd_build: SWIG wrapper already generated"
else
    echo "diffpd_build: swig -c++ -python py_diff_pd_core.i"
    (cd "$CPP/core/src" && swig -c++ -python py_diff_pd_core.i)
fi

# 4. CMake configure + build (make skips what is up to date).
if [ ! -f "$CPP/build/CMakeCache.txt" ]; then
    echo "diffpd_build: configuring"
    cmake -S "$CPP" -B "$CPP/build" -DPARDISO_AVAILABLE=OFF -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CXX_FLAGS="-isystem /usr/include/eigen3" > "$BUILD/cmake.log" \
        || { cat "$BUILD/cmake.log"; die "cmake configure failed"; }
fi
echo "diffpd_build: building target py_diff_pd_core (-j$JOBS; log in $BUILD/make.log)"
cmake --build "$CPP/build" --target py_diff_pd_core -- -j"$JOBS" > "$BUILD/make.log" 2>&1 \
    || { tail -n 60 "$BUILD/make.log"; die "build failed (full log: $BUILD/make.log)"; }

# 5. Install the Python module next to DiffPD's python package, as install.sh does.
CORE_PY=$SRC/python/py_diff_pd/core
cp -u "$CPP/core/src/py_diff_pd_core.py" "$CORE_PY/py_diff_pd_core.py"
if [ ! -f "$CORE_PY/_py_diff_pd_core.so" ] || [ "$CPP/build/libpy_diff_pd_core.so" -nt "$CORE_PY/_py_diff_pd_core.so" ]; then
    cp "$CPP/build/libpy_diff_pd_core.so" "$CORE_PY/_py_diff_pd_core.so"
fi
printf "root_path = '%s'\n" "$SRC" > "$SRC/python/py_diff_pd/common/project_path.py"

/usr/bin/python3 -c "
import sys; sys.path.insert(0, '$SRC/python')
import py_diff_pd.core.py_diff_pd_core as core
assert hasattr(core, 'TetDeformable') and hasattr(core.TetDeformable, 'PyBackward')
" || die "import py_diff_pd.core.py_diff_pd_core failed"

echo "$COMMIT" > "$BUILD/diffpd_commit.txt"
echo "diffpd_build: OK, DiffPD commit $COMMIT in $SRC ($((SECONDS - T0)) s this run)"
echo "diffpd_build: python path $SRC/python (run with /usr/bin/python3)"
