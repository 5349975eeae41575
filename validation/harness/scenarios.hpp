#pragma once
// Registration of the scenario families, and the shared check used by scenarios whose claim is
// a GDP bound G(μ) on the tradeoff between the laws of a scalar statistic under D and D′.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "harness.hpp"

namespace dpkit::validation {

/// A count as a double (sample sizes, dimensions).
inline double dbl(std::size_t n) {
  return static_cast<double>(n);
}

// One per scenario file of validation/scenarios/ (named by the paper's key), in registry order.
void register_gaussian_scenarios(std::vector<scenario>& out);          // gaussian.cpp
void register_shifted_scenarios(std::vector<scenario>& out);           // bsa24_shifted.cpp
void register_shifted_figure_scenarios(std::vector<scenario>& out);    // bsa24_shifted_figures.cpp
void register_hsgd_scenarios(std::vector<scenario>& out);              // lksp25_hsgd.cpp
void register_hsgd_law_scenarios(std::vector<scenario>& out);          // lksp25_hsgd_law.cpp
void register_hsgd_privacy_scenarios(std::vector<scenario>& out);      // lksp25_hsgd_privacy.cpp
void register_kan_scenarios(std::vector<scenario>& out);               // wsk26_kan.cpp
void register_kan_trend_scenarios(std::vector<scenario>& out);         // wsk26_kan_trends.cpp
void register_kan_scaling_scenarios(std::vector<scenario>& out);       // wsk26_kan_scaling.cpp
void register_correlated_scenarios(std::vector<scenario>& out);        // wsk26_correlated.cpp
void register_nonconvex_scenarios(std::vector<scenario>& out);         // swx23_nonconvex.cpp
void register_nonconvex_thm1_scenarios(std::vector<scenario>& out);    // swx23_nonconvex_thm1.cpp
void register_nonconvex_extra_scenarios(std::vector<scenario>& out);   // swx23_nonconvex_extra.cpp
void register_mlp_scenarios(std::vector<scenario>& out);               // swx23_mlp.cpp
void register_longtail_scenarios(std::vector<scenario>& out);          // zxd26_longtail.cpp
void register_mlp_extra_scenarios(std::vector<scenario>& out);         // swx23_mlp_extra.cpp
void register_mlp_scaling_scenarios(std::vector<scenario>& out);       // swx23_mlp_scaling.cpp
void register_longtail_lemma_scenarios(std::vector<scenario>& out);    // zxd26_longtail_lemmas.cpp
void register_longtail_trained_scenarios(std::vector<scenario>& out);  // zxd26_longtail_trained.cpp
void register_nonconvex_rate_scenarios(std::vector<scenario>& out);    // swx23_nonconvex_rates.cpp
void register_longtail_trend_scenarios(std::vector<scenario>& out);    // zxd26_longtail_trends.cpp

/// x to `digits` significant digits (printf %g), for notes and legends.
std::string sig(double x, int digits = 4);

/// Two-sided standard normal quantile z with P(|Z| ≤ z) = confidence.
double normal_quantile(double confidence);
/// The Student t multiplier with the same two-sided coverage as the normal multiplier z, for
/// the mean of n replicates (n − 1 degrees of freedom); +inf for n < 2. Scenarios with few
/// replicates use it: a normal quantile under-covers there (at n = 3 the 95 % normal interval
/// covers about 81 %), the t interval is exact for normal data at any n.
double t_multiplier(double z, std::size_t n);

/// An equality claim audited as an equivalence (docs/validation.md, "Equality claims"), given an
/// interval difference ± half_width on the gap between the measured and the claimed value and a
/// margin fixed before the run. holds only when the interval lies wholly inside ±margin; "no
/// significant difference" alone is never "holds". An exact claim (an identity, an exact
/// recursion) is violated when the interval excludes 0: any gap refutes it. An approximate claim
/// ("equal up to the finite-d error") is violated only when the interval lies wholly beyond the
/// margin. Otherwise inconclusive: the run does not resolve a gap of the margin's size.
enum class equality { exact, approximate };
verdict equivalence_verdict(double difference, double half_width, double margin, equality kind);
/// Several equivalence checks of one claim together: violated if one is, else inconclusive if
/// one is, else holds.
verdict combine_equivalence(verdict a, verdict b);

/// A name written in ASCII for notes (eps = 0.1, beta = sqrt(n)) as figure text: the whole words
/// eps, epsilon, delta, alpha, beta, gamma, eta, theta, kappa, lambda, mu, sigma, tau as Greek
/// letters, sqrt(x) as √x.
std::string legend_words(std::string text);

/// Appends the point (x, mean of `m`) to a figure series with its two-sided `confidence`
/// interval, mean ± t·se (Student t for the replicate count), as the point's y interval.
void push_mean(series& s, double x, const sim::moments& m, double confidence = 0.95);

/// The sample mean of v (v non-empty), and its standard error sd/√n with the unbiased sd
/// (n ≥ 2).
double mean_of(const std::vector<double>& v);
double se_of(const std::vector<double>& v);
/// Mean and standard error of a (n ≥ 2), summed as Σ v/N (the ZXD+26 scenarios' order).
std::pair<double, double> mean_se(const std::vector<double>& a);
/// Mean and standard error of a_i − f·b_i (paired by replicate; n ≥ 2).
std::pair<double, double> paired_mean_se(const std::vector<double>& a,
                                         const std::vector<double>& b,
                                         double f);
/// "mean +- half" with 4 and 3 significant digits.
std::string interval_text(double mean, double half);
/// A figure series with these points and style ("lines", "points", …).
series make_series(std::string name,
                   std::vector<double> x,
                   std::vector<double> y,
                   std::string style = "lines");

/// The OLS slope of log(mean_j) on log(x_j), with a delta-method standard error from the
/// replicates' sample covariance: column j holds the replicates' values at x_j, and the columns
/// come from the same replicates (one run read at several x, or paired runs), so their means are
/// correlated and the covariance is kept. `positive` is false (and slope, se NaN) unless every
/// mean is > 0.
struct slope_fit {
  double slope = NAN, se = NAN;
  bool positive = false;
};
slope_fit log_log_slope(const std::vector<double>& x,
                        const std::vector<std::vector<double>>& columns);

/// Monte Carlo options from the context (seed, threads, progress) with these replicates and
/// progress label.
sim::monte_carlo_options mc_options(const scenario_context& c,
                                    std::uint64_t replicates,
                                    std::string label);

/// Replicates per side for a tier (quick: CI-sized; full: paper-scale, never fewer than quick).
std::uint64_t replicates_for(const scenario_context& c, std::uint64_t quick, std::uint64_t full);

/// Draws one value of the statistic under D and one under D′ for a replicate.
using pair_draw = std::function<void(std::uint64_t replicate, double& d, double& dprime)>;

/// Runs `replicates` Monte Carlo replicates of `draw` with the context's seed, threads and
/// progress, keeping both samples (by replicate index).
void sample_pair(const scenario_context& c,
                 std::uint64_t replicates,
                 const std::string& label,
                 const pair_draw& draw,
                 std::vector<double>& d,
                 std::vector<double>& dprime);

/// Runs `o` on the model pair (base on D, neighbour on D′) from 0 with independent noises
/// (streams 0 and 100 of each replicate) and records ⟨X_t, e_0⟩ under each — the Neyman–Pearson
/// statistic of BSA24's constructions, whose two laws differ only in the mean along e_0.
void run_pair(const scenario_context& c,
              std::uint64_t replicates,
              const sim::model& base,
              const sim::model& neighbour,
              const sim::noisy_gradient_options& o,
              const std::string& label,
              std::vector<double>& d,
              std::vector<double>& dprime);

/// Audits samples of a statistic under D (samples_d) and D′ (samples_dprime, tending larger)
/// against the claim T(D, D′) ≥ f for a tradeoff function f (`curve_name` labels it in the
/// figure): the empirical tradeoff with Clopper–Pearson boxes (thresholds from a 10 % pilot,
/// Bonferroni, 95 % simultaneous), the verdict of dpkit::sim::audit_tradeoff, the smallest gap
/// β̂ − f(α̂) with the range the boxes allow, and the figure. Fills every field of `r` except
/// id, title, source, claim and parameters; tightness is NaN (no scalar parameter).
void audit_tradeoff_claim(std::span<const double> samples_d,
                          std::span<const double> samples_dprime,
                          const std::function<double(double)>& f,
                          const std::string& curve_name,
                          scenario_result& r,
                          double confidence = 0.95);

/// The same for f = G(mu_claim), adding the μ estimate:
/// against the claim T(D, D′) ≥ G(mu_claim): the empirical tradeoff with Clopper–Pearson boxes
/// (Bonferroni over thresholds, 95 % simultaneous), the verdict of dpkit::sim::audit_tradeoff,
/// the estimate μ̂ = (mean′ − mean)/pooled sd with a normal-approximation 95 % interval (exact
/// for Gaussian pairs in the limit), tightness = mu_claim/μ̂, and the figure (claimed curve and
/// empirical boxes). Fills every field of `r` except id, title, source, claim and parameters.
/// `confidence` is simultaneous over the thresholds (and the μ interval's level); scenarios
/// auditing k configurations pass 1 − 0.05/k (Bonferroni).
void audit_gdp_claim(std::span<const double> samples_d,
                     std::span<const double> samples_dprime,
                     double mu_claim,
                     scenario_result& r,
                     double confidence = 0.95);

}  // namespace dpkit::validation
