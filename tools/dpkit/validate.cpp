// dpkit validate — run validation scenarios (theorem vs Monte Carlo), print a scoreboard, write
// per-scenario JSON, CSV and figures (drawn by the figure library, as `dpkit plot` draws them);
// exit 3 if any bound is violated.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <numeric>
#include <sstream>
#include <thread>

#include "baseline.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/core/csv.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "harness.hpp"

namespace dpkit::cli {
namespace {

struct validate_options {
  std::vector<std::string> ids;
  bool all = false;
  bool list = false;
  std::string tier = "quick";
  int threads = 0;
  std::uint64_t seed = 2026;
  std::string out = "validation-results";
  bool figures = true;
  double bound_factor = 1;
  bool self_check = false;
  std::string baseline;
  output_options output;
};

// One scenario: its context (the self-check's wrong claim where asked), the result with the
// run's parameters, and its files (JSON, CSV, figures) on the output rank.
validation::scenario_result run_one(const validation::scenario& s,
                                    validation::scenario_context c,
                                    const validate_options& o,
                                    const std::filesystem::path& dir) {
  using namespace dpkit::validation;
  if (o.self_check) {  // each scenario's own wrong claim (docs/validation.md "Self-checks")
    c.self_check = true;
    c.bound_factor = s.self_check_factor;
  }
  scenario_result res = s.run(c);
  res.threads = o.threads;
  if (o.self_check) {
    res.parameters["self_check_claim"] = s.self_check_claim;
    res.parameters["bound_factor"] = s.self_check_factor;
  }
  if (output_rank()) write_result(res, dir);
  if (o.figures && output_rank()) {
    for (const char* ext : {".svg", ".png"}) {
      std::string error;
      if (!plot_result(res, dir / (res.id + ext), error))
        std::cerr << "dpkit validate: note: no figure for " + res.id + ": " + error + "\n";
    }
  }
  return res;
}

// Runs the chosen scenarios, in order or — on one process with several threads and several
// scenarios — side by side, one scenario per thread, each on one thread: a scenario's result
// does not depend on its thread count (the CLI tests check this byte for byte), and most quick
// scenarios are too small to keep two cores busy alone. Side by side, the longest scenarios
// (by their measured quick_seconds) start first, so that no long one runs alone at the end;
// the results keep the chosen order. Under MPI the scenarios run in order, as the ranks must
// meet in each scenario's reductions together.
std::vector<validation::scenario_result> run_scenarios(
    const std::vector<const validation::scenario*>& chosen,
    const validation::scenario_context& base,
    const validate_options& o,
    const std::filesystem::path& dir) {
  using namespace dpkit::validation;
  const int cores = o.threads > 0 ? o.threads : sim::monte_carlo_default_threads();
  const std::size_t workers =
      sim::monte_carlo_ranks() > 1 ? 1 : std::min<std::size_t>(chosen.size(), cores);
  std::vector<scenario_result> results(chosen.size());
  // The cost before the work: the quick tier from its measured times (longest first on the
  // workers: about max(sum / workers, longest)); the full tier has no such table — each Monte
  // Carlo run projected beyond 30 s says how long after its first replicates.
  if (output_rank()) {
    double sum = 0, longest = 0;
    for (const scenario* s : chosen)
      sum += s->quick_seconds, longest = std::max(longest, s->quick_seconds);
    const double quick =
        std::max(sum / static_cast<double>(std::max<std::size_t>(workers, 1)), longest);
    if (base.tier == tier::quick && quick > 30)
      std::cerr << "dpkit validate: " << chosen.size() << " scenarios, about " << std::lround(quick)
                << " s on " << std::max<std::size_t>(workers, 1)
                << " thread(s) (quick tier, measured on a 2-core machine)\n";
    if (base.tier == tier::full)
      std::cerr << "dpkit validate: " << chosen.size()
                << " scenario(s) at paper scale (full tier): this can take hours on a small "
                   "machine; every Monte Carlo run longer than 30 s reports its projected time\n";
  }
  if (workers <= 1) {
    for (std::size_t i = 0; i < chosen.size(); ++i) results[i] = run_one(*chosen[i], base, o, dir);
    return results;
  }
  scenario_context c = base;
  c.threads = 1;
  c.progress = false;  // one bar per scenario would interleave; a line per finished one instead
  const bool terminal = ::isatty(2) != 0;
  std::vector<std::size_t> order(chosen.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return chosen[a]->quick_seconds > chosen[b]->quick_seconds;
  });
  std::atomic<std::size_t> next{0}, done{0};
  std::vector<std::exception_ptr> errors(chosen.size());
  std::mutex print;
  const auto work = [&] {
    for (std::size_t k = next++; k < chosen.size(); k = next++) {
      const std::size_t i = order[k];
      try {
        results[i] = run_one(*chosen[i], c, o, dir);
      } catch (...) {
        errors[i] = std::current_exception();
        next = chosen.size();  // stop handing out work
      }
      const std::size_t finished = ++done;
      if (terminal && !errors[i]) {
        const std::lock_guard lock(print);
        std::cerr << "dpkit validate: [" << finished << "/" << chosen.size() << "] "
                  << results[i].id << ": " << sim::to_string(results[i].verdict) << " ("
                  << std::lround(results[i].seconds * 10) / 10.0 << " s)\n";
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);  // the first failed scenario in the chosen order
  return results;
}

int run_validate(const validate_options& o) {
  using namespace dpkit::validation;
  if (o.list) {
    report r;
    r.tool = "dpkit validate";
    r.title = "validation scenarios";
    r.columns = {"id",           "title", "self_check_factor", "self_check_claim", "blind_spot",
                 "expected_refuted"};
    // The tiers an entry of a reviewed list covers, "" when none: "quick", "full" or both.
    const auto tiers = [](bool quick, bool full) {
      return std::string(quick ? "quick" : "") + (quick && full ? "," : "") + (full ? "full" : "");
    };
    for (const scenario& s : registry()) {
      const self_check_blind_spot* quick_spot = find_blind_spot(s.id, tier::quick);
      const self_check_blind_spot* full_spot = find_blind_spot(s.id, tier::full);
      const expected_refutation* e = find_expected_refutation(s.id);
      r.results.push_back({{"id", s.id},
                           {"title", s.title},
                           {"self_check_factor", s.self_check_factor},
                           {"self_check_claim", s.self_check_claim},
                           {"blind_spot", tiers(quick_spot != nullptr, full_spot != nullptr)},
                           {"expected_refuted", e ? tiers(e->quick, e->full) : std::string()}});
    }
    r.notes = {
        "self_check_claim: the wrong claim `dpkit validate ID --self-check` audits in place of",
        "the real one (at bound factor self_check_factor where the claim is a value); the",
        "audit has power only if its own data reject it (verdict violated).",
        "blind_spot: the tiers where that audit is a listed blind spot (it cannot reject the",
        "wrong claim at the tier's size); expected_refuted: the tiers where the paper's claim is",
        "a reviewed refutation that must reproduce (docs/findings.md)."};
    emit(r, o.output);
    return kExitSuccess;
  }
  std::vector<const scenario*> chosen;
  if (o.all) {
    for (const scenario& s : registry()) chosen.push_back(&s);
  } else {
    if (o.ids.empty())
      throw usage_error("give scenario ids or --all (dpkit validate --list shows them)");
    for (const std::string& id : o.ids) chosen.push_back(&find_scenario(id));
  }
  scenario_context c;
  c.tier = o.tier == "full" ? tier::full : tier::quick;
  c.threads = o.threads;
  c.seed = o.seed;
  c.progress = true;
  c.announce = true;
  c.bound_factor = o.bound_factor;
  report r;
  r.tool = "dpkit validate";
  r.parameters = {{"tier", o.tier}, {"seed", o.seed}, {"out", o.out}, {"threads", o.threads}};
  r.parameters["mpi_ranks"] = sim::monte_carlo_ranks();
  if (o.bound_factor != 1) r.parameters["bound_factor"] = o.bound_factor;
  if (o.self_check) r.parameters["self_check"] = true;
  r.title = std::string(o.self_check ? "self-check scoreboard (wrong claims; "
                                     : "validation "
                                       "scoreboard (") +
            o.tier + " tier, seed " + std::to_string(o.seed) + ")";
  r.columns = {"id",          "verdict",    "quantity",  "bound",      "estimate", "estimate_lo",
               "estimate_hi", "resolution", "tightness", "replicates", "seconds"};
  std::vector<std::string> failures, refuted;
  // Wrong-claim results never overwrite the real ones in the default folder.
  const std::filesystem::path dir =
      o.self_check && o.out == "validation-results" ? "validation-results/self-check" : o.out;
  r.parameters["out"] = dir.string();
  if (output_rank()) {
    // Checked before the first scenario runs, not after it.
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
      throw usage_error("--output-dir: cannot create the folder " + dir.string() + ": " +
                        (ec ? ec.message() : std::string("a file of that name exists")));
    if (::access(dir.c_str(), W_OK) != 0)
      throw usage_error("--output-dir: cannot write into " + dir.string() + ": " +
                        std::strerror(errno));
  }
  // Each scenario writes ID.json, ID.csv and its figures into the folder: neither --output nor
  // the --baseline read before the run may be one of them (one would be replaced).
  for (const scenario* s : chosen)
    for (const char* ext : {".json", ".csv", ".svg", ".png"}) {
      const std::string file = (dir / (s->id + ext)).string();
      const std::string flag = "--output-dir (scenario " + s->id + ")";
      check_distinct_outputs({{flag, file}, {"--output", o.output.file}});
      check_not_an_input(flag, file, "--baseline", o.baseline);
    }
  if (o.self_check) r.columns.insert(r.columns.begin() + 2, "self_check");
  // The baseline is read before the scenarios run: a bad file stops nothing half-done.
  json baseline_rows = json::array();
  if (!o.baseline.empty()) {
    check_not_an_input("--output", o.output.file, "--baseline", o.baseline);
    baseline_rows = read_json_output("--baseline", o.baseline, "dpkit validate")["results"];
    r.parameters["baseline"] = o.baseline;
    r.columns.push_back("drift");
  }
  std::size_t compared = 0;
  std::vector<std::string> drifted, blind_spots;
  const std::vector<scenario_result> results = run_scenarios(chosen, c, o, dir);
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const scenario* s = chosen[i];
    const scenario_result& res = results[i];
    const bool caught = res.verdict == sim::verdict::violated;
    const validation::self_check_blind_spot* blind =
        o.self_check && !caught ? validation::find_blind_spot(res.id, c.tier) : nullptr;
    if (o.self_check) {
      if (blind)
        blind_spots.push_back(res.id + ": " + blind->why);
      else if (!caught)
        failures.push_back(res.id + ": its self-check's wrong claim (" + s->self_check_claim +
                           ") was not rejected: verdict " +
                           std::string(sim::to_string(res.verdict)));
    } else if (const validation::judgement j = validation::judge(res, c.tier, c.bound_factor);
               j.fails) {
      failures.push_back(res.id + ": " + j.reason);
    }
    if (res.verdict == sim::verdict::refuted && !o.self_check) refuted.push_back(res.id);
    r.results.push_back({{"id", res.id},
                         {"self_check", caught  ? "caught"
                                        : blind ? "not caught (listed blind spot)"
                                                : "NOT CAUGHT"},
                         {"verdict", std::string(sim::to_string(res.verdict))},
                         {"quantity", res.quantity},
                         {"bound", res.bound},
                         {"estimate", res.estimate},
                         {"estimate_lo", res.estimate_lo},
                         {"estimate_hi", res.estimate_hi},
                         {"resolution", res.resolution},
                         {"tightness", res.tightness},
                         {"replicates", res.replicates},
                         {"seconds", res.seconds},
                         {"reason", res.verdict_reason}});
    // Drift against the baseline's row of the same scenario (same quantity): the estimate
    // moved beyond the two runs' noise (baseline.hpp).
    for (const json& b : baseline_rows) {
      if (!b.is_object() || b.value("id", "") != res.id) continue;
      if (b.value("quantity", "") != res.quantity || !b.contains("estimate") ||
          !b["estimate"].is_number())
        break;
      const auto half = [](const json& row, double est) {
        const double lo = row.contains("estimate_lo") && row["estimate_lo"].is_number()
                              ? row["estimate_lo"].get<double>()
                              : est;
        const double hi = row.contains("estimate_hi") && row["estimate_hi"].is_number()
                              ? row["estimate_hi"].get<double>()
                              : est;
        return (hi - lo) / 2;
      };
      drift_check d;
      const double then = b["estimate"].get<double>();
      d.compare(res.quantity, res.estimate, (res.estimate_hi - res.estimate_lo) / 2, then,
                half(b, then));
      ++compared;
      r.results.back()["drift"] = d.drift;
      r.results.back()["baseline"] = d.rows[0];
      if (d.drift) drifted.push_back(res.id + ": " + d.summary);
      break;
    }
  }
  if (!o.baseline.empty()) {
    for (const std::string& dft : drifted)
      failures.push_back(dft + " (baseline " + o.baseline + ")");
  }
  if (!o.self_check)
    for (auto& row : r.results) row.erase("self_check");
  r.notes = {
      "verdict: holds = the data support the audited claim at the stated confidence; violated =",
      "they contradict it (a wrong bound, or a bug); inconclusive = neither resolved (expected",
      "for a tight bound); refuted = they contradict the claim as the paper prints it while what",
      "dpkit audits in its place stands (reviewed list: docs/findings.md). Each scenario's rule",
      "is in its JSON ('claim') and in docs/validation.md; for tradeoff scenarios tightness =",
      "bound/estimate of mu (1 = tight). resolution = the interval's half-width: an effect (or a",
      "gap to the claim) smaller than it is not resolved at this replicate count; 0: exact.",
      "Per-scenario JSON, CSV and figures in " + dir.string() + "/ (docs/validation.md)."};
  if (o.self_check)
    r.notes = {
        "self-check: each scenario audited its named wrong claim (dpkit validate --list), the one",
        "a plausible error in the paper or in dpkit would give, with the statistics of the real",
        "claim; verdict is the wrong claim's. caught = violated: the data reject it, so the real",
        "audit has the power to fail that way. Exit 3 if any wrong claim is not caught, unless",
        "it is a listed blind spot of this tier (the tier's size has no power against it).",
        "Per-scenario JSON, CSV and figures in " + dir.string() + "/ (docs/validation.md)."};
  if (!blind_spots.empty()) {
    r.notes.emplace_back("");
    r.notes.emplace_back("Listed blind spots (not caught at this tier, reviewed):");
    for (const std::string& b : blind_spots) r.notes.push_back("  " + b);
  }
  if (!refuted.empty()) {
    r.notes.emplace_back("");
    r.notes.emplace_back("Refuted claims of the papers (expected, reviewed):");
    for (const std::string& id : refuted) {
      const validation::expected_refutation* e = validation::find_expected_refutation(id);
      r.notes.push_back("  " + id + ": " + (e ? e->claim + " -- " + e->why : "NOT IN THE LIST"));
    }
  }
  if (!o.baseline.empty())
    r.notes.push_back("baseline " + o.baseline + ": " + std::to_string(compared) +
                      " scenario(s) compared, " + std::to_string(drifted.size()) +
                      " drifted beyond the two runs' noise (|estimate - baseline| > "
                      "sqrt(h^2 + h_baseline^2), h the intervals' half-widths)");
  emit(r, o.output);
  if (!failures.empty()) {
    for (const std::string& f : failures) std::cerr << "dpkit validate: " << f << "\n";
    if (o.self_check)
      std::cerr << "dpkit validate: " << failures.size()
                << " self-check(s) did not reject their wrong claim\n";
    else
      std::cerr << "dpkit validate: " << failures.size()
                << " scenario(s) failed (violated, unexpectedly refuted, or an expected "
                   "refutation that no longer reproduces)\n";
    return kExitValidationFailed;
  }
  return kExitSuccess;
}

}  // namespace

void register_validate(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<validate_options>();
  CLI::App* sub = app.add_subcommand(
      "validate",
      "Check theorems against the reference simulator: a scoreboard of verdicts (holds / "
      "violated / inconclusive / refuted) with tightness, and per-scenario JSON, CSV and figures");
  sub->add_option("ids", o->ids, "Scenario ids (dpkit validate --list)");
  sub->add_flag("--all", o->all, "Run every scenario");
  sub->add_flag("--list", o->list, "List the scenarios and exit");
  sub->add_option("--tier", o->tier,
                  "quick: seconds per scenario, about a minute for --all on 2 cores (as in CI); "
                  "full: paper-scale sample sizes (minutes to hours per scenario)")
      ->check(CLI::IsMember({"quick", "full"}))
      ->capture_default_str();
  sub->add_option("--threads", o->threads,
                  "OpenMP threads (0: all cores); results are identical for any number")
      ->check(integer_at_least(0, 1024))
      ->capture_default_str();
  sub->add_option("--seed", o->seed, "Seed of the random streams")
      ->check(integer_at_least(0, kMaxExactInteger))
      ->capture_default_str();
  sub->add_option("--output-dir", o->out, "Directory for the JSON, CSV and SVG/PNG files")
      ->capture_default_str();
  sub->add_flag("!--no-figures", o->figures, "Do not call gnuplot");
  auto* factor =
      sub->add_option("--bound-factor", o->bound_factor,
                      "Multiply the bound a value or privacy scenario claims (mu of a GDP bound, "
                      "a risk bound, a tube) by this factor; < 1 claims too much. Ordering and "
                      "shape scenarios ignore it (their wrong claim runs under --self-check)")
          ->check(real_in_open_interval(0, 1e6))
          ->capture_default_str();
  sub->add_flag("--self-check", o->self_check,
                "Audit each scenario's named wrong claim (--list shows it) in place of the real "
                "one: exit 0 when every wrong claim is rejected (violated), 3 when one is not")
      ->excludes(factor);
  sub->add_option("--baseline", o->baseline,
                  "A stored scoreboard (dpkit validate --format json --output FILE): report each "
                  "scenario whose estimate moved beyond the two runs' noise, and exit 3 if one did")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  add_output_options(sub, o->output);
  sub->footer(
      "Examples:\n"
      "  dpkit validate --all                      # quick tier, figures in validation-results/\n"
      "  dpkit validate bsa24-thm4.2-tight --tier full --threads 16\n"
      "  dpkit validate --list                     # ids, titles and each self-check's wrong "
      "claim\n"
      "  dpkit validate zxd26-thm1-memorisation --self-check   # the reversed trend must be "
      "rejected\n"
      "  dpkit validate gdp-gaussian-1d --bound-factor 0.5   # mu halved: violated, exit 3\n"
      "  dpkit validate --all --format json --output base.json; dpkit validate --all --baseline "
      "base.json\n"
      "Exit codes: 0 nothing violated and every refutation the expected one, 3 some scenario "
      "violated, refuted unexpectedly, or an expected refutation no longer reproduces, 2 bad "
      "input. With --self-check: 0 every wrong claim rejected, 3 some wrong claim not rejected. "
      "With --baseline: also 3 when an estimate drifted.");
  sub->callback([o, &exit_code] { exit_code = run_validate(*o); });
}

// dpkit-validate is the program with the scenarios: nothing to hand on.
std::optional<int> forward_validate(int /*argc*/, char** /*argv*/) {
  return std::nullopt;
}

}  // namespace dpkit::cli
