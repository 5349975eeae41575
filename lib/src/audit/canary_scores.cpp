// The independent-runs statistics and the whole audit of dpkit/audit/canary_scores.hpp.
#include "dpkit/audit/canary_scores.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/core/binomial.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/core/parse.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::audit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_scores(const char* function, const char* name, std::span<const double> scores) {
  if (scores.empty()) throw_domain_error(function, name, "empty", "at least one score");
  for (const double x : scores)
    if (!std::isfinite(x)) throw_domain_error(function, name, x, "finite scores only");
}

std::size_t at_least(const std::vector<double>& sorted, double threshold) {
  return static_cast<std::size_t>(sorted.end() -
                                  std::lower_bound(sorted.begin(), sorted.end(), threshold));
}

// The one test "in iff score ≥ θ" on the scores, as a one-threshold score_counts.
score_counts counts_at(const std::vector<double>& in_sorted,
                       const std::vector<double>& out_sorted,
                       double threshold) {
  score_counts c;
  c.n_in = in_sorted.size();
  c.n_out = out_sorted.size();
  c.thresholds = {threshold};
  c.true_positives = {at_least(in_sorted, threshold)};
  c.false_positives = {at_least(out_sorted, threshold)};
  return c;
}

// Number of tests a Bonferroni correction spreads the error over: one per distinct score (the
// last candidate, +∞, guesses nobody and never gives a bound whatever the data).
std::size_t family_size(const score_counts& c) {
  return std::max<std::size_t>(1, c.thresholds.size() - 1);
}

// One-run: the best of the thresholds' ε (or μ) at per-test significance 1 − confidence, in
// the order of the counts' raw precision (a threshold whose precision is no better than the
// best bound's is skipped: it cannot reject a larger ε).
threshold_bound best_one_run(const score_counts& c, double confidence, double delta, bool gdp) {
  const std::size_t m = c.n_in + c.n_out;
  std::vector<std::size_t> order(c.thresholds.size());
  for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
  const auto precision = [&](std::size_t j) {
    const std::size_t g = c.true_positives[j] + c.false_positives[j];
    return g == 0 ? 0.0 : static_cast<double>(c.true_positives[j]) / static_cast<double>(g);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return precision(a) > precision(b); });
  threshold_bound best;
  for (const std::size_t j : order) {
    const std::size_t tp = c.true_positives[j];
    const std::size_t g = tp + c.false_positives[j];
    if (g == 0 || precision(j) <= 0.5) continue;
    if (!gdp && precision(j) <= 1 / (1 + std::exp(-best.value))) continue;
    const double value = gdp ? one_run_gdp_mu(m, g, tp, confidence, best.value)
                             : one_run_epsilon(m, g, tp, confidence, delta, best.value);
    if (value > best.value) {
      best.value = value;
      best.threshold = c.thresholds[j];
      best.true_positives = tp;
      best.false_positives = c.false_positives[j];
    }
  }
  return best;
}

using roc_point = std::pair<std::size_t, std::size_t>;  // (false positives, true positives)

// The upper concave hull of the ROC points, from θ = +∞ (0, 0) to the lowest score
// (n_out, n_in) — the best tests that randomise between two thresholds (monotone chain).
std::vector<roc_point> roc_hull(const score_counts& c) {
  const auto cross = [](roc_point o, roc_point a, roc_point b) {
    return (static_cast<double>(a.first) - static_cast<double>(o.first)) *
               (static_cast<double>(b.second) - static_cast<double>(o.second)) -
           (static_cast<double>(a.second) - static_cast<double>(o.second)) *
               (static_cast<double>(b.first) - static_cast<double>(o.first));
  };
  std::vector<roc_point> hull;
  for (std::size_t k = c.thresholds.size(); k-- > 0;) {
    const roc_point p{c.false_positives[k], c.true_positives[k]};
    if (!hull.empty() && hull.back().first == p.first) hull.pop_back();  // same FPR: higher TPR
    while (hull.size() >= 2 && cross(hull[hull.size() - 2], hull.back(), p) >= 0) hull.pop_back();
    hull.push_back(p);
  }
  return hull;
}

// A threshold's bound and whether the reverse test gave it.
struct threshold_value {
  double value;
  bool reverse;
};

// The best of the thresholds' bounds value(FNR_hi, FPR_hi), the upper Clopper–Pearson limits at
// error `tail`, for a bound that decreases in both rates. Each limit is at least its point
// estimate (an upper limit at error ≤ 1/2 exceeds k/n: the binomial's median is np when np is
// an integer) and at least the limit of k = 0, so `reach` of those floors is above the
// threshold's bound: the thresholds are visited in decreasing reach and the search stops at the
// first that cannot beat the best — most never invert the incomplete beta function. Ties go to
// the lowest threshold, whatever the order of the visit.
template <class Reach, class Value>
threshold_bound best_threshold(const score_counts& c,
                               double tail,
                               const Reach& reach,
                               const Value& value) {
  const double nin = static_cast<double>(c.n_in), nout = static_cast<double>(c.n_out);
  const double fnr_floor = binomial_upper_limit(0, c.n_in, tail);
  const double fpr_floor = binomial_upper_limit(0, c.n_out, tail);
  std::vector<std::pair<double, std::size_t>> order;
  order.reserve(c.thresholds.size());
  for (std::size_t j = 0; j < c.thresholds.size(); ++j) {
    const double fnr_lo =
        std::max(fnr_floor, static_cast<double>(c.n_in - c.true_positives[j]) / nin);
    const double fpr_lo = std::max(fpr_floor, static_cast<double>(c.false_positives[j]) / nout);
    const double r = reach(fnr_lo, fpr_lo).value;
    if (r > 0) order.emplace_back(r, j);
  }
  std::sort(order.begin(), order.end(), std::greater<>());
  threshold_bound best;
  for (const auto& [r, j] : order) {
    if (r < best.value) break;  // (equal: a tie, which the lowest threshold wins)
    const std::size_t tp = c.true_positives[j], fp = c.false_positives[j];
    const threshold_value v = value(binomial_upper_limit(c.n_in - tp, c.n_in, tail),
                                    binomial_upper_limit(fp, c.n_out, tail));
    if (v.value > best.value ||
        (v.value == best.value && v.value > 0 && c.thresholds[j] < best.threshold))
      best = {v.value, c.thresholds[j], tp, fp, v.reverse};
  }
  return best;
}

std::string format_count(std::size_t n) { return format_value(static_cast<long long>(n)); }

std::string three_digits(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", x);
  return buffer;
}

}  // namespace

std::string_view to_string(threshold_strategy s) noexcept {
  return s == threshold_strategy::split ? "split" : "bonferroni";
}

std::optional<threshold_strategy> parse_threshold_strategy(std::string_view name) noexcept {
  for (const threshold_strategy s : {threshold_strategy::bonferroni, threshold_strategy::split})
    if (same_name(name, to_string(s))) return s;
  return std::nullopt;
}

score_counts count_scores(std::span<const double> in_scores, std::span<const double> out_scores) {
  check_scores("count_scores", "in_scores", in_scores);
  check_scores("count_scores", "out_scores", out_scores);
  std::vector<double> in(in_scores.begin(), in_scores.end());
  std::vector<double> out(out_scores.begin(), out_scores.end());
  std::sort(in.begin(), in.end());
  std::sort(out.begin(), out.end());
  score_counts c;
  c.n_in = in.size();
  c.n_out = out.size();
  std::merge(in.begin(), in.end(), out.begin(), out.end(), std::back_inserter(c.thresholds));
  c.thresholds.erase(std::unique(c.thresholds.begin(), c.thresholds.end()), c.thresholds.end());
  c.thresholds.push_back(kInf);
  c.true_positives.reserve(c.thresholds.size());
  c.false_positives.reserve(c.thresholds.size());
  for (const double t : c.thresholds) {
    c.true_positives.push_back(at_least(in, t));
    c.false_positives.push_back(at_least(out, t));
  }
  return c;
}

threshold_bound clopper_pearson_epsilon(const score_counts& c,
                                        double tail,
                                        double delta,
                                        bool two_sided) {
  constexpr const char* kFunction = "clopper_pearson_epsilon";
  if (!(tail > 0 && tail <= 0.5)) throw_domain_error(kFunction, "tail", tail, "in (0, 0.5]");
  if (!(delta >= 0 && delta < 1)) throw_domain_error(kFunction, "delta", delta, "in [0, 1)");
  // ε ≥ log((1 − FNR − δ)/FPR) for the test, and log((1 − FPR − δ)/FNR) for its reverse:
  // increasing in both error rates' complements, so the floors give the reach.
  const auto epsilon = [&](double fnr, double fpr) -> threshold_value {
    const double forward = std::log(std::max(1 - fnr - delta, 0.0)) - std::log(fpr);
    if (!two_sided) return {forward, false};
    const double reverse = std::log(std::max(1 - fpr - delta, 0.0)) - std::log(fnr);
    return reverse > forward ? threshold_value{reverse, true} : threshold_value{forward, false};
  };
  return best_threshold(c, tail, epsilon, epsilon);
}

threshold_bound gdp_mu_lower(const score_counts& c, double tail) {
  if (!(tail > 0 && tail <= 0.5)) throw_domain_error("gdp_mu_lower", "tail", tail, "in (0, 0.5]");
  // μ ≥ Φ⁻¹(1 − FPR) − Φ⁻¹(FNR) (from the complement: accurate where FPR is tiny), decreasing
  // in both rates; a rate of 1 gives no bound.
  const auto mu = [](double fnr, double fpr) -> threshold_value {
    if (fnr >= 1 || fpr >= 1) return {-kInf, false};
    return {normal_quantile_complement(fpr) - normal_quantile(fnr), false};
  };
  return best_threshold(c, tail, mu, mu);
}

tpr_at_fpr_result tpr_at_fpr(const score_counts& c, double fpr, double confidence) {
  check_probability("tpr_at_fpr", "fpr", fpr);
  check_open_probability("tpr_at_fpr", "confidence", confidence);
  const std::vector<roc_point> hull = roc_hull(c);
  const double nout = static_cast<double>(c.n_out), nin = static_cast<double>(c.n_in);
  const double target = fpr * nout;  // in false-positive counts
  std::size_t right = 0;
  while (right + 1 < hull.size() && static_cast<double>(hull[right].first) < target) ++right;
  const std::size_t left = static_cast<double>(hull[right].first) <= target || right == 0
                               ? right
                               : right - 1;
  tpr_at_fpr_result out;
  out.fpr = fpr;
  out.confidence = confidence;
  const auto [fl, tl] = hull[left];
  const auto [fr, tr] = hull[right];
  const double w = fr == fl ? 0.0 : (target - static_cast<double>(fl)) / (static_cast<double>(fr) - static_cast<double>(fl));
  out.tpr = (static_cast<double>(tl) + w * (static_cast<double>(tr) - static_cast<double>(tl))) / nin;
  const double tail = 0.5 * (1 - confidence);
  out.tpr_lower = binomial_lower_limit(tl, c.n_in, tail);
  out.tpr_upper = binomial_upper_limit(tr, c.n_in, tail);
  return out;
}

double auroc(const score_counts& c) {
  // Trapezoids between consecutive ROC points: Σ (fp_k − fp_{k+1})(tp_k + tp_{k+1})/2, which
  // counts every (in, out) pair with in > out once and every tie one half.
  double area = 0;
  for (std::size_t k = 0; k + 1 < c.thresholds.size(); ++k)
    area += (static_cast<double>(c.false_positives[k]) - static_cast<double>(c.false_positives[k + 1])) *
            (static_cast<double>(c.true_positives[k]) + static_cast<double>(c.true_positives[k + 1])) / 2;
  return area / (static_cast<double>(c.n_in) * static_cast<double>(c.n_out));
}

std::vector<audit_field> reported_fields(const audit_statistic& r) {
  std::vector<audit_field> out;
  const auto put = [&](std::string_view name, double x) {
    if (!std::isnan(x)) out.push_back({name, x, false});
  };
  put("epsilon", r.epsilon);
  put("delta", r.delta);
  put("confidence", r.confidence);
  put("mu_lower", r.mu_lower);
  put("threshold", r.threshold);
  if (r.statistic == "one-run" || r.statistic == "one-run-fdp") {
    out.push_back({"guesses", static_cast<double>(r.guesses), true});
    out.push_back({"correct", static_cast<double>(r.correct), true});
  }
  put("fpr", r.fpr);
  put("tpr", r.tpr);
  put("tpr_lower", r.tpr_lower);
  put("tpr_upper", r.tpr_upper);
  put("auroc", r.auroc);
  put("auroc_hull", r.auroc_hull);
  return out;
}

double auroc_hull(const score_counts& c) {
  const std::vector<roc_point> hull = roc_hull(c);
  double area = 0;
  for (std::size_t k = 0; k + 1 < hull.size(); ++k)
    area += (static_cast<double>(hull[k + 1].first) - static_cast<double>(hull[k].first)) *
            (static_cast<double>(hull[k].second) + static_cast<double>(hull[k + 1].second)) / 2;
  return area / (static_cast<double>(c.n_in) * static_cast<double>(c.n_out));
}

canary_audit audit_canary_scores(std::span<const double> in_scores,
                                 std::span<const double> out_scores,
                                 const canary_audit_options& o) {
  constexpr const char* kFunction = "audit_canary_scores";
  check_scores(kFunction, "in_scores", in_scores);
  check_scores(kFunction, "out_scores", out_scores);
  if (!(o.delta >= 0 && o.delta < 1)) throw_domain_error(kFunction, "delta", o.delta, "in [0, 1)");
  if (!(o.confidence > 0.5 && o.confidence < 1))
    throw_domain_error(kFunction, "confidence", o.confidence, "in (0.5, 1)");
  check_probability(kFunction, "fpr", o.fpr);
  // Checked whatever the strategy: a value that could never be used is a mistake to say.
  if (!(o.split_fraction > 0 && o.split_fraction < 1))
    throw_domain_error(kFunction, "split_fraction", o.split_fraction, "in (0, 1)");
  if (o.strategy == threshold_strategy::split) {
    const auto check_side = [&](const char* name, std::size_t n) {
      const auto pilot = static_cast<std::size_t>(o.split_fraction * static_cast<double>(n));
      if (pilot == 0 || pilot == n)
        throw_domain_error(kFunction, name, format_count(n) + (n == 1 ? " score" : " scores"),
                           "enough that split_fraction " + format_value(o.split_fraction) +
                               " leaves at least one on each part");
    };
    check_side("in_scores", in_scores.size());
    check_side("out_scores", out_scores.size());
  }
  if (o.guesses && !o.one_run)
    throw_domain_error(kFunction, "guesses", static_cast<double>(*o.guesses),
                       "unset unless one_run (a fixed number of guesses is a one-run audit)");
  const std::size_t m = in_scores.size() + out_scores.size();
  if (o.guesses && (*o.guesses < 1 || *o.guesses > m))
    throw_domain_error(kFunction, "guesses", static_cast<double>(*o.guesses),
                       "in [1, " + format_count(m) + "] (the canaries)");
  if (!std::isnan(o.claim_epsilon) && !(o.claim_epsilon >= 0))
    throw_domain_error(kFunction, "claim_epsilon", o.claim_epsilon, ">= 0 (or NaN: no claim)");

  canary_audit a;
  a.n_in = in_scores.size();
  a.n_out = out_scores.size();
  a.options = o;
  const double significance = 1 - o.confidence;
  const score_counts all = count_scores(in_scores, out_scores);
  const std::size_t family = family_size(all);

  // The split: a seeded random part of each side chooses the threshold, the rest evaluates.
  std::vector<double> in_pilot, in_rest, out_pilot, out_rest;
  if (o.strategy == threshold_strategy::split) {
    random_stream rng(o.seed, 0, 0);
    const auto part = [&](std::span<const double> s, std::vector<double>& pilot,
                          std::vector<double>& rest) {
      const auto cut = static_cast<std::size_t>(o.split_fraction * static_cast<double>(s.size()));
      const std::vector<std::size_t> perm = rng.permutation(s.size());
      for (std::size_t k = 0; k < perm.size(); ++k) (k < cut ? pilot : rest).push_back(s[perm[k]]);
      std::sort(pilot.begin(), pilot.end());
      std::sort(rest.begin(), rest.end());
    };
    part(in_scores, in_pilot, in_rest);
    part(out_scores, out_pilot, out_rest);
  }
  const bool split = o.strategy == threshold_strategy::split;
  const std::string split_words =
      "split: " + format_value(o.split_fraction) + " of the scores (seed " +
      format_value(static_cast<long long>(o.seed)) + ") chose the threshold, the other " +
      format_count(in_rest.size() + out_rest.size()) + " evaluated it";
  const std::string bonferroni_words =
      "Bonferroni over " + format_count(family) + " thresholds (the distinct scores)";

  // Clopper–Pearson.
  {
    audit_statistic row;
    row.statistic = "clopper-pearson";
    row.kind = o.one_run ? bound_kind::estimate : bound_kind::lower_bound;
    row.delta = o.delta;
    row.confidence = o.confidence;
    threshold_bound b;
    if (split) {
      const threshold_bound chosen = clopper_pearson_epsilon(
          count_scores(in_pilot, out_pilot), significance / 2, o.delta, o.two_sided);
      if (!std::isnan(chosen.threshold))
        b = clopper_pearson_epsilon(counts_at(in_rest, out_rest, chosen.threshold),
                                    significance / 2, o.delta, o.two_sided);
      row.method = split_words;
    } else {
      b = clopper_pearson_epsilon(all, significance / (2 * static_cast<double>(family)), o.delta,
                                  o.two_sided);
      row.method = bonferroni_words;
    }
    row.epsilon = b.value;
    row.threshold = b.value > 0 ? b.threshold : NAN;
    row.method += std::string(o.two_sided ? "; both directions" : "; in iff score >= threshold") +
                  (o.one_run ? "; scores of one run are dependent: an estimate here" : "");
    a.rows.push_back(row);
  }
  // The GDP route (always Bonferroni, over both limits of every threshold).
  {
    audit_statistic row;
    row.statistic = "gdp";
    row.kind = bound_kind::estimate;
    row.delta = o.delta;
    row.confidence = o.confidence;
    const threshold_bound b = gdp_mu_lower(all, significance / (2 * static_cast<double>(family)));
    row.mu_lower = b.value;
    row.threshold = b.value > 0 ? b.threshold : NAN;
    row.epsilon = b.value > 0 ? (o.delta > 0 ? divergence::gdp_epsilon(b.value, o.delta).lower : kInf) : 0.0;
    row.method = bonferroni_words + "; mu_lower is a lower bound on mu for mu-GDP claims" +
                 (o.one_run ? " (an estimate here: scores of one run are dependent)" : "") +
                 "; epsilon is that of mu_lower-GDP at delta";
    a.rows.push_back(row);
  }
  if (o.one_run) {
    for (const bool gdp : {false, true}) {
      audit_statistic row;
      row.statistic = gdp ? "one-run-fdp" : "one-run";
      row.kind = gdp ? bound_kind::estimate : bound_kind::lower_bound;
      row.delta = o.delta;
      row.confidence = o.confidence;
      threshold_bound b;
      if (o.guesses) {
        // The `guesses` highest scores (all ties at the cut guessed too).
        std::vector<double> pooled(in_scores.begin(), in_scores.end());
        pooled.insert(pooled.end(), out_scores.begin(), out_scores.end());
        std::nth_element(pooled.begin(), pooled.begin() + static_cast<std::ptrdiff_t>(*o.guesses - 1),
                         pooled.end(), std::greater<>());
        const double cut = pooled[*o.guesses - 1];
        const score_counts& at = all;
        const auto j = static_cast<std::size_t>(
            std::lower_bound(at.thresholds.begin(), at.thresholds.end(), cut) - at.thresholds.begin());
        const std::size_t tp = at.true_positives[j], g = tp + at.false_positives[j];
        b.value = gdp ? one_run_gdp_mu(m, g, tp, o.confidence)
                      : one_run_epsilon(m, g, tp, o.confidence, o.delta);
        b.threshold = cut;
        b.true_positives = tp;
        b.false_positives = g - tp;
        row.method = "the " + format_count(*o.guesses) + " highest scores guessed in (fixed in advance)";
      } else if (split) {
        const threshold_bound chosen = best_one_run(count_scores(in_pilot, out_pilot),
                                                    o.confidence, o.delta, gdp);
        if (!std::isnan(chosen.threshold)) {
          const score_counts at = counts_at(in_rest, out_rest, chosen.threshold);
          const std::size_t mr = in_rest.size() + out_rest.size();
          const std::size_t tp = at.true_positives[0], g = tp + at.false_positives[0];
          b.value = gdp ? one_run_gdp_mu(mr, g, tp, o.confidence)
                        : one_run_epsilon(mr, g, tp, o.confidence, o.delta);
          b.threshold = chosen.threshold;
          b.true_positives = tp;
          b.false_positives = g - tp;
        }
        row.method = split_words;
      } else {
        b = best_one_run(all, 1 - significance / static_cast<double>(family), o.delta, gdp);
        row.method = bonferroni_words;
        const double delta_term = 2 * static_cast<double>(m) * o.delta;
        if (!gdp && b.value == 0 && delta_term * 0.01 > significance / static_cast<double>(family))
          row.method += "; no claim rejected: each test runs at significance " +
                        three_digits(significance / static_cast<double>(family)) +
                        ", which the delta term 2·m·delta = " + three_digits(delta_term) +
                        " swamps — fix the number of guesses in advance (guesses) or split";
      }
      row.threshold = b.threshold;
      row.guesses = b.true_positives + b.false_positives;
      row.correct = b.true_positives;
      if (gdp) {
        row.mu_lower = b.value;
        row.epsilon = b.value > 0 ? (o.delta > 0 ? divergence::gdp_epsilon(b.value, o.delta).lower : kInf) : 0.0;
        row.method += "; mu_lower is a lower bound on mu for mu-GDP claims; epsilon is that of "
                      "mu_lower-GDP at delta";
      } else {
        row.epsilon = b.value;
      }
      a.rows.push_back(row);
    }
  }
  {
    audit_statistic row;
    row.statistic = "tpr-at-fpr";
    row.kind = bound_kind::estimate;
    row.confidence = o.confidence;
    const tpr_at_fpr_result t = tpr_at_fpr(all, o.fpr, o.confidence);
    row.fpr = t.fpr;
    row.tpr = t.tpr;
    row.tpr_lower = t.tpr_lower;
    row.tpr_upper = t.tpr_upper;
    row.method = "ROC hull, interpolated; interval: Clopper-Pearson of the two hull thresholds' TPR";
    a.rows.push_back(row);
  }
  {
    audit_statistic row;
    row.statistic = "auroc";
    row.kind = bound_kind::estimate;
    row.auroc = auroc(all);
    row.auroc_hull = auroc_hull(all);
    row.method = "Mann-Whitney (trapezoids on the ROC points, ties count one half); auroc_hull: "
                 "the area under the ROC's concave hull (tests that randomise between two "
                 "thresholds, as jax_privacy's attack_auroc)";
    a.rows.push_back(row);
  }

  a.primary = o.one_run ? "one-run" : "clopper-pearson";
  if (!std::isnan(o.claim_epsilon)) {
    for (const audit_statistic& r : a.rows)
      if (r.statistic == a.primary)
        a.verdict = r.epsilon > o.claim_epsilon ? "violated" : "inconclusive";
  }
  return a;
}

}  // namespace dpkit::audit
