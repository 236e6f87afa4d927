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
# OpenBLAS, linked straight after CHOLMOD: libceres.so and Ceres' CMake config bring in ATLAS's
# libf77blas, and the dynamic linker binds CHOLMOD's dgemm_ to the first library that defines it,
# so without this a program's supernodal factorisations run on ATLAS (1.4-1.7x slower here).
# Debian's libopenblas0 ships only the runtime name, hence libopenblas.so.0.
find_library(CHOLMOD_OPENBLAS_LIBRARY NAMES openblas libopenblas.so.0)
if(CHOLMOD_OPENBLAS_LIBRARY)
  list(PREPEND _cholmod_deps ${CHOLMOD_OPENBLAS_LIBRARY})
else()
  message(STATUS "CHOLMOD: OpenBLAS not found (libopenblas0-openmp): factorisations use the "
                 "BLAS that other libraries bring in")
endif()

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
mark_as_advanced(CHOLMOD_INCLUDE_DIR CHOLMOD_LIBRARY CHOLMOD_SUITESPARSECONFIG_LIBRARY
                 CHOLMOD_OPENBLAS_LIBRARY)
