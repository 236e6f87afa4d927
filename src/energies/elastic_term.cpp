#include "elastic_term.hpp"

#include <limits>
#include <sstream>

#include "softgrad/assembly.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/parallel.hpp"

namespace softgrad {

ElasticTerm::ElasticTerm(Body& body, int n_verts, int dim)
    : body_(body),
      dim_(dim),
      n_local_((dim + 1) * dim),
      scatter_(body.elems.data(), body.n_elems(), dim + 1, n_verts, dim),
      energy_(body.n_elems()),
      grad_(static_cast<size_t>(body.n_elems()) * n_local_) {}

void ElasticTerm::declare_sparsity(SparsityBuilder& builder) {
  stencil_set_ = builder.add_stencils(body_.elems.data(), body_.n_elems(), dim_ + 1);
}

void ElasticTerm::check(const BatchReport& r, const char* what) const {
  if (r.n_failed > 0) {
    std::ostringstream os;
    os << "material '" << body_.material->name() << "' of body '" << body_.name
       << "': AD evaluation of the " << what << " failed on " << r.n_failed
       << " elements (tape capacity exceeded)";
    throw InternalError(os.str());
  }
  // The line search never accepts an inverted state, so only a bad start gets here.
  if (r.n_inverted > 0) {
    std::ostringstream os;
    os << "body '" << body_.name << "': element " << r.first_inverted
       << " is inverted (det F <= 0), which material '" << body_.material->name()
       << "' does not allow";
    throw InputError(os.str());
  }
}

double ElasticTerm::value(const Eigen::VectorXd& x) const {
  return body_.material->energy(body_.batch(), x.data(), energy_.data());
}

void ElasticTerm::add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
  const BatchReport r =
      body_.material->gradient(body_.batch(), x.data(), energy_.data(), grad_.data());
  check(r, "gradient");
  scatter_.add(grad_.data(), g);
}

double ElasticTerm::value_and_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
  const BatchReport r =
      body_.material->gradient(body_.batch(), x.data(), energy_.data(), grad_.data());
  if (r.n_inverted > 0) return std::numeric_limits<double>::infinity();  // infeasible point
  check(r, "gradient");
  scatter_.add(grad_.data(), g);
  double total = 0.0;
  for (double e : energy_) total += e;
  return total;
}

void ElasticTerm::compute_hessians(const Eigen::VectorXd& x, bool project) const {
  hess_.resize(static_cast<size_t>(body_.n_elems()) * n_local_ * n_local_);
  const BatchReport r = body_.material->hessian(body_.batch(), x.data(), project, energy_.data(),
                                                grad_.data(), hess_.data());
  check(r, "Hessian");
}

void ElasticTerm::add_hessian(const Eigen::VectorXd& x, bool project, HessianAssembler& H) const {
  compute_hessians(x, project);
  H.add_stencils(stencil_set_, hess_.data());
}

void ElasticTerm::add_scaled_hessian(const Eigen::VectorXd& x, double scale,
                                     HessianAssembler& H) const {
  compute_hessians(x, true);
  H.add_stencils(stencil_set_, hess_.data(), scale);
}

void ElasticTerm::add_hessian_vector_product(const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                             Eigen::VectorXd& out) const {
  check(body_.material->hessian_vector_product(body_.batch(), x.data(), u.data(), grad_.data()),
        "Hessian-vector product");
  scatter_.add(grad_.data(), out);
}

void ElasticTerm::add_hessian_diagonal(const Eigen::VectorXd& x, Eigen::VectorXd& d) const {
  compute_hessians(x, true);
  // Per-element diagonals, reusing the gradient buffer as scratch.
  const int n_elems = body_.n_elems();
  const int n = n_local_;
  for (int e = 0; e < n_elems; ++e)
    for (int k = 0; k < n; ++k)
      grad_[static_cast<size_t>(e) * n + k] = hess_[(static_cast<size_t>(e) * n + k) * n + k];
  scatter_.add(grad_.data(), d);
}

std::vector<ParameterGroup> ElasticTerm::parameter_groups() const {
  std::vector<ParameterGroup> groups;
  const auto table = body_.material->params();
  const int n_elems = body_.n_elems();
  for (int j = 0; j < static_cast<int>(table.size()); ++j)
    groups.push_back({table[j].key, table[j].unit, j * n_elems, n_elems,
                      ParameterGroup::Layout::PerElement, table[j].min, table[j].max, &body_});
  return groups;
}

void ElasticTerm::get_parameters(double* p) const {
  const int n_elems = body_.n_elems();
  const int m = body_.material->n_params();
  for (int e = 0; e < n_elems; ++e)
    for (int j = 0; j < m; ++j) p[j * n_elems + e] = body_.params[static_cast<size_t>(e) * m + j];
}

void ElasticTerm::set_parameters(const double* p) {
  const int n_elems = body_.n_elems();
  const int m = body_.material->n_params();
  std::vector<double> pe(m);
  for (int e = 0; e < n_elems; ++e) {
    for (int j = 0; j < m; ++j) pe[j] = p[j * n_elems + e];
    validate_params(*body_.material, pe, "body '" + body_.name + "', element " + std::to_string(e));
  }
  for (int e = 0; e < n_elems; ++e)
    for (int j = 0; j < m; ++j) body_.params[static_cast<size_t>(e) * m + j] = p[j * n_elems + e];
}

void ElasticTerm::add_parameter_mixed_product(const Eigen::VectorXd& x,
                                              const Eigen::VectorXd& lambda, double* out) const {
  const int n_elems = body_.n_elems();
  const int m = body_.material->n_params();
  param_scratch_.resize(static_cast<size_t>(n_elems) * m);
  check(body_.material->parameter_derivatives(body_.batch(), x.data(), lambda.data(), nullptr,
                                              param_scratch_.data()),
        "parameter mixed product");
  for (int e = 0; e < n_elems; ++e)
    for (int j = 0; j < m; ++j)
      out[j * n_elems + e] += param_scratch_[static_cast<size_t>(e) * m + j];
}

void ElasticTerm::add_parameter_jvp(const Eigen::VectorXd& x, const double* dp,
                                    Eigen::VectorXd& out) const {
  const int n_elems = body_.n_elems();
  const int m = body_.material->n_params();
  param_scratch_.resize(static_cast<size_t>(n_elems) * m);
  for (int e = 0; e < n_elems; ++e)
    for (int j = 0; j < m; ++j)
      param_scratch_[static_cast<size_t>(e) * m + j] = dp[j * n_elems + e];
  check(body_.material->parameter_jvp(body_.batch(), x.data(), param_scratch_.data(), grad_.data()),
        "parameter JVP");
  scatter_.add(grad_.data(), out);
}

}  // namespace softgrad
