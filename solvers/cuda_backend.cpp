#include "solvers/cuda_backend.hpp"

#include <string>

#include "softgrad/errors.hpp"
#include "solvers/loadable_module.hpp"

namespace softgrad::detail {

bool cuda_backend_built() { return module_present(kCudaModule); }

std::unique_ptr<LinearSolver> make_cuda_pcg_solver(const CgOptions& options) {
  if (!cuda_backend_built()) throw InputError("backend 'cuda' needs -DSOFTGRAD_WITH_CUDA=ON");
  std::string why;
  void* module = open_module(kCudaModule, why);
  void* make = module ? module_symbol(module, "softgrad_cuda_make_pcg", why) : nullptr;
  if (!make) throw InputError("backend 'cuda': " + why);
  return std::unique_ptr<LinearSolver>(reinterpret_cast<SoftgradCudaMakePcg>(make)(&options));
}

}  // namespace softgrad::detail
