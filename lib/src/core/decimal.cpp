#include "dpkit/core/decimal.hpp"

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <system_error>

#include <boost/multiprecision/cpp_int.hpp>

#include "dpkit/core/check.hpp"

namespace dpkit {
namespace {

using big = boost::multiprecision::cpp_int;

constexpr long long kLargestExactInteger = 9007199254740992LL;  // 2^53

// x (finite, > 0) as mantissa · 10^exponent, the mantissa the shortest that reads back as x.
struct decimal {
  big mantissa;
  int exponent = 0;
};

decimal as_written(double x) {
  char buffer[64];
  const auto [end, ec] =
      std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::scientific);
  // "d.ddde±XX" (64 characters hold every double's shortest form; ec is never an error here).
  const std::string_view text(buffer, ec == std::errc() ? static_cast<std::size_t>(end - buffer)
                                                        : 0);
  const std::size_t e = text.find('e');
  std::string digits;
  int fraction_digits = 0;
  bool after_point = false;
  for (char c : text.substr(0, e)) {
    if (c == '.') {
      after_point = true;
      continue;
    }
    digits += c;
    if (after_point) ++fraction_digits;
  }
  int exponent = 0;
  const std::string_view exp_text = text.substr(e + 1);
  const char* first = exp_text.data() + (exp_text.front() == '+' ? 1 : 0);
  std::from_chars(first, exp_text.data() + exp_text.size(), exponent);
  return {big(digits), exponent - fraction_digits};
}

big power_of_ten(int k) {
  return boost::multiprecision::pow(big(10), static_cast<unsigned>(k));
}

// ⌈(num·10^shift)/den⌉ for num, den > 0.
std::optional<long long> ceiling(big num, big den, int shift) {
  if (shift >= 0)
    num *= power_of_ten(shift);
  else
    den *= power_of_ten(-shift);
  const big t = (num + den - 1) / den;
  if (t > kLargestExactInteger) return std::nullopt;
  return t.convert_to<long long>();
}

}  // namespace

std::optional<long long> ceil_as_written(double x, long long n, long long d) {
  constexpr const char* kFn = "ceil_as_written";
  check_positive(kFn, "x", x);
  check_at_least(kFn, "n", n, 0);
  check_at_least(kFn, "d", d, 1);
  const decimal a = as_written(x);
  return ceiling(a.mantissa * n, big(d), a.exponent);
}

std::optional<long long> ceil_quotient_as_written(double x, double y) {
  constexpr const char* kFn = "ceil_quotient_as_written";
  check_positive(kFn, "x", x);
  check_positive(kFn, "y", y);
  const decimal a = as_written(x);
  const decimal b = as_written(y);
  return ceiling(a.mantissa, b.mantissa, a.exponent - b.exponent);
}

}  // namespace dpkit
