// Catch2 glue for bracket cases: every reference value inside its certified bracket.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "support/accuracy.hpp"

namespace dpkit::test {

inline void check_bracket_case(const std::string& id, double max_width) {
  for (const auto& c : bracket_cases()) {
    if (c.id != id) continue;
    const bracket_stats s = measure(c);
    INFO(c.function << " vs " << c.file << ":" << c.reference << " over " << s.rows << " rows");
    INFO("first violation: " << s.first_violation);
    CHECK(s.rows > 0);
    CHECK(s.contained == s.rows);
    CHECK(s.max_width <= max_width);
    return;
  }
  FAIL("no bracket case " << id);
}

}  // namespace dpkit::test
