# FindCHOLMOD: SuiteSparse 5.x (Debian 12) ships no CMake config or .pc file for CHOLMOD,
# so locate the header and the libraries by hand and expose the imported target
# CHOLMOD::CHOLMOD.
find_path(CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
find_library(CHOLMOD_LIBRARY cholmod)
find_library(CHOLMOD_SUITESPARSECONFIG_LIBRARY suitesparseconfig)
foreach(_dep amd camd colamd ccolamd)
  find_library(CHOLMOD_${_dep}_LIBRARY ${_dep})
  list(APPEND _cholmod_deps ${CHOLMOD_${_dep}_LIBRARY})
endforeach()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CHOLMOD
  REQUIRED_VARS CHOLMOD_LIBRARY CHOLMOD_INCLUDE_DIR CHOLMOD_SUITESPARSECONFIG_LIBRARY)

if(CHOLMOD_FOUND AND NOT TARGET CHOLMOD::CHOLMOD)
  add_library(CHOLMOD::CHOLMOD UNKNOWN IMPORTED)
  set_target_properties(CHOLMOD::CHOLMOD PROPERTIES
    IMPORTED_LOCATION "${CHOLMOD_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CHOLMOD_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${_cholmod_deps};${CHOLMOD_SUITESPARSECONFIG_LIBRARY}")
endif()
mark_as_advanced(CHOLMOD_INCLUDE_DIR CHOLMOD_LIBRARY CHOLMOD_SUITESPARSECONFIG_LIBRARY)
