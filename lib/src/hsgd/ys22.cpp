#include "dpkit/hsgd/ys22.hpp"

#include <cmath>
#include <string>

#include "dpkit/core/check.hpp"

namespace dpkit::hsgd {

namespace {

void check(const ys22_setting& s) {
  const char* f = "ys22";
  check_greater(f, "alpha", s.alpha, 1);
  check_positive(f, "clip", s.clip);
  check_positive(f, "noise", s.noise);
  check_positive(f, "step", s.step);
  check_nonnegative(f, "strong_convexity", s.strong_convexity);
  if (!(s.step * s.strong_convexity < 1))
    throw_domain_error(f, "step * strong_convexity", s.step * s.strong_convexity, "< 1");
  check_at_least(f, "batch_size", s.batch_size, 1);
  check_at_least(f, "batches", s.batches, 1);
}

// ε_j for a checked setting: A·e^{−u(j−1)}·expm1(−u)/expm1(−uj), u = −2 log1p(−ηλ); A/j at λ = 0.
double position(const ys22_setting& s, double a, long long j) {
  const double u = -2 * std::log1p(-s.step * s.strong_convexity);
  if (u == 0) return a / static_cast<double>(j);
  const auto jd = static_cast<double>(j);
  return a * std::exp(-u * (jd - 1)) * (std::expm1(-u) / std::expm1(-u * jd));
}

}  // namespace

double ys22_scale(const ys22_setting& s) {
  check(s);
  const auto b = static_cast<double>(s.batch_size);
  return 2 * s.alpha * s.clip * s.clip / (s.noise * s.noise * b * b);
}

double ys22_position_rdp(const ys22_setting& s, long long j) {
  const double a = ys22_scale(s);
  check_at_least("ys22_position_rdp", "j", j, 1);
  return position(s, a, j);
}

double ys22_one_pass_rdp(const ys22_setting& s, long long k) {
  const double a = ys22_scale(s);
  if (k < 0 || k > s.batches)
    throw_domain_error("ys22_one_pass_rdp", "k", format_value(k),
                       "in [0, batches] = [0, " + format_value(static_cast<long long>(s.batches)) +
                           "]");
  if (k == 0) return 0;
  // ε_j decreases in j, so (α−1)ε_1 is the largest exponent. Below 700 the log1p/expm1 form
  // (1/(α−1))·log1p((1/m)Σ expm1((α−1)ε_j)) keeps full relative accuracy for small bounds;
  // above, a log-sum-exp around it (the m − k unused batches as the term e^0) avoids overflow.
  const double top = (s.alpha - 1) * position(s, a, 1);
  const auto m = static_cast<double>(s.batches);
  if (top < 700) {
    double sum = 0;
    for (long long j = 1; j <= k; ++j) sum += std::expm1((s.alpha - 1) * position(s, a, j));
    return std::log1p(sum / m) / (s.alpha - 1);
  }
  double sum = static_cast<double>(s.batches - k) * std::exp(-top);
  for (long long j = 1; j <= k; ++j) sum += std::exp((s.alpha - 1) * position(s, a, j) - top);
  return (top + std::log(sum / m)) / (s.alpha - 1);
}

bool ys22_step_ok(double step, double strong_convexity, double smoothness) {
  return step > 0 && step < 2 / (strong_convexity + smoothness);
}

}  // namespace dpkit::hsgd
