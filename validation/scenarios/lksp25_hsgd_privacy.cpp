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
// the claim "X_t of noisy SGD is G(μ(1 + a))-DP for this pair" with the Neyman–Pearson
// statistic of the Gaussian pair, ⟨X_t, V⁻¹Δ⟩, on simulated SGD (fresh data per replicate; the
// simulator never sees the bound). The transfer of the HSGD law to SGD rests on the paper's
// Conjecture 3.1 and holds up to O(1/d); a is that error at this d, computed exactly from SGD's
// first two moments over the data (averaged_design_mu, no simulation): 2.3 %, 3.1 %, 3.1 % and
// 1.8 % at seeds 2026, 1, 7, 99 (d = 64), where the simulated μ̂ exceeded the HSGD μ by
// 0.2 %, 2.7 %, 3.2 % and 0.8 % (±2.5 %). (An allowance 4/d = 6 %, set after seed 7 violated the
// claim without one, stood here before.) The claim is then tight, and the verdict of a tight
// claim is inconclusive (boxes straddle it); a violation means SGD's statistic is not the
// Gaussian its exact moments give. The position mixture of
// Thm 4.3 (s uniform, which lowers ε) is not simulated: a known position is the stronger
// adversary, and it is the divergence the trajectory integrates.
//
// That design draws the other d − 1 records afresh for every replicate and for each side, so
// the two sides differ in *every* record: it measures an average over datasets, not the privacy
// of a fixed pair of neighbouring datasets, which is what DP (and LKSP25's "conditioned on D
// and D′, all other datapoints identical") is about. Two scenarios test the fixed pair:
//
//   lksp25-privacy-fixed-pair-exact  the other records drawn once and shared by D and D′, fresh
//                             DP noise per replicate. SGD's X_t is then affine in the noise:
//                             x_{k+1} = A_k x_k + η b_k a_k − ησ z_k, A_k = (1 − ηδ)I − η a_k a_kᵀ,
//                             so X_t | D ~ N(m(D), η²σ² Σ_k P_k P_kᵀ), P_k = A_{t−1}···A_{k+1},
//                             and the pair differs in the mean by Δ = 2ηB P_ℓ a*: X_t is exactly
//                             G(μ_fixed)-DP for this pair, μ_fixed² = ΔᵀC⁻¹Δ (computed here from
//                             the recursion, independently of the HSGD law). The audit of the
//                             simulation against it checks simulator and formula.
//   lksp25-privacy-fixed-pair      the same samples against the HSGD claim G(μ_HSGD(1 + a)).
//                             HSGD's diffusion counts the fluctuation of the other records as
//                             noise; for a fixed pair μ_fixed is about twice μ_HSGD at this
//                             setting, so the claim, read as a DP statement, is refuted (an
//                             expected refutation, docs/findings.md).
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

// The setting shared by the scenarios: the HSGD law, the pair, the HSGD μ and the
// Neyman-Pearson direction of the HSGD law.
struct privacy_setting {
  long long d = 0;
  long steps = 0;
  std::size_t ell0 = 0;
  double gamma = 1.5, ridge = 0.1, label_noise = 0.25, sigma = 0.5, B = 0.75;
  double s = 0, t = 1;
  Eigen::VectorXd lambda, xtilde, x0, a_star;
  hsgd::record first, second;
  double mu = 0, d15 = 0, d2 = 0, d8 = 0;  // the HSGD law's μ and D_α
  // SGD's exact μ over the data (averaged_design_mu) and the HSGD law's error at this d that the
  // claims allow for where SGD's μ exceeds the HSGD μ, never for more: max(0, μ_design/μ − 1).
  double mu_design = 0, allowance = 0;
  Eigen::VectorXd direction;                // V⁻¹Δ of the HSGD law
  sim::noisy_gradient_options options;
};

// The averaged design's exact first two moments (no simulation, no HSGD): with the other records
// drawn afresh, a ~ N(0, Σ) and b = aᵀx̃ + w independent of x_k, one step x' = A x + ηb a − ησz,
// A = cI − η a aᵀ (c = 1 − ηδ), maps the mean m and second moment M = E[x xᵀ] by Isserlis'
// theorem (E[a aᵀ M a aᵀ] = 2ΣMΣ + tr(ΣM)Σ for symmetric M; E[a (aᵀu)(aᵀv) aᵀ] = Σu vᵀΣ + Σv uᵀΣ
// + (uᵀΣv)Σ):
//   m' = (cI − ηΣ) m + ηΣx̃,
//   M' = c²M − cη(ΣM + MΣ) + η²(2ΣMΣ + tr(ΣM)Σ) + η(K + Kᵀ) + η²(2Σx̃x̃ᵀΣ + (x̃ᵀΣx̃ + E w²)Σ)
//        + η²σ²I,   K = c m x̃ᵀΣ − η(Σm x̃ᵀΣ + Σx̃ mᵀΣ + (mᵀΣx̃)Σ);
// the pair's step (a*, b fixed): m' = A*m + ηb a*, M' = A*MA*ᵀ + ηb(A*m a*ᵀ + a* mᵀA*ᵀ) +
// η²b² a*a*ᵀ + η²σ²I. The statistic S = ⟨X_t, w⟩ that lksp25-privacy-last-iterate audits then
// has the exact mean shift and variances on the two sides, and its population μ — the quantity
// μ̂ = (mean′ − mean)/pooled sd estimates — is exact: the HSGD law's approximation error at this d
// is μ_design/μ_HSGD − 1, computed, not fitted (it replaces the allowance 4/d that was set after
// a seed violated). S is a mixture of Gaussians over the data, not Gaussian; the audit's
// tradeoff test reads it as G(μ_design).
double averaged_design_mu(const privacy_setting& p, const Eigen::VectorXd& w) {
  const double eta = p.options.learning_rate, c = 1 - eta * p.ridge;
  const double s2 = p.sigma * p.sigma;
  const Eigen::Index d = static_cast<Eigen::Index>(p.d);
  const auto S = p.lambda.asDiagonal();  // Σ (diagonal: products with it are O(d²))
  const Eigen::VectorXd St = S * p.xtilde;
  const Eigen::MatrixXd Sdense = S;
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(d, d);
  const Eigen::MatrixXd label_term =
      eta * eta * (2 * St * St.transpose() + (p.xtilde.dot(St) + p.label_noise) * Sdense);
  auto moments = [&](const hsgd::record& pair_record, double& mean, double& var) {
    Eigen::VectorXd m = p.x0;
    Eigen::MatrixXd M = p.x0 * p.x0.transpose();
    for (long k = 0; k < p.steps; ++k) {
      if (static_cast<std::size_t>(k) == p.ell0) {
        const Eigen::VectorXd& a = pair_record.a;
        const double b = pair_record.b;
        const Eigen::MatrixXd A = c * I - eta * a * a.transpose();
        const Eigen::VectorXd Am = A * m;
        M = A * M * A.transpose() + eta * b * (Am * a.transpose() + a * Am.transpose()) +
            eta * eta * b * b * a * a.transpose() + eta * eta * s2 * I;
        m = Am + eta * b * a;
        continue;
      }
      const Eigen::MatrixXd SM = S * M;
      const Eigen::VectorXd Sm = S * m;
      const Eigen::MatrixXd K = c * m * St.transpose() -
                                eta * (Sm * St.transpose() + St * Sm.transpose() + m.dot(St) * Sdense);
      M = c * c * M - c * eta * (SM + SM.transpose()) +
          eta * eta * (2 * SM * S + SM.trace() * Sdense) + eta * (K + K.transpose()) + label_term +
          eta * eta * s2 * I;
      m = c * m - eta * Sm + eta * St;
    }
    mean = w.dot(m);
    var = w.dot(M * w) - mean * mean;
  };
  double mean1 = 0, var1 = 0, mean2 = 0, var2 = 0;
  moments(p.first, mean1, var1);
  moments(p.second, mean2, var2);
  return std::abs(mean2 - mean1) / std::sqrt((var1 + var2) / 2);
}

privacy_setting make_setting(const scenario_context& c) {
  privacy_setting p;
  // quick: d = 64; full: d = 128 halves the HSGD approximation's O(1/d) error.
  p.d = c.tier == tier::full ? 128 : 64;
  const double horizon = 1, s_pos = 0.8;  // record at step ℓ = 0.8d + 1, release X_d (t = 1)
  p.steps = static_cast<long>(p.d);
  p.ell0 = static_cast<std::size_t>(std::llround(s_pos * static_cast<double>(p.d)));
  p.lambda.resize(p.d);
  p.xtilde = Eigen::VectorXd::Constant(p.d, 2 / std::sqrt(double(p.d)));
  for (long long i = 0; i < p.d; ++i) p.lambda[i] = 2 * i < p.d ? 1.0 : 0.2;
  p.x0 = Eigen::VectorXd::Zero(p.d);
  const hsgd::gaussian_law law(hsgd::eigenbasis::identity(p.d),
                               {p.lambda.data(), std::size_t(p.d)}, p.x0, p.xtilde,
                               {p.ridge, p.label_noise, p.sigma},
                               volterra::schedule::constant(p.gamma), horizon);
  // The pair: a typical feature vector (a fixed draw from N(0, Σ), stream 7 of replicate 0 of
  // the scenario's seed) with labels a*ᵀx̃ ± B.
  random_stream pair_stream(c.seed, 0, 7);
  p.a_star = sim::gaussian_design(1, p.lambda, pair_stream).row(0).transpose();
  const double b_mid = p.a_star.dot(p.xtilde);
  p.first = {p.a_star, b_mid + p.B};
  p.second = {p.a_star, b_mid - p.B};
  p.s = static_cast<double>(p.ell0) / static_cast<double>(p.d);
  p.d2 = hsgd::renyi_divergence(law, p.first, p.second, p.t, p.s, 2);
  p.mu = std::sqrt(p.d2);  // D_2 = 2μ²/2
  p.d15 = hsgd::renyi_divergence(law, p.first, p.second, p.t, p.s, 1.5);
  p.d8 = hsgd::renyi_divergence(law, p.first, p.second, p.t, p.s, 8);
  const hsgd::neighbouring_law nl =
      hsgd::neighbouring_processes(law, p.first, p.second, p.t, p.s);
  const Eigen::MatrixXd V = nl.covariance(1);
  p.direction = V.ldlt().solve(nl.mean2 - nl.mean1);  // identity basis: original coords
  p.options.batches = sim::batch_rule::one_pass;
  p.options.steps = p.steps;
  p.options.learning_rate = p.gamma / static_cast<double>(p.d);
  p.options.noise = p.sigma;
  p.mu_design = averaged_design_mu(p, p.direction);
  p.allowance = std::max(0.0, p.mu_design / p.mu - 1);
  return p;
}

// A dataset of `steps` Gaussian records (streams base and base + 4 of replicate `rep`) with the
// record at ℓ0 replaced by `rec`.
std::shared_ptr<sim::dataset> pair_dataset(const scenario_context& c,
                                           const privacy_setting& p,
                                           std::uint64_t rep,
                                           std::uint64_t base,
                                           const hsgd::record& rec) {
  random_stream data(c.seed, rep, base), labels(c.seed, rep, base + 4);
  auto ds = std::make_shared<sim::dataset>();
  ds->features = sim::gaussian_design(static_cast<std::size_t>(p.steps), p.lambda, data);
  ds->labels = sim::linear_labels(ds->features, p.xtilde, std::sqrt(p.label_noise), labels);
  ds->features.row(static_cast<Eigen::Index>(p.ell0)) = rec.a.transpose();
  ds->labels[static_cast<Eigen::Index>(p.ell0)] = rec.b;
  return ds;
}

void put_setting(const privacy_setting& p, nlohmann::json& parameters) {
  parameters["d"] = p.d;
  parameters["spectrum"] = "two-level: lambda = 1 (d/2 coordinates), 0.2 (d/2)";
  parameters["ridge_delta"] = p.ridge;
  parameters["label_noise_Ew2"] = p.label_noise;
  parameters["sigma"] = p.sigma;
  parameters["gamma"] = p.gamma;
  parameters["eta"] = p.gamma / static_cast<double>(p.d);
  parameters["steps"] = p.steps;
  parameters["position_s"] = p.s;
  parameters["release_t"] = p.t;
  parameters["label_gap_B"] = p.B;
  parameters["pair"] = "a* ~ N(0, Sigma) (fixed draw), b = a*^T xtilde +- B";
  parameters["mu_hsgd"] = p.mu;
}

scenario_result privacy_last_iterate(const scenario_context& c) {
  // quick: d = 64 and 6 000 replicates per side resolve μ̂ to about ±2.5 % (±0.043 of 1.76;
  // 10 000 gave ±0.033): an excess of SGD's μ over the HSGD μ beyond ~2.5 % is resolved, and the
  // self-check's halved μ is rejected many times over.
  // full: d = 128 and 64 000 replicates.
  const privacy_setting p = make_setting(c);
  const long long d = p.d;
  const std::uint64_t replicates = replicates_for(c, 6000, 64000);
  const double mu = p.mu, d2 = p.d2, d15 = p.d15, d8 = p.d8;
  const double mu_design = p.mu_design, allowance = p.allowance;  // the HSGD law's exact error
  const hsgd::record &first = p.first, &second = p.second;

  // The simulation: one pass of noisy SGD over d fresh Gaussian examples, row ℓ0 replaced by the
  // pair's record; independent data and noise for the two datasets.
  auto release = [&](std::uint64_t rep, std::uint64_t base, const hsgd::record& rec) {
    const sim::least_squares f(pair_dataset(c, p, rep, base, rec), p.ridge);
    return sim::run_noisy_gradient(f, p.options, p.x0, {c.seed, rep, base}).dot(p.direction);
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
  r.title =
      "HSGD Thm 4.3 averaged over datasets: noisy SGD's last iterate against the HSGD law's "
      "Renyi divergence";
  r.source =
      "high-dimensional noisy SGD paper, Thm 4.3 eqs. (11)-(14) (D_alpha(t; s, theta) of the "
      "neighbouring HSGD processes, argument order corrected), Conjecture 3.1; docs/hsgd.md";
  r.claim =
      "approximation (rests on Conjecture 3.1, checked at d = " + std::to_string(d) +
      "), averaged over datasets drawn from the model (each side draws its other records "
      "afresh: not a DP statement, which is about a fixed pair - lksp25-privacy-fixed-pair): "
      "the last iterate X_t of one-pass noisy SGD on two datasets that differ in the label of "
      "the record at position s is G(mu (1 + a))-indistinguishable with mu^2 = D_2(t; s, theta) of "
      "the HSGD "
      "law (a Gaussian mean shift: D_alpha/alpha is the same at every order) and a the HSGD "
      "approximation's exact error at this d (a = max(0, mu_design/mu - 1), mu_design from the "
      "exact first two moments of SGD over the data, no simulation); audited with the "
      "Neyman-Pearson statistic <X_t, V^-1 Delta> of that law";
  audit_gdp_claim(sd, sdp, c.bound_factor * mu * (1 + allowance), r);
  r.replicates = replicates;
  put_setting(p, r.parameters);
  r.parameters["allowance"] = allowance;
  r.parameters["mu_design"] = mu_design;
  r.parameters["replicates"] = replicates;
  r.parameters["tier"] = to_string(c.tier);
  r.notes.push_back("HSGD Renyi divergences of the pair: D_1.5/1.5 = " + sig(d15 / 1.5, 6) +
                    ", D_2/2 = " + sig(d2 / 2, 6) + ", D_8/8 = " + sig(d8 / 8, 6) +
                    " (equal for a Gaussian mean shift: mu^2/2 = " + sig(mu * mu / 2, 6) + ")");
  r.notes.push_back("mu of the HSGD law " + sig(mu, 5) + "; SGD's exact mu over the data "
                    "(moment recursion) " + sig(mu_design, 5) + ", the HSGD law's error " +
                    sig(100 * (mu_design / mu - 1), 3) + "% at d = " + std::to_string(d) +
                    "; claimed mu (1 + a) = " + sig(mu * (1 + allowance), 5) +
                    "; SGD's mu-hat / HSGD mu - 1 = " +
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

// The fixed pair's exact GDP parameter on dataset `ds` (the pair's record at ℓ0, either label):
// X_t = m(D) − ησ Σ_k P_k z_k with P_k = A_{t−1}···A_{k+1}, A_k = (1 − ηδ)I − η a_k a_kᵀ, so
// C = η²σ² Σ_k P_k P_kᵀ and the pair's means differ by Δ = m(D′) − m(D) = −2ηB P_ℓ a*. Returns
// μ = √(ΔᵀC⁻¹Δ) and sets `direction` = C⁻¹Δ (the Neyman–Pearson statistic's direction).
double fixed_pair_mu(const privacy_setting& p, const sim::dataset& ds, Eigen::VectorXd& direction) {
  const double eta = p.options.learning_rate;
  const Eigen::Index d = static_cast<Eigen::Index>(p.d);
  Eigen::MatrixXd P = Eigen::MatrixXd::Identity(d, d);  // P_k, built from the last step down
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(d, d);
  Eigen::VectorXd delta = Eigen::VectorXd::Zero(d);
  for (long k = p.steps - 1; k >= 0; --k) {
    C.noalias() += P * P.transpose();
    if (static_cast<std::size_t>(k) == p.ell0) delta = -2 * eta * p.B * (P * p.a_star);
    const Eigen::VectorXd a = ds.features.row(k).transpose();
    const Eigen::VectorXd Pa = P * a;
    P = (1 - eta * p.ridge) * P - eta * Pa * a.transpose();  // P_{k−1} = P_k A_k
  }
  C *= eta * eta * p.sigma * p.sigma;
  direction = C.ldlt().solve(delta);
  return std::sqrt(delta.dot(direction));
}

// Both fixed-pair scenarios: the other records drawn once (streams 200 and 204 of replicate 0),
// shared by D and D′; fresh, independent DP noise per replicate and side. `hsgd_claim` audits
// the HSGD law's μ(1 + a) (a refutation when violated), otherwise the exact μ_fixed.
scenario_result fixed_pair(const scenario_context& c, bool hsgd_claim) {
  // 6 000 replicates per side (full tier 64 000), as privacy_last_iterate: μ̂ to about ±2.5 %.
  const privacy_setting p = make_setting(c);
  const std::uint64_t replicates = replicates_for(c, 6000, 64000);
  const double allowance = p.allowance;  // that of lksp25-privacy-last-iterate
  const auto first = pair_dataset(c, p, 0, 200, p.first);
  auto second = std::make_shared<sim::dataset>(*first);
  second->labels[static_cast<Eigen::Index>(p.ell0)] = p.second.b;
  Eigen::VectorXd direction;
  const double mu_fixed = fixed_pair_mu(p, *first, direction);
  const sim::least_squares f1(first, p.ridge), f2(second, p.ridge);
  std::vector<double> sd, sdp;
  const std::string id = hsgd_claim ? "lksp25-privacy-fixed-pair" : "lksp25-privacy-fixed-pair-exact";
  sample_pair(
      c, replicates, id,
      [&](std::uint64_t rep, double& x, double& y) {
        x = sim::run_noisy_gradient(f1, p.options, p.x0, {c.seed, rep, 0}).dot(direction);
        y = sim::run_noisy_gradient(f2, p.options, p.x0, {c.seed, rep, 100}).dot(direction);
      },
      sd, sdp);

  scenario_result r;
  r.id = id;
  r.source =
      "high-dimensional noisy SGD paper, Thm 4.3 (D_alpha(t; s, theta) of the neighbouring HSGD "
      "processes, for D and D' whose other records are identical), Conjecture 3.1; "
      "docs/hsgd.md";
  const double claimed = hsgd_claim ? p.mu * (1 + allowance) : mu_fixed;
  if (hsgd_claim) {
    r.title = "HSGD Thm 4.3 for a fixed pair of datasets: noisy SGD's last iterate against the "
              "HSGD law's Renyi divergence";
    r.claim =
        "the paper's claim read as a DP statement: for two datasets that share every other record "
        "and differ in the label of the record at position s, the last iterate X_t of one-pass "
        "noisy SGD is G(mu (1 + a))-DP with mu^2 = D_2(t; s, theta) of the HSGD law and a the "
        "HSGD law's exact error over the data (the allowance of lksp25-privacy-last-iterate)";
  } else {
    r.title = "Noisy SGD's last iterate for a fixed pair of datasets against its exact GDP "
              "parameter";
    r.claim =
        "exact (affine recursion): for two datasets that share every other record and differ in "
        "the label of the record at position s, X_t of one-pass noisy SGD is G(mu_fixed)-DP with "
        "mu_fixed^2 = Delta^T C^-1 Delta, C = eta^2 sigma^2 sum_k P_k P_k^T, Delta = "
        "-2 eta B P_l a* (an exact value: violated on either side, SGD's tradeoff below "
        "G(mu_fixed) or its mu-hat interval wholly below mu_fixed)";
  }
  // The exact claim is tested on both sides (below): Bonferroni over the two, 97.5 % each.
  audit_gdp_claim(sd, sdp, c.bound_factor * claimed, r, hsgd_claim ? 0.95 : 1 - 0.05 / 2);
  // μ_fixed is exact, so the simulation must also not be *less* private than it says: a μ̂ whose
  // interval lies wholly below μ_fixed (the simulator or the recursion wrong on the other side)
  // is violated too. The tradeoff audit above sees only the side a privacy bound can fail on.
  if (!hsgd_claim && !c.self_check && c.bound_factor == 1 && r.verdict != verdict::violated &&
      r.estimate_hi < mu_fixed) {
    r.verdict = verdict::violated;
    r.verdict_reason = "SGD's mu-hat " + sig(r.estimate, 4) + " [" + sig(r.estimate_lo, 4) + ", " +
                       sig(r.estimate_hi, 4) + "] lies wholly below the exact mu_fixed " +
                       sig(mu_fixed, 4) + ": the simulation and the affine recursion disagree";
  }
  // The claim as stated (no self-check, no --bound-factor) that the data reject is the paper's:
  // refuted. A wrong claim audited under the self-check stays violated (caught).
  if (hsgd_claim && r.verdict == verdict::violated && !c.self_check && c.bound_factor == 1) {
    r.verdict = verdict::refuted;
    r.verdict_reason = "refuted as a DP statement: for this fixed pair SGD's mu-hat = " +
                       sig(r.estimate, 4) + " [" + sig(r.estimate_lo, 4) + ", " +
                       sig(r.estimate_hi, 4) + "] and the exact mu_fixed = " + sig(mu_fixed, 4) +
                       " exceed the HSGD mu (1 + a) = " + sig(claimed, 4) +
                       ": HSGD counts the fluctuation of the other records as privacy noise";
  }
  r.replicates = replicates;
  put_setting(p, r.parameters);
  r.parameters["mu_fixed"] = mu_fixed;
  r.parameters["other_records"] = "drawn once (streams 200, 204 of replicate 0), shared by D, D'";
  r.parameters["replicates"] = replicates;
  r.parameters["tier"] = to_string(c.tier);
  if (hsgd_claim) r.parameters["allowance"] = allowance;
  r.notes.push_back("mu of the HSGD law " + sig(p.mu, 5) + " (the average over datasets that "
                    "lksp25-privacy-last-iterate audits); exact mu of this fixed pair " +
                    sig(mu_fixed, 5) + " (ratio " + sig(mu_fixed / p.mu, 3) + "); SGD's mu-hat " +
                    sig(r.estimate, 5));
  r.figure.title = "Noisy SGD (d = " + std::to_string(p.d) +
                   ", one pass, record at s = 0.8), a fixed pair of datasets: last-iterate "
                   "tradeoff vs " +
                   (hsgd_claim ? std::string("the HSGD divergence") : std::string("its exact mu"));
  return r;
}

}  // namespace

void register_hsgd_privacy_scenarios(std::vector<scenario>& out) {
  out.push_back({"lksp25-privacy-last-iterate",
                 "HSGD Thm 4.3: noisy SGD's last iterate against the HSGD Renyi divergence",
                 privacy_last_iterate});
  out.push_back({"lksp25-privacy-fixed-pair-exact",
                 "Noisy SGD's last iterate for a fixed pair of datasets against its exact mu",
                 [](const scenario_context& c) { return fixed_pair(c, false); }});
  out.push_back({"lksp25-privacy-fixed-pair",
                 "HSGD Thm 4.3 for a fixed pair of datasets (refuted as a DP statement)",
                 [](const scenario_context& c) { return fixed_pair(c, true); }});
}

}  // namespace dpkit::validation
