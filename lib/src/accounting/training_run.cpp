#include "dpkit/accounting/training_run.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "dpkit/core/check.hpp"

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
  }
  return "unknown";
}

void training_run::validate(std::string_view function, bool edge_values) const {
  check_nonnegative(function, "gaussian_mu", gaussian_mu);
  for (const training_phase& p : phases) {
    if (edge_values) {
      if (std::isnan(p.noise_multiplier) || p.noise_multiplier < 0)
        throw_domain_error(function, "noise_multiplier", p.noise_multiplier, "in [0, +inf]");
      if (!(p.sampling_rate >= 0 && p.sampling_rate <= 1))
        throw_domain_error(function, "sampling_rate", p.sampling_rate, "in [0, 1]");
    } else {
      // The edge values have exact answers only where ε or δ is asked for: say where.
      const bool edge = p.noise_multiplier == 0 || p.sampling_rate == 0 ||
                        p.noise_multiplier == std::numeric_limits<double>::infinity();
      const char* where = edge ? " (noise multiplier 0 or inf and sampling rate 0 are edge "
                                 "values that only the epsilon and delta queries answer)"
                               : "";
      if (!(p.noise_multiplier > 0 && std::isfinite(p.noise_multiplier)))
        throw_domain_error(function, "noise_multiplier", p.noise_multiplier,
                           std::string("finite and > 0") + where);
      if (!(p.sampling_rate > 0 && p.sampling_rate <= 1))
        throw_domain_error(function, "sampling_rate", p.sampling_rate,
                           std::string("in (0, 1]") + where);
    }
    check_at_least(function, "steps", p.steps, 1);
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
  return sensitivity(p.sampling) / p.noise_multiplier;
}
}  // namespace

bool training_run::is_gaussian() const {
  for (const training_phase& p : phases)
    if (p.sampling_rate < 1) return false;
  return true;
}

double training_run::gdp_mu() const {
  // G(μ₁) ⊗ G(μ₂) = G(√(μ₁² + μ₂²)) (BSA24 eq. (3.3)), summed with scaling against overflow.
  double sum = gaussian_mu * gaussian_mu;
  for (const training_phase& p : phases)
    sum += static_cast<double>(p.steps) * phase_mu(p) * phase_mu(p);
  return std::sqrt(sum);
}

bool training_run::has_poisson_subsampling() const {
  for (const training_phase& p : phases)
    if (p.sampling == sampling_scheme::poisson && p.sampling_rate < 1) return true;
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

std::string training_run::describe() const {
  std::string s;
  for (const training_phase& p : phases) {
    if (!s.empty()) s += "; then ";
    s += std::to_string(p.steps) + " step" + (p.steps == 1 ? "" : "s") + " with noise multiplier " +
         format_value(p.noise_multiplier);
    if (p.sampling_rate < 1)
      s += ", sampling rate " + format_value(p.sampling_rate) + " (" +
           std::string(to_string(p.sampling)) + ")";
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
    if (p.sampling_rate == 1)
      loss = subsampling::gaussian_loss(phase_mu(p));
    else if (p.sampling == sampling_scheme::poisson)
      loss = subsampling::poisson_gaussian_loss(p.noise_multiplier, p.sampling_rate, d);
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
