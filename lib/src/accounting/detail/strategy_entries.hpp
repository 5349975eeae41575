// Internal: a strategy's entries for T steps, as the sensitivity (matrix_mechanism.cpp) and the
// conditional-composition bound (matrix_mmcc.cpp) read them: the Toeplitz coefficients, or the
// dense rows evaluated once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "dpkit/accounting/matrix_mechanism.hpp"

namespace dpkit::accounting::detail {

struct strategy_entries {
  long long steps;
  std::vector<double> coef;   // Toeplitz coefficients (Toeplitz kinds)
  std::vector<double> dense;  // row-major C (dense)

  strategy_entries(const strategy& s, long long t) : steps(t) {
    if (s.is_toeplitz()) {
      coef = s.coefficients(t);
    } else {
      dense.resize(static_cast<std::size_t>(t * t));
      for (long long r = 0; r < t; ++r)
        for (long long k = 0; k <= r; ++k)
          dense[static_cast<std::size_t>(r * t + k)] = s.entry(t, r, k);
    }
  }
  /// C[r][k] (0 above the diagonal).
  [[nodiscard]] double at(long long r, long long k) const {
    if (k > r) return 0;
    if (!dense.empty()) return dense[static_cast<std::size_t>(r * steps + k)];
    const auto d = static_cast<std::size_t>(r - k);
    return d < coef.size() ? coef[d] : 0.0;
  }
  /// The smallest column row r can have a nonzero entry in.
  [[nodiscard]] long long first_column(long long r) const {
    if (!dense.empty()) return 0;
    return std::max<long long>(0, r - static_cast<long long>(coef.size()) + 1);
  }
};

}  // namespace dpkit::accounting::detail
