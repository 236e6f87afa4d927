# Installation and the find_package(softgrad) package config.
include(CMakePackageConfigHelpers)

# The public headers only: include/softgrad (no solver or CUDA internals; its detail/ holds what
# the public templates include, installed but not API) and config.hpp.
install(DIRECTORY include/softgrad DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES "${SOFTGRAD_GENERATED_INCLUDE}/softgrad/config.hpp"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/softgrad)

# libsoftgrad.so (the component archives are inside it) and the header-only targets.
install(TARGETS softgrad softgrad_headers softgrad_plugin
        EXPORT softgradTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT softgradTargets NAMESPACE softgrad::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/softgrad)

configure_package_config_file(cmake/softgradConfig.cmake.in
  "${PROJECT_BINARY_DIR}/softgradConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/softgrad)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/softgradConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/softgradConfig.cmake"
              "${PROJECT_BINARY_DIR}/softgradConfigVersion.cmake"
              cmake/FindCHOLMOD.cmake
              cmake/softgradPlugin.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/softgrad)
