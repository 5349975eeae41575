#include "dpkit/core/grid.hpp"

#include <cmath>

#include "dpkit/core/check.hpp"

namespace dpkit {

std::vector<double> linspace(double a, double b, std::size_t n) {
  check_finite("linspace", "a", a);
  check_finite("linspace", "b", b);
  check_at_least("linspace", "n", static_cast<long long>(n), 2);
  std::vector<double> x(n);
  const double h = (b - a) / static_cast<double>(n - 1);
  for (std::size_t i = 0; i < n; ++i) x[i] = a + h * static_cast<double>(i);
  x.back() = b;
  return x;
}

std::vector<double> logspace(double a, double b, std::size_t n) {
  check_positive("logspace", "a", a);
  check_positive("logspace", "b", b);
  std::vector<double> x = linspace(std::log(a), std::log(b), n);
  for (double& v : x) v = std::exp(v);
  x.front() = a;
  x.back() = b;
  return x;
}

}  // namespace dpkit
