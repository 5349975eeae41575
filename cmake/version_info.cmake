# Run at build time (cmake -P): writes version_info.cpp with the current git hash.
# configure_file only touches the output when its content changes, so nothing rebuilds
# unless the hash changed.
set(GIT_HASH "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
                  WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE _hash OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0 AND _hash)
    set(GIT_HASH "${_hash}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain --untracked-files=no
                    WORKING_DIRECTORY "${SOURCE_DIR}"
                    OUTPUT_VARIABLE _dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_dirty)
      string(APPEND GIT_HASH "-dirty")
    endif()
  endif()
endif()
configure_file("${CMAKE_CURRENT_LIST_DIR}/version_info.cpp.in" "${OUTPUT}" @ONLY)
