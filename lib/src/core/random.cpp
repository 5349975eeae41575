#include "dpkit/core/random.hpp"

#include <Random123/philox.h>
#include <Random123/boxmuller.hpp>
#include <Random123/uniform.hpp>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <unordered_set>

#include "dpkit/core/check.hpp"

namespace dpkit {
namespace {
__extension__ typedef unsigned __int128 uint128;  // GCC/Clang; -Wpedantic-clean
}  // namespace

random_stream::random_stream(std::uint64_t seed,
                             std::uint64_t replicate,
                             std::uint64_t stream) noexcept
    : key_{seed, replicate}, stream_(stream) {}

void random_stream::refill() noexcept {
  const r123::Philox4x64::ctr_type counter = {{block_, stream_, 0, 0}};
  const r123::Philox4x64::key_type key = {{key_[0], key_[1]}};
  const r123::Philox4x64::ctr_type out = r123::Philox4x64()(counter, key);
  for (int i = 0; i < 4; ++i) buffer_[i] = out.v[i];
  ++block_;
  next_ = 0;
}

double random_stream::normal_pair() noexcept {
  const std::uint64_t u0 = bits(), u1 = bits();
  const r123::double2 z = r123::boxmuller(u0, u1);
  cached_normal_ = z.y;
  have_cached_normal_ = true;
  return z.x;
}

std::uint64_t random_stream::below(std::uint64_t n) {
  if (n == 0) throw_domain_error("random_stream::below", "n", "0", ">= 1");
  // Lemire (2019), "Fast random integer generation in an interval", with 128-bit products.
  uint128 m = static_cast<uint128>(bits()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<uint128>(bits()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

void random_stream::fill_normal(std::span<double> x) noexcept {
  // The same draws as normal() called x.size() times, without the cache's bookkeeping per
  // entry: a cached second draw first, then whole pairs, then one more normal() if odd.
  std::size_t i = 0;
  const std::size_t n = x.size();
  if (n == 0) return;
  if (have_cached_normal_) {
    have_cached_normal_ = false;
    x[i++] = cached_normal_;
  }
  for (; i + 2 <= n; i += 2) {
    const std::uint64_t u0 = bits(), u1 = bits();
    const r123::double2 z = r123::boxmuller(u0, u1);
    x[i] = z.x;
    x[i + 1] = z.y;
  }
  if (i < n) x[i] = normal();
}

std::vector<std::size_t> random_stream::permutation(std::size_t n) {
  std::vector<std::size_t> p(n);
  std::iota(p.begin(), p.end(), std::size_t{0});
  for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[below(i)]);
  return p;
}

std::vector<std::size_t> random_stream::sample_without_replacement(std::size_t n, std::size_t k) {
  if (k > n)
    throw_domain_error("random_stream::sample_without_replacement", "k",
                       format_value(static_cast<long long>(k)),
                       "<= n = " + format_value(static_cast<long long>(n)));
  std::vector<std::size_t> out;
  out.reserve(k);
  if (k * 4 < n) {
    // Floyd's algorithm: k draws, no O(n) memory; the result is a uniform k-subset, and
    // recording the order of insertion keeps it a pure function of the stream.
    std::unordered_set<std::size_t> seen;
    seen.reserve(2 * k);
    for (std::size_t j = n - k; j < n; ++j) {
      const std::size_t t = below(j + 1);
      const std::size_t pick = seen.count(t) ? j : t;
      seen.insert(pick);
      out.push_back(pick);
    }
    return out;
  }
  // Partial Fisher–Yates: the first k entries of a random permutation.
  std::vector<std::size_t> p(n);
  std::iota(p.begin(), p.end(), std::size_t{0});
  for (std::size_t i = 0; i < k; ++i) std::swap(p[i], p[i + below(n - i)]);
  out.assign(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(k));
  return out;
}

std::vector<std::size_t> random_stream::poisson_sample(std::size_t n, double q) {
  check_probability("random_stream::poisson_sample", "q", q);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < n; ++i)
    if (bernoulli(q)) out.push_back(i);
  return out;
}

}  // namespace dpkit
