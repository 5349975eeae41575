// LKSP25 Figure 1(a) as a scenario: the last iterate of one-pass noisy SGD against the Gaussian
// law (10) of noisy HSGD (Conjecture 3.1, distributional equivalence). The law comes from
// dpkit::hsgd; the simulator (sim::run_noisy_gradient, batch_rule::one_pass) never sees it.
#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <memory>

#include "../harness/scenarios.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/hsgd/law.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/sim/models.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "dpkit/volterra/spectrum.hpp"

namespace dpkit::validation {
namespace {

// n records of LKSP25's design (a_ij iid U(0, 1/√d), sim::uniform_design) with labels
// aᵀx̃ + N(0, label_var) (sim::linear_labels, not clamped).
sim::dataset lksp25_data(long long n,
                          long long d,
                          const Eigen::VectorXd& xt,
                          double label_var,
                          random_stream& features,
                          random_stream& labels) {
  sim::dataset out;
  out.features = sim::uniform_design(std::size_t(n), std::size_t(d), features);
  out.labels = sim::linear_labels(out.features, xt, std::sqrt(label_var), labels);
  return out;
}

// LKSP25 Fig. 1(a): N runs of Algorithm 1 on one dataset from one x0 with fresh DP noise; the
// Mahalanobis distances D² = Σ_k (x̂_k − m̂_k)²/w_k of the last iterate under the law N(m, V)
// (eigen-coordinates, V diagonal) must be χ²_d, and the direction of the spike u = 𝟏/√d (where a
// misspecified Σ shows) must be standard normal. Three checks, each at
// 0.05/3 (Bonferroni): KS of D² against χ²_d, the mean and the variance of the standardised
// spike coordinate.
scenario_result mahalanobis_qq(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const long long d = full ? 1000 : 200, n = full ? 1500 : 300;
  // quick: 1000 runs detect a KS distance of D^2 from chi^2_d above ~0.05, a spike-coordinate
  // mean offset above ~0.076 sd and a variance off by more than ~0.11 (2000: 0.035, 0.054, 0.076);
  // smaller departures of the finite-d law are not resolved (the ~0.1 sd spike offsets that 2000
  // runs reject at some seeds, e.g. 7, are at the edge of this resolution).
  const std::uint64_t runs = replicates_for(c, 1000, 10000);
  const double eta = 0.05, gamma = eta * static_cast<double>(d), ridge = 0.1, sigma = 1.5;
  const double label_var = 0.01 / static_cast<double>(d), T = double(n) / double(d);
  // The paper's instance (as its released code draws it): x̃, a_ij iid U(0, 1/√d), x0 ~ N(0, 4I),
  // labels aᵀx̃ + ξ.
  const volterra::lksp25_vectors start = volterra::lksp25_start(d, 2, c.seed, 10);
  const Eigen::VectorXd &xt = start.xtilde, &x0 = start.x0;
  random_stream feat(c.seed, 0, 11), lab(c.seed, 0, 12);
  auto data = std::make_shared<sim::dataset>(lksp25_data(n, d, xt, label_var, feat, lab));
  const sim::least_squares f(data, ridge);
  sim::noisy_gradient_options o;
  o.batches = sim::batch_rule::one_pass;
  o.steps = static_cast<long>(n);
  o.learning_rate = eta;
  o.noise = sigma;

  // The law at T with the design's true Σ = I/(12d) + 𝟏𝟏ᵀ/(4d).
  const hsgd::gaussian_law law = hsgd::gaussian_law::lksp25_design(
      x0, xt, {ridge, label_var, sigma}, volterra::schedule::constant(gamma), T);
  // The released code's law (Σ = I/(12d), isotropic): its spike-direction fit is reported, and
  // it is the self-check's wrong claim — the plausible one, the law the paper's own code draws
  // (self_checks.cpp). --bound-factor F scales the claimed standard deviations instead (0.5: a
  // law twice too narrow).
  const hsgd::gaussian_law code_law(
      hsgd::eigenbasis::identity(d), std::vector<double>(std::size_t(d), 1 / (12.0 * double(d))),
      x0, xt, {ridge, label_var, sigma}, volterra::schedule::constant(gamma), T);
  const Eigen::VectorXd m_code = code_law.mean(T);
  const double w_code = code_law.variances(T)[0];
  const Eigen::VectorXd u = Eigen::VectorXd::Constant(d, 1 / std::sqrt(double(d)));
  const bool released = c.self_check;
  const hsgd::gaussian_law& claimed = released ? code_law : law;
  const Eigen::VectorXd m = claimed.mean(T);
  const Eigen::VectorXd w =
      claimed.variances(T) * (released ? 1.0 : c.bound_factor * c.bound_factor);
  // The spike direction 𝟏/√d in eigen-coordinates: the eigen-coordinate of the largest λ
  // (lksp25_design: group 0 is λ_1 = 1/4 + 1/(12d), coordinate 0); the released law is
  // isotropic, so there the spike coordinate is the projection on 𝟏/√d.
  const Eigen::Index top = 0;
  std::vector<double> d2, z, z_code;
  {
    const sim::monte_carlo_options mc = mc_options(c, runs, "lksp25-fig1a-mahalanobis");
    auto res = sim::run_monte_carlo(
        {{"d2", true}, {"z", true}, {"z_code", true}},
        [&](std::uint64_t r, std::span<double> out) {
          const Eigen::VectorXd x = sim::run_noisy_gradient(f, o, x0, {c.seed, r, 0});
          const Eigen::VectorXd e = claimed.basis().to_eigen(x) - m;
          out[0] = (e.array().square() / w.array()).sum();
          out[2] = u.dot(x - m_code) / std::sqrt(w_code);
          out[1] = released ? out[2] : e[top] / std::sqrt(w[top]);
        },
        mc);
    d2 = std::move(res.observables[0].samples);
    z = std::move(res.observables[1].samples);
    z_code = std::move(res.observables[2].samples);
  }
  const double N = static_cast<double>(runs);
  const double level = 0.05 / 3;
  // KS against χ²_d; the asymptotic Kolmogorov critical value sqrt(ln(2/level)/(2N)).
  std::vector<double> sorted = d2;
  std::sort(sorted.begin(), sorted.end());
  const boost::math::chi_squared chi(static_cast<double>(d));
  double ks = 0;
  for (std::size_t j = 0; j < sorted.size(); ++j) {
    const double F = boost::math::cdf(chi, sorted[j]);
    ks = std::max({ks, F - double(j) / N, double(j + 1) / N - F});
  }
  const double ks_crit = std::sqrt(std::log(2 / level) / (2 * N));
  // Spike direction: mean 0 (se 1/√N), variance 1 (se √(2/N), normal approximation).
  double mean = 0, var = 0;
  for (double v : z) mean += v / N;
  for (double v : z) var += (v - mean) * (v - mean) / (N - 1);
  const double zc =
      boost::math::quantile(boost::math::complement(boost::math::normal(), level / 2));
  // "Is the law" at finite d is an approximate equality, audited as an equivalence
  // (equivalence_verdict) with margins fixed as the departure a QQ plot of Fig. 1(a)'s kind
  // would show: a CDF gap of 0.1 (the KS distance, with its DKW band), a spike mean offset of
  // 0.2 sd, a spike variance off by 0.2. holds when every band lies inside its margin; violated
  // when one lies wholly beyond it (a departure larger than the margin); inconclusive otherwise.
  // A finite-d departure smaller than the margin (a ~0.1 sd spike offset at some seeds, which
  // 1 000 runs can resolve from 0) is within the claim.
  constexpr double ks_margin = 0.1, mean_margin = 0.2, var_margin = 0.2;
  const double mean_band = zc / std::sqrt(N), var_band = zc * std::sqrt(2 / N);
  // The KS distance to χ²_d lies in [ks − ks_crit, ks + ks_crit] (DKW) with the same confidence.
  const verdict ks_v = equivalence_verdict(ks, ks_crit, ks_margin, equality::approximate);
  const verdict mean_v = equivalence_verdict(mean, mean_band, mean_margin, equality::approximate);
  const verdict var_v = equivalence_verdict(var - 1, var_band, var_margin, equality::approximate);
  const verdict law_verdict = combine_equivalence(combine_equivalence(ks_v, mean_v), var_v);

  scenario_result r;
  r.id = "lksp25-fig1a-mahalanobis";
  r.title = "Noisy SGD's last iterate against the HSGD law (10): Mahalanobis QQ";
  r.source = "LKSP25 Fig. 1(a), Conjecture 3.1, eq. (10)";
  r.claim =
      "the last iterate of one-pass noisy SGD is N(m(T), V(T)) of noisy HSGD: D^2 ~ chi^2_d and "
      "the spike coordinate standard normal (an approximation at finite d, checked at 95% as an "
      "equivalence: KS distance, |spike mean| and |spike variance - 1| within 0.1, 0.2 sd and "
      "0.2 with their bands)";
  r.parameters = {{"d", d},         {"n", n},         {"eta", eta},   {"gamma", gamma},
                  {"ridge", ridge}, {"sigma", sigma}, {"runs", runs}, {"sigma_model", "design"}};
  r.verdict = law_verdict;
  if (r.verdict == verdict::violated) {
    r.verdict_reason = "the law is rejected:";
    if (ks_v == verdict::violated) r.verdict_reason += " KS";
    if (mean_v == verdict::violated) r.verdict_reason += " spike mean";
    if (var_v == verdict::violated) r.verdict_reason += " spike variance";
    r.verdict_reason += " beyond its margin with its whole 98.3% band";
  } else if (r.verdict == verdict::inconclusive) {
    r.verdict_reason =
        "no departure resolved, but a 98.3% band reaches past its margin (KS 0.1, spike mean "
        "0.2 sd, spike variance 0.2): equality not shown at this size";
  } else {
    r.verdict_reason =
        "equivalent: KS of D^2 against chi^2_d and the spike direction's mean and variance, "
        "with their 98.3% bands, all lie within their margins (KS 0.1, mean 0.2 sd, variance "
        "0.2)";
  }
  r.parameters["equivalence_margins"] = {{"ks", ks_margin},
                                         {"spike_mean_sd", mean_margin},
                                         {"spike_variance", var_margin}};
  r.quantity = "KS distance of D^2 vs chi^2_d";
  r.bound = ks_crit;
  r.estimate = ks;
  r.estimate_lo = r.estimate_hi = ks;
  r.confidence = 0.95;
  r.tightness = std::nan("");
  r.replicates = runs;
  r.notes.push_back("KS " + format_value(ks) + " (critical " + format_value(ks_crit) +
                    "); spike coordinate mean " + format_value(mean) + " (band +-" +
                    format_value(zc / std::sqrt(N)) + "), variance " + format_value(var) +
                    " (band 1 +- " + format_value(zc * std::sqrt(2 / N)) + ")");
  double mean_c = 0, var_c = 0;
  for (double v : z_code) mean_c += v / N;
  for (double v : z_code) var_c += (v - mean_c) * (v - mean_c) / (N - 1);
  r.notes.push_back(
      "with the released code's Sigma = I/(12d) instead (reported, "
      "not checked): spike-direction mean offset " +
      format_value(mean_c) + " sd, variance ratio " + format_value(var_c));
  r.notes.push_back(
      "the same dataset and x0 for every run, fresh DP noise (as LKSP25 Fig. 1(a)); Sigma is the "
      "design's E[a a'] (the released code's I/(12d) misplaces the spike direction)");
  r.figure.title = "Mahalanobis QQ of noisy SGD's last iterate (d = " + std::to_string(d) + ")";
  r.figure.x_label = "χ^2_d quantile";
  r.figure.y_label = "sorted D^2";
  series qq, diag;
  qq.name = "Monte Carlo (" + std::to_string(runs) + " runs)";
  qq.style = "points";
  const std::size_t stride = std::max<std::size_t>(1, sorted.size() / 400);
  for (std::size_t j = 0; j < sorted.size(); j += stride) {
    qq.x.push_back(boost::math::quantile(chi, (double(j) + 0.5) / N));
    qq.y.push_back(sorted[j]);
  }
  diag.name = "45° line";
  diag.x = {qq.x.front(), qq.x.back()};
  diag.y = diag.x;
  r.figure.data = {diag, qq};
  return r;
}

// LKSP25 Fig. 3(a): clipped one-pass noisy SGD, clip_c of the whole
// per-example gradient (δx included) before the noise, one shared noise sequence for every c.
// The paper's claims, with the released code's x0 ~ N(0, 4I) (with N(0, I) clipping is inactive):
// c = 3 raises the transient risk, c = 7 has no effect, all curves coincide at the end. Checked
// on paired differences (same data and noise per replicate), each at 0.05/3 (Bonferroni).
scenario_result clipped_sgd(const scenario_context& c) {
  const long long d = 1000, n = 1500;
  // quick: 24 runs resolve the rise at c = 3 at >= 3.6x its 98.3% half-width (seeds 2026, 1, 7;
  // 30 gave >= 4.3x, both at the former 98.3% bands); an effect of c = 7, or a gap at k = n, under
  // ~1/4 of that rise is not resolved. (The k = n check is a null test on differences of ~1e-6:
  // with normal quantiles at 15 runs it raised a false alarm at seed 2026.)
  const std::uint64_t runs = replicates_for(c, 24, 1000);
  const double eta = 0.05, ridge = 0.1, sigma = 1.5, label_var = 0.01 / double(d);
  const volterra::lksp25_vectors start = volterra::lksp25_start(d, 2, c.seed, 20);
  const Eigen::VectorXd &xt = start.xtilde, &x0 = start.x0;
  // Population risk with the design's Σ = I/(12d) + 𝟏𝟏ᵀ/(4d).
  auto risk = [&](const Eigen::VectorXd& x) {
    const Eigen::VectorXd e = x - xt;
    return 0.5 * (e.squaredNorm() / (12.0 * double(d)) + e.sum() * e.sum() / (4.0 * double(d)) +
                  label_var);
  };
  const std::vector<long> checkpoints = {12, 24, 36, 48, 72, 96, 144, 200, 300, 600, 1500};
  // 0: no clipping. The bound factor F moves the "no effect" level to 7F (F = 0.5: c = 3.5,
  // which does have an effect, so the claim must be refuted).
  const double clips[4] = {0, 3, 5, 7 * c.bound_factor};
  std::vector<sim::observable> obs;
  for (double cl : clips)
    for (long k : checkpoints) {
      // Appended, not "c" + …: GCC 12 at -O3 warns falsely (-Wrestrict, GCC bug 105651) on
      // const char* + std::string.
      std::string name = format_value(cl);
      name.insert(name.begin(), 'c');
      name += "_k" + std::to_string(k);
      obs.push_back({name, true});
    }
  const sim::monte_carlo_options mc = mc_options(c, runs, "lksp25-fig3a-clipped");
  const auto res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t r, std::span<double> out) {
        // Fresh data per replicate (streams 30, 31), shared by the four clip levels.
        random_stream feat(c.seed, r, 30), lab(c.seed, r, 31);
        auto data = std::make_shared<sim::dataset>(lksp25_data(n, d, xt, label_var, feat, lab));
        const sim::least_squares f(data, ridge);
        for (std::size_t v = 0; v < 4; ++v) {
          sim::noisy_gradient_options o;
          o.batches = sim::batch_rule::one_pass;
          o.steps = static_cast<long>(n);
          o.learning_rate = eta;
          o.noise = sigma;
          o.clip = clips[v];
          std::size_t next = 0;
          sim::run_noisy_gradient(f, o, x0, {c.seed, r, 0},  // same noise key for every c
                                  [&](long step, const sim::vector& x) {
                                    if (next < checkpoints.size() && step == checkpoints[next])
                                      out[v * checkpoints.size() + next++] = risk(x);
                                  });
        }
      },
      mc);
  // Bonferroni over the 23 intervals that can decide the verdict: the rise at c = 3 at each of 10
  // transient checkpoints, c = 7 at all 11, and c = 3 and 5 at k = n.
  const double N = static_cast<double>(runs), level = 0.05 / 23;
  // Student t for the paired differences of `runs` replicates.
  const double zc = t_multiplier(
      boost::math::quantile(boost::math::complement(boost::math::normal(), level / 2)), runs);
  // Paired difference (clip level v minus no clipping) at checkpoint j: mean and its half-width.
  auto diff = [&](std::size_t v, std::size_t j) {
    const auto& a = res.observables[v * checkpoints.size() + j].samples;
    const auto& b = res.observables[j].samples;
    double mean = 0, var = 0;
    for (std::size_t i = 0; i < a.size(); ++i) mean += (a[i] - b[i]) / N;
    for (std::size_t i = 0; i < a.size(); ++i) var += std::pow(a[i] - b[i] - mean, 2) / (N - 1);
    return std::pair<double, double>{mean, zc * std::sqrt(var / N)};
  };
  // (i) c = 3 raises the transient risk: some checkpoint's difference above its band.
  double best3 = -std::numeric_limits<double>::infinity(), best3_hw = 0;
  long best3_k = 0;
  for (std::size_t j = 0; j + 1 < checkpoints.size(); ++j) {
    const auto [m3, hw3] = diff(1, j);
    if (m3 - hw3 > best3 - best3_hw) {
      best3 = m3;
      best3_hw = hw3;
      best3_k = checkpoints[j];
    }
  }
  const bool rise = best3 - best3_hw > 0;
  // (ii) c = 7 has no effect anywhere, (iii) every c coincides with no clipping at k = n.
  // "No effect" is an equivalence claim: a difference's band must lie inside +-margin, 2% of the
  // unclipped mean risk at that checkpoint (an effect the figure would not show); a band that
  // excludes 0 is an effect (violated); a band that contains 0 but reaches past the margin
  // cannot tell (inconclusive: the runs do not resolve an effect of that size).
  constexpr double margin_fraction = 0.02;
  auto equivalent = [&](std::size_t v, std::size_t j, double& worst_reach) {
    const auto [m, hw] = diff(v, j);
    const double margin = margin_fraction * res.observables[j].stats.mean();
    worst_reach = std::max(worst_reach, (std::abs(m) + hw) / margin);
    return equivalence_verdict(m, hw, margin, equality::exact);
  };
  bool c7_none = true, end_same = true, unresolved = false;
  double c7_reach = 0, end_reach = 0;  // largest |mean| + half-width, in margins
  for (std::size_t j = 0; j < checkpoints.size(); ++j) {
    const verdict e = equivalent(3, j, c7_reach);
    c7_none = c7_none && e != verdict::violated;
    unresolved = unresolved || e == verdict::inconclusive;
  }
  for (std::size_t v = 1; v < 4; ++v) {
    const verdict e = equivalent(v, checkpoints.size() - 1, end_reach);
    end_same = end_same && e != verdict::violated;
    unresolved = unresolved || e == verdict::inconclusive;
  }
  scenario_result r;
  r.id = "lksp25-fig3a-clipped";
  r.title = "LKSP25 Fig. 3(a): clipped noisy SGD (c = 3, 5, 7)";
  r.source = "LKSP25 Fig. 3(a)";
  r.claim =
      "with x0 ~ N(0, 4I): clipping at c = 3 raises the transient risk, c = 7 has no effect, and "
      "all curves coincide at k = n (paired differences, Student t bands at 1 - 0.05/23 each; "
      "'no effect' and "
      "'coincide': every band inside +-2% of the unclipped mean risk at its checkpoint)";
  r.parameters = {{"d", d},         {"n", n},       {"eta", eta},       {"ridge", ridge},
                  {"sigma", sigma}, {"runs", runs}, {"x0", "N(0, 4I)"}, {"clips", {3, 5, 7}}};
  r.verdict = !(rise && c7_none && end_same) ? verdict::violated
              : unresolved                      ? verdict::inconclusive
                                                : verdict::holds;
  if (r.verdict == verdict::holds) {
    r.verdict_reason = "c = 3 raises the risk, c = 7 does not, all coincide at the end";
  } else if (r.verdict == verdict::inconclusive) {
    r.verdict_reason =
        "no effect of c = 7 or at the end was found, but a band reaches past the 2% margin";
  } else {
    r.verdict_reason = "refuted:";
    if (!rise) r.verdict_reason += " no significant rise at c = 3";
    if (!c7_none) r.verdict_reason += " c = " + format_value(clips[3]) + " has an effect";
    if (!end_same) r.verdict_reason += " the curves differ at k = n";
  }
  r.quantity = "largest rise at c = 3";
  r.bound = 0;
  r.estimate = best3;
  r.estimate_lo = best3 - best3_hw;
  r.estimate_hi = best3 + best3_hw;
  r.confidence = 1 - level;
  r.tightness = std::nan("");
  r.replicates = runs;
  r.notes.push_back("c = 3 raises E P by " + format_value(best3) + " +- " + format_value(best3_hw) +
                    " at k = " + std::to_string(best3_k) +
                    " (an independent measurement gave 0.065 at k = 96)");
  r.notes.push_back("no effect resolved to: c = " + format_value(clips[3]) +
                    " differences within " + format_value(c7_reach) +
                    " margins, the k = n differences within " + format_value(end_reach) +
                    " margins (|mean| + half-width; 1 margin = 2% of the unclipped mean risk)");
  r.notes.push_back(
      "fresh data per replicate, one noise sequence shared by the four runs of a replicate; "
      "clip_c of the per-example gradient including the ridge term, noise added after");
  r.figure.title = "Clipped one-pass noisy SGD, d = 1000, σ = 1.5, x_0 from N(0, 4I)";
  r.figure.x_label = "SGD iteration k";
  r.figure.y_label = "E population risk (95 % intervals)";
  r.figure.log_x = true;
  for (std::size_t v = 0; v < 4; ++v) {
    series s;
    s.name = v == 0 ? "no clipping" : "clip c = " + format_value(clips[v]);
    s.style = "lines";
    for (std::size_t j = 0; j < checkpoints.size(); ++j)
      push_mean(s, static_cast<double>(checkpoints[j]),
                res.observables[v * checkpoints.size() + j].stats);
    r.figure.data.push_back(std::move(s));
  }
  return r;
}

}  // namespace

void register_hsgd_law_scenarios(std::vector<scenario>& out) {
  out.push_back(
      {"lksp25-fig3a-clipped", "LKSP25 Fig. 3(a): clipped noisy SGD, c = 3, 5, 7", clipped_sgd});
  out.push_back({"lksp25-fig1a-mahalanobis",
                 "LKSP25 Fig. 1(a): noisy SGD's last iterate vs the HSGD law (Mahalanobis QQ)",
                 mahalanobis_qq});
}

}  // namespace dpkit::validation
