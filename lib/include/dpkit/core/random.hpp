#pragma once
// Counter-based random streams (Random123 Philox4x64-10) keyed by (seed, replicate, stream).
//
// A Monte Carlo result must be bit-identical for any number of threads or MPI ranks
// (docs/architecture.md, "Randomness"). Counter-based generators give that by construction: the
// k-th draw of stream s of replicate r under seed S is a pure function of (S, r, s, k), so the
// order in which replicates run does not matter. Philox4x64-10 (Salmon et al., SC'11) passes
// BigCrush and every key gives an independent stream of 2^256 blocks of four 64-bit words.
//
// Key = (seed, replicate); counter = (block, stream, 0, 0). Convention for stream numbers in the
// simulator: 0 data, 1 initial point, 2 mini-batch selection, 3 algorithm noise, 4 label noise;
// a new consumer takes a new number rather than sharing one.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace dpkit {

/// One random stream. Cheap to construct (no state beyond the counter and a 4-word buffer);
/// not thread-safe — give each thread or replicate its own stream.
class random_stream {
 public:
  random_stream(std::uint64_t seed, std::uint64_t replicate, std::uint64_t stream) noexcept;

  /// 64 uniform random bits.
  std::uint64_t bits() noexcept {
    if (next_ == 4) refill();
    return buffer_[next_++];
  }
  /// Uniform on the open interval (0, 1): (k + 1/2)·2⁻⁵³ for a 53-bit k, never 0 or 1.
  double uniform() noexcept {
    // The top 53 bits k give (k + 1/2)·2⁻⁵³: symmetric, in (0, 1) and never an endpoint.
    const std::uint64_t k = bits() >> 11;
    return (static_cast<double>(k) + 0.5) * 0x1.0p-53;
  }
  /// Uniform on (a, b).
  double uniform(double a, double b) noexcept { return a + (b - a) * uniform(); }
  /// Standard normal by the Box–Muller transform (Random123's boxmuller; pairs are cached).
  double normal() noexcept {
    if (have_cached_normal_) {
      have_cached_normal_ = false;
      return cached_normal_;
    }
    return normal_pair();
  }
  /// N(mean, sd²).
  double normal(double mean, double sd) noexcept { return mean + sd * normal(); }
  /// Bernoulli(p): true with probability p (p ≤ 0: never; p ≥ 1: always).
  bool bernoulli(double p) noexcept { return uniform() < p; }
  /// Uniform integer in [0, n), unbiased (Lemire's multiply-and-reject). n must be ≥ 1.
  std::uint64_t below(std::uint64_t n);

  /// Fills x with independent N(0, 1) draws.
  void fill_normal(std::span<double> x) noexcept;
  /// A uniformly random permutation of {0, …, n−1} (Fisher–Yates).
  std::vector<std::size_t> permutation(std::size_t n);
  /// k distinct indices drawn uniformly without replacement from {0, …, n−1}, in the order drawn
  /// (Floyd's algorithm for k ≪ n, a partial Fisher–Yates otherwise). Requires k ≤ n.
  std::vector<std::size_t> sample_without_replacement(std::size_t n, std::size_t k);
  /// The indices i in {0, …, n−1} included independently with probability q ∈ [0, 1] (Poisson
  /// sampling), ascending.
  std::vector<std::size_t> poisson_sample(std::size_t n, double q);

  /// Number of 64-bit words consumed so far (for diagnostics and tests).
  std::uint64_t words_used() const noexcept {
    return 4 * block_ - static_cast<std::uint64_t>(4 - next_);
  }

 private:
  // The hot paths (bits, uniform, a cached normal) are inline; a Monte Carlo run draws billions.
  void refill() noexcept;
  // Draws a Box–Muller pair: returns the first, caches the second.
  double normal_pair() noexcept;
  std::uint64_t key_[2];
  std::uint64_t block_ = 0, stream_;
  std::uint64_t buffer_[4] = {0, 0, 0, 0};
  int next_ = 4;  // index into buffer_; 4 = empty (words used: 4·block_ − (4 − next_))
  double cached_normal_ = 0;
  bool have_cached_normal_ = false;
};

}  // namespace dpkit
