# pkg-config files for an installed dpkit (docs/install.md): dpkit-<module>.pc for each module
# and dpkit.pc for all of them. The libraries are static, so each file lists what a program
# needs to link (the modules it uses and their outside libraries) in Libs and Requires, not in
# the .private fields that only `pkg-config --static` reads. Relocatable: prefix is computed
# from the file's own place (${pcfiledir}), so `cmake --install --prefix DIR` works.

# The pkg-config name of an outside package, or its link flag where it has no .pc file.
function(_dpkit_pc_of package out_requires out_libs)
  set(req "")
  set(libs "")
  if(package STREQUAL "Eigen3")
    set(req eigen3)
  elseif(package STREQUAL "GSL")
    set(req gsl)
  elseif(package STREQUAL "FFTW3")
    set(req fftw3)
  elseif(package STREQUAL "MPI")
    set(req mpi-c)
  elseif(package STREQUAL "ZLIB")
    set(req zlib)
  elseif(package STREQUAL "OpenMP")
    set(libs -fopenmp)
  endif()  # Boost: headers only, in the compiler's default include path on Debian
  set(${out_requires} "${req}" PARENT_SCOPE)
  set(${out_libs} "${libs}" PARENT_SCOPE)
endfunction()

function(dpkit_write_pkgconfig_files)
  set(pcdir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  file(RELATIVE_PATH to_prefix "/p/${pcdir}" "/p")
  string(REGEX REPLACE "/$" "" to_prefix "${to_prefix}")
  set(header "prefix=\${pcfiledir}/${to_prefix}\nincludedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}\nlibdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}\n\n")
  set(all_requires "")
  foreach(m IN LISTS DPKIT_MODULES)
    # Highest module first, so that a static link sees each library before those it uses.
    set(requires "")
    set(direct ${DPKIT_MODULE_DIRECT_${m}})
    list(REVERSE direct)
    foreach(dep IN LISTS direct)
      list(APPEND requires dpkit-${dep})
    endforeach()
    set(libs "-L\${libdir} -ldpkit_${m}")
    set(cflags "-I\${includedir} -DEIGEN_DONT_PARALLELIZE")
    foreach(p IN LISTS DPKIT_MODULE_PACKAGES_${m})
      _dpkit_pc_of(${p} r l)
      list(APPEND requires ${r})
      if(l)
        string(APPEND libs " ${l}")
      endif()
    endforeach()
    list(JOIN requires ", " requires_text)
    file(WRITE "${PROJECT_BINARY_DIR}/pkgconfig/dpkit-${m}.pc"
         "${header}Name: dpkit-${m}\nDescription: dpkit ${m} module (${PROJECT_DESCRIPTION}); C++20\n"
         "Version: ${PROJECT_VERSION}\nRequires: ${requires_text}\nLibs: ${libs}\nCflags: ${cflags}\n")
    list(PREPEND all_requires dpkit-${m})
  endforeach()
  list(JOIN all_requires ", " all_text)
  file(WRITE "${PROJECT_BINARY_DIR}/pkgconfig/dpkit.pc"
       "${header}Name: dpkit\nDescription: ${PROJECT_DESCRIPTION} (every module); C++20\n"
       "Version: ${PROJECT_VERSION}\nRequires: ${all_text}\nLibs:\nCflags:\n")
  install(DIRECTORY "${PROJECT_BINARY_DIR}/pkgconfig/" DESTINATION "${pcdir}"
          FILES_MATCHING PATTERN "*.pc")
endfunction()
