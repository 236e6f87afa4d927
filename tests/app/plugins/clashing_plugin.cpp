// A plugin that registers a material under a built-in name.
#include "softgrad/materials/neo_hookean.hpp"
#include "softgrad/plugin.hpp"

namespace {
struct NotNeoHookean : softgrad::NeoHookean {};
}  // namespace

SOFTGRAD_PLUGIN { softgrad::register_material<NotNeoHookean>(); }
