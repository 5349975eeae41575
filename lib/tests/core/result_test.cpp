#include "dpkit/core/result.hpp"

#include <catch2/catch.hpp>

TEST_CASE("termination and bound_kind have stable spellings (CLI/JSON contract)",
          "[core][result]") {
  using dpkit::bound_kind;
  using dpkit::termination_type;
  CHECK(dpkit::to_string(termination_type::converged) == "converged");
  CHECK(dpkit::to_string(termination_type::max_iterations) == "max_iterations");
  CHECK(dpkit::to_string(termination_type::failure) == "failure");
  CHECK(dpkit::to_string(bound_kind::upper_bound) == "upper-bound");
  CHECK(dpkit::to_string(bound_kind::lower_bound) == "lower-bound");
  CHECK(dpkit::to_string(bound_kind::estimate) == "estimate");
  CHECK(dpkit::to_string(bound_kind::approximation) == "approximation");
  dpkit::solver_status s;
  CHECK(s.converged());
  s.termination = termination_type::max_iterations;
  CHECK_FALSE(s.converged());
}
