# softgrad_add_plugin(NAME SOURCES...): a shared library that `softgrad --plugin NAME.so` loads
# (include/softgrad/plugin.hpp). It links none of softgrad's libraries: the functions it calls
# are the loading program's. Hidden visibility keeps its own template instances private.
function(softgrad_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE softgrad::plugin)
  set_target_properties(${name} PROPERTIES PREFIX "" CXX_VISIBILITY_PRESET hidden
                                           VISIBILITY_INLINES_HIDDEN ON)
endfunction()
