// The device element kernels against the CPU kernels of the same material templates: energy,
// gradient, (projected) Hessian assembled into CSR values, Hessian-vector products and
// diagonals, for every material with device kernels; and the matrix-free GPU CG.
#include <doctest/doctest.h>

#include <random>

#include "cuda/cuda_test.hpp"
#include "softgrad/detail/assembly.hpp"
#include "solvers/cpu/cholmod_solver.hpp"
#include "solvers/cuda/elastic_body.hpp"
#include "solvers/cuda/matrix_free_cg.hpp"
#include "support/term_evaluation.hpp"
#include "support/tiny_models.hpp"

namespace softgrad::test {
namespace {

/// ||a - b|| <= rtol max(||a||, ||b||), printing both norms on failure.
void check_close(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double rtol) {
  const double scale = std::max(a.norm(), b.norm());
  INFO("|a| = " << a.norm() << ", |b| = " << b.norm() << ", |a - b| = " << (a - b).norm());
  CHECK(scale > 0.0);
  CHECK((a - b).norm() <= rtol * scale);
}

/// A 3x2x2-cell box of `material`, and a deformed state (rest + 5% random, fixed seed).
struct Fixture {
  std::shared_ptr<Model> model;
  const EnergyTerm* term = nullptr;
  std::unique_ptr<TermEvaluation> evaluation;  ///< the term's data (static step, defaults)
  Eigen::VectorXd x;
  Eigen::VectorXd u;
  TermData& d() { return evaluation->data(); }

  explicit Fixture(const std::string& material) {
    model = box_model(material, 1e5, 0.3, 1000.0, {3, 2, 2}, {0.3, 0.2, 0.2});
    term = model->terms[1].get();
    evaluation = std::make_unique<TermEvaluation>(*term, model->X);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> noise(-1.0, 1.0);
    x = model->X;
    u.resize(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      x[i] += 0.005 * noise(rng);
      u[i] = noise(rng);
    }
  }
};

}  // namespace

TEST_CASE("cuda/elastic_body: energy, gradient, Hessians and products match the CPU kernels") {
  SOFTGRAD_REQUIRE_CUDA_DEVICE();
  cuda::Context context;
  for (const std::string& material : cuda::DeviceElasticBody::device_materials()) {
    INFO("material " << material);
    Fixture f(material);
    const Body& body = f.model->bodies.front();
    cuda::DeviceElasticBody device(context, *body.material, body.batch());
    cuda::DeviceVector x(context, f.x.size()), u(context, f.x.size());
    x.upload(f.x);
    u.upload(f.u);
    // Energy and gradient.
    BatchReport report;
    CHECK(device.energy(x, &report) == doctest::Approx(f.term->value(f.d(), f.x)).epsilon(1e-12));
    CHECK(report.ok());
    Eigen::VectorXd g_cpu = Eigen::VectorXd::Zero(f.x.size()), g_gpu;
    f.term->value_and_gradient(f.d(), f.x, g_cpu);
    cuda::DeviceVector g(context, f.x.size());
    CHECK(device.add_gradient(x, g).ok());
    g.download(g_gpu);
    check_close(g_gpu, g_cpu, 1e-12);
    // Hessians, exact and projected, written into the CSR values of the CPU pattern.
    SparsityBuilder builder(f.model->n_verts, 3);
    f.term->declare_sparsity(builder, f.d());
    HessianAssembler H(builder);
    cuda::DeviceCsrMatrix H_gpu(context);
    H_gpu.set_pattern(H.matrix());
    device.bind_pattern(H.matrix());
    for (bool project : {false, true}) {
      INFO("projected " << project);
      H.set_zero();
      f.term->add_hessian(f.d(), f.x, project, H);
      H_gpu.set_values_zero();
      CHECK(device.add_hessian(x, project, H_gpu).ok());
      Eigen::VectorXd values(H.matrix().nonZeros());
      H_gpu.copy_values_to(values.data());
      const Eigen::Map<const Eigen::VectorXd> cpu(H.matrix().valuePtr(), values.size());
      check_close(values, cpu, 1e-9);
      // Diagonals.
      Eigen::VectorXd d_cpu = Eigen::VectorXd::Zero(f.x.size()), d_gpu;
      cuda::DeviceVector d(context, f.x.size());
      if (project) {
        f.term->add_hessian_diagonal(f.d(), f.x, d_cpu);
        device.add_hessian_diagonal(x, true, d);
        d.download(d_gpu);
        check_close(d_gpu, d_cpu, 1e-9);
      }
    }
    // Hessian-vector products against the exact assembled Hessian.
    H.set_zero();
    f.term->add_hessian(f.d(), f.x, false, H);
    const Eigen::VectorXd Hu_cpu = H.matrix() * f.u;
    cuda::DeviceVector Hu(context, f.x.size());
    CHECK(device.add_hessian_vector_product(x, u, Hu).ok());
    Eigen::VectorXd Hu_gpu;
    Hu.download(Hu_gpu);
    check_close(Hu_gpu, Hu_cpu, 1e-10);
  }
}

TEST_CASE("cuda/elastic_body: inverted elements are reported, unknown materials refused") {
  SOFTGRAD_REQUIRE_CUDA_DEVICE();
  cuda::Context context;
  Fixture f("neo_hookean");
  const Body& body = f.model->bodies.front();
  cuda::DeviceElasticBody device(context, *body.material, body.batch());
  Eigen::VectorXd flipped = f.model->X;
  for (int v = 0; v < f.model->n_verts; ++v) flipped[3 * v] *= -1.0;  // mirror: every det F < 0
  cuda::DeviceVector x(context, flipped.size());
  x.upload(flipped);
  BatchReport report;
  CHECK(std::isinf(device.energy(x, &report)));
  CHECK(report.n_inverted == body.n_elems());
  CHECK(report.first_inverted == 0);
  auto springs = find_material("mass_spring");
  CHECK_THROWS_AS(cuda::DeviceElasticBody(context, *springs, body.batch()), InputError);
}

TEST_CASE("cuda/matrix_free_cg: solves the elastic Newton system like CHOLMOD") {
  SOFTGRAD_REQUIRE_CUDA_DEVICE();
  cuda::Context context;
  Fixture f("stable_neo_hookean");
  const Body& body = f.model->bodies.front();
  const double dt = 0.01;
  const std::vector<int> clamp = vertices_at(*f.model, 0, 0.0);
  std::vector<int> fixed;
  for (int v : clamp)
    for (int i = 0; i < 3; ++i) fixed.push_back(3 * v + i);
  // CPU: H = M/dt^2 + K(x), Dirichlet rows and columns, solved by CHOLMOD.
  SparsityBuilder builder(f.model->n_verts, 3);
  f.term->declare_sparsity(builder, f.d());
  HessianAssembler H(builder);
  H.set_zero();
  f.term->add_hessian(f.d(), f.x, false, H);
  const Eigen::VectorXd mass = f.model->mass / (dt * dt);
  H.add_diagonal(mass);
  H.apply_dirichlet(fixed);
  Eigen::VectorXd b = f.u;
  for (int i : fixed) b[i] = 0.0;
  CholmodSolver direct;
  REQUIRE(direct.factorize(H.matrix()).ok());
  Eigen::VectorXd x_cpu;
  REQUIRE(direct.solve(b, x_cpu).ok());
  // GPU: the same operator by element Hessian-vector products.
  cuda::DeviceElasticBody device(context, *body.material, body.batch());
  cuda::DeviceElasticHessian op(context, {&device}, mass, fixed);
  cuda::DeviceVector x(context, f.x.size()), rhs(context, f.x.size()), sol(context, f.x.size());
  x.upload(f.x);
  rhs.upload(b);
  op.set_point(x);
  CgOptions options;
  options.rel_tol = 1e-12;
  cuda::DeviceMatrixFreeCg cg(options);
  const LinearSolveReport r = cg.solve(op, rhs, sol);
  CHECK(r.ok());
  Eigen::VectorXd x_gpu;
  sol.download(x_gpu);
  check_close(x_gpu, x_cpu, 1e-9);
}

}  // namespace softgrad::test
