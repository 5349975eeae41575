// The FFT round-off bound of a composition (composed_pld::roundoff_bound) against the exact
// composition: the same discrete distribution convolved with itself by direct summation in long
// double (64-bit significand: its own error, ~1e-19 relative, is far below the double-precision
// FFT errors being bounded). The bound must cover the error at every point and of every
// contiguous block of points, plain and tilted; it is a worst-case bound, so it is allowed to be
// far above the error actually made, and the test prints by how much.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "dpkit/accounting/pld.hpp"

namespace acc = dpkit::accounting;

namespace {

using ld_vector = std::vector<long double>;

ld_vector convolve(const ld_vector& a, const ld_vector& b) {
  ld_vector c(a.size() + b.size() - 1, 0.0L);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) c[i + j] += a[i] * b[j];
  return c;
}

// The count-fold self-convolution by repeated squaring.
ld_vector power(ld_vector base, long long count) {
  ld_vector result = {1.0L};
  while (count > 0) {
    if (count & 1) result = convolve(result, base);
    count >>= 1;
    if (count > 0) base = convolve(base, base);
  }
  return result;
}

acc::discrete_pld random_step(std::mt19937_64& rng, std::size_t points, double h) {
  acc::discrete_pld d;
  d.side = acc::pld_side::pessimistic;
  d.h = h;
  d.first = -static_cast<long long>(points) / 3;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  d.mass.resize(points);
  double total = 0;
  for (double& m : d.mass) total += (m = std::pow(u(rng), 3));
  for (double& m : d.mass) m /= total;
  return d;
}

struct comparison {
  double worst_ratio = 0;    // largest |error| / bound over every check (≤ 1 required)
  double pointwise_gap = 0;  // bound / largest pointwise error (how pessimistic)
};

// Checks every point and every suffix block [i, end) of the window against the exact tilted
// masses e^{λℓ − K}·p(ℓ), where exact[j] is the mass at lattice index base + j.
comparison compare(const acc::composed_pld& c, const ld_vector& exact, long long base) {
  long double log_mgf = 0;
  {
    long double sum = 0;
    for (std::size_t j = 0; j < exact.size(); ++j)
      sum += exact[j] * std::exp(static_cast<long double>(c.tilt) *
                                 static_cast<long double>(base + static_cast<long long>(j)) * c.h);
    log_mgf = std::log(sum);
  }
  auto exact_at = [&](std::size_t i) -> long double {
    const long long j = c.first + static_cast<long long>(i) - base;
    if (j < 0 || j >= static_cast<long long>(exact.size())) return 0.0L;
    return exact[static_cast<std::size_t>(j)] *
           std::exp(static_cast<long double>(c.tilt) *
                        static_cast<long double>(c.first + static_cast<long long>(i)) * c.h -
                    log_mgf);
  };
  comparison out;
  const double point_bound = c.roundoff_bound(1.0, 1.0);
  long double largest_error = 0, suffix_error = 0;
  for (std::size_t i = c.mass.size(); i-- > 0;) {
    const long double e = static_cast<long double>(c.mass[i]) - exact_at(i);
    largest_error = std::max(largest_error, std::abs(e));
    out.worst_ratio = std::max(out.worst_ratio, static_cast<double>(std::abs(e)) / point_bound);
    suffix_error += e;
    const double block = static_cast<double>(c.mass.size() - i);
    out.worst_ratio = std::max(out.worst_ratio, static_cast<double>(std::abs(suffix_error)) /
                                                    c.roundoff_bound(block, 1.0));
  }
  out.pointwise_gap = point_bound / static_cast<double>(largest_error);
  return out;
}

// The same for the count-fold composition of one step: index of ℓ = (count·first + j)·h.
comparison compare(const acc::composed_pld& c, const acc::discrete_pld& step, long long count) {
  return compare(c, power(ld_vector(step.mass.begin(), step.mass.end()), count),
                 count * step.first);
}

}  // namespace

TEST_CASE("the FFT round-off bound covers the exact composition's error",
          "[accounting][pld][certified]") {
  std::mt19937_64 rng(20261122);
  for (auto [points, count] : {std::pair{5, 1500LL}, {40, 60LL}, {3, 4000LL}}) {
    const acc::discrete_pld step = random_step(rng, static_cast<std::size_t>(points), 0.01);
    const std::vector<acc::pld_factor> factors = {{&step, count}};
    // The window must hold the whole composition (tail bound far below the round-off).
    const acc::composed_pld plain = acc::compose(factors, 1e-300, 1 << 20);
    REQUIRE(plain.tilt == 0);
    const comparison p = compare(plain, step, count);
    CAPTURE(points, count, plain.fft_size, p.pointwise_gap);
    CHECK(p.worst_ratio <= 1.0);
    // A δ query deep in the tail tilts the composition: the bound is in tilted units.
    acc::compose_focus focus;
    focus.delta = 1e-12;
    const acc::composed_pld tilted = acc::compose(factors, 1e-300, 1 << 20, focus);
    REQUIRE(tilted.tilt > 0);
    const comparison t = compare(tilted, step, count);
    CAPTURE(t.pointwise_gap);
    CHECK(t.worst_ratio <= 1.0);
    WARN("round-off bound / largest pointwise error: plain " << p.pointwise_gap << ", tilted "
                                                             << t.pointwise_gap);
  }
}

// A factor whose transform has an exact zero: two equal masses one cell apart give
// 1/2 + 1/2·e^{iπ} = 0 at the Nyquist frequency. At count 1 the underflow threshold of |X̂|²
// is e^{-1490} = 0 in double, so the zero once reached the rounding term 0·|log 0| = NaN, and
// every δ bound of the composition became NaN (a Gaussian-DP factor composed with one
// subsampled step, at ε = 2476.84, printed "δ ≤ nan").
TEST_CASE("a spectrum with an exact zero keeps a finite round-off bound",
          "[accounting][pld][certified]") {
  std::mt19937_64 rng(20261127);
  acc::discrete_pld pair;
  pair.side = acc::pld_side::pessimistic;
  pair.h = 0.01;
  pair.first = 0;
  pair.mass = {0.5, 0.5};
  const acc::discrete_pld other = random_step(rng, 7, 0.01);
  const std::vector<acc::pld_factor> factors = {{&pair, 1}, {&other, 1}};
  const acc::composed_pld c = acc::compose(factors, 1e-300, 1 << 20);
  REQUIRE(c.fft_size > 0);
  REQUIRE(std::isfinite(c.roundoff_bound(1.0, 1.0)));
  const ld_vector exact = convolve(ld_vector(pair.mass.begin(), pair.mass.end()),
                                   ld_vector(other.mass.begin(), other.mass.end()));
  const comparison r = compare(c, exact, pair.first + other.first);
  CHECK(r.worst_ratio <= 1.0);
  // Every δ bound of the composition is a number in [0, 1].
  for (const double eps : {0.0, 0.01, 0.05, 1.0}) {
    const double d = c.delta(eps);
    CAPTURE(eps, d);
    CHECK((d >= 0 && d <= 1));
  }
}
