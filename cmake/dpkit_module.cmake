# dpkit_add_module(NAME <module> SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
#
# One library target per module (docs/architecture.md): dpkit_<module>, alias dpkit::<module>,
# exported as dpkit::<module>. Public headers live in lib/include/dpkit/<module>/.
# Module dependencies must point downward in the module table of docs/architecture.md;
# dpkit_add_module enforces that at configure time.
set(DPKIT_MODULES "" CACHE INTERNAL "dpkit modules in dependency order")

# The allowed "may use" relation of docs/architecture.md ("Modules").
set(_dpkit_allowed_core "")
set(_dpkit_allowed_divergence core)
set(_dpkit_allowed_subsampling core divergence)
set(_dpkit_allowed_accounting core divergence subsampling)
set(_dpkit_allowed_shifted core divergence subsampling accounting)
set(_dpkit_allowed_volterra core)
set(_dpkit_allowed_hsgd core divergence volterra)
set(_dpkit_allowed_risk core)
set(_dpkit_allowed_audit core divergence)
set(_dpkit_allowed_sim core)
set(_dpkit_allowed_learners core sim accounting)

function(dpkit_add_module)
  cmake_parse_arguments(M "" "NAME" "SOURCES;MODULE_DEPS;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  set(target dpkit_${M_NAME})
  foreach(dep IN LISTS M_MODULE_DEPS)
    if(NOT dep IN_LIST _dpkit_allowed_${M_NAME})
      message(FATAL_ERROR "dpkit module '${M_NAME}' may not use '${dep}' (the module table of docs/architecture.md)")
    endif()
  endforeach()
  add_library(${target} ${M_SOURCES})
  add_library(dpkit::${M_NAME} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${M_NAME} OUTPUT_NAME dpkit_${M_NAME}
                                             POSITION_INDEPENDENT_CODE ON)
  target_compile_features(${target} PUBLIC cxx_std_20)
  # Eigen never starts threads of its own: dpkit parallelises over replicates, release times and
  # ranks (OpenMP, MPI) and promises results identical for any thread count, while Eigen's
  # parallel GEMM (on whenever OpenMP is, outside an active team: a 1-thread team included)
  # changes reduction orders with the thread count (found: ntk_margin's Gram matrix, 1e-11).
  target_compile_definitions(${target} PUBLIC EIGEN_DONT_PARALLELIZE)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/lib/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${PROJECT_SOURCE_DIR}/lib/src)
  list(TRANSFORM M_MODULE_DEPS PREPEND dpkit:: OUTPUT_VARIABLE module_targets)
  target_link_libraries(${target} PUBLIC ${module_targets} ${M_PUBLIC_DEPS}
                                  PRIVATE ${M_PRIVATE_DEPS} $<BUILD_INTERFACE:dpkit_warnings>)
  install(TARGETS ${target} EXPORT dpkitTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set(DPKIT_MODULES ${DPKIT_MODULES} ${M_NAME} CACHE INTERNAL "")
  # For the package configuration and the pkg-config files: the modules this one uses (directly
  # and through them) and the outside packages its link interface names.
  set(uses ${M_MODULE_DEPS})
  foreach(dep IN LISTS M_MODULE_DEPS)
    list(APPEND uses ${DPKIT_MODULE_USES_${dep}})
  endforeach()
  list(REMOVE_DUPLICATES uses)
  set(DPKIT_MODULE_DIRECT_${M_NAME} ${M_MODULE_DEPS} CACHE INTERNAL "")
  set(DPKIT_MODULE_USES_${M_NAME} ${uses} CACHE INTERNAL "")
  set(DPKIT_MODULE_PACKAGES_${M_NAME} "" CACHE INTERNAL "")
  dpkit_module_packages(${M_NAME} ${M_PUBLIC_DEPS} ${M_PRIVATE_DEPS})
endfunction()

# dpkit_module_packages(<module> <imported target> ...): records the outside packages behind
# the targets (Eigen3::Eigen → Eigen3, …) as dependencies of the module.
function(dpkit_module_packages module)
  set(packages ${DPKIT_MODULE_PACKAGES_${module}})
  foreach(t IN LISTS ARGN)
    if(t MATCHES "^(Eigen3|Boost|GSL|FFTW3|OpenMP|MPI|ZLIB)::")
      list(APPEND packages ${CMAKE_MATCH_1})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES packages)
  set(DPKIT_MODULE_PACKAGES_${module} ${packages} CACHE INTERNAL "")
endfunction()

# One include-only translation unit per public header, compiled as an object library:
# every header must compile on its own (Boost.Math test/compile_test/*_incl_test.cpp).
function(dpkit_add_header_checks target)
  file(GLOB_RECURSE headers RELATIVE "${PROJECT_SOURCE_DIR}/lib/include"
       CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/lib/include/dpkit/*.hpp")
  set(sources "")
  foreach(h IN LISTS headers)
    string(MAKE_C_IDENTIFIER "${h}" id)
    set(src "${CMAKE_CURRENT_BINARY_DIR}/header_checks/${id}.cpp")
    file(CONFIGURE OUTPUT "${src}" CONTENT "#include \"${h}\"  // must compile on its own\n")
    list(APPEND sources "${src}")
  endforeach()
  add_library(${target} OBJECT ${sources})
  target_link_libraries(${target} PRIVATE dpkit::dpkit dpkit_warnings)
  # Nothing runs these objects: whether a header compiles alone does not depend on the
  # optimisation level, so they skip the optimiser (the headers' code is optimised where it is
  # used, in the library and the tests).
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-O0>)
endfunction()
