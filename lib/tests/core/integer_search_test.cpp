// Golden-section search on the integers (core/integer_search.hpp): for unimodal functions the
// minimiser, found by exhaustive search, lies in the bracket returned; only integers of
// [lo, hi] are asked for; the bracket is at most 4 wide.
#include "dpkit/core/integer_search.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

TEST_CASE("golden_section_bracket: the exhaustive minimiser of a unimodal f lies in the bracket",
          "[core][integer_search]") {
  std::mt19937_64 rng(20261125);
  for (int trial = 0; trial < 2000; ++trial) {
    std::uniform_int_distribution<long long> lo_of(-1000, 1000), width_of(0, 5000);
    const long long lo = lo_of(rng), hi = lo + width_of(rng);
    std::uniform_int_distribution<long long> at(lo, hi);
    const long long m = at(rng);
    std::uniform_real_distribution<double> u(0.1, 3.0);
    const double left = u(rng), right = u(rng), power = u(rng);
    // strictly decreasing to m, strictly increasing after it, at different rates on each side
    auto f = [&](long long k) {
      REQUIRE(k >= lo);
      REQUIRE(k <= hi);
      const double x = static_cast<double>(k - m);
      return x < 0 ? left * std::pow(-x, power) : right * std::pow(x, power);
    };
    const auto [a, b] = dpkit::golden_section_bracket(f, lo, hi);
    INFO("lo " << lo << " hi " << hi << " m " << m << " bracket " << a << ".." << b);
    CHECK(lo <= a);
    CHECK(b <= hi);
    CHECK(b - a <= 4);
    CHECK(a <= m);
    CHECK(m <= b);
  }
}

TEST_CASE("golden_section_bracket: a bracket already narrow is returned as it is",
          "[core][integer_search]") {
  int calls = 0;
  auto f = [&](long long k) {
    ++calls;
    return static_cast<double>(k);
  };
  const auto [a, b] = dpkit::golden_section_bracket(f, 7, 11);
  CHECK(a == 7);
  CHECK(b == 11);
  CHECK(calls == 0);
  const auto [c, d] = dpkit::golden_section_bracket(f, 0, 1'000'000);  // increasing: the left end
  CHECK(c == 0);
  CHECK(d <= 4);
}

TEST_CASE("golden_section_bracket: a run of +inf at one end does not hide the finite minimum",
          "[core][integer_search]") {
  // f = +inf where the caller cannot evaluate (a refused tau), unimodal elsewhere: a tie at +inf
  // between the two probes once kept the left, narrowing onto the +inf run.
  const double inf = std::numeric_limits<double>::infinity();
  for (const long long edge : {0LL, 1LL, 380LL, 700LL, 990LL}) {
    for (const long long minimum : {edge, edge + 3, (edge + 1000) / 2, 1000LL}) {
      auto prefix = [&](long long k) {
        return k < edge ? inf : static_cast<double>((k - minimum) * (k - minimum));
      };
      const auto [a, b] = dpkit::golden_section_bracket(prefix, 0, 1000);
      CAPTURE(edge, minimum, a, b);
      CHECK((a <= minimum && minimum <= b));
      // The mirror image: +inf on a suffix.
      auto suffix = [&](long long k) { return prefix(1000 - k); };
      const auto [c, d] = dpkit::golden_section_bracket(suffix, 0, 1000);
      CAPTURE(c, d);
      CHECK((c <= 1000 - minimum && 1000 - minimum <= d));
    }
  }
}
