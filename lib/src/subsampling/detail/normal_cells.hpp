// Internal: standard-normal probabilities of consecutive intervals (u_k, u_{k+1}] for a
// non-decreasing sequence of cut points, with one erfc per point. Each point keeps both tails
// (Φ(u) and 1 − Φ(u), the smaller one computed directly), and each interval is differenced in
// the tail where both ends are small — the same rule as dpkit::normal_interval, at a quarter
// of the cost. The erfc argument is not corrected in double-double here (unlike normal_cdf):
// cell masses far in the tail carry ~1e-13 relative error, far below what the PLD bounds need.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace dpkit::subsampling::detail {

class normal_cells {
 public:
  /// Cut points u_0 ≤ u_1 ≤ … (±∞ allowed).
  explicit normal_cells(std::span<const double> u);
  /// P(u_k < Z ≤ u_{k+1}).
  [[nodiscard]] double cell(std::size_t k) const;
  /// P(Z ≤ u_0) and P(Z > u_last).
  [[nodiscard]] double below() const { return lower_.front(); }
  [[nodiscard]] double above() const { return upper_.back(); }

 private:
  std::vector<double> u_, lower_, upper_;  // Φ(u_k), 1 − Φ(u_k)
};

}  // namespace dpkit::subsampling::detail
