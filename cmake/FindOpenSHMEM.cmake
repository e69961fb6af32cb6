# Finds an OpenSHMEM library for the tests of the OpenSHMEM bootstrap
# (libgshmem itself links none: it finds the routines at run time).
#
# Asks the OpenSHMEM compiler wrapper (oshcc: Open MPI's OSHMEM, which
# Debian's libopenmpi-dev ships) for its flags (--showme:compile,
# --showme:link). Provides:
#   OpenSHMEM_FOUND
#   OpenSHMEM::OpenSHMEM   interface target: include directories and link flags
#   OpenSHMEM_LAUNCHER     the launcher next to the wrapper (oshrun), if any
# Set OpenSHMEM_WRAPPER to pick a wrapper.
find_program(OpenSHMEM_WRAPPER NAMES oshcc shmemcc DOC "OpenSHMEM C compiler wrapper")
set(_oshmem_compile "")
set(_oshmem_link "")
if(OpenSHMEM_WRAPPER)
  execute_process(COMMAND ${OpenSHMEM_WRAPPER} --showme:compile
                  OUTPUT_VARIABLE _oshmem_compile RESULT_VARIABLE _rc_compile
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${OpenSHMEM_WRAPPER} --showme:link
                  OUTPUT_VARIABLE _oshmem_link RESULT_VARIABLE _rc_link
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc_compile EQUAL 0 OR NOT _rc_link EQUAL 0)
    set(_oshmem_compile "")
    set(_oshmem_link "")
  endif()
  separate_arguments(_oshmem_compile UNIX_COMMAND "${_oshmem_compile}")
  separate_arguments(_oshmem_link UNIX_COMMAND "${_oshmem_link}")
  # The include folders the wrapper names, for the header check.
  set(_oshmem_dirs "")
  foreach(flag IN LISTS _oshmem_compile)
    if(flag MATCHES "^-I(.+)")
      list(APPEND _oshmem_dirs ${CMAKE_MATCH_1})
    endif()
  endforeach()
  if(_oshmem_link)
    find_path(OpenSHMEM_INCLUDE_DIR shmem.h HINTS ${_oshmem_dirs} NO_DEFAULT_PATH)
  endif()
  get_filename_component(_oshmem_bin ${OpenSHMEM_WRAPPER} DIRECTORY)
  find_program(OpenSHMEM_LAUNCHER NAMES oshrun HINTS ${_oshmem_bin} NO_DEFAULT_PATH)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OpenSHMEM
  REQUIRED_VARS OpenSHMEM_WRAPPER OpenSHMEM_INCLUDE_DIR _oshmem_link)
if(OpenSHMEM_FOUND AND NOT TARGET OpenSHMEM::OpenSHMEM)
  add_library(OpenSHMEM::OpenSHMEM INTERFACE IMPORTED)
  # Flags other than -I (rare) go to the compiler as they are.
  set(_oshmem_other "")
  foreach(flag IN LISTS _oshmem_compile)
    if(NOT flag MATCHES "^-I")
      list(APPEND _oshmem_other ${flag})
    endif()
  endforeach()
  set_target_properties(OpenSHMEM::OpenSHMEM PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_oshmem_dirs}"
    INTERFACE_COMPILE_OPTIONS "${_oshmem_other}"
    # -L/-l items after the objects, where the linker reads libraries.
    INTERFACE_LINK_LIBRARIES "${_oshmem_link}")
endif()
