// Device element kernels for tetrahedra, compiled from the SAME material templates and element
// AD (ad/hyperelastic.hpp) as the CPU kernels; see elastic_kernels.hpp. This is the one
// translation unit that instantiates the AD on the device (compile time matters).
#include <climits>

#include "materials/builtin_materials.hpp"
#include "softgrad/detail/ad/hyperelastic.hpp"
#include "solvers/cuda/cuda_check.hpp"
#include "solvers/cuda/elastic_kernels.hpp"

namespace softgrad::cuda::kernels {
namespace {

constexpr int kThreads = 128;
constexpr int kDim = 3;
constexpr int kN = 12;  // element dofs of a tetrahedron

int blocks_for(int n) { return n > 0 ? (n + kThreads - 1) / kThreads : 1; }

__device__ void gather(const int* vert, const double* global, double* v) {
  for (int a = 0; a < 4; ++a)
    for (int i = 0; i < kDim; ++i) v[a * kDim + i] = global[vert[a] * kDim + i];
}

__device__ void scatter_add(const int* vert, const double* v, double* global) {
  for (int a = 0; a < 4; ++a)
    for (int i = 0; i < kDim; ++i) atomicAdd(&global[vert[a] * kDim + i], v[a * kDim + i]);
}

__device__ void record(ad::ElementStatus s, int e, Counters counters) {
  if (s == ad::ElementStatus::Inverted) {
    atomicAdd(&counters[0], 1);
    atomicMin(&counters[2], e);
  } else if (s == ad::ElementStatus::TapeOverflow) {
    atomicAdd(&counters[1], 1);
  }
}

// Cyclic Jacobi eigen-decomposition of the symmetric N x N matrix A (destroyed: its diagonal
// ends as the eigenvalues), eigenvectors in the columns of V.
template <int N>
__device__ void jacobi_eigen(double* A, double* V) {
  for (int i = 0; i < N * N; ++i) V[i] = i % (N + 1) == 0 ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 30; ++sweep) {
    double off = 0.0;
    double total = 0.0;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) {
        total += A[i * N + j] * A[i * N + j];
        if (i != j) off += A[i * N + j] * A[i * N + j];
      }
    if (off <= 1e-30 * total) return;
    for (int p = 0; p < N - 1; ++p)
      for (int q = p + 1; q < N; ++q) {
        const double apq = A[p * N + q];
        if (apq == 0.0) continue;
        // Rotation that zeroes A(p, q) (Golub & Van Loan, Algorithm 8.4.1).
        const double tau = (A[q * N + q] - A[p * N + p]) / (2.0 * apq);
        const double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
        const double c = 1.0 / sqrt(1.0 + t * t);
        const double s = t * c;
        for (int k = 0; k < N; ++k) {
          const double akp = A[k * N + p];
          const double akq = A[k * N + q];
          A[k * N + p] = c * akp - s * akq;
          A[k * N + q] = s * akp + c * akq;
        }
        for (int k = 0; k < N; ++k) {
          const double apk = A[p * N + k];
          const double aqk = A[q * N + k];
          A[p * N + k] = c * apk - s * aqk;
          A[q * N + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < N; ++k) {
          const double vkp = V[k * N + p];
          const double vkq = V[k * N + q];
          V[k * N + p] = c * vkp - s * vkq;
          V[k * N + q] = s * vkp + c * vkq;
        }
      }
  }
}

// The device counterpart of ad::project_psd (src/ad/psd_projection.cpp), with the same rules:
// a diagonally dominant matrix with non-negative diagonal, or one whose eigenvalues are all
// >= -1e-10 max|eigenvalue| (round-off), is left unchanged; otherwise negative eigenvalues are
// clamped to zero.
template <int N>
__device__ void project_psd(double* H) {
  bool dominant = true;
  for (int i = 0; i < N && dominant; ++i) {
    double off = 0.0;
    for (int j = 0; j < N; ++j)
      if (j != i) off += fabs(H[i * N + j]);
    dominant = H[i * N + i] >= off;
  }
  if (dominant) return;
  double A[N * N];
  double V[N * N];
  for (int k = 0; k < N * N; ++k) A[k] = H[k];
  jacobi_eigen<N>(A, V);
  double lambda_min = A[0];
  double lambda_max = 0.0;
  for (int i = 0; i < N; ++i) {
    lambda_min = fmin(lambda_min, A[i * N + i]);
    lambda_max = fmax(lambda_max, fabs(A[i * N + i]));
  }
  if (lambda_min >= -1e-10 * lambda_max) return;
  for (int i = 0; i < N; ++i)
    for (int j = i; j < N; ++j) {
      double sum = 0.0;
      for (int k = 0; k < N; ++k) sum += V[i * N + k] * fmax(A[k * N + k], 0.0) * V[j * N + k];
      H[i * N + j] = H[j * N + i] = sum;
    }
}

template <class Material>
struct Element {
  static constexpr int kParams = ad::kNumParams<Material>;
  const int* vert;
  ad::ElementShape<kDim> shape;
  const double* p;

  __device__ Element(const DeviceElements& el, int e)
      : vert(el.elems + 4 * e),
        shape(ad::element_shape<kDim>(el.Dm_inv + 9 * e, el.volume[e])),
        p(el.params + kParams * e) {}

  // The element Hessian as ad::element_hessian computes it, with the device eigen-solver in
  // place of the host-only one.
  __device__ ad::ElementStatus hessian(const double* xe, bool project, double* H) const {
    const Mat<double, kDim, kDim> F = ad::apply_shape(shape, xe);
    if (!ad::admissible<Material>(F)) return ad::ElementStatus::Inverted;
    double P[kDim * kDim];
    double A[kDim * kDim * kDim * kDim];
    double psi = 0.0;
    if (!ad::density_hessian<Material>(F, p, psi, P, A)) return ad::ElementStatus::TapeOverflow;
    const ad::Projection how =
        project ? ad::projection_needed<Material, kDim>(A, p) : ad::Projection::None;
    if (how == ad::Projection::SingularFrame &&
        !ad::project_isotropic_density_hessian<Material>(F, p, A))
      return ad::ElementStatus::TapeOverflow;
    ad::chain_hessian(shape, A, H);
    if (how == ad::Projection::EigenSolver) project_psd<kN>(H);
    return ad::ElementStatus::Ok;
  }
};

template <class Material>
__global__ void energy_kernel(DeviceElements el, const double* x, double* per_elem,
                              Counters counters) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= el.n_elems) return;
  const Element<Material> elem(el, e);
  double xe[kN];
  gather(elem.vert, x, xe);
  const double E = ad::element_energy<Material, kDim>(elem.shape, xe, elem.p);
  if (isinf(E)) record(ad::ElementStatus::Inverted, e, counters);
  per_elem[e] = E;
}

template <class Material>
__global__ void gradient_kernel(DeviceElements el, const double* x, double* g, Counters counters) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= el.n_elems) return;
  const Element<Material> elem(el, e);
  double xe[kN];
  double ge[kN];
  double E = 0.0;
  gather(elem.vert, x, xe);
  const auto s = ad::element_gradient<Material, kDim>(elem.shape, xe, elem.p, E, ge);
  record(s, e, counters);
  if (s == ad::ElementStatus::Ok) scatter_add(elem.vert, ge, g);
}

template <class Material>
__global__ void hessian_kernel(DeviceElements el, const double* x, bool project, double scale,
                               const int* slots, double* csr_values, Counters counters) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= el.n_elems) return;
  const Element<Material> elem(el, e);
  double xe[kN];
  double H[kN * kN];
  gather(elem.vert, x, xe);
  const auto s = elem.hessian(xe, project, H);
  record(s, e, counters);
  if (s != ad::ElementStatus::Ok) return;
  const int* slot = slots + static_cast<std::ptrdiff_t>(kN * kN) * e;
  for (int k = 0; k < kN * kN; ++k) atomicAdd(&csr_values[slot[k]], scale * H[k]);
}

template <class Material>
__global__ void hvp_kernel(DeviceElements el, const double* x, const double* u, double* out,
                           Counters counters) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= el.n_elems) return;
  const Element<Material> elem(el, e);
  double xe[kN];
  double ue[kN];
  double Hu[kN];
  gather(elem.vert, x, xe);
  gather(elem.vert, u, ue);
  const auto s = ad::element_hessian_vector_product<Material, kDim>(elem.shape, xe, elem.p, ue, Hu);
  record(s, e, counters);
  if (s == ad::ElementStatus::Ok) scatter_add(elem.vert, Hu, out);
}

template <class Material>
__global__ void hessian_diagonal_kernel(DeviceElements el, const double* x, bool project, double* d,
                                        Counters counters) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= el.n_elems) return;
  const Element<Material> elem(el, e);
  double xe[kN];
  double H[kN * kN];
  gather(elem.vert, x, xe);
  const auto s = elem.hessian(xe, project, H);
  record(s, e, counters);
  if (s != ad::ElementStatus::Ok) return;
  double diag[kN];
  for (int k = 0; k < kN; ++k) diag[k] = H[k * kN + k];
  scatter_add(elem.vert, diag, d);
}

// The built-in hyperelastic materials (builtin_materials.hpp), by their index in that list.
constexpr int kMaterials = static_cast<int>(std::tuple_size_v<BuiltinHyperelasticMaterials>);

template <int I = 0, class F>
void dispatch(int m, F&& f) {
  if constexpr (I < kMaterials) {
    if (m == I) return f(std::tuple_element_t<I, BuiltinHyperelasticMaterials>{});
    return dispatch<I + 1>(m, f);
  } else {
    detail::throw_cuda_error("dispatch", "unknown device material index " + std::to_string(m),
                             __FILE__, __LINE__);
  }
}

}  // namespace

std::vector<std::string> material_names() {
  std::vector<std::string> names;
  for (int m = 0; m < kMaterials; ++m)
    dispatch(m, [&](auto material) { names.push_back(decltype(material)::kName); });
  return names;
}

int material_index(const std::string& name) {
  const auto names = material_names();
  for (int m = 0; m < static_cast<int>(names.size()); ++m)
    if (names[m] == name) return m;
  return -1;
}

int material_param_count(int m) {
  int n = 0;
  dispatch(m, [&](auto material) { n = ad::kNumParams<decltype(material)>; });
  return n;
}

void element_energies(int m, const DeviceElements& el, const double* x, double* per_elem,
                      Counters counters) {
  if (el.n_elems == 0) return;
  dispatch(m, [&](auto material) {
    energy_kernel<decltype(material)>
        <<<blocks_for(el.n_elems), kThreads>>>(el, x, per_elem, counters);
  });
  SOFTGRAD_CUDA_CHECK_LAUNCH("energy_kernel");
}

void add_gradient(int m, const DeviceElements& el, const double* x, double* g, Counters counters) {
  if (el.n_elems == 0) return;
  dispatch(m, [&](auto material) {
    gradient_kernel<decltype(material)><<<blocks_for(el.n_elems), kThreads>>>(el, x, g, counters);
  });
  SOFTGRAD_CUDA_CHECK_LAUNCH("gradient_kernel");
}

void add_hessian(int m, const DeviceElements& el, const double* x, bool project, double scale,
                 const int* slots, double* csr_values, Counters counters) {
  if (el.n_elems == 0) return;
  dispatch(m, [&](auto material) {
    hessian_kernel<decltype(material)>
        <<<blocks_for(el.n_elems), kThreads>>>(el, x, project, scale, slots, csr_values, counters);
  });
  SOFTGRAD_CUDA_CHECK_LAUNCH("hessian_kernel");
}

void add_hessian_vector_product(int m, const DeviceElements& el, const double* x, const double* u,
                                double* out, Counters counters) {
  if (el.n_elems == 0) return;
  dispatch(m, [&](auto material) {
    hvp_kernel<decltype(material)><<<blocks_for(el.n_elems), kThreads>>>(el, x, u, out, counters);
  });
  SOFTGRAD_CUDA_CHECK_LAUNCH("hvp_kernel");
}

void add_hessian_diagonal(int m, const DeviceElements& el, const double* x, bool project, double* d,
                          Counters counters) {
  if (el.n_elems == 0) return;
  dispatch(m, [&](auto material) {
    hessian_diagonal_kernel<decltype(material)>
        <<<blocks_for(el.n_elems), kThreads>>>(el, x, project, d, counters);
  });
  SOFTGRAD_CUDA_CHECK_LAUNCH("hessian_diagonal_kernel");
}

}  // namespace softgrad::cuda::kernels
