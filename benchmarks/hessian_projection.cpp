// hessian_projection: what the PSD projection costs on the states a simulation visits, against
// the exact Hessian, per material.
//
// The benchmark cantilever (cantilever_beam.hpp, 10k tets) swings down under gravity from rest
// (backward Euler, dt = 0.01 s, CHOLMOD). At steps 10, 25 and 50 the elastic term's Hessian is
// assembled exact and PSD-projected, each timed alone (one thread, thread CPU
// time) for the element kernels only and for kernels plus assembly. The fraction of elements
// whose density Hessian d^2 psi / dF^2 is not positive definite (those the projection works on)
// is counted at each state. Times are the best of --reps; ratios the median of the ratios of
// neighbouring runs (which the machine's drifting speed affects alike).
//
//   hessian_projection [out.json] [--size 10k] [--youngs 1e6] [--reps 21]
//                      [--materials stable_neo_hookean,neo_hookean,corotated,fixed_corotated]
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <exception>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cantilever_beam.hpp"
#include "child_process.hpp"
#include "command_line.hpp"
#include "softgrad/detail/ad/isotropic_projection.hpp"
#include "softgrad/detail/assembly.hpp"
#include "softgrad/energy.hpp"
#include "softgrad/openmp_waiting.hpp"
#include "softgrad/simulator.hpp"

namespace softgrad::bench {
namespace {

struct Options {
  std::string out = "hessian_projection.json";
  std::string size = "10k";
  double youngs = 1e6;
  int reps = 21;
  std::vector<std::string> materials = {"stable_neo_hookean", "neo_hookean", "corotated",
                                        "fixed_corotated"};
};

/// @throws std::invalid_argument for an unknown option or a bad value.
Options parse_options(int argc, char** argv) {
  Options o;
  for (Arguments args(argc, argv); args.next();) {
    const std::string& a = args.option();
    if (a == "--size") {
      o.size = args.value();
      parse_size(o.size);
    } else if (a == "--youngs") {
      o.youngs = args.number();
    } else if (a == "--reps") {
      o.reps = args.integer();
    } else if (a == "--materials") {
      o.materials = args.list();
    } else if (!a.empty() && a[0] == '-') {
      throw std::invalid_argument(
          "unknown option " + a +
          "; usage: hessian_projection [out.json] [--size 10k] [--youngs 1e6] [--reps 21] "
          "[--materials a,b]");
    } else {
      o.out = a;
    }
  }
  if (o.reps < 1 || !(o.youngs > 0.0))
    throw std::invalid_argument("--reps and --youngs must be positive");
  return o;
}

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// Timings of `reps` runs of a and of b, after one untimed run of each. The runs alternate, and
/// the ratio b / a is the median over the repetitions of each pair of neighbouring runs: the
/// machine's speed drifts by tens of percent over seconds here, and the best time of each alone
/// may come from different periods.
struct Timings {
  double best_a = std::numeric_limits<double>::infinity();
  double best_b = std::numeric_limits<double>::infinity();
  double ratio = 0.0;  ///< median of b / a over neighbouring runs
};

Timings time_alternating(int reps, const std::function<void()>& a, const std::function<void()>& b) {
  a();
  b();
  Timings t;
  std::vector<double> ratios;
  for (int r = 0; r < reps; ++r) {
    double t0 = thread_seconds();
    a();
    const double ta = thread_seconds() - t0;
    t0 = thread_seconds();
    b();
    const double tb = thread_seconds() - t0;
    t.best_a = std::min(t.best_a, ta);
    t.best_b = std::min(t.best_b, tb);
    ratios.push_back(tb / ta);
  }
  std::sort(ratios.begin(), ratios.end());
  const size_t m = ratios.size() / 2;
  t.ratio = ratios.size() % 2 ? ratios[m] : 0.5 * (ratios[m - 1] + ratios[m]);
  return t;
}

/// Elements of body b at positions x whose 9 x 9 density Hessian is not positive definite.
int indefinite_elements(const Body& b, const Eigen::VectorXd& x) {
  int count = 0;
  const int M = static_cast<int>(b.material->params().size());
  for (int e = 0; e < b.n_elems(); ++e) {
    const int* v = &b.elems[4 * e];
    double Ds[9];
    for (int i = 0; i < 3; ++i)
      for (int a = 0; a < 3; ++a) Ds[i * 3 + a] = x[3 * v[a + 1] + i] - x[3 * v[0] + i];
    double F[9];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double sum = 0.0;
        for (int a = 0; a < 3; ++a) sum += Ds[i * 3 + a] * b.Dm_inv[9 * e + a * 3 + j];
        F[i * 3 + j] = sum;
      }
    double A[81];
    if (b.material->stress_differential(3, F, &b.params[M * e], A) && !ad::positive_definite<9>(A))
      ++count;
  }
  return count;
}

/// One state's measurements.
nlohmann::json measure_state(const Model& model, const Eigen::VectorXd& x, int reps) {
  const Body& body = model.bodies[0];
  const ElementBatch batch = body.batch();
  const int n = body.n_elems();
  std::vector<double> E(n), g(12 * size_t(n)), H(144 * size_t(n));
  const auto kernel = [&](bool project) {
    return [&, project] {
      body.material->hessian(batch, x.data(), project, E.data(), g.data(), H.data());
    };
  };
  const int k = model.find_term("elastic:beam");
  const EnergyTerm& term = *model.terms[k];
  const TermParameters parameters = model.default_parameters();
  auto data = term.make_data();
  data->parameters = parameters[k].data();
  term.begin_step(*data);
  SparsityBuilder builder(model.n_verts, model.dim);
  term.declare_sparsity(builder, *data);
  HessianAssembler assembler(builder);
  const auto assembled = [&](bool project) {
    return [&, project] {
      assembler.set_zero();
      term.add_hessian(*data, x, project, assembler);
    };
  };
  const Timings kernels = time_alternating(reps, kernel(false), kernel(true));
  const Timings assembly = time_alternating(reps, assembled(false), assembled(true));
  const int indefinite = indefinite_elements(body, x);
  return {{"elements", n},
          {"indefinite_elements", indefinite},
          {"indefinite_fraction", static_cast<double>(indefinite) / n},
          {"kernel_exact_ns_per_element", 1e9 * kernels.best_a / n},
          {"kernel_projected_ns_per_element", 1e9 * kernels.best_b / n},
          {"kernel_ratio", kernels.ratio},
          {"assembled_exact_ms", 1e3 * assembly.best_a},
          {"assembled_projected_ms", 1e3 * assembly.best_b},
          {"assembled_ratio", assembly.ratio}};
}

nlohmann::json run_material(const Options& o, const std::string& material) {
  BeamMaterial m;
  m.model = material;
  m.youngs = o.youngs;
  m.poisson = 0.3;
  const Cantilever c = make_cantilever(parse_size(o.size), m);
  SimulationOptions so;
  so.dt = 0.01;
  so.linear.kind = "cholmod";
  Simulator sim(c.model, so);
  State s = sim.rest_state();
  nlohmann::json states = nlohmann::json::array();
  int step = 0;
  for (int at : {10, 25, 50}) {
    for (; step < at; ++step) {
      const NewtonReport r = sim.step(s);
      if (!r.converged())
        throw std::runtime_error(material + ": Newton failed at step " + std::to_string(step));
    }
    nlohmann::json j = measure_state(*c.model, s.x, o.reps);
    j["step"] = at;
    j["tip_deflection_m"] = tip_deflection(c, s.x);
    std::printf(
        "%-20s step %2d  tip %7.3f m  indefinite %5.1f%%  kernel %6.0f / %6.0f ns (%.2fx)"
        "  assembled %6.2f / %6.2f ms (%.2fx)\n",
        material.c_str(), at, j["tip_deflection_m"].get<double>(),
        100.0 * j["indefinite_fraction"].get<double>(),
        j["kernel_exact_ns_per_element"].get<double>(),
        j["kernel_projected_ns_per_element"].get<double>(), j["kernel_ratio"].get<double>(),
        j["assembled_exact_ms"].get<double>(), j["assembled_projected_ms"].get<double>(),
        j["assembled_ratio"].get<double>());
    std::fflush(stdout);
    states.push_back(std::move(j));
  }
  return {{"material", material}, {"states", states}};
}

}  // namespace
}  // namespace softgrad::bench

int main(int argc, char** argv) {
  softgrad::restart_with_bounded_openmp_waiting(argv);
  using namespace softgrad::bench;
  try {
    const Options o = parse_options(argc, argv);
    omp_set_num_threads(1);
    nlohmann::json results = nlohmann::json::array();
    for (const auto& material : o.materials) results.push_back(run_material(o, material));
    const nlohmann::json out = {{"machine", machine_info()},
                                {"size", o.size},
                                {"youngs", o.youngs},
                                {"poisson", 0.3},
                                {"dt", 0.01},
                                {"threads", 1},
                                {"clock", "thread_cpu_time"},
                                {"repetitions", o.reps},
                                {"ratio", "median of the ratios of neighbouring runs"},
                                {"results", results}};
    std::ofstream(o.out) << out.dump(2) << "\n";
    std::printf("wrote %s\n", o.out.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hessian_projection: %s\n", e.what());
    return 1;
  }
}
