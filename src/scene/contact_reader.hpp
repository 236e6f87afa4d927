/// @file contact_reader.hpp
/// Internal: the scene's /contact section: the contact model, its coefficients and the
/// obstacles, added to the model as a contact term.
#pragma once

#include "object_reader.hpp"
#include "softgrad/model.hpp"

namespace softgrad::detail {

/// Reads /contact (if present) and adds a contact term to the model.
/// @throws InputError naming the key (e.g. /contact/obstacles/0/radius).
void read_contact(const ObjectReader& top, Model& model);

}  // namespace softgrad::detail
