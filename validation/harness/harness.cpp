#include "harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <stdexcept>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "dpkit/core/check.hpp"
#include "dpkit/core/csv.hpp"
#include "scenarios.hpp"

namespace dpkit::validation {

const char* to_string(tier t) {
  return t == tier::quick ? "quick" : "full";
}

ordering_verdict judge_orderings(int resolved, int refuted, int total, bool self_check) {
  const std::string of = " of " + std::to_string(total);
  if (!self_check) {
    if (refuted > 0)
      return {verdict::violated, std::to_string(refuted) + of +
                                     " predicted orderings are refuted (interval wholly on the "
                                     "wrong side)"};
    if (resolved == total)
      return {verdict::holds,
              "every predicted ordering holds: each interval lies wholly on the predicted side"};
    return {verdict::inconclusive, std::to_string(total - resolved) + of +
                                       " orderings are not resolved at this sample size"};
  }
  // The self-check: each ordering reversed, caught only when every one is refuted.
  if (refuted == total)
    return {verdict::violated,
            "every reversed ordering is refuted (" + std::to_string(refuted) + of +
                "): the audit resolves each ordering, so reversing any one of them is caught"};
  if (resolved == total)
    return {verdict::holds, "every reversed ordering holds: the data side with the wrong claim"};
  const int left = total - refuted;
  return {verdict::inconclusive,
          std::to_string(refuted) + of + " reversed orderings are refuted; " +
              (left == 1 ? std::string("the other one is not, so a claim reversing it")
                         : "the other " + std::to_string(left) +
                               " are not, so a claim reversing one of them") +
              " alone would pass"};
}

namespace {
verdict verdict_from_string(const std::string& s) {
  if (s == "holds") return verdict::holds;
  if (s == "violated") return verdict::violated;
  if (s == "refuted") return verdict::refuted;
  return verdict::inconclusive;
}

// Many scenarios allocate the same large matrices (data sets, JL projections, iterates) once
// per replicate. glibc serves blocks above its mmap threshold (128 KiB, adapting up to 32 MiB)
// with fresh mappings and unmaps them on free, and trims the heap's top, so every replicate
// page-faults and zeroes the same memory again: over half the run time of swx23-thm2-alg3-rate.
// A fixed 256 MiB mmap threshold (above the quick tier's largest block, ~70 MiB) and a 512 MiB trim
// threshold keep freed blocks for the next replicate (other threads' arenas, with their 64 MiB
// heaps, still map larger blocks). Results are unchanged: only where the allocator finds memory.
void keep_freed_memory() {
#if defined(__GLIBC__)
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 256 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
  });
#endif
}

std::vector<scenario> build_registry() {
  std::vector<scenario> all;
  register_gaussian_scenarios(all);
  register_shifted_scenarios(all);
  register_shifted_figure_scenarios(all);
  register_hsgd_scenarios(all);
  register_hsgd_law_scenarios(all);
  register_hsgd_privacy_scenarios(all);
  register_kan_scenarios(all);
  register_kan_trend_scenarios(all);
  register_kan_scaling_scenarios(all);
  register_correlated_scenarios(all);
  register_nonconvex_scenarios(all);
  register_nonconvex_thm1_scenarios(all);
  register_nonconvex_extra_scenarios(all);
  register_mlp_scenarios(all);
  register_longtail_scenarios(all);
  register_mlp_extra_scenarios(all);
  register_mlp_scaling_scenarios(all);
  register_longtail_lemma_scenarios(all);
  register_longtail_trained_scenarios(all);
  register_nonconvex_rate_scenarios(all);
  register_longtail_trend_scenarios(all);
  // Every result records its seed and run time: done here once, not in each scenario.
  for (scenario& s : all) {
    s.run = [run = std::move(s.run)](const scenario_context& c) {
      keep_freed_memory();
      const auto start = std::chrono::steady_clock::now();
      scenario_result r = run(c);
      r.seed = c.seed;
      if (std::isnan(r.resolution) && std::isfinite(r.estimate_lo) &&
          std::isfinite(r.estimate_hi))
        r.resolution = (r.estimate_hi - r.estimate_lo) / 2;
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return r;
    };
  }
  std::sort(all.begin(), all.end(),
            [](const scenario& a, const scenario& b) { return a.id < b.id; });
  // Each scenario's self-check in words, from the reviewed table; a scenario without one (or an
  // entry for no scenario) is a programming error, caught by every test that lists scenarios.
  for (const auto& [id, claim] : self_check_claims()) {
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&id = id](const scenario& s) { return s.id == id; });
    if (it == all.end())
      throw std::logic_error("self_checks.cpp names an unknown scenario: " + id);
    if (!it->self_check_claim.empty())
      throw std::logic_error("self_checks.cpp names a scenario twice: " + id);
    it->self_check_claim = claim;
  }
  for (const scenario& s : all)
    if (s.self_check_claim.empty())
      throw std::logic_error("scenario " + s.id + " has no self-check claim in self_checks.cpp");
  for (const self_check_blind_spot& b : self_check_blind_spots())
    if (std::none_of(all.begin(), all.end(), [&b](const scenario& s) { return s.id == b.id; }))
      throw std::logic_error("self_checks.cpp lists a blind spot of an unknown scenario: " + b.id);
  for (const auto& [id, seconds] : quick_costs()) {
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&id = id](const scenario& s) { return s.id == id; });
    if (it == all.end()) throw std::logic_error("quick_costs.cpp names an unknown scenario: " + id);
    it->quick_seconds = seconds;
  }
  return all;
}

// Doubles as JSON numbers where finite, null otherwise.
nlohmann::json number(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}
double number_of(const nlohmann::json& j) {
  return j.is_null() ? std::nan("") : j.get<double>();
}

}  // namespace

const std::vector<scenario>& registry() {
  static const std::vector<scenario> all = build_registry();
  return all;
}

std::string current_scenario_id(const std::string& id) {
  // The ids of dpkit 0.1 began with the papers' internal filing numbers; they stay accepted for
  // one release. One scenario was also renamed beyond its prefix.
  static const std::pair<const char*, const char*> kRenamed[] = {
      {"004-fig2a-seed-risk", "lksp25-fig2a-risk"}};
  static const std::pair<const char*, const char*> kPrefixes[] = {
      {"000-", "wsk26-"}, {"001-", "swx23-"}, {"002-", "bsa24-"}, {"003-", "zxd26-"},
      {"004-", "lksp25-"}};
  for (const auto& [before, now] : kRenamed)
    if (id == before) return std::string(now);
  for (const auto& [before, now] : kPrefixes)
    if (id.starts_with(before))
      return std::string(now) + id.substr(std::char_traits<char>::length(before));
  return id;
}

const scenario& find_scenario(const std::string& id) {
  const std::string current = current_scenario_id(id);
  for (const scenario& s : registry())
    if (s.id == current) return s;
  std::string known;
  for (const scenario& s : registry()) known += (known.empty() ? "" : ", ") + s.id;
  throw_domain_error("find_scenario", "scenario id", id, "one of: " + known);
}

nlohmann::json to_json(const scenario_result& r) {
  return {{"id", r.id},
          {"title", r.title},
          {"source", r.source},
          {"claim", r.claim},
          {"verdict", std::string(sim::to_string(r.verdict))},
          {"verdict_reason", r.verdict_reason},
          {"quantity", r.quantity},
          {"bound", number(r.bound)},
          {"estimate", number(r.estimate)},
          {"estimate_lo", number(r.estimate_lo)},
          {"estimate_hi", number(r.estimate_hi)},
          {"resolution", number(r.resolution)},
          {"confidence", r.confidence},
          {"tightness", number(r.tightness)},
          {"seed", r.seed},
          {"replicates", r.replicates},
          {"notes", r.notes},
          {"parameters", r.parameters},
          {"figure", to_json(r.figure)}};
}

scenario_result result_from_json(const nlohmann::json& j) {
  scenario_result r;
  r.id = j.at("id").get<std::string>();
  r.title = j.value("title", "");
  r.source = j.value("source", "");
  r.claim = j.value("claim", "");
  r.verdict = verdict_from_string(j.value("verdict", ""));
  r.verdict_reason = j.value("verdict_reason", "");
  r.quantity = j.value("quantity", "");
  r.bound = number_of(j.value("bound", nlohmann::json(nullptr)));
  r.estimate = number_of(j.value("estimate", nlohmann::json(nullptr)));
  r.estimate_lo = number_of(j.value("estimate_lo", nlohmann::json(nullptr)));
  r.estimate_hi = number_of(j.value("estimate_hi", nlohmann::json(nullptr)));
  r.tightness = number_of(j.value("tightness", nlohmann::json(nullptr)));
  r.resolution = number_of(j.value("resolution", nlohmann::json(nullptr)));
  r.confidence = j.value("confidence", 0.95);
  r.seed = j.value("seed", std::uint64_t{0});
  r.replicates = j.value("replicates", std::uint64_t{0});
  r.notes = j.value("notes", std::vector<std::string>{});
  r.parameters = j.value("parameters", nlohmann::json::object());
  r.figure = figures::figure_from_json(j.at("figure"));
  return r;
}

void write_result(const scenario_result& r, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / (r.id + ".json"));
    if (!out) throw std::runtime_error("cannot write " + (dir / (r.id + ".json")).string());
    out << std::setprecision(17) << to_json(r).dump(2) << "\n";
  }
  std::ofstream csv(dir / (r.id + ".csv"));
  if (!csv) throw std::runtime_error("cannot write " + (dir / (r.id + ".csv")).string());
  csv << "series,x,y,x_lo,x_hi,y_lo,y_hi\n";
  for (const series& s : r.figure.data) {
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      // An empty cell where there is no finite value (docs/validation.md).
      auto at = [&](const std::vector<double>& v) {
        return i < v.size() && std::isfinite(v[i]) ? csv_number(v[i]) : std::string();
      };
      // RFC 4180 through the one writer (a series name may hold a comma or a quote).
      csv << csv_row({s.name, at(s.x), at(s.y), at(s.x_lo), at(s.x_hi), at(s.y_lo), at(s.y_hi)})
          << '\n';
    }
  }
}

bool plot_result(const scenario_result& r, const std::filesystem::path& out, std::string& error) {
  figure f = r.figure;
  f.subtitle = figures::validation_subtitle(r.id, std::string(sim::to_string(r.verdict)), r.tightness);
  return render(f, out, error);
}

}  // namespace dpkit::validation
