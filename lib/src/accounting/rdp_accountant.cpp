#include "dpkit/accounting/rdp_accountant.hpp"

#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/log_space.hpp"
#include "dpkit/core/tolerance.hpp"
#include "dpkit/subsampling/subsampled_rdp.hpp"

namespace dpkit::accounting {
namespace {

double phase_rdp(const training_phase& p, double alpha) {
  // The facade accounts the epoch schemes (shuffling.hpp, random_allocation.hpp).
  if (p.sampling == sampling_scheme::shuffling || p.sampling == sampling_scheme::random_allocation)
    throw_domain_error("run_rdp", "sampling", to_string(p.sampling),
                       "a per-step scheme (for shuffled or allocated epochs, epsilon and delta "
                       "with the rdp accountant give the RDP upper bound)");
  if (p.sampling_rate < 1 &&
      (p.sampling == sampling_scheme::truncated_poisson ||
       (p.sampling == sampling_scheme::poisson && relation(p) == neighbouring::replace_one)))
    throw_domain_error("run_rdp", "the phase",
                       p.sampling == sampling_scheme::truncated_poisson
                           ? "truncated Poisson batches"
                           : "Poisson batches with replace-one neighbours",
                       "Poisson (add/remove) or without-replacement batches (dpkit has no RDP "
                       "bound for the others, as dp_accounting has none; the PLD accountant "
                       "certifies them)");
  // Full batch with replace-one neighbours: the Gaussian G(2/σ), as without replacement at q = 1.
  if (p.sampling_rate == 1 && relation(p) == neighbouring::replace_one)
    return subsampling::wor_gaussian_rdp(1.0, p.noise_multiplier, alpha);
  if (p.sampling == sampling_scheme::poisson ||
      p.sampling == sampling_scheme::truncated_poisson)  // truncated: q = 1 ≥ … only with B ≥ n
    return subsampling::poisson_gaussian_rdp(p.sampling_rate, p.noise_multiplier, alpha);
  return subsampling::wor_gaussian_rdp(p.sampling_rate, p.noise_multiplier, alpha);
}

double unchecked_run_rdp(const training_run& run, double alpha) {
  double e = 0.5 * run.gaussian_mu * run.gaussian_mu * alpha;  // BSA24 Lemma A.4
  for (const training_phase& p : run.phases)
    e += static_cast<double>(p.steps) * phase_rdp(p, alpha);
  return e;
}

// Outward rounding of the RDP accountant (docs/guarantees.md). Every RDP value is raised by a
// relative allowance before it is converted, and every conversion's own rounding is added on
// top (ε and log δ of each conversion are increasing in the RDP value).
//
// The allowance on the RDP values is measured, not proven: integer orders are exact sums of
// positive terms in log space, fractional orders tanh-sinh/exp-sinh quadratures to a 1e-12
// tolerance; against the two 50-digit tables (data/reference/rdp_poisson_gaussian*.csv: q from
// 1e-8 to 1, σ from 0.1 to 100, α up to 1e4) the largest relative error is below 2e-12
// (docs/subsampling.md), so 1e-10 leaves a 50× margin. The run's sum over phases and the
// product with the step counts round by a few ulp, far inside it.
constexpr double kRdpValueAllowance = 1e-10;

double raised(double rdp_value) {
  return rdp_value * (1 + kRdpValueAllowance);
}

// The conversions are a handful of correctly rounded operations, log, log1p and expm1 (< 1 ulp
// each) on terms no larger than these: 16 ulp of their sum bounds the rounding of the result.
double epsilon_rounding(double alpha, double rdp_value, double delta) {
  return 16 * tol::kMachineEps *
         (std::abs(rdp_value) + std::abs(std::log(delta)) / (alpha - 1) +
          std::abs(std::log(alpha)) * (1 + 1 / (alpha - 1)) + 1);
}
double log_delta_rounding(double alpha, double rdp_value, double epsilon) {
  return 16 * tol::kMachineEps *
         ((alpha - 1) * (std::abs(rdp_value) + epsilon + 1) + std::abs(std::log(alpha)) + 1);
}

// The μ of a run of Gaussian mechanisms, raised by the rounding of training_run::gdp_mu()
// (one ulp per operation and per phase, as the PLD accountant's interval).
double gaussian_mu_upper(const training_run& run) {
  const double e = run.phases.empty()
                       ? 0.0
                       : tol::kMachineEps * (8 + 4 * static_cast<double>(run.phases.size()));
  return run.gdp_mu() * (1 + e);
}

// A linear-curve candidate's rounding: the conversion's terms at its order (BS16's closed form
// has no order of its own: its terms are those of order 2 with ε_2 = 2ρ).
double candidate_order(const divergence::rdp_candidate& cand) {
  return std::isfinite(cand.alpha) ? std::max(cand.alpha, 1 + 1e-9) : 2.0;
}
double conversion_rounding_at(const divergence::rdp_candidate& cand, double delta, double mu) {
  const double a = candidate_order(cand);
  return epsilon_rounding(a, 0.5 * a * mu * mu, delta);
}
double conversion_log_delta_rounding_at(const divergence::rdp_candidate& cand,
                                        double epsilon,
                                        double mu) {
  const double a = candidate_order(cand);
  return log_delta_rounding(a, 0.5 * a * mu * mu, epsilon);
}

// The largest order evaluated (the subsampled-Gaussian RDP accepts α ≤ 1e6).
constexpr double kMaxOrder = 1e6;
constexpr int kBits = 16;  // Brent's precision in log(α − 1)

// The order ladder: fractional orders below 2, then integers growing roughly geometrically.
const std::vector<double>& ladder() {
  static const std::vector<double> orders = [] {
    std::vector<double> a = {1.1, 1.25, 1.5, 1.75};
    for (double x :
         {2,  3,  4,  5,  6,  7,   8,   10,  12,  14,  16,  20,  24,   28,   32,   40,
          48, 56, 64, 80, 96, 128, 160, 192, 256, 384, 512, 768, 1024, 2048, 4096, 10000})
      a.push_back(x);
    return a;
  }();
  return orders;
}

// Each phase's one-step RDP by order, kept across the runs of a curve (rdp_epsilon_curve): the
// runs differ only in their step counts, so a run's ε_run(α) is a weighted sum of values already
// computed at the orders an earlier run evaluated. The sum is formed exactly as
// unchecked_run_rdp forms it, so a curve's points equal separate calls bit for bit.
class phase_rdp_cache {
 public:
  double run_rdp(const training_run& run, double alpha) {
    auto it = values_.find(alpha);
    if (it == values_.end()) {
      std::vector<double> v;
      v.reserve(run.phases.size());
      for (const training_phase& p : run.phases) v.push_back(phase_rdp(p, alpha));
      it = values_.emplace(alpha, std::move(v)).first;
    }
    double e = 0.5 * run.gaussian_mu * run.gaussian_mu * alpha;
    for (std::size_t i = 0; i < run.phases.size(); ++i)
      e += static_cast<double>(run.phases[i].steps) * it->second[i];
    return e;
  }

 private:
  std::map<double, std::vector<double>> values_;
};

// ε_run at the ladder's orders and at fractional orders near the optimum, cached: the three
// conversions share the evaluations, and a fractional order costs a quadrature (50–150 µs).
class order_search {
 public:
  explicit order_search(training_run&&) = delete;  // it keeps a reference to the run
  explicit order_search(const training_run& run, phase_rdp_cache* phases = nullptr)
      : run_(run), phases_(phases) {}

  double rdp(double alpha) {
    auto it = cache_.find(alpha);
    if (it != cache_.end()) return it->second;
    return cache_[alpha] =
               phases_ != nullptr ? phases_->run_rdp(run_, alpha) : unchecked_run_rdp(run_, alpha);
  }

  /// Minimum of objective(α, ε_α) over the ladder: (value, α, index). The converted ε is
  /// unimodal in α in practice, so the climb stops four orders past the best without
  /// improvement (any subset of orders still gives a valid bound).
  template <class Objective>
  std::tuple<double, double, std::size_t> ladder_minimum(Objective&& objective) {
    const std::vector<double>& orders = ladder();
    std::size_t best = 0;
    double best_value = INFINITY;
    for (std::size_t i = 0; i < orders.size() && i < best + 5; ++i) {
      const double v = objective(orders[i], rdp(orders[i]));
      if (v < best_value) best_value = v, best = i;
    }
    return {best_value, orders[best], best};
  }

  /// Refinement between the neighbours of ladder index i, over real α at every scale: Brent's
  /// method (Boost.Math) on t = log(α − 1), which the ladder brackets. The converted ε is
  /// unimodal in α in practice, so this finds the optimum over all real α > 1; and whatever the
  /// shape, every order evaluated is a valid bound and the best one seen is kept. (The ladder
  /// alone, or integers only above α = 8, left up to 8.5 % on the table: the objective is steep
  /// between the ladder's orders — q = 0.0025, σ = 1.3, T = 6000 is 6 % looser at α = 16 than
  /// at α = 19 — and fractional orders between integers still gain at every scale.)
  template <class Objective>
  std::pair<double, double> refine(Objective&& objective,
                                   std::size_t i,
                                   double value,
                                   double alpha) {
    const std::vector<double>& orders = ladder();
    const double lo = i == 0 ? 1.0 + 1e-3 : orders[i - 1];
    // Past the ladder's last order the bracket extends to the largest order the RDP accepts.
    const double hi = i + 1 == orders.size() ? kMaxOrder : orders[i + 1];
    auto f = [&](double t) {
      const double a = std::min(1 + std::exp(t), kMaxOrder);
      const double v = objective(a, rdp(a));
      if (v < value) value = v, alpha = a;
      return v;
    };
    // 2^-15 relative in log(α − 1) (the peers' order lists are 600 times coarser near α = 5):
    // the objective is flat to O(Δ²) at its minimum, so the ε left is ~1e-9 relative.
    std::uintmax_t iterations = 40;
    boost::math::tools::brent_find_minima(f, std::log(lo - 1), std::log(hi - 1), kBits, iterations);
    return {value, alpha};
  }

 private:
  const training_run& run_;
  phase_rdp_cache* phases_ = nullptr;
  std::map<double, double> cache_;
};

constexpr divergence::rdp_conversion kConversions[] = {divergence::rdp_conversion::mir17,
                                                       divergence::rdp_conversion::bbg20,
                                                       divergence::rdp_conversion::alc21};

// Each conversion on the ladder, then refined over real α: ALC21 and BBG20 always (each is the
// better one somewhere: ALC21 at small ε, BBG20 at large; BBG20 is also the conversion of the
// Python accountants, so refining it is what keeps dpkit at or below them), MIR17 never — at
// every order BBG20 ≤ MIR17, as log(1 − 1/α) − log(α)/(α − 1) < 0.
template <class Result, class Convert>
void optimise(order_search& search, Result& r, Convert&& convert) {
  r.candidates[0].conversion = divergence::rdp_conversion::bs16;  // linear curves only
  std::size_t winner = 0;
  double winner_value = INFINITY;
  for (std::size_t k = 0; k < 3; ++k) {
    const divergence::rdp_conversion c = kConversions[k];
    auto objective = [&](double a, double e) { return convert(c, a, e); };
    auto [value, alpha, index] = search.ladder_minimum(objective);
    if (c != divergence::rdp_conversion::mir17)
      std::tie(value, alpha) = search.refine(objective, index, value, alpha);
    divergence::rdp_candidate& cand = r.candidates[k + 1];
    cand.conversion = c;
    cand.applicable = true;
    cand.value = value;
    cand.alpha = alpha;
    if (value < winner_value) winner_value = value, winner = k;
  }
  r.conversion = r.candidates[winner + 1].conversion;
  r.alpha = r.candidates[winner + 1].alpha;
}

}  // namespace

double run_rdp(const training_run& run, double alpha) {
  run.validate("run_rdp");
  if (!(alpha > 1 && alpha <= 1e6)) throw_domain_error("run_rdp", "alpha", alpha, "in (1, 1e6]");
  return unchecked_run_rdp(run, alpha);
}

namespace {

divergence::rdp_epsilon_result epsilon_of(const training_run& run,
                                          double delta,
                                          phase_rdp_cache* phases) {
  if (run.is_gaussian()) {
    // μ-GDP ⇒ (α, αμ²/2)-RDP: a linear curve (BS16 applies), at μ widened for the rounding of
    // √T/σ, each conversion's rounding added.
    const double mu = gaussian_mu_upper(run);
    divergence::rdp_epsilon_result r =
        divergence::rdp_epsilon(divergence::gdp_rdp_curve(mu), delta);
    for (auto& cand : r.candidates)
      if (cand.applicable) cand.value += conversion_rounding_at(cand, delta, mu);
    r.value = r.upper = r.candidates[static_cast<std::size_t>(r.conversion)].value;
    r.lower = NAN;  // an RDP conversion gives no lower bound
    return r;
  }
  divergence::rdp_epsilon_result r;
  r.kind = bound_kind::upper_bound;
  r.tight = false;
  order_search search(run, phases);
  optimise(search, r, [&](divergence::rdp_conversion c, double a, double e) {
    const double up = raised(e);
    return divergence::rdp_epsilon_at_order(c, a, up, delta) + epsilon_rounding(a, up, delta);
  });
  for (auto& cand : r.candidates)
    if (cand.applicable) cand.value = std::max(cand.value, 0.0);  // ε < 0 implies (0, δ)-DP
  r.value = r.upper = r.candidates[static_cast<std::size_t>(r.conversion)].value;
  r.lower = NAN;  // an RDP conversion gives no lower bound
  return r;
}

divergence::rdp_delta_result delta_of(const training_run& run,
                                      double epsilon,
                                      phase_rdp_cache* phases) {
  if (run.is_gaussian()) {
    const double mu = gaussian_mu_upper(run);
    divergence::rdp_delta_result r = divergence::rdp_delta(divergence::gdp_rdp_curve(mu), epsilon);
    // Each candidate's log δ with the rounding allowance at its order (log of a candidate's
    // value is ≥ its log δ: the values are rounded up), so a δ below the doubles keeps its log.
    const auto rounding_at = [&](const divergence::rdp_candidate& cand) {
      return conversion_log_delta_rounding_at(cand, epsilon, mu);
    };
    const auto& chosen = r.candidates[static_cast<std::size_t>(r.conversion)];
    const double chosen_log = r.log_value;  // before the allowance
    for (auto& cand : r.candidates) {
      if (!cand.applicable) continue;
      const double log_value = &cand == &chosen ? chosen_log : std::log(cand.value);
      cand.value = std::min(exp_upper(std::min(log_value + rounding_at(cand), 0.0)), 1.0);
    }
    r.log_value = std::min(chosen_log + rounding_at(chosen), 0.0);  // (a NaN stays NaN)
    r.value = chosen.value;
    return r;
  }
  divergence::rdp_delta_result r;
  r.kind = bound_kind::upper_bound;
  r.tight = false;
  order_search search(run, phases);
  optimise(search, r, [&](divergence::rdp_conversion c, double a, double e) {
    const double up = raised(e);
    return std::min(0.0, divergence::rdp_log_delta_at_order(c, a, up, epsilon) +
                             log_delta_rounding(a, up, epsilon));
  });
  r.log_value = r.candidates[static_cast<std::size_t>(r.conversion)].value;
  // exp rounds by < 1 ulp: one more, upward (and never to 0: exp_upper).
  for (auto& cand : r.candidates)
    if (cand.applicable) cand.value = std::min(exp_upper(cand.value), 1.0);
  r.value = std::min(exp_upper(r.log_value), 1.0);
  return r;
}

// The runs of a curve over the last phase's steps, each evaluated as its own call would be, with
// the phases' one-step RDP shared between them.
template <class Result, class One>
std::vector<Result> steps_curve(const training_run& run,
                                std::span<const long long> steps,
                                const char* fn,
                                const curve_progress& progress,
                                One&& one) {
  run.validate(fn);
  if (run.phases.empty()) throw_domain_error(fn, "the number of phases", "0", ">= 1");
  for (const long long t : steps) check_at_least(fn, "steps", t, 1);
  phase_rdp_cache phases;
  std::vector<Result> out;
  out.reserve(steps.size());
  training_run r = run;
  for (const long long t : steps) {
    r.phases.back().steps = t;
    out.push_back(one(r, &phases));
    if (progress) progress(out.size(), steps.size());
  }
  return out;
}

}  // namespace

double run_rdp_upper(const training_run& run, double alpha) {
  return raised(run_rdp(run, alpha));
}

divergence::rdp_epsilon_result rdp_epsilon(const training_run& run, double delta) {
  run.validate("rdp_epsilon");
  check_open_probability("rdp_epsilon", "delta", delta);
  return epsilon_of(run, delta, nullptr);
}

divergence::rdp_delta_result rdp_delta(const training_run& run, double epsilon) {
  run.validate("rdp_delta");
  check_nonnegative("rdp_delta", "epsilon", epsilon);
  return delta_of(run, epsilon, nullptr);
}

std::vector<divergence::rdp_epsilon_result> rdp_epsilon_curve(const training_run& run,
                                                              std::span<const long long> steps,
                                                              double delta,
                                                              const curve_progress& progress) {
  constexpr const char* kFn = "rdp_epsilon_curve";
  check_open_probability(kFn, "delta", delta);
  return steps_curve<divergence::rdp_epsilon_result>(
      run, steps, kFn, progress,
      [&](const training_run& r, phase_rdp_cache* c) { return epsilon_of(r, delta, c); });
}

std::vector<divergence::rdp_delta_result> rdp_delta_curve(const training_run& run,
                                                          std::span<const long long> steps,
                                                          double epsilon,
                                                          const curve_progress& progress) {
  constexpr const char* kFn = "rdp_delta_curve";
  check_nonnegative(kFn, "epsilon", epsilon);
  return steps_curve<divergence::rdp_delta_result>(
      run, steps, kFn, progress,
      [&](const training_run& r, phase_rdp_cache* c) { return delta_of(r, epsilon, c); });
}

namespace {

void check_orders(const char* fn, std::span<const double> orders) {
  if (orders.empty()) throw_domain_error(fn, "the number of orders", "0", ">= 1");
  for (const double a : orders)
    if (!(a > 1 && a <= 1e6)) throw_domain_error(fn, "alpha", a, "in (1, 1e6]");
}

// The best conversion over the given orders only, each value rounded outward as the accountant's.
template <class Result, class Convert>
void best_at_orders(const training_run& run,
                    std::span<const double> orders,
                    Result& r,
                    Convert&& convert) {
  r.kind = bound_kind::upper_bound;
  r.tight = false;
  r.candidates[0].conversion = divergence::rdp_conversion::bs16;  // not used: orders are given
  double best = INFINITY;
  for (std::size_t k = 0; k < 3; ++k) {
    divergence::rdp_candidate& cand = r.candidates[k + 1];
    cand.conversion = kConversions[k];
    cand.applicable = true;
    cand.value = INFINITY;
    for (const double a : orders) {
      const double v = convert(kConversions[k], a, raised(unchecked_run_rdp(run, a)));
      if (v < cand.value) cand.value = v, cand.alpha = a;
    }
    if (cand.value < best) best = cand.value, r.conversion = cand.conversion, r.alpha = cand.alpha;
  }
}

}  // namespace

divergence::rdp_epsilon_result rdp_epsilon_at_orders(const training_run& run,
                                                     double delta,
                                                     std::span<const double> orders) {
  constexpr const char* kFn = "rdp_epsilon_at_orders";
  run.validate(kFn);
  check_open_probability(kFn, "delta", delta);
  check_orders(kFn, orders);
  divergence::rdp_epsilon_result r;
  best_at_orders(run, orders, r, [&](divergence::rdp_conversion c, double a, double up) {
    return std::max(
        0.0, divergence::rdp_epsilon_at_order(c, a, up, delta) + epsilon_rounding(a, up, delta));
  });
  r.value = r.upper = r.candidates[static_cast<std::size_t>(r.conversion)].value;
  r.lower = NAN;
  return r;
}

divergence::rdp_delta_result rdp_delta_at_orders(const training_run& run,
                                                 double epsilon,
                                                 std::span<const double> orders) {
  constexpr const char* kFn = "rdp_delta_at_orders";
  run.validate(kFn);
  check_nonnegative(kFn, "epsilon", epsilon);
  check_orders(kFn, orders);
  divergence::rdp_delta_result r;
  best_at_orders(run, orders, r, [&](divergence::rdp_conversion c, double a, double up) {
    return std::min(0.0, divergence::rdp_log_delta_at_order(c, a, up, epsilon) +
                             log_delta_rounding(a, up, epsilon));
  });
  r.log_value = r.candidates[static_cast<std::size_t>(r.conversion)].value;
  for (auto& cand : r.candidates)
    if (cand.applicable) cand.value = std::min(exp_upper(cand.value), 1.0);
  r.value = std::min(exp_upper(r.log_value), 1.0);
  return r;
}

}  // namespace dpkit::accounting
