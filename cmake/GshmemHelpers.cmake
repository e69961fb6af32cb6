# Shared CMake logic for the project: every test and perftest is declared
# through these functions, never by hand-copied add_executable/add_test blocks.

# Exit code a test binary returns when the machine lacks what it needs
# (no GPU, too few GPUs). CTest reports such a test as skipped.
set(GSHMEM_SKIP_RETURN_CODE 77)

# The environment every test that starts processes runs with (add yours
# after it): Open MPI as root (CI containers) and with more PEs than cores,
# NCCL kept off NVLink multicast.
set(GSHMEM_TEST_ENVIRONMENT
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    NCCL_NVLS_ENABLE=0)

# GPU tests and CTest's resource allocation. Every test that uses GPUs runs
# through GSHMEM_GPU_WRAPPER (tests/support/gpu_slots.sh), which turns the
# GPUs CTest gave it (CTEST_RESOURCE_GROUP_*) into CUDA_VISIBLE_DEVICES, and
# is recorded with gshmem_gpu_test(<test> <gpus>): tests/resources writes
# their RESOURCE_GROUPS at ctest time, capped at the GPUs the resource spec
# holds (scripts/run_ctest.sh), so that tests never share a GPU and a test
# that needs more GPUs than the machine has still runs and says "skipped".
set(GSHMEM_GPU_WRAPPER sh ${PROJECT_SOURCE_DIR}/tests/support/gpu_slots.sh)
function(gshmem_gpu_test name gpus)
  set_property(GLOBAL APPEND PROPERTY GSHMEM_GPU_TESTS "${name}:${gpus}")
endfunction()

# gshmem_launcher_command(<out-var> <np> [<launcher> [<binding>]])
# The command prefix that starts <np> processes under the MPI launcher, or
# under <launcher> (an mpirun-like program such as oshrun) when given.
# <binding>: none (the default: Open MPI binds nothing and may oversubscribe)
# or default (Open MPI's own binding, what `mpirun -np <n>` gives users: one
# core a rank for 2 ranks; the bindings are reported on stderr).
function(gshmem_launcher_command out np)
  set(launcher ${MPIEXEC_EXECUTABLE})
  if(ARGC GREATER 2 AND ARGV2)
    set(launcher ${ARGV2})
  endif()
  set(binding none)
  if(ARGC GREATER 3 AND ARGV3)
    set(binding ${ARGV3})
  endif()
  if(NOT binding MATCHES "^(none|default)$")
    message(FATAL_ERROR "gshmem_launcher_command: BINDING ${binding}: expected none or default")
  endif()
  set(np_flag ${MPIEXEC_NUMPROC_FLAG})
  if(NOT np_flag)
    set(np_flag -np)
  endif()
  set(cmd ${launcher} ${np_flag} ${np})
  # Open MPI needs these to run on a machine with fewer cores than PEs, and as root in containers.
  execute_process(COMMAND ${launcher} --version OUTPUT_VARIABLE _ver ERROR_QUIET)
  if(_ver MATCHES "Open MPI|OpenRTE")
    if(binding STREQUAL "none")
      list(APPEND cmd --oversubscribe --bind-to none)
    else()
      list(APPEND cmd --report-bindings)
    endif()
  endif()
  list(APPEND cmd ${MPIEXEC_PREFLAGS})
  set(${out} ${cmd} PARENT_SCOPE)
endfunction()

# gshmem_add_test(<name>
#   SOURCES <files...>
#   [NP <n>]          run under the MPI launcher with n processes (one PE each)
#   [LAUNCHER <prog>] with NP: start them with <prog> (e.g. oshrun) instead
#   [BINDING <b>]     with NP: none (default: --bind-to none --oversubscribe) or
#                     default (Open MPI's own binding, and no oversubscription)
#   [GPUS <n>]        needs n GPUs: labelled "gpu"; skipped (exit 77) where fewer exist;
#                     under scripts/run_ctest.sh it gets n GPUs of its own (gshmem_gpu_test)
#   [LIBS <targets>]  extra link libraries
#   [ENV <VAR=value>...] extra environment
#   [ARGS <args...>]  command-line arguments
#   [LABELS <labels>] [TIMEOUT <s>]
#   [WRAPPER <cmd...>] a command the test runs through (before the launcher)
#   [FIXTURES_SETUP <f>] [FIXTURES_REQUIRED <f>] CTest fixtures
#   [SKIP_REGULAR_EXPRESSION <regex>] output that makes CTest report it skipped)
function(gshmem_add_test name)
  # Every keyword is named here, so SOURCES/LIBS stop at the next one.
  cmake_parse_arguments(T "" "NP;GPUS;TIMEOUT;LAUNCHER;BINDING;FIXTURES_SETUP;FIXTURES_REQUIRED;SKIP_REGULAR_EXPRESSION"
                        "SOURCES;LIBS;ENV;ARGS;LABELS;WRAPPER" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE gshmem_test_support ${T_LIBS})
  if(T_GPUS AND NOT GSHMEM_BUILD_GPU_TESTS)
    # Defined (so that later target_* calls work) but neither built nor registered.
    set_target_properties(${name} PROPERTIES EXCLUDE_FROM_ALL ON)
    return()
  endif()
  set(forward)
  foreach(key NP GPUS TIMEOUT LAUNCHER BINDING ENV ARGS LABELS WRAPPER FIXTURES_SETUP FIXTURES_REQUIRED
              SKIP_REGULAR_EXPRESSION)
    if(DEFINED T_${key})
      list(APPEND forward ${key} ${T_${key}})
    endif()
  endforeach()
  gshmem_add_test_variant(${name} ${name} ${forward} ${T_UNPARSED_ARGUMENTS})
endfunction()

# gshmem_add_test_variant(<new-name> <existing-test-target> ...)
# Registers another run of an already-built test binary (other NP, other ENV),
# or a run of any executable target of the project (same keywords).
function(gshmem_add_test_variant name target)
  cmake_parse_arguments(T "" "NP;GPUS;TIMEOUT;LAUNCHER;BINDING;FIXTURES_SETUP;FIXTURES_REQUIRED;SKIP_REGULAR_EXPRESSION"
                        "ENV;ARGS;LABELS;WRAPPER" ${ARGN})
  if(T_GPUS AND NOT GSHMEM_BUILD_GPU_TESTS)
    return()
  endif()
  set(cmd $<TARGET_FILE:${target}>)
  set(labels ${T_LABELS})
  if(T_NP)
    if(NOT MPIEXEC_EXECUTABLE AND NOT T_LAUNCHER)
      return()
    endif()
    gshmem_launcher_command(launcher ${T_NP} "${T_LAUNCHER}" "${T_BINDING}")
    set(cmd ${launcher} ${cmd})
    list(APPEND labels mpi)
    if(T_BINDING STREQUAL "default")
      # Without oversubscription (the test environment allows it, which a
      # user's does not): the binding is Open MPI's own.
      list(APPEND T_ENV OMPI_MCA_rmaps_base_oversubscribe=0)
      list(APPEND labels bound)
    endif()
  endif()
  set(wrapper ${T_WRAPPER})
  if(T_GPUS)
    set(wrapper ${GSHMEM_GPU_WRAPPER} ${T_WRAPPER})
  endif()
  if(T_GPUS)
    list(APPEND labels gpu)
    # Test kernels are user kernels: under lazy loading their first launch can
    # deadlock against a spinning kernel on a peer GPU (docs/environment.md). A test
    # that sets CUDA_MODULE_LOADING itself keeps its value (later wins).
    list(PREPEND T_ENV CUDA_MODULE_LOADING=EAGER)
    list(APPEND T_ENV GSHMEM_TEST_GPUS=${T_GPUS})
  else()
    list(APPEND labels cpu)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  if(GSHMEM_SANITIZE)
    # The CUDA runtime maps memory where ASan's shadow gap would be; MPI and
    # the CUDA runtime keep allocations until exit (leak checking off).
    list(APPEND T_ENV "ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:abort_on_error=1"
                      "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  endif()
  add_test(NAME ${name} COMMAND ${wrapper} ${cmd} ${T_ARGS})
  if(T_GPUS)
    gshmem_gpu_test(${name} ${T_GPUS})
    # Long suites carry long timeouts: started first where ctest has no
    # times of its own yet (a fresh build), they do not end the run alone.
    set_tests_properties(${name} PROPERTIES COST ${T_TIMEOUT})
  endif()
  if(T_NP)
    # ctest -j N counts N processors: a job of NP PEs takes NP of them.
    set_tests_properties(${name} PROPERTIES PROCESSORS ${T_NP})
  endif()
  if(T_BINDING STREQUAL "default")
    # Open MPI binds each job's ranks to the first cores, whatever else runs:
    # two bound jobs at once would share them.
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK gshmem_bound_cores)
  endif()
  foreach(key FIXTURES_SETUP FIXTURES_REQUIRED SKIP_REGULAR_EXPRESSION)
    if(T_${key})
      set_tests_properties(${name} PROPERTIES ${key} ${T_${key}})
    endif()
  endforeach()
  set_tests_properties(${name} PROPERTIES
    LABELS "${labels}" TIMEOUT ${T_TIMEOUT}
    SKIP_RETURN_CODE ${GSHMEM_SKIP_RETURN_CODE}
    ENVIRONMENT "${GSHMEM_TEST_ENVIRONMENT};${T_ENV}")
endfunction()

# gshmem_add_perftest(<name> SOURCES <files...>)
function(gshmem_add_perftest name)
  cmake_parse_arguments(P "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${P_SOURCES})
  target_link_libraries(${name} PRIVATE gshmem_perftest_common ${P_LIBS})
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}/gshmem-perftest)
endfunction()

# gshmem_add_compile_checks(<prefix> SOURCE <file.cu> INCLUDES <dirs...>
#                           LABELS <labels...> VALID <name> [VALID_PARTS <part>...]
#                           REJECT "<case>|<regex>"...)
# Compile-time tests of a header contract: <prefix>_<VALID> compiles SOURCE
# with -DGSHMEM_CHECK_CASE=0 and must succeed. With VALID_PARTS, one such
# test per part instead, <prefix>_<VALID>_<part>, the k-th (from 1) with
# -DGSHMEM_CHECK_PART=k as well: SOURCE compiles only that part's code, so
# the parts compile side by side (one nvcc call of the whole took 102 s,
# the longest test of the suite). Each REJECT entry adds
# <prefix>_<NAME_REJECT>_<case> (stem "reject" by default), which compiles
# with that case and passes only if the compile FAILS with diagnostics
# matching <regex> (tests/support/check_compile_fails.cmake).
function(gshmem_add_compile_checks prefix)
  cmake_parse_arguments(C "" "SOURCE;VALID;NAME_REJECT" "INCLUDES;LABELS;REJECT;VALID_PARTS" ${ARGN})
  if(NOT C_NAME_REJECT)
    set(C_NAME_REJECT reject)
  endif()
  list(GET CMAKE_CUDA_ARCHITECTURES 0 arch)
  string(REGEX REPLACE "[^0-9].*" "" arch "${arch}")
  list(TRANSFORM C_INCLUDES PREPEND "-I" OUTPUT_VARIABLE include_flags)
  # Index 0: the whole program, the one valid test without parts; index k:
  # part k (GSHMEM_CHECK_PART=k), the k-th of VALID_PARTS.
  list(LENGTH C_VALID_PARTS part_count)
  foreach(index RANGE ${part_count})
    if(index EQUAL 0)
      if(part_count GREATER 0)
        continue()
      endif()
      set(suffix "")
      set(part_flag "")
    else()
      math(EXPR at "${index} - 1")
      list(GET C_VALID_PARTS ${at} part)
      set(suffix "_${part}")
      set(part_flag "-DGSHMEM_CHECK_PART=${index}")
    endif()
    add_test(NAME ${prefix}_${C_VALID}${suffix}
             COMMAND ${CMAKE_CUDA_COMPILER} -std=c++17 -arch=sm_${arch} ${include_flags} -DGSHMEM_CHECK_CASE=0
                     ${part_flag} -c ${C_SOURCE} -o ${CMAKE_CURRENT_BINARY_DIR}/${prefix}_case0${suffix}.o)
    set_tests_properties(${prefix}_${C_VALID}${suffix} PROPERTIES LABELS "${C_LABELS}")
  endforeach()
  foreach(case_and_text IN LISTS C_REJECT)
    string(REPLACE "|" ";" parts "${case_and_text}")
    list(GET parts 0 case)
    list(GET parts 1 text)
    add_test(NAME ${prefix}_${C_NAME_REJECT}_${case}
             COMMAND ${CMAKE_COMMAND} -DCOMPILER=${CMAKE_CUDA_COMPILER} -DSOURCE=${C_SOURCE} -DCASE=${case}
                     "-DEXPECT=${text}" "-DINCLUDES=${C_INCLUDES}" -DARCH=${arch}
                     -DOUTPUT=${CMAKE_CURRENT_BINARY_DIR}/${prefix}_case${case}.o
                     -P ${PROJECT_SOURCE_DIR}/tests/support/check_compile_fails.cmake)
    set_tests_properties(${prefix}_${C_NAME_REJECT}_${case} PROPERTIES LABELS "${C_LABELS}")
  endforeach()
endfunction()
