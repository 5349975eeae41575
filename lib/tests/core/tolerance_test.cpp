#include "dpkit/core/tolerance.hpp"

#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>

// The ladder must stay GSL's TEST_TOL0..6 (2, 16, 256, 2048, 16384, 131072, 1048576 ×
// DBL_EPSILON): tests and docs quote tolerances by rung.
TEST_CASE("tolerance ladder is GSL's TEST_TOL0..6", "[core][tolerance]") {
  using namespace dpkit::tol;
  CHECK(kMachineEps == DBL_EPSILON);
  CHECK(kTol0 == 2 * DBL_EPSILON);
  CHECK(kTol1 == 16 * DBL_EPSILON);
  CHECK(kTol2 == 256 * DBL_EPSILON);
  CHECK(kTol3 == 2048 * DBL_EPSILON);
  CHECK(kTol4 == 16384 * DBL_EPSILON);
  CHECK(kTol5 == 131072 * DBL_EPSILON);
  CHECK(kTol6 == 1048576 * DBL_EPSILON);
  CHECK(kSqrtMachineEps == std::sqrt(DBL_EPSILON));
}
