// adjoint_cantilever: forward and backward (adjoint) pass of the dynamic cantilever, with and
// without checkpointing, for each linear-solver backend.
//
// The beam of cantilever_solvers (cantilever_beam.hpp: 1 x 0.1 x 0.1 m, clamped at x = 0,
// gravity -9.81 y) is released from rest and simulated for --steps steps of --dt (backward
// Euler, Newton with a PSD-projected Hessian). The loss is
//     L = sum_tip 1/(2 n_tip) |x_tip(T) - (X_tip - 0.1 m e_y)|^2 + 1/2 |c'(T)|^2
// (the tip vertices at the last state near a point 10 cm below their rest position, plus the
// squared centre-of-mass velocity at the last state), differentiated with respect to
// theta = (youngs, poisson, v0): Young's modulus and Poisson's ratio tied over all elements
// and the initial velocity of every dof.
//
//   adjoint_cantilever [--sizes 1k,10k,50k] [--backends cholmod,pcg,matfree]
//                      [--checkpoints 1,sqrt] [--steps 100] [--dt 0.01] [--threads N]
//                      [--max-seconds 300] [--out benchmarks/results/adjoint_cantilever.json]
//                      [--merge] [--material stable_neo_hookean] [--youngs 1e7]
//                      [--poisson 0.4] [--density 1000] [--newton-tol 1e-6] [--cg-tol 1e-10]
//                      [--adjoint-tol 1e-12] [--project 10k:10000]
//
// Sizes as in cantilever_solvers (1k, 10k, 50k or cells NXxNYxNZ). Backends: cholmod,
// pcg (= pcg-jacobi), pcg-jacobi, pcg-ichol, matfree; the adjoint uses the forward solver's
// kind (cholmod reuses the forward pass's symbolic analysis) with CG tolerance --adjoint-tol
// (1e-12 by default here, as in the recorded runs; AdjointOptions' default is now 1e-10; a record
// with another tolerance is labelled "pcg,tol=1e-10"). Checkpoints: 1 (every state stored), sqrt
// (every ceil(sqrt(T))-th state; the backward pass recomputes the others segment by segment) or an
// integer k.
//
// Each configuration (size, backend, checkpointing) runs in a fresh child process (this program
// re-executed with --one), because the peak resident set size VmHWM only grows during a
// process's life. A child builds the model, runs a probe (one step forward and backward: it
// warms up the solvers and estimates the cost), records its VmHWM as the baseline, then times
// simulate() and gradient() and records VmHWM again. Reported: the peak RSS of the child, its
// rise above the baseline, and the bytes of stored states (AdjointReport::trajectory_bytes) and
// of the largest recomputed segment (segment_bytes).
//
// Time budget: with --max-seconds S > 0 the first checkpoint mode of a (size, backend) runs
// min(--steps, the steps its probe says fit in S) steps, marked "truncated" if fewer; "skipped"
// if fewer than 2 fit (the record then holds only the probe). The other modes run the same
// number of steps, so that they compare (their recomputation may take them past S). The parent
// kills a child that runs longer than 4 S + 300 s ("killed").
//
// Threads: --threads N (default omp_get_max_threads()) sets OMP_NUM_THREADS and
// OMP_THREAD_LIMIT of each child: the limit also caps CHOLMOD's supernodal factorisation, which
// asks for a team of 4 threads whatever OMP_NUM_THREADS says. Times are wall-clock and process
// CPU seconds (the CPU figures suffer less from other jobs on a shared machine).
//
// --merge keeps the results of an existing --out file whose (size, backend, checkpoints) are
// not run now (the problem must be the same), so that sizes can be run with different --steps.
// --project SIZE:N prints and records the memory that N steps of SIZE would need with and
// without checkpointing, COMPUTED from the measured bytes per state (not measured).

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "adjoint_child.hpp"
#include "adjoint_parent.hpp"
#include "adjoint_summary.hpp"
#include "child_process.hpp"
#include "command_line.hpp"
#include "softgrad/openmp_waiting.hpp"

namespace softgrad::bench {
namespace {

using Options = AdjointBenchOptions;

/// The options of the command line.
/// @throws std::invalid_argument for an unknown option or a bad value (--help exits here).
Options parse_options(int argc, char** argv) {
  Options o;
  for (Arguments args(argc, argv); args.next();) {
    if (take_beam_run_option(args, o)) continue;
    const std::string& a = args.option();
    if (a == "--backends") {
      o.backends = args.list();
    } else if (a == "--checkpoints") {
      o.checkpoints = args.list();
    } else if (a == "--merge") {
      o.merge = true;
    } else if (a == "--adjoint-tol") {
      o.adjoint_tol = args.number();
    } else if (a == "--project") {
      const auto parts = split_list(args.value(), ':');
      if (parts.size() != 2)
        throw std::invalid_argument("--project needs SIZE:STEPS, e.g. 10k:10000");
      o.project_size = parts[0];
      o.project_steps = parse_int(a, parts[1]);
    } else if (a == "--one") {
      o.one = true;
      o.one_size = args.value();
      o.one_backend = args.value();
      o.one_checkpoint = args.value();
    } else if (a == "--help" || a == "-h") {
      std::printf("%s\n", kAdjointUsage);
      std::exit(0);
    } else {
      throw std::invalid_argument("unknown option " + a + "\n" + kAdjointUsage);
    }
  }
  if (o.backends.empty() || o.checkpoints.empty())
    throw std::invalid_argument("--backends and --checkpoints must not be empty");
  if (o.project_steps < 1) throw std::invalid_argument("--project needs a positive step count");
  check_beam_run_options(o);
  parse_size(o.project_size);
  for (const auto& b : o.backends) backend_options(b, o.cg_tol);
  for (const auto& c : o.checkpoints) checkpoint_every(c);
  if (o.one) {  // the child's own configuration, so that its error record can always be built
    parse_size(o.one_size);
    backend_options(o.one_backend, o.cg_tol);
    checkpoint_every(o.one_checkpoint);
  }
  return o;
}

}  // namespace
}  // namespace softgrad::bench

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  using namespace softgrad::bench;
  return parent_or_child_main<Options>(
      argc, argv, "adjoint_cantilever", parse_options, run_all, run_one,
      [](const Options& o, const std::string& error) {
        std::fprintf(stderr, "adjoint_cantilever --one %s %s %s: %s\n", o.one_size.c_str(),
                     o.one_backend.c_str(), o.one_checkpoint.c_str(), error.c_str());
        json r = config_record(o.one_size, parse_size(o.one_size), o.one_backend, o.one_checkpoint);
        r["adjoint_cg_rel_tol"] = o.adjoint_tol;
        r["status"] = "error";
        r["error"] = error;
        return r;
      });
}
