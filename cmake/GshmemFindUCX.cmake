# UCX for the transport module (src/transport/ucx), after GSHMEM_WITH_UCX:
#   AUTO  build the module when UCX is found, say why not otherwise
#   ON    UCX is required (configure fails without it)
#   OFF   no module, no UCX test
# Found with pkg-config (ucx.pc: Debian's libucx-dev, a UCX install), looking
# first under UCX_ROOT (a prefix holding include/ucp/api/ucp.h and lib/, e.g.
# the libucx folder of PyPI's libucx-cu12/-cu13 wheels; -DUCX_ROOT= or the
# environment), else by its header and library directly (a prefix without
# .pc files). Result: GSHMEM_UCX_FOUND and the target gshmem::ucx, and
# GSHMEM_UCX_CUDA: that UCX has its CUDA module (lib/ucx/libuct_cuda.so.0:
# cuda_copy, cuda_ipc), so the transport's RMA mode on GPU memory can be
# tested (scripts/ucx_cuda_prefix.sh makes such a prefix from PyPI's
# libucx-cu13 wheel; the process must then load that UCX, LD_LIBRARY_PATH).
set(GSHMEM_UCX_FOUND OFF)
set(GSHMEM_UCX_CUDA OFF)
string(TOUPPER "${GSHMEM_WITH_UCX}" _gshmem_ucx_mode)
if(_gshmem_ucx_mode STREQUAL "")
  set(_gshmem_ucx_mode AUTO)
endif()
if(_gshmem_ucx_mode STREQUAL "OFF" OR _gshmem_ucx_mode STREQUAL "FALSE" OR _gshmem_ucx_mode STREQUAL "0"
   OR _gshmem_ucx_mode STREQUAL "NO")
  message(STATUS "gshmem: UCX transport module off (GSHMEM_WITH_UCX=${GSHMEM_WITH_UCX}): no UCX test registered")
  return()
endif()

if(NOT UCX_ROOT AND DEFINED ENV{UCX_ROOT})
  set(UCX_ROOT $ENV{UCX_ROOT})
endif()
set(_gshmem_ucx_how "")
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  set(_gshmem_saved_prefix_path ${CMAKE_PREFIX_PATH})
  if(UCX_ROOT)
    list(PREPEND CMAKE_PREFIX_PATH ${UCX_ROOT})
  endif()
  pkg_check_modules(UCX QUIET IMPORTED_TARGET GLOBAL ucx)
  set(CMAKE_PREFIX_PATH ${_gshmem_saved_prefix_path})
  # A ucx.pc that names the folder it was built in, not where it lies now
  # (the libucx folder of PyPI's wheels: prefix = the wheel builder's
  # folder), gives include and library folders that do not exist here:
  # then UCX is found by its files under UCX_ROOT instead.
  if(UCX_FOUND AND UCX_INCLUDEDIR AND NOT EXISTS "${UCX_INCLUDEDIR}/ucp/api/ucp.h")
    message(STATUS "gshmem: ucx.pc (${UCX_VERSION}) names include folder ${UCX_INCLUDEDIR}, which holds no "
                   "ucp/api/ucp.h (a relocated prefix such as the libucx wheel's): finding UCX by its files")
    set(UCX_FOUND OFF)
  endif()
  if(UCX_FOUND)
    add_library(gshmem::ucx ALIAS PkgConfig::UCX)
    set(GSHMEM_UCX_FOUND ON)
    set(_gshmem_ucx_how "pkg-config, UCX ${UCX_VERSION}, ${UCX_LIBDIR}")
  endif()
endif()
if(NOT GSHMEM_UCX_FOUND)
  find_path(GSHMEM_UCX_INCLUDE_DIR ucp/api/ucp.h HINTS ${UCX_ROOT} PATH_SUFFIXES include)
  # libucp.so.0: a prefix that ships only the run-time names (no .so link)
  find_library(GSHMEM_UCX_UCP_LIBRARY NAMES ucp libucp.so.0 HINTS ${UCX_ROOT} PATH_SUFFIXES lib lib64)
  find_library(GSHMEM_UCX_UCS_LIBRARY NAMES ucs libucs.so.0 HINTS ${UCX_ROOT} PATH_SUFFIXES lib lib64)
  if(GSHMEM_UCX_INCLUDE_DIR AND GSHMEM_UCX_UCP_LIBRARY AND GSHMEM_UCX_UCS_LIBRARY)
    add_library(gshmem_ucx_found INTERFACE)
    target_include_directories(gshmem_ucx_found INTERFACE ${GSHMEM_UCX_INCLUDE_DIR})
    target_link_libraries(gshmem_ucx_found INTERFACE ${GSHMEM_UCX_UCP_LIBRARY} ${GSHMEM_UCX_UCS_LIBRARY})
    add_library(gshmem::ucx ALIAS gshmem_ucx_found)
    set(GSHMEM_UCX_FOUND ON)
    set(_gshmem_ucx_how "${GSHMEM_UCX_UCP_LIBRARY}")
  endif()
endif()

if(GSHMEM_UCX_FOUND)
  set(_gshmem_ucx_libdir "${UCX_LIBDIR}")
  if(NOT _gshmem_ucx_libdir AND GSHMEM_UCX_UCP_LIBRARY)
    get_filename_component(_gshmem_ucx_libdir "${GSHMEM_UCX_UCP_LIBRARY}" DIRECTORY)
  endif()
  if(_gshmem_ucx_libdir AND EXISTS "${_gshmem_ucx_libdir}/ucx/libuct_cuda.so.0")
    set(GSHMEM_UCX_CUDA ON)
    string(APPEND _gshmem_ucx_how "; CUDA module: RMA-mode GPU tests registered")
  endif()
  message(STATUS "gshmem: UCX transport module on (${_gshmem_ucx_how})")
elseif(_gshmem_ucx_mode STREQUAL "AUTO")
  message(STATUS "gshmem: UCX not found (no ucx.pc for pkg-config, no ucp/api/ucp.h + libucp"
                 "${UCX_ROOT_HINT}): the UCX transport module and its tests are not built. "
                 "Install libucx-dev, or point -DUCX_ROOT= at a UCX prefix.")
else()
  message(FATAL_ERROR "GSHMEM_WITH_UCX=${GSHMEM_WITH_UCX} but UCX was not found (no ucx.pc for pkg-config, "
                      "no ucp/api/ucp.h + libucp under UCX_ROOT='${UCX_ROOT}'). Install libucx-dev, or point "
                      "-DUCX_ROOT= at a UCX prefix, or configure with -DGSHMEM_WITH_UCX=OFF.")
endif()
