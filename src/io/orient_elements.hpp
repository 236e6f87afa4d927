/// @file orient_elements.hpp
/// Internal: the readers' last step, making every element positively oriented and refusing
/// repeated elements.
#pragma once

#include <string>
#include <vector>

#include "softgrad/mesh.hpp"

namespace softgrad::detail {

/// Where an element was read from: its line in the file (its byte offset in a binary file;
/// -1 for an element of arrays, named by its id alone) and the id the file gave it.
struct ElementOrigin {
  long long line = 0;
  long long id = 0;
  bool binary = false;  ///< `line` is a byte offset
};

/// "<path>:<line>" for a text file, "<path>: byte <offset>" for a binary one, "<path>" for
/// where < 0.
std::string place_text(const std::string& path, long long where, bool binary);

/// Swaps the first two vertices of every negatively oriented element of `mesh`, and rejects an
/// element whose |signed measure| does not exceed the validate_mesh tolerance with InputError
/// "<path>:<line>: element <id> is degenerate (signed volume <v>, ...)".
/// Then rejects repeated elements as reject_repeated_elements does.
/// @pre indices in range and coordinates finite; origins.size() == mesh.n_elems().
void orient_elements(Mesh& mesh, const std::vector<ElementOrigin>& origins,
                     const std::string& path);

/// Rejects two elements with the same vertices (in any order) with InputError "<path>:<line>:
/// element <id> has the same vertices as element <id> (line <l>): ...".
void reject_repeated_elements(const Mesh& mesh, const std::vector<ElementOrigin>& origins,
                              const std::string& path);

}  // namespace softgrad::detail
