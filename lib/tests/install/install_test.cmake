# ctest script: install the build tree into a scratch prefix, then configure, build and run
# outside projects: one that uses find_package(dpkit CONFIG REQUIRED) and links dpkit::dpkit,
# one that asks for the accounting component alone with MPI and OpenMP unfindable, and the same
# program compiled through pkg-config (dpkit-accounting.pc).
foreach(v BUILD_DIR CONSUMER_SOURCE WORK_DIR GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_test.cmake: ${v} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

set(config_args "")
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}" ${config_args})
# consumer(<source> <build dir> <program> <expected regex> <configure args>...): configure,
# build and run an outside project; its output must match.
function(consumer source build program expected)
  run(${CMAKE_COMMAND} -S "${source}" -B "${build}" -G "${GENERATOR}" ${ARGN})
  run(${CMAKE_COMMAND} --build "${build}")
  run("${build}/${program}")
  message(STATUS "${program} output: ${last_output}")
  if(NOT last_output MATCHES "${expected}")
    message(FATAL_ERROR "unexpected ${program} output: ${last_output}")
  endif()
endfunction()

consumer("${CONSUMER_SOURCE}" "${WORK_DIR}/build" dpkit_consumer "epsilon = 4\\.3771780956"
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)

# One component: find_package(dpkit COMPONENTS accounting) with MPI and OpenMP made unfindable
# (CMAKE_DISABLE_FIND_PACKAGE_*): the accounting module must not need them.
set(component_args -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON -DCMAKE_DISABLE_FIND_PACKAGE_OpenMP=ON)
consumer("${CONSUMER_SOURCE}_accounting" "${WORK_DIR}/build_accounting"
         dpkit_accounting_consumer "bracket ok" ${component_args})

# A component that does not exist is an error of find_package, not a silent success.
execute_process(COMMAND ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE}_accounting"
                        -B "${WORK_DIR}/build_no_such" -G "${GENERATOR}" ${component_args}
                        -DDPKIT_COMPONENT=no_such_module
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "find_package(dpkit COMPONENTS no_such_module) succeeded")
endif()

# pkg-config: the same program compiled by hand against dpkit-accounting.pc.
find_program(PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf)
if(NOT PKG_CONFIG_EXECUTABLE)
  message(FATAL_ERROR "pkg-config not found (Debian package pkgconf)")
endif()
file(GLOB pc_dirs LIST_DIRECTORIES true "${prefix}/lib*/pkgconfig" "${prefix}/lib/*/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "${pc_dirs}")
execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --cflags --libs dpkit-accounting
                RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config dpkit-accounting failed: ${err}")
endif()
if(flags MATCHES "mpi|fopenmp")
  message(FATAL_ERROR "pkg-config dpkit-accounting names MPI or OpenMP: ${flags}")
endif()
separate_arguments(flag_list UNIX_COMMAND "${flags}")
find_program(CXX NAMES c++ g++ REQUIRED)
run(${CXX} -std=c++20 -O2 "${CONSUMER_SOURCE}_accounting/main.cpp" -o "${WORK_DIR}/pc_consumer"
    ${flag_list})
run("${WORK_DIR}/pc_consumer")
message(STATUS "pkg-config consumer output: ${last_output}")
if(NOT last_output MATCHES "bracket ok")
  message(FATAL_ERROR "unexpected pkg-config consumer output: ${last_output}")
endif()
execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --exists dpkit dpkit-sim RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config: dpkit.pc or dpkit-sim.pc missing or unreadable")
endif()
