#include "softgrad/muscles.hpp"

#include <cmath>
#include <concepts>
#include <sstream>

#include "muscle_term.hpp"
#include "softgrad/detail/memory_limit.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

/// k/2 (|x_0 - x_1| - (1 - a) L)^2 in d dimensions.
template <int d>
struct EdgeEnergy {
  static constexpr int kVerts = 2;
  double rest_length;
  double stiffness;
  template <class T, class P>
  T operator()(const T* x, const P* a) const {
    using std::sqrt;
    T l2 = T(0.0);
    for (int i = 0; i < d; ++i) l2 = l2 + (x[i] - x[d + i]) * (x[i] - x[d + i]);
    const T r = sqrt(l2) - (1.0 - a[0]) * rest_length;
    return 0.5 * stiffness * r * r;
  }
  /// The energy, its gradient and (if H is given) its Hessian (row-major 2d x 2d) in closed
  /// form: the AD result at a fraction of the cost (2D creatures spent a tenth of their step
  /// in the edges' AD Hessians). Tests compare the two. False for a zero-length edge.
  bool derivatives(const double* x, double a, double& e, double* g, double* H) const {
    constexpr int N = 2 * d;
    double u[d], l2 = 0.0;
    for (int i = 0; i < d; ++i) {
      u[i] = x[i] - x[d + i];
      l2 += u[i] * u[i];
    }
    const double l = std::sqrt(l2);
    if (!(l > 0.0) || !std::isfinite(l)) return false;
    const double r = l - (1.0 - a) * rest_length;
    e = 0.5 * stiffness * r * r;
    const double s = stiffness * r / l;  // tension per length
    for (int i = 0; i < d; ++i) {
      g[i] = s * u[i];
      g[d + i] = -g[i];
    }
    if (H == nullptr) return true;
    // d2E/du2 = s I + (k - s) u u^T / l^2 with u = x_0 - x_1; the blocks are +-that.
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) {
        const double h = (i == j ? s : 0.0) + (stiffness - s) * u[i] * u[j] / l2;
        H[i * N + j] = H[(d + i) * N + d + j] = h;
        H[i * N + d + j] = H[(d + i) * N + j] = -h;
      }
    return true;
  }
};

/// V k/2 (|F f| - (1 - a))^2 with F f = sum_v c_v x_v, c_v = G_v . f.
template <int d>
struct FibreEnergy {
  static constexpr int kVerts = d + 1;
  double c[d + 1];
  double volume;
  double stiffness;
  template <class T, class P>
  T operator()(const T* x, const P* a) const {
    using std::sqrt;
    T s = T(0.0);
    for (int i = 0; i < d; ++i) {
      T fi = T(0.0);
      for (int v = 0; v <= d; ++v) fi = fi + c[v] * x[v * d + i];
      s = s + fi * fi;
    }
    const T r = sqrt(s) - (1.0 - a[0]);
    return 0.5 * volume * stiffness * r * r;
  }
};

/// Energies that give their gradient and Hessian in closed form (else they come from AD).
template <class Energy>
concept ClosedForm = requires(const Energy& E, const double* x, double a, double& e, double* g) {
  { E.derivatives(x, a, e, g, g) } -> std::same_as<bool>;
};

}  // namespace

template <class Energy, int N>
MuscleTerm<Energy, N>::MuscleTerm(std::string name, int dim, int n_verts, std::vector<int> verts,
                                  std::vector<Energy> energies, std::vector<int> muscle_of,
                                  int n_muscles, int n_steps)
    : Base(dim, n_verts, std::move(verts), Energy::kVerts),
      name_(std::move(name)),
      energies_(std::move(energies)),
      muscle_of_(std::move(muscle_of)),
      n_muscles_(n_muscles),
      n_steps_(n_steps) {}

template <class Energy, int N>
int MuscleTerm<Energy, N>::activation_index(const Data& d, int s) const {
  const int step = d.step.step;
  if (step < 0 || step >= n_steps_) return -1;
  return step * n_muscles_ + muscle_of_[s];
}

template <class Energy, int N>
void MuscleTerm<Energy, N>::local_inputs(const Data& d, int s, double* q) const {
  const int k = activation_index(d, s);
  q[0] = k < 0 ? 0.0 : d.parameters[k];
}

template <class Energy, int N>
bool MuscleTerm<Energy, N>::closed_form(const Data&, int s, const double* xs, const double* q,
                                        double& e, double* g, double* H) const {
  if constexpr (ClosedForm<Energy>) {
    SOFTGRAD_CHECK(energies_[s].derivatives(xs, q[0], e, g, H),
                   name_ << ": muscle " << s << " has zero length or a non-finite position");
    return true;
  } else {
    return false;
  }
}

template <class Energy, int N>
void MuscleTerm<Energy, N>::scatter_parameter_products(const Data& d, const double* P,
                                                       double* parameters_bar) const {
  for (int s = 0; s < this->n_stencils(); ++s) {
    const int k = activation_index(d, s);
    if (k >= 0) parameters_bar[k] += P[s];
  }
}

template <class Energy, int N>
void MuscleTerm<Energy, N>::gather_parameter_directions(const Data& d, const double* direction,
                                                        double* dP) const {
  for (int s = 0; s < this->n_stencils(); ++s) {
    const int k = activation_index(d, s);
    dP[s] = k < 0 ? 0.0 : direction[k];
  }
}

template <class Energy, int N>
std::vector<ParameterGroup> MuscleTerm<Energy, N>::parameter_groups() const {
  return {
      {"activation", "1", 0, n_steps_ * n_muscles_, ParameterGroup::Layout::PerStep, -1.0, 1.0}};
}

template <class Energy, int N>
Eigen::VectorXd MuscleTerm<Energy, N>::default_parameters() const {
  return Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n_steps_) * n_muscles_);
}

template <class Energy, int N>
void MuscleTerm<Energy, N>::validate_parameters(const double* p) const {
  const int n = n_steps_ * n_muscles_;
  for (int k = 0; k < n; ++k)
    if (!(std::abs(p[k]) < 1.0)) {
      std::ostringstream os;
      os << name_ << ": activation of muscle " << k % n_muscles_ << " in step " << k / n_muscles_
         << " is " << p[k] << "; it must lie in (-1, 1)";
      throw InputError(os.str());
    }
}

template <class Energy, int N>
void MuscleTerm<Energy, N>::validate_parameter_range(int offset, const double* values,
                                                     int count) const {
  SOFTGRAD_CHECK(offset >= 0 && offset + count <= n_steps_ * n_muscles_,
                 "activation range out of bounds");
  for (int i = 0; i < count; ++i)
    if (!(std::abs(values[i]) < 1.0))
      throw InputError(name_ + ": an activation must lie in (-1, 1), got " +
                       std::to_string(values[i]));
}

namespace {

template <int d>
void add_edges(Model& model, std::string name, const std::vector<MuscleEdge>& edges,
               double stiffness, int n_muscles, int n_steps) {
  std::vector<int> verts;
  std::vector<EdgeEnergy<d>> energies;
  std::vector<int> muscle_of;
  for (const MuscleEdge& e : edges) {
    const Eigen::VectorXd r = model.X.segment(e.a * d, d) - model.X.segment(e.b * d, d);
    verts.insert(verts.end(), {e.a, e.b});
    energies.push_back({r.norm(), stiffness});
    muscle_of.push_back(e.muscle);
  }
  model.terms.push_back(std::make_unique<MuscleTerm<EdgeEnergy<d>, 2 * d>>(
      std::move(name), d, model.n_verts, std::move(verts), std::move(energies),
      std::move(muscle_of), n_muscles, n_steps));
}

template <int d>
void add_fibres(Model& model, std::string name, const std::vector<FibreMuscle>& muscles,
                double stiffness, int n_steps) {
  std::vector<int> verts;
  std::vector<FibreEnergy<d>> energies;
  std::vector<int> muscle_of;
  for (int m = 0; m < static_cast<int>(muscles.size()); ++m) {
    const FibreMuscle& fm = muscles[m];
    const Body& body = model.bodies[fm.body];
    const Eigen::VectorXd f = fm.direction.head(d).normalized();
    for (int e : fm.elements) {
      FibreEnergy<d> E{};
      // G_{v+1} = row v of Dm^-1, G_0 = -sum: c_v = G_v . f.
      const double* Dinv = body.Dm_inv.data() + static_cast<size_t>(e) * d * d;
      double c0 = 0.0;
      for (int v = 0; v < d; ++v) {
        double cv = 0.0;
        for (int j = 0; j < d; ++j) cv += Dinv[v * d + j] * f[j];
        E.c[v + 1] = cv;
        c0 -= cv;
      }
      E.c[0] = c0;
      E.volume = body.volume[e];
      E.stiffness = stiffness;
      for (int v = 0; v <= d; ++v)
        verts.push_back(body.elems[static_cast<size_t>(e) * (d + 1) + v]);
      energies.push_back(E);
      muscle_of.push_back(m);
    }
  }
  model.terms.push_back(std::make_unique<MuscleTerm<FibreEnergy<d>, (d + 1) * d>>(
      std::move(name), d, model.n_verts, std::move(verts), std::move(energies),
      std::move(muscle_of), static_cast<int>(muscles.size()), n_steps));
}

void check_common(const std::string& name, double stiffness, int n_steps) {
  if (!(stiffness > 0.0) || !std::isfinite(stiffness))
    throw InputError(name + ": the muscle stiffness must be positive and finite");
  if (n_steps < 0) throw InputError(name + ": the number of steps must be >= 0");
}

}  // namespace

namespace {

void require_activation_memory(const std::string& name, int n_muscles, int n_steps) {
  require_table_memory(static_cast<double>(n_steps) * n_muscles,
                       name + ": activations for " + std::to_string(n_steps) + " steps of " +
                           std::to_string(n_muscles) +
                           " muscles (steps: the scene's duration / dt, or train.episode_steps)");
}

}  // namespace

void add_muscle_edges(Model& model, std::string name, std::vector<MuscleEdge> edges,
                      double stiffness, int n_muscles, int n_steps) {
  check_common(name, stiffness, n_steps);
  if (n_muscles < 1) throw InputError(name + ": at least one muscle is needed");
  require_activation_memory(name, n_muscles, n_steps);
  for (const MuscleEdge& e : edges) {
    if (e.a < 0 || e.a >= model.n_verts || e.b < 0 || e.b >= model.n_verts || e.a == e.b)
      throw InputError(name + ": edge (" + std::to_string(e.a) + ", " + std::to_string(e.b) +
                       ") does not join two distinct vertices of the model");
    if (e.muscle < 0 || e.muscle >= n_muscles)
      throw InputError(name + ": edge muscle " + std::to_string(e.muscle) + " is not in [0, " +
                       std::to_string(n_muscles) + ")");
  }
  if (model.dim == 2) {
    add_edges<2>(model, std::move(name), edges, stiffness, n_muscles, n_steps);
  } else {
    add_edges<3>(model, std::move(name), edges, stiffness, n_muscles, n_steps);
  }
}

void add_fibre_muscles(Model& model, std::string name, std::vector<FibreMuscle> muscles,
                       double stiffness, int n_steps) {
  check_common(name, stiffness, n_steps);
  if (muscles.empty()) throw InputError(name + ": at least one muscle is needed");
  require_activation_memory(name, static_cast<int>(muscles.size()), n_steps);
  for (const FibreMuscle& m : muscles) {
    if (m.body < 0 || m.body >= static_cast<int>(model.bodies.size()))
      throw InputError(name + ": body " + std::to_string(m.body) + " is not in the model");
    for (int e : m.elements)
      if (e < 0 || e >= model.bodies[m.body].n_elems())
        throw InputError(name + ": element " + std::to_string(e) + " is not in body '" +
                         model.bodies[m.body].name + "'");
    if (!(m.direction.head(model.dim).norm() > 0.0))
      throw InputError(name + ": a fibre direction must be non-zero");
  }
  if (model.dim == 2) {
    add_fibres<2>(model, std::move(name), muscles, stiffness, n_steps);
  } else {
    add_fibres<3>(model, std::move(name), muscles, stiffness, n_steps);
  }
}

}  // namespace softgrad
