// dpkit/shifted/report.hpp — every bound BSA24 gives for one algorithm in one setting, beside
// composition and the RDP bounds the paper compares with: the rows `dpkit shifted` prints and
// dpkit.shifted.noisy_gd / noisy_cgd / noisy_sgd / lmc return.
//
// The decision tree — which theorem applies to which inputs, what each needs, and how the
// inputs combine (t = E·n/b, c from (η, m, M), a learning-rate schedule from its decay) — lives
// here once; the front ends translate their arguments into report_inputs and render the rows.
// Inputs that do not fit throw report_error, whose message names the inputs by placeholders
// that each front end spells its own way (the CLI's --noise-std, Python's noise=).
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dpkit/accounting/training_run.hpp"
#include "dpkit/core/result.hpp"
#include "dpkit/shifted/bounds.hpp"
#include "dpkit/shifted/noisy_sgd.hpp"

namespace dpkit::shifted {

enum class algorithm { noisy_gd, noisy_cgd, noisy_sgd, lmc };
enum class convexity { strongly_convex, convex, constrained_convex };

/// "noisy-gd", "noisy-cgd", "noisy-sgd", "lmc".
std::string_view to_string(algorithm a) noexcept;
/// "strongly-convex", "convex", "constrained-convex".
std::string_view to_string(convexity c) noexcept;
inline constexpr std::array<std::string_view, 4> kAlgorithmNames = {"noisy-gd", "noisy-cgd",
                                                                    "noisy-sgd", "lmc"};
inline constexpr std::array<std::string_view, 3> kConvexityNames = {"strongly-convex", "convex",
                                                                    "constrained-convex"};
/// The enum to_string names (`_` read as `-`); std::nullopt for any other text.
std::optional<algorithm> parse_algorithm(std::string_view name) noexcept;
std::optional<convexity> parse_convexity(std::string_view name) noexcept;

/// What the user gave; an empty optional was not given. The field names are the names
/// report_error's placeholders use.
struct report_inputs {
  std::optional<double> sensitivity;           ///< L (gradient sensitivity; LMC: of F − F′)
  std::optional<double> noise;                 ///< σ, the noise rate of (2.1) (not LMC)
  std::optional<long long> dataset_size;       ///< n
  std::optional<long long> batch_size;         ///< b (noisy-cgd, noisy-sgd)
  std::optional<long long> steps;              ///< t
  std::optional<long long> epochs;             ///< E (noisy-cgd: t = E·n/b)
  std::optional<long long> batches_per_epoch;  ///< l = n/b (noisy-cgd; n defaults to l·b)
  std::optional<double> learning_rate;         ///< η
  std::optional<double> contraction;           ///< c; else max{|1 − ηm|, |1 − ηM|}
  std::optional<double> strong_convexity;      ///< m
  std::optional<double> smoothness;            ///< M
  std::optional<double> diameter;              ///< D
  /// noisy-gd: a schedule η_k = η/(1 + k/lr_decay), k = 0..t−1 (not in the paper).
  std::optional<double> lr_decay;
  /// noisy-gd: a schedule η_1..η_t given as numbers (not with lr_decay).
  std::optional<std::vector<double>> learning_rates;
  /// noisy-sgd, strongly convex: Thm C.13 with these t − 1 shifts, in units of ηL/b, in [0, 1].
  std::optional<std::vector<double>> shifts;
  /// noisy-sgd: the PLD accuracy, the τ search (exhaustive_limit), the noise split, progress.
  sgd_search_options sgd;
};

/// One bound. ε is at the report's δ; for a lower-bound row `epsilon` is the lower end of its
/// bracket, else the upper end.
struct report_row {
  std::string bound;   ///< "shifted-interpolation", "composition", "lower-bound", "rdp-ys22", …
  std::string source;  ///< the theorem, e.g. "BSA24 Thm 4.2"
  std::string note;    ///< corrections, the composition used, …
  bound_kind kind = bound_kind::upper_bound;
  double mu = NAN;  ///< the GDP μ (GDP rows), else NaN
  double epsilon = NAN;
  double epsilon_lower = NAN;  ///< the bracket on ε where there is one (GDP and PLD rows)
  double epsilon_upper = NAN;
  long long tau = -1;  ///< the optimal τ, or −1
  termination_type termination = termination_type::converged;
  std::string message;  ///< why, when not converged
  /// The bound's tradeoff function as a run (G(gaussian_mu) ⊗ phases): GDP and PLD rows.
  std::optional<accounting::training_run> run;
  // RDP rows: (α, ρα)-RDP for all α, ε by the best conversion at order rdp_order.
  double rho = NAN;
  double rdp_order = NAN;
  std::string conversion;
  // PLD rows (noisy-sgd): the noise split α, the evaluations, the accountant's method, and
  // whether every τ was tried (unset for composition and the C.13 shifts).
  double noise_split = NAN;
  int evaluations = 0;
  std::string pld_method;
  std::optional<bool> exhaustive;
  double steps_after_tau = NAN;  ///< the CLT row's choice of t − τ
};

struct report_result {
  std::vector<report_row> rows;
  std::vector<std::string> notes;  ///< about the whole table (a bound left out, …)
  /// The setting the rows are for, with t, n and c resolved (LMC: sensitivity only).
  noisy_gradient_setting setting;
};

/// Inputs that do not fit the algorithm and setting. The message names inputs by placeholders
/// "$(name)" (an input) and "$(name=value)" (an input with its value: "$(setting=convex)");
/// render() spells them as a front end does; what() spells them "name" and "name value".
class report_error : public std::invalid_argument {
 public:
  explicit report_error(std::string text);
  const std::string& text() const noexcept { return text_; }
  /// The message with each placeholder replaced by spell(name, value) (value empty for "$(name)").
  std::string render(
      const std::function<std::string(std::string_view name, std::string_view value)>& spell) const;

 private:
  std::string text_;
};

/// Every bound for `a` in setting `c` at δ (BSA24 Tables 1-4, Figs 1-2; docs/shifted.md): the
/// rows in the order the paper compares them. Throws report_error for inputs that do not fit
/// and argument_error (from the bounds) for values out of their range.
report_result report(algorithm a, convexity c, const report_inputs& inputs, double delta);

}  // namespace dpkit::shifted
