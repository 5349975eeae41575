#include "dpkit/core/log_space.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "dpkit/core/check.hpp"

namespace dpkit {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLog2 = 0.69314718055994530942;
}  // namespace

double log1mexp(double x) {
  check_not_nan("log1mexp", "x", x);
  if (x > 0) throw_domain_error("log1mexp", "x", x, "<= 0");
  if (x == 0) return -kInf;
  // Mächler (2012): switch at −log 2 keeps full relative accuracy on both sides.
  return x > -kLog2 ? std::log(-std::expm1(x)) : std::log1p(-std::exp(x));
}

double log1pexp(double x) {
  check_not_nan("log1pexp", "x", x);
  // Mächler (2012) eq. (10) thresholds.
  if (x <= -37.0) return std::exp(x);
  if (x <= 18.0) return std::log1p(std::exp(x));
  if (x <= 33.3) return x + std::exp(-x);
  return x;
}

double exp_upper(double x) {
  if (std::isnan(x)) return x;  // propagated, as exp does: the caller's checks name it
  if (x == -kInf) return 0;
  // exp is within one ulp of e^x: the next double up is at or above it — for a result that
  // underflows to 0, the smallest positive double.
  return std::nextafter(std::exp(x), kInf);
}

double exp_lower(double x) {
  if (std::isnan(x)) return x;
  // exp is within one ulp of e^x: the next double down is at or below it (0 at the bottom).
  return std::max(0.0, std::nextafter(std::exp(x), 0.0));
}

double log_sum_exp(double a, double b) {
  check_not_nan("log_sum_exp", "a", a);
  check_not_nan("log_sum_exp", "b", b);
  if (a < b) std::swap(a, b);
  if (b == -kInf) return a;
  if (a == kInf) return kInf;
  return a + std::log1p(std::exp(b - a));
}

double log_sum_exp(std::span<const double> x) {
  if (x.empty()) return -kInf;
  double m = -kInf;
  for (double v : x) {
    check_not_nan("log_sum_exp", "x[i]", v);
    m = std::max(m, v);
  }
  if (m == -kInf || m == kInf) return m;
  double s = 0;
  for (double v : x) s += std::exp(v - m);
  return m + std::log(s);
}

double log_diff_exp(double a, double b) {
  check_not_nan("log_diff_exp", "a", a);
  check_not_nan("log_diff_exp", "b", b);
  if (a < b) throw_domain_error("log_diff_exp", "a - b", a - b, ">= 0");
  if (b == -kInf) return a;
  if (a == b) return -kInf;
  return a + log1mexp(b - a);
}

double log_expm1(double x) {
  check_not_nan("log_expm1", "x", x);
  if (x < 0) throw_domain_error("log_expm1", "x", x, ">= 0");
  if (x == 0) return -kInf;
  // log(e^x − 1) = x + log(1 − e^−x); below 1, expm1 is exact and does not overflow.
  return x < 1 ? std::log(std::expm1(x)) : x + log1mexp(-x);
}

}  // namespace dpkit
