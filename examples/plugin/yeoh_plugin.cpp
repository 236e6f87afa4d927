// The Yeoh material of yeoh.hpp as a plugin for the softgrad command line:
//   softgrad run examples/plugin/yeoh_block.json --plugin build/examples/plugin/yeoh_plugin.so
#include "softgrad/plugin.hpp"
#include "yeoh.hpp"

SOFTGRAD_PLUGIN { softgrad::register_material<Yeoh>(); }
