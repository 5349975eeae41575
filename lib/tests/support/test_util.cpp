#include "support/test_util.hpp"

#include "dpkit/core/random.hpp"

#include <algorithm>
#include <boost/math/special_functions/next.hpp>
#include <cmath>
#include <cstdio>

namespace dpkit::test {

std::filesystem::path reference_path(const std::string& name) {
  return std::filesystem::path(DPKIT_REFERENCE_DIR) / name;
}

double relative_error(double computed, double expected) {
  if (std::isnan(expected) || std::isnan(computed))
    return std::isnan(expected) && std::isnan(computed) ? 0.0 : INFINITY;
  if (std::isinf(expected) || std::isinf(computed)) return computed == expected ? 0.0 : INFINITY;
  if (expected == 0) return std::abs(computed);
  return std::abs(computed - expected) / std::abs(expected);
}

double mollified_error(double computed, double expected) {
  if (std::isnan(expected) || std::isnan(computed))
    return std::isnan(expected) && std::isnan(computed) ? 0.0 : INFINITY;
  if (std::isinf(expected) || std::isinf(computed)) return computed == expected ? 0.0 : INFINITY;
  return std::abs(computed - expected) / std::max(std::abs(expected), 1.0);
}

std::string describe_mismatch(double computed, double expected) {
  char buf[320];
  double ulps = NAN;
  if (std::isfinite(computed) && std::isfinite(expected))
    ulps = std::abs(boost::math::float_distance(expected, computed));
  std::snprintf(buf, sizeof buf,
                "expected %.17g, computed %.17g, relative error %.3g, %.3g ulp (expected %a, "
                "computed %a)",
                expected, computed, relative_error(computed, expected), ulps, expected, computed);
  return buf;
}

mc_estimate monte_carlo_delta(std::span<const double> losses, double epsilon) {
  double sum = 0, sum2 = 0;
  for (const double l : losses) {
    const double v = std::max(0.0, -std::expm1(epsilon - l));
    sum += v;
    sum2 += v * v;
  }
  const auto n = static_cast<double>(losses.size());
  mc_estimate e;
  e.mean = sum / n;
  e.se = std::sqrt(std::max(0.0, sum2 / n - e.mean * e.mean) / n);
  return e;
}

pair_samples gaussian_mechanism(double mu, std::size_t n, std::uint64_t seed) {
  pair_samples s{std::vector<double>(n), std::vector<double>(n)};
  random_stream rd(seed, 0, 0), rdp(seed, 0, 1);
  for (double& v : s.d) v = rd.normal();
  for (double& v : s.dprime) v = rdp.normal(mu, 1);
  return s;
}

}  // namespace dpkit::test
