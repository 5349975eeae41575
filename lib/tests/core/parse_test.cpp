// One rule for a number's text (core/parse.hpp): the whole text in strtod's syntax, and what the
// conversion did to it. The expectations are IEEE 754 facts (the largest double 1.797e308, the
// smallest normal 2.225e-308, the smallest subnormal 4.9e-324), not dpkit's own output.
#include "dpkit/core/parse.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

using dpkit::number_status;

TEST_CASE("parse_number: the whole text, and what reading it did", "[core][parse]") {
  CHECK(dpkit::parse_number("").status == number_status::empty);
  for (const char* bad : {"1e", "0.5x", "one", "1 ", "1,5", "--1", "0x", " "}) {
    INFO(bad);
    CHECK(dpkit::parse_number(bad).status == number_status::not_a_number);
    CHECK_FALSE(dpkit::parse_double(bad));
  }
  CHECK(dpkit::parse_number("1e-5").value == 1e-5);
  CHECK(dpkit::parse_number(" 1").value == 1);  // strtod skips leading blanks, as the CLI always did
  CHECK(dpkit::parse_number("+2").value == 2);
  CHECK(dpkit::parse_number("0x10").value == 16);
  CHECK(dpkit::parse_number("1.7976931348623157e308").status == number_status::ok);
  CHECK(dpkit::parse_number("2.2250738585072014e-308").status == number_status::ok);
  CHECK(dpkit::parse_number("0").status == number_status::ok);
  CHECK(dpkit::parse_number("inf").status == number_status::ok);  // typed, not an overflow
  const auto over = dpkit::parse_number("1e400");
  CHECK(over.status == number_status::overflow);
  CHECK(std::isinf(over.value));
  CHECK(dpkit::parse_number("-1e400").status == number_status::overflow);
  const auto under = dpkit::parse_number("1e-400");
  CHECK(under.status == number_status::underflow);
  CHECK(under.value == 0);
  const auto sub = dpkit::parse_number("1e-320");  // a subnormal: a few digits kept at most
  CHECK(sub.status == number_status::underflow);
  CHECK(sub.value > 0);
  CHECK(sub.value < std::numeric_limits<double>::min());
}

TEST_CASE("parse_double, parse_finite, parse_integer", "[core][parse]") {
  CHECK(*dpkit::parse_double("1e400") == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(*dpkit::parse_double("nan")));
  CHECK_FALSE(dpkit::parse_finite("inf"));
  CHECK_FALSE(dpkit::parse_finite("nan"));
  CHECK_FALSE(dpkit::parse_finite("1e400"));
  CHECK(*dpkit::parse_finite("-3.25") == -3.25);
  CHECK(*dpkit::parse_integer("-42") == -42);
  CHECK(*dpkit::parse_integer("9223372036854775807") == std::numeric_limits<long long>::max());
  CHECK_FALSE(dpkit::parse_integer("9223372036854775808"));
  CHECK_FALSE(dpkit::parse_integer("1.5"));
  CHECK_FALSE(dpkit::parse_integer("1e3"));
  CHECK_FALSE(dpkit::parse_integer(""));
  // A string_view that is not NUL-terminated is read only as far as its end.
  const std::string text = "12345";
  CHECK(*dpkit::parse_integer(std::string_view(text).substr(0, 2)) == 12);
  CHECK(*dpkit::parse_double(std::string_view(text).substr(1, 3)) == 234);
}

TEST_CASE("same_name: a typed name with '_' read as '-'", "[core][parse]") {
  CHECK(dpkit::same_name("without_replacement", "without-replacement"));
  CHECK(dpkit::same_name("without-replacement", "without-replacement"));
  CHECK(dpkit::same_name("", ""));
  CHECK_FALSE(dpkit::same_name("without-replacement", "without_replacement"));  // one way only
  CHECK_FALSE(dpkit::same_name("poisso", "poisson"));
  CHECK_FALSE(dpkit::same_name("Poisson", "poisson"));
}
