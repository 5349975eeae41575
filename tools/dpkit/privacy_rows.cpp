#include "privacy_rows.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/progress.hpp"

namespace dpkit::cli {

void announce_pld_cost(const std::string& tool,
                       const accounting::training_run& run,
                       const accountant_options& a) {
  // A single PLD composition's time is that of its FFTs: a few passes, the last one at the
  // size the accuracy needs, never beyond --max-fft-size. Measured on 2 cores of the development
  // machine at commit 3e6ce41 (dpkit epsilon, δ = 1e-5): at the default accuracy 1e-3, T = 1e6
  // took 0.17-1.5 s, T = 1e7 1.2-4.0 s, T = 1e8 2.1-9.8 s over σ ∈ [0.5, 10], q ∈ [1e-4, 0.5];
  // a run at the default FFT limit 2^24 (4 passes) 9.8 s, at 2^26 43-47 s. So: about
  // 1 s·√(T/1e6), growing like 1/accuracy (finer grids), and at most the limit's cost,
  // 10 s·(N/2^24)·log2(N)/24. Said beforehand where that exceeds 30 s (only with a finer
  // --accuracy or a larger --max-fft-size: at the defaults every run is below it). Not for the
  // closed form of all-Gaussian runs, nor beyond the PLD accountant's limit of 1e8 steps (an
  // error follows, and nothing else may be printed before it).
  const long long steps = run.total_steps();
  if (run.is_gaussian() || steps <= 0 || static_cast<double>(steps) > 1e8) return;
  const double by_steps =
      std::sqrt(static_cast<double>(steps) / 1e6) * std::max(1.0, 1e-3 / a.accuracy);
  const double n = static_cast<double>(a.max_fft_size);
  const double at_limit = 10.0 * (n / 16777216.0) * std::log2(n) / 24.0;
  const double seconds = std::min(by_steps, at_limit);
  if (seconds > 30)
    std::cerr << tool << ": PLD accounting of " << steps << " steps takes roughly "
              << duration_text(seconds) << " (estimated from the steps, --accuracy and "
              << "--max-fft-size)\n";
}

query_outcome privacy_rows(const resolved_run& m,
                           const privacy_query& q,
                           const accountant_options& a,
                           const CLI::App* app,
                           const std::string& format,
                           report& r) {
  const bool curve = m.steps.size() > 1;
  const bool epsilon = q.quantity == "epsilon";
  const std::vector<accounting::accountant_type> accountants = selected_accountants(a);
  // answers[k][i]: accountant k at the i-th length (a row without a value where it failed).
  std::vector<std::vector<json>> answers(accountants.size());
  query_outcome out;
  for (std::size_t k = 0; k < accountants.size(); ++k) {
    const accounting::accountant_type acc = accountants[k];
    std::vector<accounting::privacy_estimate> es;
    try {
      if (curve) {
        // A bar on a terminal, and the projected time when a long curve will take over 30 s.
        progress_options po;
        po.bar = true;
        po.announce = true;
        // Each point one step of the bar. A point's cost does not follow its steps: measured at
        // commit 3e6ce41 (σ = 0.8, q = 0.001, δ = 1e-5, 2 cores), alone T = 1e6, 4.6e6, 2.2e7 and
        // 1e8 took 1.6, 14.7, 8.8 and 2.0 s (past the FFT limit the engine stops refining, so
        // the largest runs are not the slowest), together as one curve 17.9 s; 12 points from
        // 1e6 to 1e8 took 59 s, about 5 s a point. Equal units project the 12-point curve at
        // 24 s from its first point; weights growing with T (the old T^0.75) projected under 5 s.
        po.what = std::to_string(m.steps.size()) + " points";
        progress_reporter bar(r.tool + " (" + std::string(accounting::to_string(acc)) + ")",
                              m.steps.size(), po);
        const accounting::curve_progress each = [&](std::size_t, std::size_t) {
          bar.advance(1);
        };
        es = epsilon ? accounting::estimate_epsilon_curve(m.run, m.steps, q.at, acc,
                                                          pld_options_of(a), each)
                     : accounting::estimate_delta_curve(m.run, m.steps, q.at, acc,
                                                        pld_options_of(a), each);
      } else {
        const long long steps = m.total_steps.empty() ? 0 : m.total_steps.front();
        if (acc == accounting::accountant_type::pld) announce_pld_cost(r.tool, m.run, a);
        // One composition reports no progress of its own: on a terminal, a line with the time
        // so far once it has run 2 s.
        const elapsed_ticker ticker(r.tool + " (" + std::string(accounting::to_string(acc)) +
                                    (steps > 0 ? ", " + std::to_string(steps) + " steps" : "") +
                                    ")");
        es.push_back(epsilon ? accounting::estimate_epsilon(m.run, q.at, acc, pld_options_of(a))
                             : accounting::estimate_delta(m.run, q.at, acc, pld_options_of(a)));
      }
    } catch (const std::exception& error) {
      // One accountant out of its range (the CLT's μ beyond 1e6, an FFT beyond the memory
      // limit): with --accountant all it gets rows that say so, and the others still answer.
      if (accountants.size() == 1) throw;
      const json row = unavailable_row(acc, q.quantity, library_reason(error, app));
      answers[k].assign(m.steps.size(), row);
      continue;
    }
    for (const accounting::privacy_estimate& e : es) {
      json row = estimate_row(e, q.quantity);
      if (row.at("kind") != "unavailable") ++out.answered;
      if (e.termination == termination_type::failure && out.failure.empty())
        out.failure = e.message;
      // An edge value's message is its derivation (why epsilon is 0 or inf): said below.
      const bool edge = e.edge_value;
      if ((edge || e.termination == termination_type::max_iterations) && !e.message.empty() &&
          std::find(out.notes.begin(), out.notes.end(), e.message) == out.notes.end())
        out.notes.push_back(e.message);
      answers[k].push_back(std::move(row));
    }
  }
  for (std::size_t i = 0; i < m.steps.size(); ++i)
    for (std::size_t k = 0; k < accountants.size(); ++k) {
      json row;
      if (curve) {
        row["steps"] = m.total_steps[i];
        if (!m.epochs.empty()) row["epochs"] = m.epochs[i];
      }
      for (const auto& [key, value] : answers[k][i].items()) row[key] = value;
      row[q.at_name] = q.at;
      if (!curve && !m.is_mu) {
        row["steps"] = m.total_steps[i];
        if (!m.epochs.empty()) row["epochs"] = m.epochs[i];
      }
      r.results.push_back(std::move(row));
    }
  const std::string& x = q.quantity;
  if (curve) {
    r.columns = {"steps"};
    if (!m.epochs.empty()) r.columns.push_back("epochs");
    for (const std::string c : {"accountant", x.c_str(), "kind"}) r.columns.push_back(c);
    r.columns.push_back(x + "_lower");
    r.columns.push_back(x + "_upper");
  } else {
    r.columns = {"accountant", x, "kind", x + "_lower", x + "_upper"};
    if (!epsilon) r.columns.push_back("log_delta");
    r.columns.push_back("method");
  }
  // A CSV has no notes: a row that could not answer says why in a message column (the table
  // lists the reasons below it).
  bool unavailable = false;
  for (const json& row : r.results) unavailable = unavailable || row.at("kind") == "unavailable";
  if (unavailable && format == "csv") r.columns.push_back("message");
  // A CSV has no context either: the run's parameters ride along as constant columns after the
  // results (what `dpkit plot` of the CSV reads into its title; one phase, or μ-GDP).
  if (format == "csv") {
    if (!curve && !m.is_mu) {
      r.columns.push_back("steps");
      if (!m.epochs.empty()) r.columns.push_back("epochs");
    }
    // As typed: the shortest text that reads back as the same double (1e-05, not
    // 1.0000000000000001e-05).
    auto as_typed = [](const json& v) {
      return v.is_number() ? json(format_value(v.get<double>())) : v;
    };
    r.columns.push_back(q.at_name);
    for (json& row : r.results) row[q.at_name] = as_typed(json(q.at));
    for (const char* key :
         {"mu", "noise_multiplier", "noise_relative_to", "sampling_rate", "sampling"}) {
      if (!m.parameters.contains(key) || m.parameters[key].is_null()) continue;
      r.columns.push_back(key);
      for (json& row : r.results) row[key] = as_typed(m.parameters[key]);
    }
  }
  if (out.answered == 0 && out.failure.empty())
    out.failure = "no accountant could answer for this run";
  return out;
}

int finish(const std::string& tool, const query_outcome& out) {
  for (const std::string& n : out.notes) std::cerr << tool << ": note: " << n << "\n";
  if (!out.failure.empty()) {
    std::cerr << tool << ": " << (out.answered > 0 ? "note: " : "") << out.failure << "\n";
    // With --accountant all, one failed accountant leaves the others' answers valid.
    if (out.answered == 0) return kExitNumericalFailure;
  }
  return kExitSuccess;
}

std::vector<std::string> scheme_sentences(const accounting::training_run& run,
                                          const std::string& x,
                                          accounting::noise_scale scale) {
  std::vector<std::string> s;
  // Each scheme and relation of the run once, in the order of the phases.
  std::vector<std::pair<accounting::sampling_scheme, accounting::neighbouring>> seen;
  for (const accounting::training_phase& p : run.phases) {
    const auto key = std::make_pair(p.sampling, accounting::relation(p));
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    using accounting::neighbouring;
    using accounting::sampling_scheme;
    const bool replace = key.second == neighbouring::replace_one;
    const std::string sensitivity =
        replace && scale == accounting::noise_scale::sensitivity
            ? "replace-one neighbours: the clipped sum moves by up to 2C, and the noise "
              "multiplier given (--noise-relative-to sensitivity) is noise std / 2C, "
              "dp_accounting's convention; relative to the clip norm C it is twice that "
              "(docs/report.md)."
        : replace
            ? "replace-one neighbours: the clipped sum moves by up to 2C, so the noise "
              "multiplier (noise std / clip norm C) is twice the noise relative to the "
              "sensitivity, dp_accounting's convention (--noise-relative-to sensitivity; "
              "docs/report.md)."
                : "add/remove neighbours, the worse direction reported: the noise multiplier "
                  "(noise std / clip norm C) is relative to the sensitivity C.";
    switch (key.first) {
      case sampling_scheme::poisson:
        s.push_back("Poisson sampling, " + sensitivity);
        break;
      case sampling_scheme::without_replacement:
        s.push_back("without-replacement (fixed-size batches), " + sensitivity);
        break;
      case sampling_scheme::truncated_poisson:
        s.push_back("truncated-poisson, " + sensitivity + " " + x +
                    " from a dominating pair (Ganesh 2025), " + x +
                    "_lower from the rate at which the record stays in the batch.");
        break;
      case sampling_scheme::shuffling:
        s.push_back("shuffling: zero-out neighbours (the noise multiplier is relative to the "
                    "sensitivity C); no tight accountant is known: " + x +
                    "_lower is a certified lower bound (Chua et al. 2024), " + x +
                    " the upper bound without amplification: compare " + x +
                    "_lower with the Poisson number (docs/accounting.md, \"Shuffled "
                    "batches\").");
        break;
      case sampling_scheme::random_allocation:
        s.push_back(p.selected > 1
                        ? "random-allocation, k of t steps per epoch, " + sensitivity + " " + x +
                              " is a certified upper bound (k allocations of 1 of t/k steps "
                              "composed, Feldman & Shenfeld 2026), " + x +
                              "_lower the larger of two post-processings (the epoch sums, the "
                              "epoch's largest coordinate): certified, but not tight; with "
                              "--accountant rdp the routes' Renyi DP."
                        : "random-allocation, " + sensitivity +
                              " A tight certified bracket (the epoch's likelihood ratio bounded "
                              "from both sides in the convex order, Feldman & Shenfeld 2026); "
                              "with --accountant rdp the epoch's Renyi DP.");
        break;
    }
  }
  return s;
}

std::vector<std::string> privacy_legend(const privacy_query& query,
                                        const accounting::training_run& run,
                                        const std::vector<json>& rows) {
  const std::string& x = query.quantity;  // epsilon or delta
  bool upper = false, lower = false, approximation = false;
  for (const json& row : rows) {
    const std::string kind = row.value("kind", "");
    upper = upper || kind == "upper-bound";
    approximation = approximation || kind == "approximation";
    const auto l = row.find(x + "_lower");
    lower = lower || (l != row.end() && l->is_number());
  }
  std::vector<std::string> s;
  if (upper) s.push_back("upper-bound: the run is (epsilon, delta)-DP with this " + x + ".");
  if (lower)
    s.push_back(x + "_lower (pld): no smaller " + x +
                " can hold — together a certified bracket.");
  if (approximation) s.push_back("approximation (clt): no guarantee in either direction.");
  if (x == "delta" && upper) s.push_back("log_delta stays finite where delta underflows.");
  for (std::string& sentence : scheme_sentences(run, x, query.scale))
    s.push_back(std::move(sentence));
  return wrap(s, 90);
}

}  // namespace dpkit::cli
