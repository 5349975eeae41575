// Catch2 glue for accuracy cases: asserts a case's tolerance and, on failure, logs the worst
// row with expected/computed/ulp/hexfloat (STYLE.md rule 12).
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "support/accuracy.hpp"
#include "support/test_util.hpp"

namespace dpkit::test {

inline void check_accuracy_case(const std::string& id) {
  for (const auto& c : accuracy_cases()) {
    if (c.id != id) continue;
    const accuracy_stats s = measure(c);
    INFO(c.function << " vs " << c.file << ":" << c.reference << " over " << s.rows << " rows");
    INFO("worst at " << s.worst_where << ": "
                     << describe_mismatch(s.worst_computed, s.worst_expected));
    CHECK(s.rows > 0);
    CHECK(s.max_error <= c.tolerance);
    return;
  }
  FAIL("no accuracy case " << id);
}

}  // namespace dpkit::test
