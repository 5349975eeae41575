#include "dpkit/core/version.hpp"

#include <catch2/catch.hpp>
#include <string>

TEST_CASE("version information is recorded at build time", "[core][version]") {
  CHECK(std::string(dpkit::version()) == DPKIT_EXPECTED_VERSION);
  CHECK_FALSE(dpkit::git_hash().empty());
  CHECK_FALSE(dpkit::compiler().empty());
}
