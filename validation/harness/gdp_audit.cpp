// The shared GDP-claim audit of scenarios.hpp.
#include <algorithm>
#include <cctype>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "dpkit/core/check.hpp"
#include "dpkit/divergence/gaussian_tradeoff.hpp"
#include "dpkit/sim/audit.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "scenarios.hpp"

namespace dpkit::validation {

std::string sig(double x, int digits) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
  return buffer;
}

double normal_quantile(double confidence) {
  return boost::math::quantile(
      boost::math::complement(boost::math::normal(), (1 - confidence) / 2));
}

double t_multiplier(double z, std::size_t n) {
  if (n < 2) return INFINITY;  // no interval from one replicate
  const double tail = boost::math::cdf(boost::math::complement(boost::math::normal(), z));
  const boost::math::students_t_distribution<double> t(static_cast<double>(n) - 1);
  return boost::math::quantile(boost::math::complement(t, tail));
}

verdict equivalence_verdict(double difference, double half_width, double margin, equality kind) {
  if (std::isnan(difference) || std::isnan(half_width)) return verdict::inconclusive;
  const double gap = std::abs(difference);
  // Exact: a gap beyond the interval, less 1e-15 of rounding (identical runs differ by zero, and
  // by less than that after summation).
  if (gap - half_width > (kind == equality::exact ? 1e-15 : margin)) return verdict::violated;
  return gap + half_width <= margin ? verdict::holds : verdict::inconclusive;
}

verdict combine_equivalence(verdict a, verdict b) {
  if (a == verdict::violated || b == verdict::violated) return verdict::violated;
  if (a == verdict::inconclusive || b == verdict::inconclusive) return verdict::inconclusive;
  return verdict::holds;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double se_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (const double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1) / static_cast<double>(v.size()));
}

std::pair<double, double> mean_se(const std::vector<double>& a) {
  const double N = static_cast<double>(a.size());
  double mean = 0, var = 0;
  for (double v : a) mean += v / N;
  for (double v : a) var += (v - mean) * (v - mean) / (N - 1);
  return {mean, std::sqrt(var / N)};
}

std::pair<double, double> paired_mean_se(const std::vector<double>& a,
                                         const std::vector<double>& b,
                                         double f) {
  const double N = static_cast<double>(a.size());
  double mean = 0, var = 0;
  for (std::size_t i = 0; i < a.size(); ++i) mean += (a[i] - f * b[i]) / N;
  for (std::size_t i = 0; i < a.size(); ++i) var += std::pow(a[i] - f * b[i] - mean, 2) / (N - 1);
  return {mean, std::sqrt(var / N)};
}

std::string interval_text(double mean, double half) {
  return sig(mean, 4) + " +- " + sig(half, 3);
}

std::string legend_words(std::string text) {
  static const std::pair<const char*, const char*> greek[] = {
      {"epsilon", "ε"}, {"eps", "ε"},   {"delta", "δ"}, {"alpha", "α"}, {"beta", "β"},
      {"gamma", "γ"},   {"eta", "η"},   {"theta", "θ"}, {"kappa", "κ"}, {"lambda", "λ"},
      {"mu", "μ"},      {"sigma", "σ"}, {"tau", "τ"}};
  const auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  for (const auto& [word, symbol] : greek) {
    const std::string w = word;
    for (std::size_t at = text.find(w); at != std::string::npos; at = text.find(w, at + 1)) {
      const bool starts = at == 0 || !letter(text[at - 1]);
      const bool ends = at + w.size() == text.size() || !letter(text[at + w.size()]);
      if (starts && ends) text.replace(at, w.size(), symbol);
    }
  }
  for (std::size_t at = text.find("sqrt("); at != std::string::npos; at = text.find("sqrt(")) {
    const std::size_t close = text.find(')', at);
    if (close == std::string::npos) break;
    const std::string inner = text.substr(at + 5, close - at - 5);
    text.replace(at, close - at + 1, inner.size() == 1 ? "√" + inner : "√(" + inner + ")");
  }
  return text;
}

void push_mean(series& s, double x, const sim::moments& m, double confidence) {
  const double half =
      t_multiplier(normal_quantile(confidence), static_cast<std::size_t>(m.count())) *
      m.standard_error();
  s.x.push_back(x);
  s.y.push_back(m.mean());
  s.y_lo.push_back(m.mean() - half);
  s.y_hi.push_back(m.mean() + half);
}

series make_series(std::string name,
                   std::vector<double> x,
                   std::vector<double> y,
                   std::string style) {
  series s;
  s.name = std::move(name);
  s.style = std::move(style);
  s.x = std::move(x);
  s.y = std::move(y);
  return s;
}

slope_fit log_log_slope(const std::vector<double>& x,
                        const std::vector<std::vector<double>>& columns) {
  const std::size_t J = x.size();
  const double N = static_cast<double>(columns.front().size());
  std::vector<double> mean(J, 0.0), a(J);
  for (std::size_t j = 0; j < J; ++j)
    for (const double v : columns[j]) mean[j] += v / N;
  slope_fit out;
  out.positive = std::all_of(mean.begin(), mean.end(), [](double m) { return m > 0; });
  if (!out.positive) return out;
  double mx = 0;
  for (const double v : x) mx += std::log(v) / static_cast<double>(J);
  double sxx = 0;
  for (const double v : x) sxx += (std::log(v) - mx) * (std::log(v) - mx);
  for (std::size_t j = 0; j < J; ++j) a[j] = (std::log(x[j]) - mx) / sxx;
  out.slope = 0;
  for (std::size_t j = 0; j < J; ++j) out.slope += a[j] * std::log(mean[j]);
  double var = 0;
  for (std::size_t j = 0; j < J; ++j)
    for (std::size_t k = 0; k < J; ++k) {
      double cov = 0;
      for (std::size_t i = 0; i < columns[j].size(); ++i)
        cov += (columns[j][i] - mean[j]) * (columns[k][i] - mean[k]) / (N - 1);
      var += a[j] * a[k] * cov / N / (mean[j] * mean[k]);
    }
  out.se = std::sqrt(var);
  return out;
}

sim::monte_carlo_options mc_options(const scenario_context& c,
                                    std::uint64_t replicates,
                                    std::string label) {
  sim::monte_carlo_options mc;
  mc.replicates = replicates;
  mc.seed = c.seed;
  mc.threads = c.threads;
  mc.progress = c.progress;
  mc.announce = c.announce;
  mc.label = std::move(label);
  return mc;
}

std::uint64_t replicates_for(const scenario_context& c, std::uint64_t quick, std::uint64_t full) {
  // The full tier never has fewer replicates than the quick one: a paper-scale run must not
  // state its intervals on less evidence than the CI run.
  return c.tier == tier::quick ? quick : std::max(quick, full);
}

void sample_pair(const scenario_context& c,
                 std::uint64_t replicates,
                 const std::string& label,
                 const pair_draw& draw,
                 std::vector<double>& d,
                 std::vector<double>& dprime) {
  const sim::monte_carlo_options mc = mc_options(c, replicates, label);
  auto res = sim::run_monte_carlo(
      {{"d", true}, {"dprime", true}},
      [&](std::uint64_t r, std::span<double> out) { draw(r, out[0], out[1]); }, mc);
  d = std::move(res.observables[0].samples);
  dprime = std::move(res.observables[1].samples);
}

void run_pair(const scenario_context& c,
              std::uint64_t replicates,
              const sim::model& base,
              const sim::model& neighbour,
              const sim::noisy_gradient_options& o,
              const std::string& label,
              std::vector<double>& d,
              std::vector<double>& dprime) {
  const auto p = static_cast<Eigen::Index>(base.dimension());
  sample_pair(
      c, replicates, label,
      [&](std::uint64_t r, double& x, double& y) {
        x = sim::run_noisy_gradient(base, o, sim::vector::Zero(p), {c.seed, r, 0})[0];
        y = sim::run_noisy_gradient(neighbour, o, sim::vector::Zero(p), {c.seed, r, 100})[0];
      },
      d, dprime);
}

void audit_tradeoff_claim(std::span<const double> samples_d,
                          std::span<const double> samples_dprime,
                          const std::function<double(double)>& f,
                          const std::string& curve_name,
                          scenario_result& r,
                          double confidence) {
  const double kConfidence = confidence;
  sim::tradeoff_options opt;
  opt.threshold_count = 24;
  opt.confidence = kConfidence;
  // Thresholds from a 10% pilot, intervals from the other 90%: an exact confidence statement.
  opt.pilot_fraction = 0.1;
  const sim::empirical_tradeoff emp = sim::estimate_tradeoff(samples_d, samples_dprime, opt);
  const sim::tradeoff_audit audit = sim::audit_tradeoff(emp, f);
  r.verdict = audit.verdict;
  r.confidence = kConfidence;
  switch (audit.verdict) {
    case sim::verdict::violated:
      r.verdict_reason = "the confidence box at threshold " +
                         format_value(emp.points[audit.violation_index].threshold) +
                         " lies wholly below the claimed curve (margin " +
                         format_value(audit.violation_margin) + ")";
      break;
    case sim::verdict::holds:
      r.verdict_reason = "every confidence box lies on or above the claimed curve";
      break;
    case sim::verdict::inconclusive:
      r.verdict_reason =
          "no box lies wholly below the claimed curve, but some straddle it (as for a tight bound)";
      break;
    case sim::verdict::refuted:  // audit_tradeoff never returns it
      break;
  }
  // The smallest vertical gap β̂ − f(α̂) over the tests, with the range the boxes allow
  // (f decreases: the box's worst corner is (α_lo, β_lo), its best (α_hi, β_hi)).
  double gap = INFINITY, gap_lo = INFINITY, gap_hi = INFINITY;
  for (const sim::tradeoff_point& p : emp.points) {
    gap = std::min(gap, p.beta - f(p.alpha));
    gap_lo = std::min(gap_lo, p.beta_lo - f(p.alpha_lo));
    gap_hi = std::min(gap_hi, p.beta_hi - f(p.alpha_hi));
  }
  r.quantity = "min gap beta - f(alpha)";
  r.bound = 0;
  r.estimate = gap;
  r.estimate_lo = gap_lo;
  r.estimate_hi = gap_hi;
  r.tightness = std::nan("");
  r.replicates = static_cast<std::uint64_t>(samples_d.size() + samples_dprime.size());
  r.notes.push_back("empirical tradeoff: " + std::to_string(emp.points.size()) +
                    " threshold tests at pooled quantiles of a 10% pilot sample, Clopper-Pearson "
                    "boxes from the other " +
                    std::to_string(emp.n_d + emp.n_dprime) + " samples with " +
                    format_value(kConfidence) + " simultaneous confidence (Bonferroni)");
  r.figure.x_label = "type I error α";
  r.figure.y_label = "type II error β";
  series curve;
  curve.name = curve_name;
  for (int i = 0; i <= 200; ++i) {
    const double a = i / 200.0;
    curve.x.push_back(a);
    curve.y.push_back(f(a));
  }
  series points;
  points.name =
      "Monte Carlo (" + format_value(std::round(kConfidence * 1000) / 10) + "% simultaneous boxes)";
  points.style = "points";
  for (const sim::tradeoff_point& p : emp.points) {
    points.x.push_back(p.alpha);
    points.y.push_back(p.beta);
    points.x_lo.push_back(p.alpha_lo);
    points.x_hi.push_back(p.alpha_hi);
    points.y_lo.push_back(p.beta_lo);
    points.y_hi.push_back(p.beta_hi);
  }
  r.figure.data = {curve, points};
}

void audit_gdp_claim(std::span<const double> samples_d,
                     std::span<const double> samples_dprime,
                     double mu_claim,
                     scenario_result& r,
                     double confidence) {
  const double kConfidence = confidence;
  const divergence::gaussian_tradeoff claim(mu_claim);
  audit_tradeoff_claim(
      samples_d, samples_dprime, [&](double a) { return claim.beta(a); },
      "claimed bound G(" + format_value(std::round(mu_claim * 1e4) / 1e4) + ")", r, confidence);
  // μ̂ from the two samples' moments.
  sim::moments m0, m1;
  for (double x : samples_d) m0.add(x);
  for (double x : samples_dprime) m1.add(x);
  const double n0 = static_cast<double>(m0.count()), n1 = static_cast<double>(m1.count());
  const double pooled =
      std::sqrt(((n0 - 1) * m0.variance() + (n1 - 1) * m1.variance()) / (n0 + n1 - 2));
  const double mu_hat = (m1.mean() - m0.mean()) / pooled;
  // Delta method for Gaussian pairs: Var(μ̂) ≈ 1/n0 + 1/n1 + μ²/(2(n0 + n1)).
  const double se = std::sqrt(1 / n0 + 1 / n1 + mu_hat * mu_hat / (2 * (n0 + n1)));
  const double z =
      boost::math::quantile(boost::math::complement(boost::math::normal(), (1 - kConfidence) / 2));
  r.quantity = "mu";
  r.bound = mu_claim;
  r.estimate = mu_hat;
  r.estimate_lo = mu_hat - z * se;
  r.estimate_hi = mu_hat + z * se;
  r.tightness = mu_claim / mu_hat;
  r.notes.push_back(
      "mu estimate: (mean' - mean)/pooled sd, normal-approximation interval "
      "(an estimate; exact in the limit for Gaussian pairs)");
}

}  // namespace dpkit::validation
