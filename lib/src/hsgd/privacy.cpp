// Rényi DP of noisy HSGD (hsgd/privacy.hpp; LKSP25 §4.2, Thms 4.3–4.5, App. C): the argument
// checks and the entry points — the neighbouring processes, single divergences, the RDP
// trajectories of the last iterate, of J iterates and of their average, the candidate pairs,
// and the conversion to (ε, δ). The per-node kernel and evaluator are in privacy_kernel.cpp,
// the s-integral and the mixtures over the record's position in privacy_mixture.cpp.
#include "dpkit/hsgd/privacy.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "detail/privacy.hpp"
#include "dpkit/core/check.hpp"

namespace dpkit::hsgd {

using detail::evaluator;
using detail::make_release;
using detail::merge_status;
using detail::mixture_rdp;
using detail::prepare;
using detail::prepared;
using detail::release;
using detail::release_kind;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- argument checks ----------------------------------------------------------------------------

void check_alpha(const char* fn, double alpha) {
  check_greater(fn, "alpha", alpha, 1.0);
}

void check_law(const char* fn, const gaussian_law& law) {
  // σ = 0 makes V(t) singular near the jump (no noise masks it): no finite RDP.
  const double sigma = law.problem().sigma;
  check_positive(fn, "law.problem().sigma", sigma);
  if (!(sigma <= kLargestPrivacyNoise))
    throw_domain_error(fn, "noise_std", sigma,
                       "<= 1e50 (the divergences' moments carry sigma^4, which leaves double "
                       "precision beyond)");
  // The DP noise enters each step as (hσ)², h = γ/d: it must be a normal double, or the
  // divergences come out NaN (γ = 1e-200 at σ = 1.5 did). Checked at both ends of the horizon
  // (a decaying schedule is smallest at its end); named by whichever of γ and σ is the smaller.
  const double d = static_cast<double>(law.dimension());
  for (const double t : {0.0, law.horizon()}) {
    const double gamma = law.schedule().rate(t), step_noise = gamma / d * sigma;
    if (!(step_noise * step_noise >= 1e-300))
      throw_domain_error(fn, gamma < sigma ? "learning_rate" : "noise_std",
                         gamma < sigma ? gamma : sigma,
                         "large enough that the DP noise's variance per step, (gamma sigma / d)^2 "
                         "= " +
                             format_value(step_noise * step_noise) +
                             " here, is at least 1e-300 (below, it leaves double precision)");
  }
}

void check_time_in(const char* fn, const char* name, double t, const gaussian_law& law) {
  if (!(t >= 0 && t <= law.horizon()))
    throw_domain_error(
        fn, name, t,
        "in [0, T] = [0, " + format_value(law.horizon()) + "], T the horizon (one pass: n/d)");
}

void check_record(const char* fn, const char* name, const record& rec, const gaussian_law& law) {
  if (rec.a.size() != law.dimension())
    throw_domain_error(fn, std::string(name) + ".a.size()",
                       format_value(static_cast<long long>(rec.a.size())),
                       "d = " + format_value(law.dimension()));
  if (!rec.a.allFinite()) throw_domain_error(fn, std::string(name) + ".a", "non-finite", "finite");
  check_finite(fn, std::string(name) + ".b", rec.b);
}

void check_release_times(const char* fn, std::span<const double> times, const gaussian_law& law) {
  check_at_least(fn, "times.size()", static_cast<long long>(times.size()), 1);
  for (std::size_t j = 0; j < times.size(); ++j) {
    const std::string name = "times[" + std::to_string(j) + "]";
    if (!(times[j] > 0 && times[j] <= law.horizon()))
      throw_domain_error(
          fn, name, times[j],
          "in (0, T] = (0, " + format_value(law.horizon()) + "], T the horizon (one pass: n/d)");
    if (j > 0 && !(times[j] > times[j - 1]))
      throw_domain_error(
          fn, name, times[j],
          "> the entry before it, " + format_value(times[j - 1]) + " (strictly increasing)");
  }
}

void check_dataset(const char* fn, const dataset& data, const gaussian_law& law) {
  if (data.features.cols() != law.dimension())
    throw_domain_error(fn, "data.features.cols()",
                       format_value(static_cast<long long>(data.features.cols())),
                       "d = " + format_value(law.dimension()));
  if (data.labels.size() != data.features.rows())
    throw_domain_error(
        fn, "data.labels.size()", format_value(static_cast<long long>(data.labels.size())),
        "data.features.rows() = " + format_value(static_cast<long long>(data.features.rows())));
  if (!data.features.allFinite()) throw_domain_error(fn, "data.features", "non-finite", "finite");
  if (!data.labels.allFinite()) throw_domain_error(fn, "data.labels", "non-finite", "finite");
}

void check_pairs(const char* fn, std::span<const record_pair> pairs, long long n) {
  check_at_least(fn, "pairs.size()", static_cast<long long>(pairs.size()), 1);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string name = "pairs[" + std::to_string(i) + "]";
    const std::string range = "in [0, " + format_value(n) + ")";
    if (pairs[i].first < 0 || pairs[i].first >= n)
      throw_domain_error(fn, name + ".first", format_value(pairs[i].first), range);
    if (pairs[i].second < 0 || pairs[i].second >= n)
      throw_domain_error(fn, name + ".second", format_value(pairs[i].second), range);
    if (pairs[i].first == pairs[i].second)
      throw_domain_error(fn, name + ".second", format_value(pairs[i].second),
                         "different from .first (a neighbouring pair)");
  }
}

void check_options(const char* fn, const mixture_options& o) {
  check_positive(fn, "options.relative_tolerance", o.relative_tolerance);
  check_nonnegative(fn, "options.absolute_tolerance", o.absolute_tolerance);
  check_at_least(fn, "options.max_intervals", o.max_intervals, 1);
}

// The discrete mixture runs over the n = T·d SGD steps, so T·d must be a whole number.
void check_positions(const char* fn, const mixture_options& o, const gaussian_law& law) {
  if (o.positions != position_mixture::discrete) return;
  const double steps = law.horizon() * static_cast<double>(law.dimension());
  if (!(std::abs(steps - std::round(steps)) <= 1e-9 * std::max(1.0, steps)) || steps < 1)
    throw_domain_error(fn, "horizon*d", format_value(steps),
                       "a positive integer (the number n of SGD steps) for "
                       "position_mixture::discrete");
}

// ---- single evaluations ------------------------------------------------------------------------

double single_divergence(const char* fn,
                         const gaussian_law& law,
                         const record& first,
                         const record& second,
                         release_kind kind,
                         std::span<const double> times,
                         double s,
                         double alpha,
                         renyi_order order) {
  check_law(fn, law);
  check_alpha(fn, alpha);
  check_record(fn, "first", first, law);
  check_record(fn, "second", second, law);
  check_time_in(fn, "s", s, law);
  if (s > times.back()) return 0;  // LKSP25 Thm 4.3: the processes coincide before s
  Eigen::MatrixXd features(2, law.dimension());
  features.row(0) = first.a.transpose();
  features.row(1) = second.a.transpose();
  const Eigen::VectorXd labels = Eigen::Vector2d(first.b, second.b);
  const record_pair pair{0, 1};
  const prepared P = prepare(law, features, labels, std::span<const record_pair>(&pair, 1));
  const release rel = make_release(law, kind, times);
  evaluator ev(law, P, rel, alpha, order);
  double g[2] = {0, 0};
  return ev.evaluate(s, std::span<double>(g, ev.candidates())) / (alpha - 1);
}

}  // namespace

std::string_view to_string(position_mixture m) noexcept {
  return m == position_mixture::discrete ? "discrete" : "continuous";
}

std::string_view to_string(renyi_order o) noexcept {
  switch (o) {
    case renyi_order::forward:
      return "forward";
    case renyi_order::paper:
      return "paper";
    case renyi_order::symmetric:
      return "symmetric";
  }
  return "?";
}

Eigen::MatrixXd neighbouring_law::covariance(int process) const {
  if (process != 1 && process != 2)
    throw_domain_error("neighbouring_law::covariance", "process",
                       format_value(static_cast<long long>(process)), "1 or 2");
  const Eigen::MatrixXd& L = process == 1 ? factor1 : factor2;
  const Eigen::Matrix2d& S = process == 1 ? core1 : core2;
  Eigen::MatrixXd V = L * S * L.transpose();
  V.diagonal() += base;
  return V;
}

neighbouring_law neighbouring_processes(
    const gaussian_law& law, const record& first, const record& second, double t, double s) {
  constexpr const char* fn = "neighbouring_processes";
  check_law(fn, law);
  check_record(fn, "first", first, law);
  check_record(fn, "second", second, law);
  check_time_in(fn, "t", t, law);
  check_time_in(fn, "s", s, law);
  if (s > t)
    throw_domain_error(fn, "s", s, "<= t = " + format_value(t) + " (else the processes coincide)");
  const long long d = law.dimension();
  const std::vector<int>& group = law.group_of();
  const double h = law.schedule().rate(s) / static_cast<double>(d);  // LKSP25 §4.2
  const double delta = law.problem().ridge, sigma2 = law.problem().sigma * law.problem().sigma;
  const double beta = 1 - h * delta;
  const double dG = law.Gamma(t) - law.Gamma(s);
  const Eigen::VectorXd ws = law.variances(s), wt = law.variances(t);
  const Eigen::VectorXd ms = law.mean(s), mt = law.mean(t);
  Eigen::VectorXd psi(d);
  for (Eigen::Index k = 0; k < d; ++k)
    psi[k] =
        std::exp(-law.kappa(static_cast<std::size_t>(group[static_cast<std::size_t>(k)])) * dG);
  neighbouring_law out;
  out.t = t;
  out.s = s;
  // D = w(t) − (1 − β²)ψ²w(s) + h²σ²ψ², written as the (≥ 0) noise increment
  // w(t) − ψ²w(s) plus the propagated jump ψ²(β²w(s) + h²σ²).
  out.base =
      (wt - psi.cwiseAbs2().cwiseProduct(ws)).cwiseMax(0.0) +
      psi.cwiseAbs2().cwiseProduct(beta * beta * ws + Eigen::VectorXd::Constant(d, h * h * sigma2));
  auto one = [&](const record& rec, Eigen::VectorXd& mean, Eigen::MatrixXd& L, Eigen::Matrix2d& S) {
    const Eigen::VectorXd a = law.basis().to_eigen(rec.a);
    const double res = rec.b - a.dot(ms);  // r_i = b_i − a_iᵀm(s)
    // m_i(t; s) = m(t) + ψ∘(−hδ m(s) + h r_i a_i) (LKSP25 (12)–(13)).
    mean = mt + psi.cwiseProduct(-h * delta * ms + h * res * a);
    L.resize(d, 2);
    L.col(0) = beta * psi.cwiseProduct(ws).cwiseProduct(a);  // v_i
    L.col(1) = -h * psi.cwiseProduct(a);                     // u_i
    S << 0, 1, 1, a.cwiseAbs2().dot(ws);                     // q_i = a_iᵀW a_i
  };
  one(first, out.mean1, out.factor1, out.core1);
  one(second, out.mean2, out.factor2, out.core2);
  return out;
}

double renyi_divergence(const gaussian_law& law,
                        const record& first,
                        const record& second,
                        double t,
                        double s,
                        double alpha,
                        renyi_order order) {
  constexpr const char* fn = "renyi_divergence";
  check_time_in(fn, "t", t, law);
  return single_divergence(fn, law, first, second, release_kind::last_iterate,
                           std::span<const double>(&t, 1), s, alpha, order);
}

double renyi_divergence_iterates(const gaussian_law& law,
                                 const record& first,
                                 const record& second,
                                 std::span<const double> times,
                                 double s,
                                 double alpha,
                                 renyi_order order) {
  constexpr const char* fn = "renyi_divergence_iterates";
  check_release_times(fn, times, law);
  return single_divergence(fn, law, first, second, release_kind::iterates, times, s, alpha, order);
}

double renyi_divergence_average(const gaussian_law& law,
                                const record& first,
                                const record& second,
                                std::span<const double> times,
                                double s,
                                double alpha,
                                renyi_order order) {
  constexpr const char* fn = "renyi_divergence_average";
  check_release_times(fn, times, law);
  return single_divergence(fn, law, first, second, release_kind::average, times, s, alpha, order);
}

rdp_trajectory last_iterate_rdp(const gaussian_law& law,
                                const dataset& data,
                                std::span<const record_pair> pairs,
                                std::span<const double> times,
                                double alpha,
                                const mixture_options& options) {
  constexpr const char* fn = "last_iterate_rdp";
  check_law(fn, law);
  check_alpha(fn, alpha);
  check_dataset(fn, data, law);
  check_pairs(fn, pairs, static_cast<long long>(data.features.rows()));
  check_options(fn, options);
  check_positions(fn, options, law);
  for (std::size_t j = 0; j < times.size(); ++j)
    check_time_in(fn, ("times[" + std::to_string(j) + "]").c_str(), times[j], law);
  const prepared P = prepare(law, data.features, data.labels, pairs);
  rdp_trajectory out;
  out.alpha = alpha;
  out.order = options.order;
  out.times.assign(times.begin(), times.end());
  // The release times are independent: one OpenMP task each (dynamic: late times need more
  // nodes). Every value is computed exactly as in a serial loop, so results do not depend on
  // the number of threads; statuses are merged in time order afterwards.
  std::vector<rdp_value> values(times.size());
  std::vector<std::exception_ptr> errors(times.size());
  const auto count = static_cast<long long>(times.size());
#pragma omp parallel for schedule(dynamic)
  for (long long j = 0; j < count; ++j) {
    try {
      const double t = times[static_cast<std::size_t>(j)];
      const release rel =
          make_release(law, release_kind::last_iterate, std::span<const double>(&t, 1));
      values[static_cast<std::size_t>(j)] = mixture_rdp(law, P, rel, alpha, options);
    } catch (...) {
      errors[static_cast<std::size_t>(j)] = std::current_exception();
    }
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (std::size_t j = 0; j < values.size(); ++j) {
    solver_status st = values[j];
    if (!st.message.empty()) st.message = "t = " + format_value(times[j]) + ": " + st.message;
    merge_status(out, st);
    out.values.push_back(std::move(values[j]));
  }
  return out;
}

namespace {
// The shared body of iterates_rdp and average_rdp: checks, then the mixture over s.
rdp_value released_rdp(const char* fn,
                       release_kind kind,
                       const gaussian_law& law,
                       const dataset& data,
                       std::span<const record_pair> pairs,
                       std::span<const double> times,
                       double alpha,
                       const mixture_options& options) {
  check_law(fn, law);
  check_alpha(fn, alpha);
  check_dataset(fn, data, law);
  check_pairs(fn, pairs, static_cast<long long>(data.features.rows()));
  check_options(fn, options);
  check_positions(fn, options, law);
  check_release_times(fn, times, law);
  const prepared P = prepare(law, data.features, data.labels, pairs);
  return mixture_rdp(law, P, make_release(law, kind, times), alpha, options);
}
}  // namespace

rdp_value iterates_rdp(const gaussian_law& law,
                       const dataset& data,
                       std::span<const record_pair> pairs,
                       std::span<const double> times,
                       double alpha,
                       const mixture_options& options) {
  return released_rdp("iterates_rdp", release_kind::iterates, law, data, pairs, times, alpha,
                      options);
}

rdp_value average_rdp(const gaussian_law& law,
                      const dataset& data,
                      std::span<const record_pair> pairs,
                      std::span<const double> times,
                      double alpha,
                      const mixture_options& options) {
  return released_rdp("average_rdp", release_kind::average, law, data, pairs, times, alpha,
                      options);
}

std::vector<record_pair> all_pairs(long long n) {
  check_at_least("all_pairs", "n", n, 2);
  std::vector<record_pair> out;
  out.reserve(static_cast<std::size_t>(n * (n - 1) / 2));
  for (long long i = 0; i < n; ++i)
    for (long long j = i + 1; j < n; ++j) out.push_back({i, j});
  return out;
}

std::vector<record_pair> extreme_label_pairs(const dataset& data, long long count) {
  constexpr const char* fn = "extreme_label_pairs";
  const long long n = data.labels.size();
  if (!data.labels.allFinite()) throw_domain_error(fn, "data.labels", "non-finite", "finite");
  check_at_least(fn, "count", count, 1);
  if (2 * count > n)
    throw_domain_error(fn, "count", format_value(count),
                       "<= n/2 = " + format_value(n / 2) + " (disjoint top and bottom sets)");
  std::vector<long long> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](long long a, long long b) { return data.labels[a] > data.labels[b]; });
  std::vector<record_pair> out;
  for (long long i = 0; i < count; ++i)
    for (long long j = 0; j < count; ++j)
      out.push_back(
          {order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(n - 1 - j)]});
  return out;
}

std::vector<double> mean_gap_proxy(const gaussian_law& law,
                                   const dataset& data,
                                   std::span<const record_pair> pairs,
                                   double s) {
  constexpr const char* fn = "mean_gap_proxy";
  check_dataset(fn, data, law);
  check_pairs(fn, pairs, static_cast<long long>(data.features.rows()));
  check_time_in(fn, "s", s, law);
  const prepared P = prepare(law, data.features, data.labels, pairs);
  std::vector<double> phis(P.r);
  law.group_decay(s, phis);
  std::vector<double> res(P.n);
  for (std::size_t j = 0; j < P.n; ++j) {
    double am = P.c[j];
    for (std::size_t g = 0; g < P.r; ++g) am += phis[g] * P.E[j * P.r + g];
    res[j] = P.b[j] - am;
  }
  const double h = law.schedule().rate(s) / static_cast<double>(law.dimension());
  std::vector<double> out(P.m);
  // ‖m₁(s⁺) − m₂(s⁺)‖ = h‖r₁a₁ − r₂a₂‖, directly over the coordinates (O(d)).
  for (std::size_t q = 0; q < P.m; ++q) {
    const auto a1 = P.A.col(static_cast<Eigen::Index>(P.p1[q]));
    const auto a2 = P.A.col(static_cast<Eigen::Index>(P.p2[q]));
    out[q] = h * (res[P.p1[q]] * a1 - res[P.p2[q]] * a2).norm();
  }
  return out;
}

std::vector<record_pair> top_pairs_by_proxy(const gaussian_law& law,
                                            const dataset& data,
                                            std::span<const record_pair> pairs,
                                            double s,
                                            long long count) {
  check_at_least("top_pairs_by_proxy", "count", count, 1);
  const std::vector<double> proxy = mean_gap_proxy(law, data, pairs, s);
  std::vector<std::size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return proxy[a] > proxy[b]; });
  order.resize(std::min(order.size(), static_cast<std::size_t>(count)));
  std::vector<record_pair> out;
  for (std::size_t i : order) out.push_back(pairs[i]);
  return out;
}

divergence::rdp_epsilon_result epsilon_delta(std::span<const double> alphas,
                                             std::span<const double> rdp_epsilons,
                                             double delta) {
  constexpr const char* fn = "epsilon_delta";
  check_at_least(fn, "alphas.size()", static_cast<long long>(alphas.size()), 1);
  if (rdp_epsilons.size() != alphas.size())
    throw_domain_error(fn, "rdp_epsilons.size()",
                       format_value(static_cast<long long>(rdp_epsilons.size())),
                       "alphas.size() = " + format_value(static_cast<long long>(alphas.size())));
  check_open_probability(fn, "delta", delta);
  std::vector<double> a, e;
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    check_greater(fn, "alphas[" + std::to_string(i) + "]", alphas[i], 1.0);
    check_not_nan(fn, "rdp_epsilons[" + std::to_string(i) + "]", rdp_epsilons[i]);
    if (rdp_epsilons[i] == kInf) continue;
    check_nonnegative(fn, "rdp_epsilons[" + std::to_string(i) + "]", rdp_epsilons[i]);
    a.push_back(alphas[i]);
    e.push_back(rdp_epsilons[i]);
  }
  divergence::rdp_epsilon_result out;
  if (a.empty()) {
    out.value = out.lower = out.upper = kInf;
    out.message = "every order has epsilon_alpha = +inf";
  } else {
    out = divergence::rdp_epsilon(divergence::rdp_curve::at_orders(std::move(a), std::move(e)),
                                  delta);
  }
  out.kind = bound_kind::approximation;
  out.tight = false;
  out.message += (out.message.empty() ? "" : "; ") +
                 std::string(
                     "HSGD surrogate (LKSP25): an upper bound for the linearised HSGD "
                     "over the candidate pairs, an approximation for noisy SGD");
  return out;
}

std::vector<divergence::rdp_epsilon_result> last_iterate_epsilon_delta(
    const gaussian_law& law,
    const dataset& data,
    std::span<const record_pair> pairs,
    std::span<const double> times,
    std::span<const double> alphas,
    double delta,
    const mixture_options& options) {
  constexpr const char* fn = "last_iterate_epsilon_delta";
  check_at_least(fn, "alphas.size()", static_cast<long long>(alphas.size()), 1);
  check_open_probability(fn, "delta", delta);
  std::vector<rdp_trajectory> curves;
  for (double a : alphas) curves.push_back(last_iterate_rdp(law, data, pairs, times, a, options));
  std::vector<divergence::rdp_epsilon_result> out;
  for (std::size_t j = 0; j < times.size(); ++j) {
    std::vector<double> eps;
    solver_status st;
    for (const rdp_trajectory& c : curves) {
      eps.push_back(c.values[j].epsilon);
      merge_status(st, c.values[j]);
    }
    if (st.termination == termination_type::failure) {
      divergence::rdp_epsilon_result r;
      r.termination = st.termination;
      r.message = st.message;
      r.kind = bound_kind::approximation;
      out.push_back(r);
      continue;
    }
    divergence::rdp_epsilon_result r = epsilon_delta(alphas, eps, delta);
    if (st.termination != termination_type::converged) r.termination = st.termination;
    if (!st.message.empty()) r.message = st.message + "; " + r.message;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace dpkit::hsgd
