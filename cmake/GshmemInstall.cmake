# Install rules and the CMake package: a consumer writes
#   find_package(gshmem CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE gshmem::gshmem)
# or, for a program written for NVSHMEM, gshmem::nvshmem (<nvshmem.h>).
# Layout: headers in ${includedir}/gshmem, libgshmem in ${libdir}, bootstrap
# plugins in ${libdir}/gshmem (found beside libgshmem at run time),
# gshmem-info in ${bindir}, the package in ${libdir}/cmake/gshmem.
# Components: "runtime" (library, plugins, gshmem-info) and "devel" (headers,
# CMake package); perftests install with the default component.
include(CMakePackageConfigHelpers)

set(GSHMEM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gshmem)

install(TARGETS gshmem gshmem_headers gshmem_nvshmem EXPORT gshmemTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gshmem
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel
  FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp" PATTERN "*.cuh" PATTERN "*.def" PATTERN "*.inl")
install(FILES ${PROJECT_BINARY_DIR}/include/gshmem/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gshmem COMPONENT devel)

install(EXPORT gshmemTargets NAMESPACE gshmem:: DESTINATION ${GSHMEM_INSTALL_CMAKEDIR}
  COMPONENT devel)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gshmemConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gshmemConfig.cmake
  INSTALL_DESTINATION ${GSHMEM_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gshmemConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gshmemConfig.cmake
  ${PROJECT_BINARY_DIR}/gshmemConfigVersion.cmake
  DESTINATION ${GSHMEM_INSTALL_CMAKEDIR} COMPONENT devel)

# Plugins keep the path to libnccl / libmpi they were linked against.
foreach(plugin gshmem_bootstrap_mpi gshmem_bootstrap_nccl)
  if(TARGET ${plugin})
    set_target_properties(${plugin} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  endif()
endforeach()

# pkg-config files for builds without CMake (gshmem.pc; gshmem-nvshmem.pc for
# NVSHMEM programs). Relocatable: the prefix is found from the file's own
# place (${pcfiledir}), so an install with --prefix elsewhere still works.
file(RELATIVE_PATH GSHMEM_PC_TO_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" GSHMEM_PC_TO_PREFIX "${GSHMEM_PC_TO_PREFIX}")
foreach(pc gshmem gshmem-nvshmem)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)
endforeach()
