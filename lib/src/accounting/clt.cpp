#include "dpkit/accounting/clt.hpp"

#include <cmath>

#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/log_space.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::accounting {

namespace {
constexpr double kInfinity = INFINITY;
}  // namespace

double clt_mu(const training_run& run) {
  run.validate("clt_mu");
  if (run.has_epoch_sampling())
    throw_domain_error("clt_mu", "sampling",
                       run.has_shuffling() ? "shuffling" : "random-allocation",
                       "poisson or without-replacement (no CLT approximation is known for "
                       "shuffled or allocated epochs; the PLD accountant brackets them)");
  for (const training_phase& p : run.phases)
    if (p.sampling_rate < 1 && (p.sampling == sampling_scheme::truncated_poisson ||
                                relation(p) != (p.sampling == sampling_scheme::without_replacement
                                                    ? neighbouring::replace_one
                                                    : neighbouring::add_remove)))
      throw_domain_error("clt_mu", "the phase",
                         p.sampling == sampling_scheme::truncated_poisson
                             ? "truncated Poisson batches"
                             : "Poisson batches with replace-one neighbours",
                         "Poisson (add/remove) or without-replacement batches (dpkit has no CLT "
                         "approximation for the others; the PLD accountant certifies them)");
  double sum = run.gaussian_mu * run.gaussian_mu;
  for (const training_phase& p : run.phases) {
    const double t = static_cast<double>(p.steps), q = p.sampling_rate, s = p.noise_multiplier;
    double mu2 = 0;
    if (q == 1) {
      const double mu1 = sensitivity(p) / s;
      mu2 = t * mu1 * mu1;
    } else if (p.sampling == sampling_scheme::poisson) {
      // Bu et al. (2020): q²·T·(e^{1/σ²} − 1), in logs (q² underflows below q = 1e-154 while
      // e^{1/σ²} overflows: 0·∞ was NaN).
      mu2 = q * q * t * std::expm1(1 / (s * s));
      if (!std::isfinite(mu2) || (mu2 == 0 && q > 0))
        mu2 = std::exp(2 * std::log(q) + std::log(t) + log_expm1(1 / (s * s)));
    } else {
      const double mu1 = 2 / s;  // BSA24 Lemma A.5: K(μ) = e^{μ²}Φ(1.5μ) + 3Φ(−0.5μ) − 2
      const double k = std::exp(mu1 * mu1) * normal_cdf(1.5 * mu1) + 3 * normal_cdf(-0.5 * mu1) - 2;
      mu2 = std::isinf(k) ? kInfinity : 2 * q * q * t * k;
    }
    sum += mu2;
  }
  return std::sqrt(sum);
}

namespace {
// μ_CLT within the range where G(μ) can be evaluated, or an error that names it as such.
double checked_clt_mu(const char* fn, const training_run& run) {
  const double mu = clt_mu(run);
  if (!(mu <= 1e6))
    throw_domain_error(fn, "the CLT's mu = q*sqrt(steps*(exp(1/noise-multiplier^2) - 1))", mu,
                       "<= 1e6 (far outside the approximation's range: use the PLD or RDP "
                       "accountant)");
  return mu;
}
}  // namespace

divergence::epsilon_result clt_epsilon(const training_run& run, double delta) {
  check_open_probability("clt_epsilon", "delta", delta);
  // Full batch: the CLT is exact; answer with the certified closed form (rounding included).
  if (run.is_gaussian()) return pld_epsilon(run, delta);
  divergence::epsilon_result r = divergence::gdp_epsilon(checked_clt_mu("clt_epsilon", run), delta);
  r.kind = bound_kind::approximation;
  r.tight = false;
  r.lower = r.upper = NAN;  // an approximation has no bracket
  return r;
}

divergence::delta_result clt_delta(const training_run& run, double epsilon) {
  check_nonnegative("clt_delta", "epsilon", epsilon);
  if (run.is_gaussian()) return pld_delta(run, epsilon);  // exact, certified (as clt_epsilon)
  divergence::delta_result r;
  r.log_value = divergence::gdp_log_delta(checked_clt_mu("clt_delta", run), epsilon);
  r.value = std::exp(r.log_value);
  r.kind = bound_kind::approximation;
  r.tight = false;
  return r;
}

}  // namespace dpkit::accounting
