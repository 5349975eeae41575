// Scenarios that need only `divergence` and `sim`: the Gaussian tradeoff G(μ) against sampled
// Gaussian pairs (issue 4, (a) and (b)).
#include <cmath>

#include "../harness/scenarios.hpp"
#include "dpkit/core/random.hpp"

namespace dpkit::validation {
namespace {

scenario_result gaussian_1d(const scenario_context& c) {
  const double mu = 1;
  scenario_result r;
  r.id = "gdp-gaussian-1d";
  r.title = "G(mu) is the tradeoff of N(0,1) vs N(mu,1)";
  r.source = "Dong, Roth & Su (2022) Def. 2.4; BSA24 §2.3";
  r.claim = "T(N(0,1), N(1,1)) >= G(1), with equality";
  r.parameters = {{"mu", mu}};
  std::vector<double> d, dp;
  const std::uint64_t n = replicates_for(c, 20000, 1000000);
  sample_pair(
      c, n, r.id,
      [&](std::uint64_t rep, double& x, double& y) {
        random_stream s(c.seed, rep, 0);
        x = s.normal();
        y = mu + s.normal();
      },
      d, dp);
  audit_gdp_claim(d, dp, c.bound_factor * mu, r);
  r.figure.title = "Gaussian tradeoff G(1) against N(0,1) vs N(1,1) samples";
  return r;
}

scenario_result gaussian_shift(const scenario_context& c) {
  // d = 6, mean shift m = (0.3, 0.3, …) ‖m‖ = 0.3·√6, noise σ = 0.6: μ = ‖m‖/σ ≈ 1.2247.
  const int dim = 6;
  const double shift = 0.3, sigma = 0.6;
  const double mu = shift * std::sqrt(static_cast<double>(dim)) / sigma;
  scenario_result r;
  r.id = "gdp-gaussian-mean-shift";
  r.title = "Multivariate Gaussian mean shift: T = G(|m|/sigma)";
  r.source = "Dong, Roth & Su (2022) Prop. 2.5 (Gaussian mechanism); BSA24 Lemma C.4 (W6)";
  r.claim = "T(N(0, s^2 I), N(m, s^2 I)) >= G(|m|/s) in d = 6, tested on <x, m>/|m|";
  r.parameters = {{"d", dim}, {"shift_per_coordinate", shift}, {"sigma", sigma}, {"mu", mu}};
  std::vector<double> d, dp;
  const std::uint64_t n = replicates_for(c, 20000, 1000000);
  sample_pair(
      c, n, r.id,
      [&](std::uint64_t rep, double& x, double& y) {
        random_stream s(c.seed, rep, 0);
        // The Neyman–Pearson statistic <x, m>/|m| of a full d-dimensional draw.
        double a = 0, b = 0;
        for (int i = 0; i < dim; ++i) {
          a += sigma * s.normal();
          b += shift + sigma * s.normal();
        }
        x = a / std::sqrt(static_cast<double>(dim));
        y = b / std::sqrt(static_cast<double>(dim));
      },
      d, dp);
  // Threshold tests and μ̂ are scale-invariant: no need to standardise by σ.
  audit_gdp_claim(d, dp, c.bound_factor * mu, r);
  r.figure.title = "Gaussian mean shift in d = 6 against G(|m|/σ)";
  return r;
}

}  // namespace

void register_gaussian_scenarios(std::vector<scenario>& out) {
  out.push_back({"gdp-gaussian-1d", "G(mu) against N(0,1) vs N(mu,1)", gaussian_1d});
  out.push_back(
      {"gdp-gaussian-mean-shift", "G(|m|/sigma) against a mean shift in d = 6", gaussian_shift});
}

}  // namespace dpkit::validation
