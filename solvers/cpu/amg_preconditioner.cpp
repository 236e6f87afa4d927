#include "solvers/cpu/amg_preconditioner.hpp"

#include <cmath>
#include <sstream>

#include "softgrad/errors.hpp"
#include "solvers/cpu/preconditioners.hpp"

#if SOFTGRAD_HAS_HYPRE
#include <HYPRE.h>
#include <HYPRE_parcsr_ls.h>
#include <mpi.h>

#include <cstdlib>
#include <mutex>
#include <vector>
#endif

// Under AddressSanitizer, what MPI allocates for the whole process (and never frees: OpenMPI
// leaks by design, partly from plugins unloaded before the leak check can name them) is left
// out of the leak check; everything softgrad and hypre allocate later is still checked.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SOFTGRAD_LSAN 1
#endif
#elif defined(__SANITIZE_ADDRESS__)
#define SOFTGRAD_LSAN 1
#endif
#ifdef SOFTGRAD_LSAN
#include <sanitizer/lsan_interface.h>
#define SOFTGRAD_LSAN_IGNORE_BEGIN() __lsan_disable()
#define SOFTGRAD_LSAN_IGNORE_END() __lsan_enable()
#else
#define SOFTGRAD_LSAN_IGNORE_BEGIN()
#define SOFTGRAD_LSAN_IGNORE_END()
#endif

namespace softgrad {

void AmgRefresh::observe(int iterations, double relative_residual) {
  if (iterations <= 0 || !(relative_residual > 0.0) || !std::isfinite(relative_residual)) return;
  const double rate = -std::log10(relative_residual) / iterations;
  if (fresh_rate_ == 0.0) {
    fresh_rate_ = rate;
  } else if (rate < kSlowdown * fresh_rate_) {
    stale_ = true;
  }
}

#if SOFTGRAD_HAS_HYPRE

namespace {

// hypre keeps global state (its error flag, its handle), so calls into it from rollouts side by
// side take turns.
std::mutex& hypre_mutex() {
  static std::mutex m;
  return m;
}

// hypre (Debian builds it with MPI) calls MPI even on MPI_COMM_SELF, so MPI must be running: a
// plain `softgrad` process initialises it here as a singleton, once, and finalises it at exit.
// Under mpirun, softgrad's task pool may have initialised it already.
void start_hypre() {
  static std::once_flag once;
  std::call_once(once, [] {
    int initialized = 0;
    MPI_Initialized(&initialized);
    SOFTGRAD_LSAN_IGNORE_BEGIN();
    if (!initialized) {
      // A singleton talks only to itself: Open MPI's default start probes every transport
      // (0.29 s here); the loopback one alone starts in 0.08 s. A user's own settings win.
      setenv("OMPI_MCA_pml", "ob1", 0);
      setenv("OMPI_MCA_btl", "self", 0);
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
      std::atexit([] {
        int finalized = 0;
        MPI_Finalized(&finalized);
        SOFTGRAD_LSAN_IGNORE_BEGIN();
        if (!finalized) MPI_Finalize();
        SOFTGRAD_LSAN_IGNORE_END();
      });
    }
    HYPRE_Init();
    SOFTGRAD_LSAN_IGNORE_END();
  });
}

std::string hypre_failure(const char* call, HYPRE_Int code) {
  char text[256] = {0};
  HYPRE_DescribeError(code, text);
  HYPRE_ClearAllErrors();
  std::ostringstream os;
  os << "AMG: hypre's " << call << " failed (" << text << ")";
  return os.str();
}

}  // namespace

struct AmgPreconditioner::Hypre {
  HYPRE_IJMatrix matrix = nullptr;
  HYPRE_ParCSRMatrix par_matrix = nullptr;
  HYPRE_IJVector in = nullptr, out = nullptr;
  HYPRE_ParVector par_in = nullptr, par_out = nullptr;
  HYPRE_Solver amg = nullptr;
  std::vector<HYPRE_BigInt> indices;  // 0 .. n-1, for the vector copies

  ~Hypre() { release(); }
  void release() {
    if (amg) HYPRE_BoomerAMGDestroy(amg);
    if (matrix) HYPRE_IJMatrixDestroy(matrix);
    if (in) HYPRE_IJVectorDestroy(in);
    if (out) HYPRE_IJVectorDestroy(out);
    amg = nullptr;
    matrix = nullptr;
    in = out = nullptr;
    par_matrix = nullptr;
    par_in = par_out = nullptr;
  }
};

bool amg_available() { return true; }

AmgPreconditioner::AmgPreconditioner() : hypre_(std::make_unique<Hypre>()) {}

AmgPreconditioner::~AmgPreconditioner() {
  const std::lock_guard<std::mutex> lock(hypre_mutex());
  hypre_.reset();
}

LinearSolveReport AmgPreconditioner::setup(const SparseMatrix& A, int block) {
  using Status = LinearSolveReport::Status;
  SOFTGRAD_CHECK(A.isCompressed() && A.rows() == A.cols(),
                 "AmgPreconditioner::setup: A must be square and compressed");
  {
    LinearSolveReport diagonal = detail::check_positive_diagonal(A.diagonal());
    if (!diagonal.ok()) return diagonal;
    const Eigen::Map<const Eigen::VectorXd> values(A.valuePtr(), A.nonZeros());
    if (!values.allFinite()) {
      LinearSolveReport r;
      r.status = Status::NumericalFailure;
      r.message = "AMG: the matrix has NaN or Inf entries";
      return r;
    }
  }
  start_hypre();
  const std::lock_guard<std::mutex> lock(hypre_mutex());
  Hypre& h = *hypre_;
  h.release();
  const HYPRE_BigInt n = static_cast<HYPRE_BigInt>(A.rows());
  LinearSolveReport report;
  const auto failed = [&](const char* call, HYPRE_Int code) {
    report.status = Status::NumericalFailure;
    report.message = hypre_failure(call, code);
    h.release();
    return report;
  };
  HYPRE_Int code = 0;

  // The matrix, row by row: full symmetric storage makes A's columns its rows.
  std::vector<HYPRE_Int> row_sizes(static_cast<size_t>(n));
  for (HYPRE_BigInt i = 0; i < n; ++i)
    row_sizes[i] = static_cast<HYPRE_Int>(A.outerIndexPtr()[i + 1] - A.outerIndexPtr()[i]);
  h.indices.resize(static_cast<size_t>(n));
  for (HYPRE_BigInt i = 0; i < n; ++i) h.indices[i] = i;
  if ((code = HYPRE_IJMatrixCreate(MPI_COMM_SELF, 0, n - 1, 0, n - 1, &h.matrix)))
    return failed("IJMatrixCreate", code);
  HYPRE_IJMatrixSetObjectType(h.matrix, HYPRE_PARCSR);
  HYPRE_IJMatrixSetRowSizes(h.matrix, row_sizes.data());
  if ((code = HYPRE_IJMatrixInitialize(h.matrix))) return failed("IJMatrixInitialize", code);
  static_assert(sizeof(HYPRE_BigInt) == sizeof(int), "hypre's indices must be int here");
  if ((code = HYPRE_IJMatrixSetValues(h.matrix, static_cast<HYPRE_Int>(n), row_sizes.data(),
                                      h.indices.data(), A.innerIndexPtr(), A.valuePtr())))
    return failed("IJMatrixSetValues", code);
  if ((code = HYPRE_IJMatrixAssemble(h.matrix))) return failed("IJMatrixAssemble", code);
  HYPRE_IJMatrixGetObject(h.matrix, reinterpret_cast<void**>(&h.par_matrix));

  for (HYPRE_IJVector* v : {&h.in, &h.out}) {
    HYPRE_IJVectorCreate(MPI_COMM_SELF, 0, n - 1, v);
    HYPRE_IJVectorSetObjectType(*v, HYPRE_PARCSR);
    HYPRE_IJVectorInitialize(*v);
    HYPRE_IJVectorAssemble(*v);
  }
  HYPRE_IJVectorGetObject(h.in, reinterpret_cast<void**>(&h.par_in));
  HYPRE_IJVectorGetObject(h.out, reinterpret_cast<void**>(&h.par_out));

  // One V-cycle from zero: HMIS coarsening with extended+i interpolation of at most 4 entries a
  // row (hypre's advice for 3D problems), Gaussian elimination on the coarsest level. Forward
  // Gauss-Seidel going down and backward going up make the cycle symmetric at one sweep a level
  // (symmetric sweeps both ways cost 1.3x as much for 10% fewer iterations on the peer beam).
  // Systems of `block` functions keep a vertex's x, y and z apart when coarsening (30% fewer
  // iterations than scalar AMG there).
  HYPRE_BoomerAMGCreate(&h.amg);
  HYPRE_BoomerAMGSetPrintLevel(h.amg, 0);
  HYPRE_BoomerAMGSetMaxIter(h.amg, 1);
  HYPRE_BoomerAMGSetTol(h.amg, 0.0);
  if (block > 1) HYPRE_BoomerAMGSetNumFunctions(h.amg, block);
  HYPRE_BoomerAMGSetCoarsenType(h.amg, 10);
  HYPRE_BoomerAMGSetInterpType(h.amg, 6);
  HYPRE_BoomerAMGSetPMaxElmts(h.amg, 4);
  HYPRE_BoomerAMGSetStrongThreshold(h.amg, 0.5);
  HYPRE_BoomerAMGSetNumSweeps(h.amg, 1);
  HYPRE_BoomerAMGSetCycleRelaxType(h.amg, 3, 1);  // down: forward hybrid Gauss-Seidel
  HYPRE_BoomerAMGSetCycleRelaxType(h.amg, 4, 2);  // up: backward
  HYPRE_BoomerAMGSetCycleRelaxType(h.amg, 9, 3);  // coarsest: Gaussian elimination
  if ((code = HYPRE_BoomerAMGSetup(h.amg, h.par_matrix, h.par_in, h.par_out)))
    return failed("BoomerAMGSetup", code);
  ++setups_;
  report.status = Status::Converged;
  return report;
}

void AmgPreconditioner::apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const {
  const std::lock_guard<std::mutex> lock(hypre_mutex());
  Hypre& h = *hypre_;
  SOFTGRAD_CHECK(h.amg != nullptr && in.size() == static_cast<Eigen::Index>(h.indices.size()) &&
                     out.size() == in.size(),
                 "AmgPreconditioner::apply: no hierarchy for vectors of size " << in.size());
  const auto n = static_cast<HYPRE_Int>(in.size());
  HYPRE_IJVectorSetValues(h.in, n, h.indices.data(), in.data());
  HYPRE_ParVectorSetConstantValues(h.par_out, 0.0);
  HYPRE_BoomerAMGSolve(h.amg, h.par_matrix, h.par_in, h.par_out);
  HYPRE_ClearAllErrors();  // "did not converge" in its single iteration is expected
  HYPRE_IJVectorGetValues(h.out, n, h.indices.data(), out.data());
}

#else  // no hypre in this build

struct AmgPreconditioner::Hypre {};

bool amg_available() { return false; }

AmgPreconditioner::AmgPreconditioner() = default;
AmgPreconditioner::~AmgPreconditioner() = default;

LinearSolveReport AmgPreconditioner::setup(const SparseMatrix&, int) {
  throw InputError(
      "linear solver 'amg' needs hypre: install libhypre-dev and configure the build again");
}

void AmgPreconditioner::apply(const Eigen::VectorXd&, Eigen::VectorXd&) const {
  throw InternalError("AmgPreconditioner::apply in a build without hypre");
}

#endif

}  // namespace softgrad
