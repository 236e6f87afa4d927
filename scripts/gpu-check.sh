#!/usr/bin/env bash
# The one command for a machine with an NVIDIA GPU (sm_90, e.g. an H200): builds softgrad with
# the CUDA backend, runs the GPU tests (ctest label "cuda": the device against the CPU backends)
# and the GPU benchmark (benchmarks/gpu_newton), and prints a summary. Aim: under 5 minutes.
#
#   bash scripts/gpu-check.sh
#
# Environment: BUILD_DIR (default build-cuda), JOBS (default nproc), GPU_CHECK_SIZES (default
# 10k,100k,1M), GPU_CHECK_STEPS (default 3,2,1), GPU_CHECK_BENCH_SECONDS (time limit of the
# benchmark, default 200), CUDA_ARCH (default 90).
# Exit status: 0 when every GPU test passed and the benchmark ran; 2 when there is no CUDA
# device (nothing was checked); 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD="${BUILD_DIR:-build-cuda}"
JOBS="${JOBS:-$(nproc)}"
OUT="$BUILD/gpu-check"
START=$(date +%s)
elapsed() { echo "$(( $(date +%s) - START )) s"; }

echo "== device"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
else
  echo "nvidia-smi not found"
fi

echo "== configure and build (CUDA ON, architecture ${CUDA_ARCH:-90}) [$(elapsed)]"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DSOFTGRAD_WITH_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DSOFTGRAD_BUILD_BENCHMARKS=ON \
  -DSOFTGRAD_BUILD_EXAMPLES=OFF -DSOFTGRAD_WARNINGS_AS_ERRORS=ON >/dev/null || exit 1
cmake --build "$BUILD" -j"$JOBS" --target tests_cuda gpu_newton softgrad_run || exit 1
mkdir -p "$OUT"
rm -f "$OUT/gpu_newton.json"

echo "== GPU tests: ctest -L cuda [$(elapsed)]"
ctest --test-dir "$BUILD" -L cuda --output-on-failure 2>&1 | tee "$OUT/ctest.txt"
tests_status=${PIPESTATUS[0]}
# tests_cuda exits 77 when its cases skipped for want of a device.
"$BUILD/tests/cuda/tests_cuda" --test-case="cuda/device_vector*" >/dev/null 2>&1
if [ $? -eq 77 ]; then
  echo "NO CUDA DEVICE: the GPU tests skipped and nothing was checked."
  exit 2
fi

echo "== CLI: softgrad run scenes/cantilever.json --device cuda [$(elapsed)]"
"$BUILD/softgrad" run scenes/cantilever.json --steps 5 --device cuda --out "$OUT/cantilever" \
  --quiet
cli_status=$?

echo "== benchmark: gpu_newton [$(elapsed)]"
# The JSON is rewritten after each size: a run cut by the time limit keeps the sizes it finished.
timeout "${GPU_CHECK_BENCH_SECONDS:-200}" "$BUILD/benchmarks/gpu_newton" \
  --sizes "${GPU_CHECK_SIZES:-10k,100k,1M}" --steps "${GPU_CHECK_STEPS:-3,2,1}" --out "$OUT/gpu_newton.json" | tee "$OUT/gpu_newton.txt"
bench_status=${PIPESTATUS[0]}

echo "== summary [$(elapsed)]"
grep -E "tests passed|tests failed" "$OUT/ctest.txt" || true
echo "(the case 'cuda/context: without a CUDA device ...' is expected to be Skipped on a GPU)"
echo "CLI --device cuda: $([ $cli_status -eq 0 ] && echo ok || echo "FAILED ($cli_status)")"
[ "$bench_status" -eq 124 ] && echo "benchmark stopped after ${GPU_CHECK_BENCH_SECONDS:-200} s" \
  "(GPU_CHECK_BENCH_SECONDS); the sizes it finished follow"
if [ -s "$OUT/gpu_newton.json" ] && { [ "$bench_status" -eq 0 ] || [ "$bench_status" -eq 124 ]; }; then
  python3 - "$OUT/gpu_newton.json" <<'PY' || cat "$OUT/gpu_newton.json"
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{r['device']}; CPU threads {r['cpu_threads']}")
print(f"{'size':>6} {'tets':>9} {'fwd cpu':>9} {'fwd gpu':>9} {'x':>6} {'bwd cpu':>9} "
      f"{'bwd gpu':>9} {'x':>6} {'|dx|rel':>8} {'|dg|rel':>8}")
for s in r["sizes"]:
    c, g = s["cpu"], s["gpu"]
    print(f"{s['size']:>6} {s['n_tets']:>9} {c['forward_seconds_per_step']:>9.3f} "
          f"{g['forward_seconds_per_step']:>9.3f} {s['forward_speedup']:>6.1f} "
          f"{c['backward_seconds_per_step']:>9.3f} {g['backward_seconds_per_step']:>9.3f} "
          f"{s['backward_speedup']:>6.1f} {s['final_state_relative_difference']:>8.1e} "
          f"{s['gradient_relative_difference']:>8.1e}")
    res = s["gpu_resident"]
    print(f"       device-resident Newton (forward): {res['forward_seconds_per_step']:.3f} s/step, "
          f"{s['resident_forward_speedup']:.1f}x the CPU, |dx|rel "
          f"{res['final_state_relative_difference']:.1e}, converged {res['converged']}")
    k = s["components"]
    print(f"       element kernels: gradient {k['cpu_gradient_seconds']:.4f} s cpu / "
          f"{k['gpu_gradient_seconds']:.4f} s gpu, projected Hessian "
          f"{k['cpu_projected_hessian_seconds']:.4f} / {k['gpu_projected_hessian_seconds']:.4f} s, "
          f"PCG solve {k['cpu_pcg_solve_seconds']:.4f} / {k['gpu_pcg_solve_seconds']:.4f} s")
PY
else
  echo "benchmark FAILED ($bench_status)"
fi
echo "results in $OUT/ (ctest.txt, gpu_newton.json, gpu_newton.txt)"
[ "$tests_status" -eq 0 ] && [ "$cli_status" -eq 0 ] && [ "$bench_status" -eq 0 ]
