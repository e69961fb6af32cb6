# The Triton device library (GSHMEM_BUILD_TRITON_BITCODE): device/triton/
# gshmem_triton.cu compiled by clang into LLVM IR (text), gshmem_triton.ll,
# which Triton links into the kernels that call gshmem (python/gshmem/
# triton.py). nvcc emits no LLVM bitcode, so this needs a clang whose CUDA
# support parses this toolkit's headers: clang 14 and 19 fail on CUDA 13's
# (their CUDA wrapper headers still use the texture references CUDA 13
# removed, and clang 14 knows no sm_90; with -nocudainc the intrinsics CCCL
# uses, such as __nanosleep, are undeclared); clang 22 works. Each candidate is
# tried on a small file that includes what the shim includes, and the first
# that compiles it is used.
#
#   GSHMEM_BUILD_TRITON_BITCODE  AUTO (build it where such a clang is found),
#                                ON (required), OFF
#   GSHMEM_TRITON_CLANG          the clang++ to use (default: the first of
#                                clang++-22, clang++-21, clang++-20, clang++
#                                that works)
#   GSHMEM_TRITON_ARCH           the GPU the bitcode is compiled for (sm_90;
#                                the functions carry no target attribute, so
#                                they inline into kernels for later GPUs)
#   GSHMEM_TRITON_BITCODE_FILE   a gshmem_triton.ll built elsewhere from the
#                                same sources (for a machine without such a
#                                clang): used as it is, no clang needed
#
# Output: <build>/python/gshmem/gshmem_triton.ll (beside the build tree's
# Python package, where gshmem.triton looks first), target gshmem_triton_bitcode,
# and GSHMEM_TRITON_BITCODE (its path; empty when not built) for the Python
# package's install and the tests.
set(GSHMEM_BUILD_TRITON_BITCODE AUTO CACHE STRING
    "Build the Triton device library (LLVM bitcode, needs a recent clang): AUTO, ON, OFF")
set_property(CACHE GSHMEM_BUILD_TRITON_BITCODE PROPERTY STRINGS AUTO ON OFF)
set(GSHMEM_TRITON_ARCH sm_90 CACHE STRING "GPU architecture the Triton bitcode is compiled for")
set(GSHMEM_TRITON_BITCODE_FILE "" CACHE FILEPATH "A prebuilt gshmem_triton.ll to use instead of compiling one")
set(GSHMEM_TRITON_BITCODE "")
set(GSHMEM_TRITON_BITCODE_WHY "")

function(_gshmem_triton_clang_works clang out_ok out_why)
  set(dir ${PROJECT_BINARY_DIR}/CMakeFiles/gshmem_triton_probe)
  file(MAKE_DIRECTORY ${dir})
  file(WRITE ${dir}/probe.cu "#include <cuda_runtime.h>\n#include <cuda/atomic>\n"
       "extern \"C\" __device__ int probe(int *p) { return cuda::atomic_ref<int, cuda::thread_scope_system>(*p).load(); }\n")
  execute_process(COMMAND ${clang} ${_gshmem_triton_flags} -S ${dir}/probe.cu -o ${dir}/probe.ll
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    set(${out_ok} TRUE PARENT_SCOPE)
  else()
    string(REGEX MATCH "error:[^\n]*" first_error "${err}")
    set(${out_ok} FALSE PARENT_SCOPE)
    set(${out_why} "${clang}: ${first_error}" PARENT_SCOPE)
  endif()
endfunction()

if(GSHMEM_TRITON_BITCODE_FILE AND NOT GSHMEM_BUILD_TRITON_BITCODE STREQUAL "OFF")
  if(NOT EXISTS ${GSHMEM_TRITON_BITCODE_FILE})
    message(FATAL_ERROR "gshmem: GSHMEM_TRITON_BITCODE_FILE=${GSHMEM_TRITON_BITCODE_FILE} does not exist")
  endif()
  set(GSHMEM_TRITON_BITCODE ${PROJECT_BINARY_DIR}/python/gshmem/gshmem_triton.ll)
  add_custom_command(OUTPUT ${GSHMEM_TRITON_BITCODE}
                     COMMAND ${CMAKE_COMMAND} -E copy ${GSHMEM_TRITON_BITCODE_FILE} ${GSHMEM_TRITON_BITCODE}
                     DEPENDS ${GSHMEM_TRITON_BITCODE_FILE}
                     COMMENT "Triton device library: the prebuilt ${GSHMEM_TRITON_BITCODE_FILE}" VERBATIM)
  add_custom_target(gshmem_triton_bitcode ALL DEPENDS ${GSHMEM_TRITON_BITCODE})
  message(STATUS "gshmem: Triton bitcode: the prebuilt ${GSHMEM_TRITON_BITCODE_FILE}")
elseif(NOT GSHMEM_BUILD_TRITON_BITCODE STREQUAL "OFF")
  set(_gshmem_triton_flags -x cuda --cuda-device-only --cuda-gpu-arch=${GSHMEM_TRITON_ARCH}
      --cuda-path=${CUDAToolkit_TARGET_DIR} -nocudalib -Wno-unknown-cuda-version -std=c++17 -O2 -emit-llvm)
  if(EXISTS ${CUDAToolkit_TARGET_DIR}/include/cccl)
    list(APPEND _gshmem_triton_flags -isystem ${CUDAToolkit_TARGET_DIR}/include/cccl)
  endif()
  if(GSHMEM_TRITON_CLANG)
    set(_candidates ${GSHMEM_TRITON_CLANG})
  else()
    set(_candidates)
    foreach(_name clang++-22 clang++-21 clang++-20 clang++)
      find_program(_gshmem_clang_${_name} NAMES ${_name})
      if(_gshmem_clang_${_name})
        list(APPEND _candidates ${_gshmem_clang_${_name}})
      endif()
    endforeach()
  endif()
  set(_clang "")
  set(_whys)
  foreach(_c IN LISTS _candidates)
    _gshmem_triton_clang_works(${_c} _ok _why)
    if(_ok)
      set(_clang ${_c})
      break()
    endif()
    list(APPEND _whys "${_why}")
  endforeach()
  if(NOT _clang)
    if(_candidates)
      string(JOIN "; " GSHMEM_TRITON_BITCODE_WHY "no clang compiles CUDA device code with this toolkit's headers" ${_whys})
    else()
      set(GSHMEM_TRITON_BITCODE_WHY "no clang found (clang 22 or later: apt-get install clang-22)")
    endif()
    if(GSHMEM_BUILD_TRITON_BITCODE STREQUAL "ON")
      message(FATAL_ERROR "gshmem: GSHMEM_BUILD_TRITON_BITCODE=ON but ${GSHMEM_TRITON_BITCODE_WHY}")
    endif()
    message(STATUS "gshmem: Triton bitcode not built: ${GSHMEM_TRITON_BITCODE_WHY}")
  else()
    set(_src ${PROJECT_SOURCE_DIR}/device/triton/gshmem_triton.cu)
    set(_dir ${PROJECT_BINARY_DIR}/device/triton)
    set(GSHMEM_TRITON_BITCODE ${PROJECT_BINARY_DIR}/python/gshmem/gshmem_triton.ll)
    file(GLOB _gshmem_headers ${PROJECT_SOURCE_DIR}/include/gshmem/*.h ${PROJECT_SOURCE_DIR}/include/gshmem/detail/*.h)
    # clang's IR, rewritten (device/triton/rewrite_bitcode_ir.cmake), kept as
    # text: Triton links LLVM IR in either form, and text written by a newer
    # LLVM release stays readable by the older LLVM snapshot a Triton
    # carries (Triton 3.6's "22.0.0git" refuses clang 22.1's bitcode).
    add_custom_command(
      OUTPUT ${GSHMEM_TRITON_BITCODE}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_dir} ${PROJECT_BINARY_DIR}/python/gshmem
      COMMAND ${_clang} ${_gshmem_triton_flags} -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_BINARY_DIR}/include
              -S ${_src} -o ${_dir}/gshmem_triton.raw.ll
      COMMAND ${CMAKE_COMMAND} -DIN=${_dir}/gshmem_triton.raw.ll -DOUT=${GSHMEM_TRITON_BITCODE}
              -P ${PROJECT_SOURCE_DIR}/device/triton/rewrite_bitcode_ir.cmake
      DEPENDS ${_src} ${PROJECT_SOURCE_DIR}/device/triton/rewrite_bitcode_ir.cmake ${_gshmem_headers}
              ${PROJECT_BINARY_DIR}/include/gshmem/version.h
      COMMENT "Triton device library: ${_clang} -> gshmem_triton.ll (${GSHMEM_TRITON_ARCH})"
      VERBATIM)
    add_custom_target(gshmem_triton_bitcode ALL DEPENDS ${GSHMEM_TRITON_BITCODE})
    message(STATUS "gshmem: Triton bitcode built with ${_clang} (${GSHMEM_TRITON_ARCH})")
  endif()
else()
  set(GSHMEM_TRITON_BITCODE_WHY "GSHMEM_BUILD_TRITON_BITCODE=OFF")
endif()

# For the Python package's install (python/CMakeLists.txt, which may reach
# this file through add_subdirectory) and the tests.
set_property(GLOBAL PROPERTY GSHMEM_TRITON_BITCODE "${GSHMEM_TRITON_BITCODE}")
set_property(GLOBAL PROPERTY GSHMEM_TRITON_BITCODE_WHY "${GSHMEM_TRITON_BITCODE_WHY}")
if(GSHMEM_TRITON_BITCODE)
  install(FILES ${GSHMEM_TRITON_BITCODE} DESTINATION ${CMAKE_INSTALL_LIBDIR}/gshmem COMPONENT runtime)
endif()
