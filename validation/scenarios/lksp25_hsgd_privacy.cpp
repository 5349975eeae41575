// The privacy of noisy SGD against the Rényi divergences of the HSGD law (high-dimensional
// noisy SGD paper: Thm 4.3's D_α(t; s, θ), docs/hsgd.md):
//
//   lksp25-privacy-last-iterate  one-pass noisy SGD on Gaussian least squares, two neighbouring
//                             datasets that differ in the record used at step ℓ (position
//                             s = (ℓ − 1)/d); the released last iterate X_t is audited against
//                             the tradeoff that the HSGD law's Rényi divergence implies.
//
// The pair shares its feature vector a* and differs in the label, b = a*ᵀx̃ ± B: then both
// neighbouring HSGD processes have the same covariance (the jump's C_i = I − h(a*a*ᵀ + δI) is
// common) and differ only in the mean, Δ = 2hB ψ∘a*, so the HSGD law of X_t is a Gaussian
// mean shift: D_α = αμ²/2 at every order with μ² = ΔᵀV⁻¹Δ, i.e. exactly G(μ)-DP. The scenario
// reads μ off hsgd::renyi_divergence at α = 2 (and checks D_α/α at two other orders), and audits
// the claim "X_t of noisy SGD is G(μ(1 + 4/d))-DP for this pair" with the Neyman–Pearson
// statistic of the Gaussian pair, ⟨X_t, V⁻¹Δ⟩, on simulated SGD (fresh data per replicate; the
// simulator never sees the bound). The transfer of the HSGD law to SGD rests on the paper's
// Conjecture 3.1 and holds up to O(1/d), so the claim is an approximation with a stated
// allowance, checked at this dimension, not a theorem. Measured (quick tier, d = 64, 10 000
// replicates, seeds 2026, 1, 7, 99): SGD's μ̂ exceeds the HSGD μ by 0.2 %, 2.7 %, 3.2 % and
// 0.8 % (±1.8 %): without an allowance the exact-μ claim is violated at seed 7. The allowance
// 4/d = 6 % covers that; a violation means the HSGD divergence understates SGD's privacy loss by
// more than it. The position mixture of
// Thm 4.3 (s uniform, which lowers ε) is not simulated: a known position is the stronger
// adversary, and it is the divergence the trajectory integrates.
#include <Eigen/Dense>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "../harness/scenarios.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/hsgd/law.hpp"
#include "dpkit/hsgd/privacy.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/sim/models.hpp"
#include "dpkit/volterra/schedule.hpp"

namespace dpkit::validation {
namespace {

scenario_result privacy_last_iterate(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  // quick: d = 64 and 6 000 replicates per side resolve μ̂ to about ±2.5 % (±0.043 of 1.76;
  // 10 000 gave ±0.033): an excess of SGD's μ over the HSGD μ beyond ~2.5 % is resolved, and the
  // self-check's halved μ is rejected many times over; the stated 4/d allowance is 6.25 %.
  // full: d = 128 halves the HSGD approximation's O(1/d) error and 64 000 replicates its noise.
  const long long d = full ? 128 : 64;
  const std::uint64_t replicates = replicates_for(c, 6000, 64000);
  const double gamma = 1.5, ridge = 0.1, label_noise = 0.25, sigma = 0.5, B = 0.75;
  const double horizon = 1, s_pos = 0.8, t = 1;  // record at step ℓ = 0.8d + 1, release X_d
  const long steps = static_cast<long>(d);
  const auto ell0 = static_cast<std::size_t>(std::llround(s_pos * static_cast<double>(d)));
  Eigen::VectorXd lambda(d), xtilde = Eigen::VectorXd::Constant(d, 2 / std::sqrt(double(d)));
  for (long long i = 0; i < d; ++i) lambda[i] = 2 * i < d ? 1.0 : 0.2;
  const Eigen::VectorXd x0 = Eigen::VectorXd::Zero(d);
  const hsgd::gaussian_law law(hsgd::eigenbasis::identity(d), {lambda.data(), std::size_t(d)},
                               x0, xtilde, {ridge, label_noise, sigma},
                               volterra::schedule::constant(gamma), horizon);
  // The pair: a typical feature vector (a fixed draw from N(0, Σ), stream 7 of replicate 0 of
  // the scenario's seed) with labels a*ᵀx̃ ± B.
  random_stream pair_stream(c.seed, 0, 7);
  const Eigen::VectorXd a_star = sim::gaussian_design(1, lambda, pair_stream).row(0).transpose();
  const double b_mid = a_star.dot(xtilde);
  const hsgd::record first{a_star, b_mid + B}, second{a_star, b_mid - B};
  const double s = static_cast<double>(ell0) / static_cast<double>(d);
  const double d2 = hsgd::renyi_divergence(law, first, second, t, s, 2);
  const double mu = std::sqrt(d2);  // D_2 = 2μ²/2
  const double allowance = 4 / static_cast<double>(d);  // the O(1/d) of Conjecture 3.1 (above)
  const double d15 = hsgd::renyi_divergence(law, first, second, t, s, 1.5);
  const double d8 = hsgd::renyi_divergence(law, first, second, t, s, 8);
  const hsgd::neighbouring_law nl = hsgd::neighbouring_processes(law, first, second, t, s);
  const Eigen::MatrixXd V = nl.covariance(1);
  const Eigen::VectorXd delta = nl.mean2 - nl.mean1;
  const Eigen::VectorXd direction = V.ldlt().solve(delta);  // identity basis: original coords

  // The simulation: one pass of noisy SGD over d fresh Gaussian examples, row ℓ0 replaced by the
  // pair's record; independent data and noise for the two datasets.
  sim::noisy_gradient_options o;
  o.batches = sim::batch_rule::one_pass;
  o.steps = steps;
  o.learning_rate = gamma / static_cast<double>(d);
  o.noise = sigma;
  const double label_sd = std::sqrt(label_noise);
  auto release = [&](std::uint64_t rep, std::uint64_t base, const hsgd::record& rec) {
    random_stream data(c.seed, rep, base), labels(c.seed, rep, base + 4);
    auto ds = std::make_shared<sim::dataset>();
    ds->features = sim::gaussian_design(static_cast<std::size_t>(steps), lambda, data);
    ds->labels = sim::linear_labels(ds->features, xtilde, label_sd, labels);
    ds->features.row(static_cast<Eigen::Index>(ell0)) = rec.a.transpose();
    ds->labels[static_cast<Eigen::Index>(ell0)] = rec.b;
    const sim::least_squares f(ds, ridge);
    return sim::run_noisy_gradient(f, o, x0, {c.seed, rep, base}).dot(direction);
  };
  std::vector<double> sd, sdp;
  sample_pair(
      c, replicates, "lksp25-privacy-last-iterate",
      [&](std::uint64_t rep, double& x, double& y) {
        x = release(rep, 0, first);
        y = release(rep, 100, second);
      },
      sd, sdp);

  scenario_result r;
  r.id = "lksp25-privacy-last-iterate";
  r.title = "HSGD Thm 4.3: noisy SGD's last iterate against the HSGD law's Renyi divergence";
  r.source =
      "high-dimensional noisy SGD paper, Thm 4.3 eqs. (11)-(14) (D_alpha(t; s, theta) of the "
      "neighbouring HSGD processes, argument order corrected), Conjecture 3.1; docs/hsgd.md";
  r.claim =
      "approximation (rests on Conjecture 3.1, checked at d = " + std::to_string(d) +
      "): the last iterate X_t of one-pass noisy SGD on two datasets that differ in the label of "
      "the record at position s is G(mu (1 + 4/d))-DP with mu^2 = D_2(t; s, theta) of the HSGD "
      "law (a Gaussian mean shift: D_alpha/alpha is the same at every order; 4/d allows for the "
      "O(1/d) error of the HSGD approximation); audited with the Neyman-Pearson statistic "
      "<X_t, V^-1 Delta> of that law";
  audit_gdp_claim(sd, sdp, c.bound_factor * mu * (1 + allowance), r);
  r.replicates = replicates;
  r.parameters = {{"d", d},
                  {"spectrum", "two-level: lambda = 1 (d/2 coordinates), 0.2 (d/2)"},
                  {"ridge_delta", ridge},
                  {"label_noise_Ew2", label_noise},
                  {"sigma", sigma},
                  {"gamma", gamma},
                  {"eta", gamma / static_cast<double>(d)},
                  {"steps", steps},
                  {"position_s", s},
                  {"release_t", t},
                  {"label_gap_B", B},
                  {"pair", "a* ~ N(0, Sigma) (fixed draw), b = a*^T xtilde +- B"},
                  {"mu_hsgd", mu},
                  {"allowance", allowance},
                  {"replicates", replicates},
                  {"tier", to_string(c.tier)}};
  r.notes.push_back("HSGD Renyi divergences of the pair: D_1.5/1.5 = " + sig(d15 / 1.5, 6) +
                    ", D_2/2 = " + sig(d2 / 2, 6) + ", D_8/8 = " + sig(d8 / 8, 6) +
                    " (equal for a Gaussian mean shift: mu^2/2 = " + sig(mu * mu / 2, 6) + ")");
  r.notes.push_back("mu of the HSGD law " + sig(mu, 5) + "; claimed mu (1 + 4/d) = " +
                    sig(mu * (1 + allowance), 5) + "; SGD's mu-hat / HSGD mu - 1 = " +
                    sig(100 * (r.estimate / mu - 1), 3) + "% [" +
                    sig(100 * (r.estimate_lo / mu - 1), 3) + "%, " +
                    sig(100 * (r.estimate_hi / mu - 1), 3) +
                    "%] (how much the HSGD law understates SGD's privacy loss for this pair)");
  r.notes.push_back(
      "not simulated: Thm 4.3's mixture over a uniform position s (smaller epsilon), the "
      "J-iterate and average releases (Thms 4.4, 4.5); the full tier runs d = 128");
  r.figure.title = "Noisy SGD (d = " + std::to_string(d) +
                   ", one pass, record at s = 0.8): last-iterate tradeoff vs the HSGD divergence";
  return r;
}

}  // namespace

void register_hsgd_privacy_scenarios(std::vector<scenario>& out) {
  out.push_back({"lksp25-privacy-last-iterate",
                 "HSGD Thm 4.3: noisy SGD's last iterate against the HSGD Renyi divergence",
                 privacy_last_iterate});
}

}  // namespace dpkit::validation
