/// @file neural.hpp
/// The neural material: a strain-energy density learned from motion, with the guarantees an
/// implicit solver needs built in rather than hoped for.
///
///     psi(F) = mu [ s/2 z_1 + (1 - s)/2 z_2 + R(z) ] + kappa z_3,
///     z_1 = J^{-2/3} I_1 - 3,   z_2 = J^{-4/3} I_2 - 3,   z_3 = J - 1 - ln J,
///     R(z) = N(z) - N(0) - dN/dz(0) . z,
///
/// with I_1, I_2 the invariants of C = F^T F (plane strain in 2D), mu and kappa the shear and
/// bulk moduli of the parameters youngs and poisson, s = sigmoid(split), and N a small
/// input-convex network (materials/icnn.hpp: non-negative weights by softplus, convex and
/// non-decreasing in z). By construction:
///   - psi(I) = 0 and the stress at rest is zero (every z_k and its gradient vanish at F = I);
///   - the stiffness at rest is that of youngs and poisson exactly (R is second order in z, and
///     z is second order in the strain), so the network shapes only the large-strain response;
///   - psi depends on F through invariants only: frame-indifferent and isotropic;
///   - psi >= mu (s/2 z_1 + (1 - s)/2 z_2) + kappa z_3 >= 0 (R is convex with R(0) = 0 and zero
///     slope there), convex and non-decreasing in z, and infinite as J -> 0 (z_3's barrier).
/// Parameters: youngs [Pa], poisson, split, then the network's raw weights ("weights", one
/// group in gradients: `elastic:BODY.weights`). Scenes name it as
///
///     "material": {"model": "neural", "network": "my_material.json", "youngs": 2e5}
///
/// where the file (write_neural_material) holds the architecture and every parameter; scene keys
/// override the file's youngs/poisson/split. Without "network", the model has two hidden layers
/// of 8 units and a fixed mild start (what training begins from).
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "softgrad/material_model.hpp"

namespace softgrad {

/// A neural material with the given hidden layer widths (at most 4 layers of at most 64 units;
/// none: no network, R = 0) whose table defaults are `defaults` (youngs, poisson, split, then
/// the weights; empty: E = 1e5 Pa, nu = 0.3, split 0 and the fixed start).
/// @throws InputError for an architecture beyond the limits or defaults of the wrong size.
std::shared_ptr<const MaterialModel> make_neural_material(const std::vector<int>& hidden,
                                                          std::span<const double> defaults = {});

/// Whether `model` is a neural material (made by make_neural_material or read from a file).
bool is_neural_material(const MaterialModel& model);

/// The hidden layer widths of a neural material. @throws InputError for any other model.
std::vector<int> neural_hidden_layers(const MaterialModel& model);

/// Reads a neural material file: a JSON object {"format": "softgrad neural material",
/// "version": 1, "hidden": [...], "youngs": E, "poisson": nu, "split": s, "weights": [...]}.
/// The model's defaults are the file's parameters, checked by check_neural_material.
/// @throws InputError naming the file and the key for anything missing, mistyped, out of range
/// or unstable.
std::shared_ptr<const MaterialModel> read_neural_material(const std::filesystem::path& file);

/// Writes `params` (youngs, poisson, split, weights) of a neural material to `file`, in the
/// format read_neural_material reads (numbers written to round-trip exactly).
/// @throws InputError for another model, the wrong number of parameters or an unwritable file.
void write_neural_material(const std::filesystem::path& file, const MaterialModel& model,
                           std::span<const double> params);

/// Refuses parameters that no solver should be handed: non-finite values, parameters outside
/// their ranges, or a density that is not finite, loses stiffness (d^2 psi/dt^2 <= 0) or
/// stiffens more than a millionfold over its rest value along uniaxial, biaxial, volumetric,
/// isochoric-uniaxial or shear loading, stretches 0.5 to 2 (shear 0 to 1).
/// @throws InputError beginning with `where`, naming the loading and the stretch.
void check_neural_material(const MaterialModel& model, std::span<const double> params,
                           const std::string& where);

}  // namespace softgrad
