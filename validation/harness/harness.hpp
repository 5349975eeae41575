#pragma once
// The validation harness (docs/architecture.md, "Validation"): a registry of scenarios, each
// checking one theorem or claim on one configuration against the reference simulator, with a
// verdict (holds / violated / inconclusive), a tightness ratio, and the data of a figure.
//
// A scenario may use every module (it computes the bound); the simulator it runs (dpkit::sim)
// never sees the bound. How to add one: docs/validation.md.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/sim/audit.hpp"
#include "figure.hpp"  // series, figure: the figure library (tools/figure; no scenario code)

namespace dpkit::validation {

enum class tier { quick, full };
const char* to_string(tier t);

/// The verdict of a check: the simulator's audit vocabulary (dpkit/sim/audit.hpp).
using sim::verdict;

/// A scenario's figure, drawn by the figure library (tools/figure, namespace dpkit::figures,
/// which `dpkit plot` uses too).
using figures::enhanced_escape;
using figures::figure;
using figures::series;

struct scenario_context {
  validation::tier tier = tier::quick;
  int threads = 0;  // 0: OpenMP default
  std::uint64_t seed = 2026;
  bool progress = false;  // progress bars on stderr
  /// A line on stderr with the projected time of each Monte Carlo run longer than 30 s.
  bool announce = false;
  /// Multiplies the bound a value or privacy scenario claims (μ of a GDP bound, a risk bound,
  /// a tube radius…). 1 checks the theorem; a factor < 1 makes the claim too optimistic.
  /// Ordering and shape scenarios (a trend's sign, a U-shape) ignore it: their wrong claim is
  /// audited under `self_check`.
  double bound_factor = 1;
  /// Audit the scenario's named wrong claim (scenario::self_check_claim) in place of the real
  /// one. `dpkit validate --self-check` sets it together with bound_factor = the scenario's
  /// self_check_factor; the audit has power only if the wrong claim comes out violated.
  bool self_check = false;
};

struct scenario_result {
  std::string id, title, source;
  std::string claim;  // what is checked, in words
  validation::verdict verdict = verdict::inconclusive;
  std::string verdict_reason;               // one line: why this verdict
  std::string quantity;                     // the scalar compared, e.g. "mu"
  double bound = 0;                         // its value from the theorem
  double estimate = 0;                      // Monte Carlo estimate
  double estimate_lo = 0, estimate_hi = 0;  // its confidence interval
  /// The smallest effect on `quantity` this run resolves at its confidence and replicate
  /// count: a difference from the claimed value smaller than this cannot be told from none.
  /// Filled in by registry() as the interval's half-width unless the scenario sets it (0 for an
  /// exact check; a scenario with several checks reports each one's in its notes).
  double resolution = std::nan("");
  double confidence = 0.95;
  double tightness = 0;  // bound / estimate (1 = tight; > 1 loose for upper bounds)
  std::uint64_t seed = 0, replicates = 0;
  int threads = 0;
  double seconds = 0;
  std::vector<std::string> notes;
  nlohmann::json parameters = nlohmann::json::object();
  validation::figure figure;
};

struct scenario {
  using runner = std::function<scenario_result(const scenario_context&)>;
  scenario(std::string id_, std::string title_, runner run_, double self_check_factor_ = 0.5)
      : id(std::move(id_)),
        title(std::move(title_)),
        run(std::move(run_)),
        self_check_factor(self_check_factor_) {}

  std::string id;
  std::string title;
  /// Computes the result. Through registry(), seed and seconds are filled in for it.
  runner run;
  /// The bound factor at which this scenario must report "violated" (its self-check, run by
  /// the CLI tests). 0.5 for bounds that are tight or nearly so; smaller for bounds that are
  /// loose by design (the factor says by how much at most). Ordering and shape scenarios
  /// ignore it.
  double self_check_factor = 0.5;
  /// The self-check in words: the specific wrong claim audited under --self-check, the one a
  /// plausible error in the paper or in dpkit would produce (filled in by registry() from
  /// validation/scenarios/self_checks.cpp; `dpkit validate --list` shows it).
  std::string self_check_claim;
  /// The quick tier's run time in seconds on one core of the reference machine (filled in by
  /// registry() from validation/scenarios/quick_costs.cpp; 0 if under half a second). A
  /// scheduling hint: `dpkit validate` starts the longest scenarios first. No result depends
  /// on it.
  double quick_seconds = 0;
};

/// The wrong claim each scenario's self-check audits, by scenario id
/// (validation/scenarios/self_checks.cpp); registry() throws std::logic_error if a scenario has
/// none or an entry names no scenario.
const std::vector<std::pair<std::string, std::string>>& self_check_claims();

/// A self-check the scenario's own data do not reject at a tier: the named wrong claim is the
/// plausible one, and that tier's sample size has no power against it (the real claim's verdict
/// is then inconclusive there too). Listed, reviewed and shown by `dpkit validate --self-check`
/// as "not caught (listed blind spot)" rather than failing the run; a blind spot not in the list
/// fails it (exit 3). The coverage study (docs/validation.md) gives every self-check's power
/// across seeds.
struct self_check_blind_spot {
  std::string id;     ///< the scenario
  std::string why;    ///< what the tier does not resolve, with the measured numbers
  bool quick = true;  ///< a blind spot of the quick tier
  bool full = false;  ///< and of the full tier
};
const std::vector<self_check_blind_spot>& self_check_blind_spots();
/// The listed blind spot of scenario `id` at `t`, or nullptr.
const self_check_blind_spot* find_blind_spot(const std::string& id, tier t);

/// The measured quick-tier run time of the scenarios that take half a second or more, by
/// scenario id (validation/scenarios/quick_costs.cpp); registry() throws std::logic_error if an
/// entry names no scenario.
const std::vector<std::pair<std::string, double>>& quick_costs();

/// Every registered scenario, in id order.
const std::vector<scenario>& registry();
/// The scenario with this id; throws std::domain_error listing the known ids otherwise. An id of
/// dpkit 0.1 (which began with an internal paper number, e.g. "002-thm4.2-tight" for
/// "bsa24-thm4.2-tight") is still accepted and resolves to the renamed scenario.
const scenario& find_scenario(const std::string& id);
/// The current id of a scenario id of dpkit 0.1; any other id unchanged.
std::string current_scenario_id(const std::string& id);

/// A claim of a paper that the data contradict as printed, reviewed and expected
/// (validation/scenarios/expected_refutations.cpp; docs/findings.md).
struct expected_refutation {
  std::string id;        ///< the scenario that checks it
  std::string claim;     ///< the claim as the paper states it
  std::string why;       ///< why it fails
  std::string evidence;  ///< what the scenario measured when the entry was reviewed
  bool quick = true;     ///< expected to reproduce in the quick tier
  bool full = false;     ///< expected to reproduce in the full tier (only where measured there)
};

/// The reviewed list, and the entry for one scenario id (nullptr if none).
const std::vector<expected_refutation>& expected_refutations();
const expected_refutation* find_expected_refutation(const std::string& id);

/// Whether one result must fail the scoreboard (exit 3), and why: a violated verdict; a refuted
/// verdict not in the reviewed list; or a listed refutation that does not reproduce in a tier
/// it is expected in (checked at bound factor 1 only: the self-check factors change the claims).
struct judgement {
  bool fails = false;
  std::string reason;
};
judgement judge(const scenario_result& r, tier t, double bound_factor);

/// The verdict of an ordering (trend) audit: `total` predicted orderings, each a paired-difference
/// interval; `resolved` of them lie wholly on the audited side, `refuted` wholly on the other.
/// The real claim holds when every ordering resolves and is violated when one is refuted. Under
/// the self-check the data are the same and each ordering is reversed; its wrong claims are the
/// plausible ones, "this one ordering reversed", one per ordering, and the self-check is caught
/// (violated) only when every reversed ordering is refuted. Catching "every ordering reversed"
/// when any single one resolves would report power that the real audit, which needs all of them,
/// does not have: this way the self-check is caught exactly when the real audit would say holds
/// (before a scenario's own further checks).
struct ordering_verdict {
  validation::verdict verdict = verdict::inconclusive;
  std::string reason;
};
ordering_verdict judge_orderings(int resolved, int refuted, int total, bool self_check);

/// JSON of a result (the same layout `dpkit validate` writes and `dpkit plot` reads).
nlohmann::json to_json(const scenario_result& r);
scenario_result result_from_json(const nlohmann::json& j);

/// Writes <dir>/<id>.json and <dir>/<id>.csv (the figure data, long format:
/// series,x,y,x_lo,x_hi,y_lo,y_hi).
void write_result(const scenario_result& r, const std::filesystem::path& dir);

/// Renders the result's figure through the figure library (figure.hpp) into `out` (.svg, .png or
/// .pdf by extension), with "ID: verdict, tightness" under its title. Returns false (and fills
/// `error`) when the extension is another, or gnuplot is missing or fails.
bool plot_result(const scenario_result& r, const std::filesystem::path& out, std::string& error);

}  // namespace dpkit::validation
