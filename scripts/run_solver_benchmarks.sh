#!/usr/bin/env bash
# Regenerates the JSON behind the README's linear-solver and adjoint tables (one thread each):
# benchmarks/results/cantilever_solvers.json and benchmarks/results/adjoint_cantilever.json.
# About 40 minutes on a 2-core machine. Then: /usr/bin/python3 scripts/readme_tables.py
#   bash scripts/run_solver_benchmarks.sh [build-dir]
set -euo pipefail
build=${1:-build}
out=benchmarks/results
"$build/benchmarks/cantilever_solvers" --threads 1 --max-seconds 120 \
  --out "$out/cantilever_solvers.json"
adjoint() { "$build/benchmarks/adjoint_cantilever" --threads 1 --out "$out/adjoint_cantilever.json" "$@"; }
adjoint --sizes 1k --backends cholmod,pcg,matfree --checkpoints 1,sqrt --steps 100 --max-seconds 600
adjoint --merge --sizes 10k --backends cholmod --checkpoints 1,sqrt --steps 100 --max-seconds 1500
adjoint --merge --sizes 16x1x1 --backends cholmod --checkpoints 1,sqrt --steps 10000 --max-seconds 0
adjoint --merge --sizes 50k --backends cholmod --checkpoints 1,sqrt --steps 20 --max-seconds 1200
adjoint --merge --sizes 10k --backends pcg --checkpoints 1 --steps 100 --max-seconds 1500
adjoint --merge --sizes 10k --backends pcg --checkpoints 1 --steps 100 --max-seconds 1500 --adjoint-tol 1e-10
adjoint --merge --sizes 10k --backends matfree --checkpoints 1 --steps 20 --max-seconds 0
adjoint --merge --sizes 10k --backends matfree --checkpoints 1 --steps 20 --max-seconds 0 --adjoint-tol 1e-10
