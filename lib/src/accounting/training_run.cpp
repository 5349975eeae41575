#include "dpkit/accounting/training_run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <boost/math/special_functions/beta.hpp>

#include "dpkit/core/check.hpp"
#include "dpkit/core/parse.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::accounting {

std::string_view to_string(sampling_scheme s) noexcept {
  switch (s) {
    case sampling_scheme::poisson:
      return "poisson";
    case sampling_scheme::without_replacement:
      return "without-replacement";
    case sampling_scheme::shuffling:
      return "shuffling";
    case sampling_scheme::random_allocation:
      return "random-allocation";
    case sampling_scheme::truncated_poisson:
      return "truncated-poisson";
  }
  return "unknown";
}

std::string_view to_string(neighbouring n) noexcept {
  switch (n) {
    case neighbouring::standard:
      return "standard";
    case neighbouring::add_remove:
      return "add-remove";
    case neighbouring::replace_one:
      return "replace-one";
    case neighbouring::zero_out:
      return "zero-out";
  }
  return "unknown";
}


std::optional<sampling_scheme> parse_sampling_scheme(std::string_view name) noexcept {
  for (sampling_scheme s :
       {sampling_scheme::poisson, sampling_scheme::truncated_poisson,
        sampling_scheme::without_replacement, sampling_scheme::shuffling,
        sampling_scheme::random_allocation})
    if (same_name(name, to_string(s))) return s;
  return std::nullopt;
}

std::optional<neighbouring> parse_neighbouring(std::string_view name) noexcept {
  for (neighbouring n : {neighbouring::add_remove, neighbouring::replace_one})
    if (same_name(name, to_string(n))) return n;
  return std::nullopt;
}

neighbouring standard_relation(sampling_scheme s) noexcept {
  switch (s) {
    case sampling_scheme::without_replacement:
      return neighbouring::replace_one;
    case sampling_scheme::shuffling:
      return neighbouring::zero_out;
    default:
      return neighbouring::add_remove;
  }
}

neighbouring relation(const training_phase& p) noexcept {
  return p.neighbours != neighbouring::standard ? p.neighbours : standard_relation(p.sampling);
}

double sensitivity(const training_phase& p) noexcept {
  return relation(p) == neighbouring::replace_one ? 2.0 : 1.0;
}

truncation_weights truncated_poisson_weights(long long n, double q, long long max_batch) {
  constexpr const char* kFn = "truncated_poisson_weights";
  check_at_least(kFn, "n", n, 1);
  check_at_least(kFn, "max_batch", max_batch, 1);
  if (!(q >= 0 && q <= 1)) throw_domain_error(kFn, "q", q, "in [0, 1]");
  truncation_weights w;
  if (max_batch > n - 1 || q == 0) return w;  // the others never fill the batch
  const auto nd = static_cast<double>(n), b = static_cast<double>(max_batch);
  // P(Bin(m, q) ≥ k) = I_q(k, m − k + 1) for 1 ≤ k ≤ m (Boost's regularised incomplete beta,
  // accurate to a few ulp in the tails as well).
  auto tail = [&](double m, double k) {
    if (k > m) return 0.0;
    if (q == 1) return 1.0;
    return boost::math::ibeta(k, m - k + 1, q);
  };
  const double t = tail(nd - 1, b);
  if (!(t > 0)) return w;
  const double kept = b * tail(nd, b + 1) / (nd * t);
  auto up = [](double x) {
    for (int i = 0; i < 8; ++i) x = std::nextafter(x, 2.0);
    return std::min(x, 1.0);
  };
  w.t = up(t);
  w.q_kept = up(kept);
  return w;
}

void training_run::validate(std::string_view function, bool edge_values) const {
  check_nonnegative(function, "gaussian_mu", gaussian_mu);
  // A G(μ₀) factor is μ₀-GDP: the same range as every μ-GDP conversion (divergence/gdp.hpp).
  if (gaussian_mu > divergence::kLargestGdpMu)
    throw_domain_error(function, "gaussian_mu", gaussian_mu,
                       "<= 1e6 (beyond, epsilon > 5e11 and delta(epsilon) is ill-conditioned in "
                       "double precision)");
  for (const training_phase& p : phases) {
    if (edge_values) {
      if (!(p.noise_multiplier == 0 || p.noise_multiplier >= kSmallestNoiseMultiplier))
        throw_domain_error(function, "noise_multiplier", p.noise_multiplier,
                           "0 (no noise), +inf (nothing released) or in [1e-100, +inf)");
      if (!(p.sampling_rate == 0 ||
            (p.sampling_rate >= kSmallestSamplingRate && p.sampling_rate <= 1)))
        throw_domain_error(function, "sampling_rate", p.sampling_rate,
                           std::string("0 (never sampled) or in [") + kSmallestNormalText +
                               ", 1]");
    } else {
      // The edge values have exact answers only where ε or δ is asked for: say where.
      const bool edge = p.noise_multiplier == 0 || p.sampling_rate == 0 ||
                        p.noise_multiplier == std::numeric_limits<double>::infinity();
      const char* where = edge ? " (noise multiplier 0 or inf and sampling rate 0 are edge "
                                 "values that only the epsilon and delta queries answer)"
                               : "";
      if (!(p.noise_multiplier >= kSmallestNoiseMultiplier && std::isfinite(p.noise_multiplier)))
        throw_domain_error(function, "noise_multiplier", p.noise_multiplier,
                           std::string("finite and >= 1e-100") + where);
      if (!(p.sampling_rate >= kSmallestSamplingRate && p.sampling_rate <= 1))
        throw_domain_error(function, "sampling_rate", p.sampling_rate,
                           std::string("in [") + kSmallestNormalText + ", 1]" + where);
    }
    check_at_least(function, "steps", p.steps, 1);
    const neighbouring r = relation(p);
    const bool poisson_like =
        p.sampling == sampling_scheme::poisson || p.sampling == sampling_scheme::truncated_poisson;
    const bool ok = poisson_like ? (r == neighbouring::add_remove || r == neighbouring::replace_one)
                    : p.sampling == sampling_scheme::without_replacement
                        ? r == neighbouring::replace_one
                    : p.sampling == sampling_scheme::shuffling ? r == neighbouring::zero_out
                                                               : r == neighbouring::add_remove;
    if (!ok)
      throw_domain_error(function, "neighbours", to_string(p.neighbours),
                         std::string("a relation ") + std::string(to_string(p.sampling)) +
                             " takes (poisson and truncated-poisson: add-remove or replace-one; "
                             "without-replacement: replace-one; random-allocation: add-remove; "
                             "shuffling: zero-out)");
    if (p.sampling == sampling_scheme::truncated_poisson) {
      check_at_least(function, "dataset_size", p.dataset_size, 1);
      check_at_least(function, "max_batch_size", p.max_batch_size, 1);
      if (p.sampling_rate == 1 && p.max_batch_size < p.dataset_size)
        throw_domain_error(function, "sampling_rate", p.sampling_rate,
                           "< 1 for truncated Poisson batches with max_batch_size < "
                           "dataset_size (at q = 1 every batch is max_batch_size records drawn "
                           "without replacement: use without-replacement sampling)");
    }
    const bool allocation = p.sampling == sampling_scheme::random_allocation;
    check_at_least(function, "selected", p.selected, 1);
    if (p.selected != 1 && !allocation)
      throw_domain_error(function, "selected", format_value(p.selected),
                         "1 unless the sampling is random-allocation (only there is an example "
                         "used in k of the t steps of each epoch)");
    if (p.steps_per_epoch != 0) {
      if (p.sampling != sampling_scheme::shuffling && !allocation)
        throw_domain_error(function, "steps_per_epoch", format_value(p.steps_per_epoch),
                           "0 unless the sampling is shuffling or random-allocation (only they "
                           "have epochs)");
      check_at_least(function, "steps_per_epoch", p.steps_per_epoch, 1);
      const double t = static_cast<double>(p.steps_per_epoch), q = p.sampling_rate;
      const auto k = static_cast<double>(p.selected);
      // At q = 0 (an edge value: never sampled) any epoch length is as private.
      if (q > 0 && !((t - 1) * q < k))
        throw_domain_error(function, "steps_per_epoch", format_value(p.steps_per_epoch),
                           p.selected == 1
                               ? "at most ceil(1/q) (" + format_value(1 / q) +
                                     " batches of a q-th of the data use every example)"
                               : "at most ceil(k/q) (" + format_value(k / q) +
                                     " steps at rate q use every example k times)");
      if (q > 0 && allocation && t * q < k * (1 - 1e-9))
        throw_domain_error(function, "steps_per_epoch", format_value(p.steps_per_epoch),
                           p.selected == 1
                               ? "ceil(1/q) for random allocation (each example is in one step "
                                 "of every epoch: an epoch of t steps has q = 1/t)"
                               : "ceil(k/q) for random allocation of k steps (each example is "
                                 "in k steps of every epoch: an epoch of t steps has q = k/t)");
    }
  }
}

long long training_run::total_steps() const {
  long long t = gaussian_mu > 0 ? 1 : 0;
  for (const training_phase& p : phases) t += p.steps;
  return t;
}

namespace {
// Per-step GDP parameter of a full-batch phase: sensitivity 1 (add/remove) or 2 (replace-one).
double phase_mu(const training_phase& p) {
  return sensitivity(p) / p.noise_multiplier;
}
}  // namespace

bool training_run::is_gaussian() const {
  for (const training_phase& p : phases)
    if (p.sampling_rate < 1) return false;
  return true;
}

double training_run::gdp_mu() const {
  // G(μ₁) ⊗ G(μ₂) = G(√(μ₁² + μ₂²)) (BSA24 eq. (3.3)).
  double sum = gaussian_mu * gaussian_mu;
  for (const training_phase& p : phases)
    sum += static_cast<double>(p.steps) * phase_mu(p) * phase_mu(p);
  if (sum >= 1e-290 && std::isfinite(sum)) return std::sqrt(sum);
  // Beyond, the squares are summed relative to the largest term √T·μ: unscaled, a μ below 1e-154
  // squared to a subnormal (losing digits) and below 1.5e-162 to 0 (σ = 1e200 at q = 1 gave
  // μ = 0 and a false "exact" ε = 0 at δ = 1e-290, where δ(0) ≈ 0.4μ exceeds δ). One more rounding
  // per phase (the division) and one for the product; the accountants' rounding allowance for μ (8
  // + 4 per phase machine epsilons) covers both.
  double largest = gaussian_mu;
  for (const training_phase& p : phases)
    largest = std::max(largest, std::sqrt(static_cast<double>(p.steps)) * phase_mu(p));
  if (!(largest > 0) || std::isinf(largest)) return largest;
  const double r0 = gaussian_mu / largest;
  sum = r0 * r0;
  for (const training_phase& p : phases) {
    const double r = phase_mu(p) / largest;
    sum += static_cast<double>(p.steps) * r * r;
  }
  return largest * std::sqrt(sum);
}

bool training_run::has_poisson_subsampling() const {
  for (const training_phase& p : phases)
    if ((p.sampling == sampling_scheme::poisson ||
         p.sampling == sampling_scheme::truncated_poisson) &&
        p.sampling_rate < 1 && relation(p) == neighbouring::add_remove)
      return true;
  return false;
}

bool training_run::has_epoch_sampling() const {
  for (const training_phase& p : phases)
    if ((p.sampling == sampling_scheme::shuffling ||
         p.sampling == sampling_scheme::random_allocation) &&
        p.sampling_rate < 1)
      return true;
  return false;
}

bool training_run::has_shuffling() const {
  for (const training_phase& p : phases)
    if (p.sampling == sampling_scheme::shuffling && p.sampling_rate < 1) return true;
  return false;
}

namespace {
// A truncated Poisson phase whose batches can be cut: 0 < q < 1 and B < n.
bool truncates(const training_phase& p) {
  return p.sampling == sampling_scheme::truncated_poisson && p.sampling_rate > 0 &&
         p.sampling_rate < 1 && p.max_batch_size < p.dataset_size;
}
}  // namespace

bool training_run::has_truncation() const {
  for (const training_phase& p : phases)
    if (truncates(p)) return true;
  return false;
}

training_run training_run::lower_bound_run() const {
  training_run r = *this;
  for (training_phase& p : r.phases) {
    if (p.sampling != sampling_scheme::truncated_poisson) continue;
    const bool cut = truncates(p);
    p.sampling = sampling_scheme::poisson;
    if (!cut) continue;
    // Unrounded weights: q̄ = q − t(q − q′) ≤ q, rounded down by 16 ulp.
    const truncation_weights w =
        truncated_poisson_weights(p.dataset_size, p.sampling_rate, p.max_batch_size);
    double kept = p.sampling_rate - w.t * std::max(0.0, p.sampling_rate - w.q_kept);
    for (int i = 0; i < 16; ++i) kept = std::nextafter(kept, 0.0);
    p.sampling_rate = std::max(kept, std::numeric_limits<double>::min());
  }
  return r;
}

std::string training_run::describe() const {
  std::string s;
  for (const training_phase& p : phases) {
    if (!s.empty()) s += "; then ";
    s += std::to_string(p.steps) + " step" + (p.steps == 1 ? "" : "s") + " with noise multiplier " +
         format_value(p.noise_multiplier);
    if (p.sampling_rate < 1)
      s += ", sampling rate " + format_value(p.sampling_rate) + " (" +
           std::string(to_string(p.sampling)) +
           (p.sampling == sampling_scheme::truncated_poisson
                ? " to at most " + std::to_string(p.max_batch_size) + " of " +
                      std::to_string(p.dataset_size)
                : std::string()) +
           ", " + std::string(to_string(relation(p))) + ")";
    else
      s += ", full batch";
  }
  if (gaussian_mu > 0)
    s +=
        (s.empty() ? "" : "; plus ") + std::string("a G(") + format_value(gaussian_mu) + ") factor";
  return s;
}

std::vector<loss_factor> loss_factors(const training_run& run, subsampling::adjacency_direction d) {
  std::vector<loss_factor> out;
  if (run.gaussian_mu > 0) out.push_back({subsampling::gaussian_loss(run.gaussian_mu), 1});
  for (const training_phase& p : run.phases) {
    std::shared_ptr<const subsampling::privacy_loss> loss;
    const bool replace_one = relation(p) == neighbouring::replace_one;
    // Poisson batches with rate q (add/remove in direction d, or replace-one), and the pair
    // with sensitivity 2 that truncation adds (replace-one: N(∓2) vs N(±2), as σ/2 with 1).
    auto poisson = [&](double sigma, double rate,
                       bool symmetric) -> std::shared_ptr<const subsampling::privacy_loss> {
      if (symmetric) return subsampling::poisson_replace_one_gaussian_loss(sigma, rate);
      return subsampling::poisson_gaussian_loss(sigma, rate, d);
    };
    if (p.sampling == sampling_scheme::truncated_poisson && p.sampling_rate > 0) {
      const truncation_weights w =
          truncated_poisson_weights(p.dataset_size, p.sampling_rate, p.max_batch_size);
      std::shared_ptr<const subsampling::privacy_loss> plain =
          p.sampling_rate == 1 ? std::shared_ptr<const subsampling::privacy_loss>(
                                     subsampling::gaussian_loss(phase_mu(p)))
                               : poisson(p.noise_multiplier, p.sampling_rate, replace_one);
      if (w.t > 0)
        loss = subsampling::mixture_loss(
            w.t, poisson(p.noise_multiplier / 2, w.q_kept, replace_one), std::move(plain));
      else
        loss = std::move(plain);
    } else if (p.sampling_rate == 1)
      loss = subsampling::gaussian_loss(phase_mu(p));
    else if (p.sampling == sampling_scheme::poisson)
      loss = poisson(p.noise_multiplier, p.sampling_rate, replace_one);
    else if (p.sampling == sampling_scheme::shuffling ||
             p.sampling == sampling_scheme::random_allocation)
      throw_domain_error("loss_factors", "sampling", to_string(p.sampling),
                         "a per-step scheme (epoch schemes are accounted by "
                         "accounting/shuffling.hpp and accounting/random_allocation.hpp)");
    else
      loss = subsampling::symmetric_subsampled_gaussian_loss(2.0 / p.noise_multiplier,
                                                             p.sampling_rate);
    out.push_back({std::move(loss), p.steps});
  }
  return out;
}

}  // namespace dpkit::accounting
