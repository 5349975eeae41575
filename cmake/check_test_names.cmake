# CTest meta.test_names: catch_discover_tests splits a test name at ';' into CTest entries that
# match no Catch test and so pass without running anything. Fail if any TEST_CASE name has one.
file(GLOB_RECURSE sources "${SOURCE_DIR}/lib/tests/*.cpp" "${SOURCE_DIR}/tools/*.cpp"
     "${SOURCE_DIR}/validation/*.cpp")
set(bad "")
foreach(f IN LISTS sources)
  file(STRINGS "${f}" lines ENCODING UTF-8 REGEX "TEST_CASE\\(\"")
  foreach(line IN LISTS lines)
    if(line MATCHES "TEST_CASE\\(\"[^\"]*;")
      string(APPEND bad "\n  ${f}: ${line}")
    endif()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "test names with ';' (CTest would split them into empty tests):${bad}")
endif()
message(STATUS "meta.test_names: no TEST_CASE name contains a semicolon")
