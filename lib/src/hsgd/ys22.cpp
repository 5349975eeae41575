#include "dpkit/hsgd/ys22.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace dpkit::hsgd {

namespace {

void check(const ys22_setting& s) {
  const char* f = "dpkit::hsgd::ys22";
  if (!(s.alpha > 1) || !std::isfinite(s.alpha))
    throw std::domain_error(std::string(f) + ": alpha must be finite and > 1");
  if (!(s.clip > 0) || !std::isfinite(s.clip))
    throw std::domain_error(std::string(f) + ": clip must be finite and > 0");
  if (!(s.noise > 0) || !std::isfinite(s.noise))
    throw std::domain_error(std::string(f) + ": noise must be finite and > 0");
  if (!(s.step > 0) || !std::isfinite(s.step))
    throw std::domain_error(std::string(f) + ": step must be finite and > 0");
  if (!(s.strong_convexity >= 0) || !(s.step * s.strong_convexity < 1))
    throw std::domain_error(std::string(f) +
                            ": strong_convexity must be >= 0 with step * strong_convexity < 1");
  if (s.batch_size < 1 || s.batches < 1)
    throw std::domain_error(std::string(f) + ": batch_size and batches must be >= 1");
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
  if (j < 1) throw std::domain_error("dpkit::hsgd::ys22_position_rdp: j must be >= 1");
  return position(s, a, j);
}

double ys22_one_pass_rdp(const ys22_setting& s, long long k) {
  const double a = ys22_scale(s);
  if (k < 0 || k > s.batches)
    throw std::domain_error("dpkit::hsgd::ys22_one_pass_rdp: k must be in [0, batches]");
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
