// dpkit/divergence/rdp.hpp — Rényi DP curves and their conversion to (ε, δ)-DP.
//
// A mechanism is (α, ε_α)-RDP when D_α(M(S) ‖ M(S′)) ≤ ε_α (Mironov 2017). An RDP curve
// α ↦ ε_α converts to (ε, δ)-DP by any of four valid conversions, each optimised over α;
// the best (smallest ε) is reported with the name of the conversion that won
// (BSA24 §A.1; formulas as in the authors' code for BSA24):
//
//   BS16  (Bun & Steinke 2016, Prop 1.3; linear curves ε_α = ρα only)
//         ε = ρ + 2√(ρ log(1/δ))
//   Mir17 (Mironov 2017, Prop 3)           ε = ε_α + log(1/δ)/(α − 1)
//   BBG20 (Balle et al. 2020, Thm 21)      ε = ε_α + log((α − 1)/α) − (log δ + log α)/(α − 1)
//   ALC21 (Asoodeh et al. 2021, Lemma 1)   ε = log((e^{(α−1)ε_α} − 1)/(αδ) + 1)/(α − 1)
//
// All four are upper bounds on the ε of the mechanism; none is tight. BBG20 is never worse
// than Mir17 for α ≥ 2 and usually wins. For μ-GDP (ε_α = αμ²/2, BSA24 Lemma A.4) the
// exact ε is available from gdp.hpp and is smaller than all four (tested).
#pragma once

#include <array>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "dpkit/divergence/result.hpp"

namespace dpkit::divergence {

/// ε_α of μ-GDP: μ-GDP ⇒ (α, αμ²/2)-RDP for all α > 1 (BSA24 Lemma A.4; DRS22 Cor B.6).
double gdp_rdp(double mu, double alpha);

enum class rdp_conversion { bs16, mir17, bbg20, alc21 };

/// "BS16", "Mir17", "BBG20" or "ALC21".
std::string_view to_string(rdp_conversion c) noexcept;

/// An RDP curve α ↦ ε_α: linear (ε_α = ρα, e.g. GDP or zCDP), continuous on
/// [alpha_min, alpha_max], or given at discrete orders.
class rdp_curve {
 public:
  /// ε_α = ρα for every α > 1 (ρ ≥ 0 finite). The optimisation searches α ∈ (1, 1e8].
  static rdp_curve linear(double rho);
  /// ε_α = epsilon(α) for α ∈ [alpha_min, alpha_max], 1 < alpha_min < alpha_max.
  static rdp_curve continuous(std::function<double(double)> epsilon,
                              double alpha_min,
                              double alpha_max);
  /// ε_α known only at the given orders (each > 1; ε ≥ 0; equal lengths ≥ 1).
  static rdp_curve at_orders(std::vector<double> alphas, std::vector<double> epsilons);

  /// ε_α at α (within the curve's domain; std::domain_error outside, or at an order not in a
  /// discrete curve).
  [[nodiscard]] double operator()(double alpha) const;

  [[nodiscard]] std::optional<double> rho() const { return rho_; }
  [[nodiscard]] bool is_discrete() const { return !orders_.empty(); }
  [[nodiscard]] double alpha_min() const { return alpha_min_; }
  [[nodiscard]] double alpha_max() const { return alpha_max_; }
  [[nodiscard]] const std::vector<double>& orders() const { return orders_; }

 private:
  rdp_curve() = default;
  std::function<double(double)> epsilon_;
  std::optional<double> rho_;
  double alpha_min_ = 1.0, alpha_max_ = 1e8;
  std::vector<double> orders_, order_epsilons_;
};

/// The RDP curve of μ-GDP, ε_α = αμ²/2 for all α > 1 (BSA24 Lemma A.4): linear(μ²/2).
rdp_curve gdp_rdp_curve(double mu);

/// ε from one order with one conversion (BS16 needs ρ: pass ε_α = ρα and any α).
/// May be negative (a negative ε implies (0, δ)-DP); the optimisers clamp at 0.
double rdp_epsilon_at_order(rdp_conversion c, double alpha, double epsilon_alpha, double delta);

/// log δ from one order with one conversion, for a target ε ≥ 0. Capped at 0 (δ ≤ 1).
double rdp_log_delta_at_order(rdp_conversion c, double alpha, double epsilon_alpha, double epsilon);

struct rdp_candidate {
  rdp_conversion conversion = rdp_conversion::mir17;
  bool applicable = false;  ///< BS16 applies to linear curves only
  double value = NAN;       ///< ε (rdp_epsilon) or δ (rdp_delta) achieved by this conversion
  double alpha = NAN;       ///< the optimal order
};

struct rdp_epsilon_result : epsilon_result {
  double alpha = NAN;                                 ///< optimal order of the winning conversion
  rdp_conversion conversion = rdp_conversion::mir17;  ///< the winner
  std::array<rdp_candidate, 4> candidates{};          ///< in the order bs16, mir17, bbg20, alc21
};

struct rdp_delta_result : delta_result {
  double alpha = NAN;
  rdp_conversion conversion = rdp_conversion::mir17;
  std::array<rdp_candidate, 4> candidates{};
};

/// The best (smallest) ε ≥ 0 over the four conversions, each optimised over the curve's
/// orders (discrete curves: exhaustive; continuous: scan in log(α − 1) then Brent).
/// δ ∈ (0, 1). Kind upper_bound, tight = false.
rdp_epsilon_result rdp_epsilon(const rdp_curve& curve, double delta);

/// The best (smallest) δ over the four conversions at a given ε ≥ 0.
rdp_delta_result rdp_delta(const rdp_curve& curve, double epsilon);

}  // namespace dpkit::divergence
