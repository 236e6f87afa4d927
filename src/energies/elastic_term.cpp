#include "elastic_term.hpp"

#include <algorithm>
#include <sstream>

#include "inertia_term.hpp"
#include "softgrad/detail/element_model.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

/// H_e u_e = V_e D_e^T (A_e (D_e u_e)) from stored stress differentials A_e (row-major d^2 x d^2).
template <int d>
void products_from_differentials(const ElementBatch& b, const double* A, const double* u,
                                 double* Hu) {
  constexpr int N = (d + 1) * d;
  constexpr int D = d * d;
  parallel_for(b.n_elems, kParallelMinElements, [&](int e) {
    double ue[N];
    detail::gather<d>(b, e, u, ue);
    const ad::ElementShape<d> s = detail::shape_of<d>(b, e);
    const Mat<double, d, d> dF = ad::apply_shape(s, ue);
    const double* Ae = A + static_cast<size_t>(e) * D * D;
    double dP[D];
    for (int i = 0; i < D; ++i) {
      double sum = 0.0;
      for (int j = 0; j < D; ++j) sum += Ae[i * D + j] * dF.a[j];
      dP[i] = sum;
    }
    ad::apply_shape_transpose(s, dP, s.volume, Hu + static_cast<size_t>(e) * N);
  });
}

/// Whether the body's material gives stress differentials (asked with a batch of no elements).
bool gives_stress_differentials(const Body& body) {
  ElementBatch none = body.batch();
  none.n_elems = 0;
  BatchReport r;
  return body.material->stress_differentials(none, nullptr, nullptr, r);
}

}  // namespace

ElasticTerm::ElasticTerm(const Body& body, int n_verts, int dim)
    : StencilTerm(dim, n_verts, body.elems, dim + 1, body.material->n_params(), false),
      body_(body),
      n_dofs_(n_verts * dim),
      gives_differentials_(gives_stress_differentials(body)) {}

void ElasticTerm::begin_step(TermData& d) const {
  auto& e = static_cast<ElasticData&>(d);
  const int n_elems = body_.n_elems();
  const int m = body_.material->n_params();
  e.element_params.resize(static_cast<size_t>(n_elems) * m);
  for (int k = 0; k < n_elems; ++k)
    for (int j = 0; j < m; ++j)
      e.element_params[static_cast<size_t>(k) * m + j] = d.parameters[j * n_elems + k];
  e.differentials_x.clear();  // the parameters may have changed
}

ElementBatch ElasticTerm::batch(const Data& d) const {
  ElementBatch b = body_.batch();
  b.params = static_cast<const ElasticData&>(d).element_params.data();
  return b;
}

void ElasticTerm::check(const BatchReport& r, const char* what, int first_elem) const {
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
    os << "body '" << body_.name << "': element " << first_elem + r.first_inverted
       << " is inverted (det F <= 0), which material '" << body_.material->name()
       << "' does not allow";
    throw InputError(os.str());
  }
}

double ElasticTerm::energies(Data& d, const double* x, double* E) const {
  return body_.material->energy(batch(d), x, E);
}

bool ElasticTerm::gradients(Data& d, const double* x, double* E, double* G) const {
  const BatchReport r = body_.material->gradient(batch(d), x, E, G);
  if (r.n_inverted > 0) return false;  // an infeasible point
  check(r, "gradient");
  return true;
}

void ElasticTerm::hessians(Data& d, const double* x, bool project, int first, int count,
                           double* H) const {
  ElementBatch b = batch(d);  // elements first .. first + count - 1
  const int dim = b.dim;
  const size_t n_params = body_.material->n_params();
  b.n_elems = count;
  b.elems += static_cast<size_t>(first) * (dim + 1);
  b.Dm_inv += static_cast<size_t>(first) * dim * dim;
  b.volume += first;
  b.params += first * n_params;
  check(body_.material->hessian(b, x, project, d.E.data() + first,
                                d.G.data() + static_cast<size_t>(first) * b.n_elem_dofs(), H),
        "Hessian", first);
}

bool ElasticTerm::store_differentials(ElasticData& d, const double* x) const {
  if (!gives_differentials_) return false;  // no buffer for a model without them
  if (d.differentials_x.size() == static_cast<size_t>(n_dofs_) &&
      std::equal(x, x + n_dofs_, d.differentials_x.begin()))
    return true;
  const int D = body_.mesh.dim * body_.mesh.dim;
  d.differentials.resize(static_cast<size_t>(body_.n_elems()) * D * D);
  BatchReport r;
  d.differentials_x.clear();
  body_.material->stress_differentials(batch(d), x, d.differentials.data(), r);
  check(r, "stress differential");
  d.differentials_x.assign(x, x + n_dofs_);
  return true;
}

void ElasticTerm::hessian_products(Data& d, const double* x, const double* u, double* HU) const {
  auto& e = static_cast<ElasticData&>(d);
  if (store_differentials(e, x)) {
    const ElementBatch b = batch(d);
    if (b.dim == 2) {
      products_from_differentials<2>(b, e.differentials.data(), u, HU);
    } else {
      products_from_differentials<3>(b, e.differentials.data(), u, HU);
    }
    return;
  }
  check(body_.material->hessian_vector_product(batch(d), x, u, HU), "Hessian-vector product");
}

void ElasticTerm::parameter_products(Data& d, const double* x, const double* lambda, double* P,
                                     double*) const {
  check(body_.material->parameter_derivatives(batch(d), x, lambda, nullptr, P),
        "parameter mixed product");
}

void ElasticTerm::parameter_jvps(Data& d, const double* x, const double* dP, const double*,
                                 double* out) const {
  check(body_.material->parameter_jvp(batch(d), x, dP, out), "parameter JVP");
}

// Local parameters are element-major (P[e * m + j]), the term's group-major.

void ElasticTerm::scatter_parameter_products(const Data&, const double* P,
                                             double* parameters_bar) const {
  const int n_elems = body_.n_elems();
  const int m = body_.material->n_params();
  for (int e = 0; e < n_elems; ++e)
    for (int j = 0; j < m; ++j)
      parameters_bar[j * n_elems + e] += P[static_cast<size_t>(e) * m + j];
}

void ElasticTerm::gather_parameter_directions(const Data&, const double* direction,
                                              double* dP) const {
  const int n_elems = body_.n_elems();
  const int m = body_.material->n_params();
  for (int e = 0; e < n_elems; ++e)
    for (int j = 0; j < m; ++j) dP[static_cast<size_t>(e) * m + j] = direction[j * n_elems + e];
}

std::vector<ParameterGroup> ElasticTerm::parameter_groups() const {
  std::vector<ParameterGroup> groups;
  const auto table = body_.material->params();
  const int n_elems = body_.n_elems();
  for (const auto& block : body_.material->param_blocks()) {
    const ParamInfo& info = table[block.first];
    groups.push_back({block.name, info.unit, block.first * n_elems, block.count * n_elems,
                      ParameterGroup::Layout::PerElement, info.min, info.max, &body_, block.count});
  }
  return groups;
}

Eigen::VectorXd ElasticTerm::default_parameters() const {
  const int n_elems = body_.n_elems();
  const int m = body_.material->n_params();
  Eigen::VectorXd p(static_cast<Eigen::Index>(n_elems) * m);
  for (int e = 0; e < n_elems; ++e)
    for (int j = 0; j < m; ++j) p[j * n_elems + e] = body_.params[static_cast<size_t>(e) * m + j];
  return p;
}

void ElasticTerm::validate_parameters(const double* p) const {
  const int n_elems = body_.n_elems();
  const int m = body_.material->n_params();
  std::vector<double> pe(m);
  for (int e = 0; e < n_elems; ++e) {
    for (int j = 0; j < m; ++j) pe[j] = p[j * n_elems + e];
    validate_params(*body_.material, pe, "body '" + body_.name + "', element " + std::to_string(e));
  }
}

void add_elastic_terms(Model& model) {
  ensure_inertia_term(model);  // also after the terms were cleared to be built again
  for (Body& b : model.bodies)
    model.terms.push_back(std::make_unique<ElasticTerm>(b, model.n_verts, model.dim));
}

}  // namespace softgrad
