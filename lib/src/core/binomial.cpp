// One-sided Clopper–Pearson limits (dpkit/core/binomial.hpp).
#include "dpkit/core/binomial.hpp"

#include <boost/math/special_functions/beta.hpp>

#include "dpkit/core/check.hpp"

namespace dpkit {
namespace {

void check_counts(const char* function, std::size_t successes, std::size_t trials, double tail) {
  check_at_least(function, "trials", static_cast<long long>(trials), 1);
  if (successes > trials)
    throw_domain_error(function, "successes", format_value(static_cast<long long>(successes)),
                       "<= trials (" + format_value(static_cast<long long>(trials)) + ")");
  check_open_probability(function, "tail", tail);
}

}  // namespace

double binomial_lower_limit(std::size_t successes, std::size_t trials, double tail) {
  check_counts("binomial_lower_limit", successes, trials, tail);
  if (successes == 0) return 0.0;
  const double k = static_cast<double>(successes);
  const double n = static_cast<double>(trials);
  // P(Bin(n, p) ≥ k) = I_p(k, n − k + 1) = tail at p = lower.
  return boost::math::ibeta_inv(k, n - k + 1, tail);
}

double binomial_upper_limit(std::size_t successes, std::size_t trials, double tail) {
  check_counts("binomial_upper_limit", successes, trials, tail);
  if (successes == trials) return 1.0;
  const double k = static_cast<double>(successes);
  const double n = static_cast<double>(trials);
  // P(Bin(n, p) ≤ k) = 1 − I_p(k + 1, n − k) = tail at p = upper.
  return boost::math::ibetac_inv(k + 1, n - k, tail);
}

}  // namespace dpkit
