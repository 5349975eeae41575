// The check ledger shared by the ZXD+26 lemma scenarios (zxd26_longtail_lemmas.cpp: Lemmas
// 16-19 at initialisation; zxd26_longtail_trained.cpp: Lemmas 21, 23, 24 along training): each
// check is recorded in the notes, and the verdict follows from the refuted and unresolved ones.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "../harness/scenarios.hpp"
#include "dpkit/sim/statistics.hpp"

namespace dpkit::validation::longtail_lemmas_detail {

// The checks of one scenario. `must_resolve` checks decide "holds" (all resolved as predicted);
// refute-only checks (e.g. adjacent grid points whose rates may tie) can only make it violated.
struct ledger {
  int total = 0, wrong = 0, unresolved = 0;
  std::string first_wrong;
  // A self-check's wrong claim may join several parts ("probabilities scaled down and the trend
  // reversed"): `part` names the part a check audits, and finish_self_check counts the wrong
  // claim caught only when every part is rejected by its own checks.
  std::map<std::string, int> wrong_in_part;
  void record(const std::string& name,
              int outcome,
              bool must_resolve,
              scenario_result& r,
              const std::string& detail,
              const std::string& part = "") {
    // outcome: +1 as predicted, −1 refuted, 0 not resolved.
    ++total;
    if (outcome < 0) {
      ++wrong;
      ++wrong_in_part[part];
      if (first_wrong.empty()) first_wrong = name;
    } else {
      wrong_in_part.try_emplace(part, 0);
    }
    if (outcome == 0 && must_resolve) ++unresolved;
    r.notes.push_back("check " + std::to_string(total) + ": " + name + ": " + detail + " -> " +
                      (outcome > 0   ? "as predicted"
                       : outcome < 0 ? "REFUTED"
                                     : (must_resolve ? "not resolved" : "not resolved (tie)")));
  }
  // E[x] > 0 for paired differences x (Student t interval at the coverage of the normal
  // quantile z, t_multiplier in zxd26_longtail_common.hpp). The self-check (`reversed`) audits the
  // reversed ordering E[x] < 0 through the same interval, as audit_positive there.
  void positive(std::string name,
                std::vector<double> x,
                double z,
                bool reversed,
                bool must_resolve,
                scenario_result& r,
                const std::string& part = "") {
    if (reversed) {
      for (double& v : x) v = -v;
      name = "reversed ordering (self-check): -(" + name + ")";
    }
    z = t_multiplier(z, x.size());
    const auto [mean, se] = mean_se(x);
    const double lo = mean - z * se, hi = mean + z * se;
    record(name, lo > 0 ? 1 : (hi < 0 ? -1 : 0), must_resolve, r,
           sig(mean, 4) + " +- " + sig(z * se, 3), part);
  }
  // P ≤ bound for an event seen k times in N independent trials: refuted iff the
  // Clopper–Pearson lower limit exceeds the bound; resolved iff the upper limit is below it.
  void at_most(const std::string& name,
               std::size_t k,
               std::size_t N,
               double bound,
               double confidence,
               bool must_resolve,
               scenario_result& r,
               const std::string& part = "") {
    const sim::confidence_interval ci = sim::clopper_pearson(k, N, confidence);
    record(name, ci.lower > bound ? -1 : (ci.upper <= bound ? 1 : 0), must_resolve, r,
           std::to_string(k) + "/" + std::to_string(N) + " = " + sig(ci.estimate, 4) + " [" +
               sig(ci.lower, 4) + ", " + sig(ci.upper, 4) + "] vs bound " + sig(bound, 4),
           part);
  }
  // P = exact, an exact claim audited as an equivalence (docs/validation.md, "Equality claims")
  // with an absolute margin fixed before the run: refuted when the two-sided Clopper–Pearson
  // interval excludes the exact value (any gap refutes an exact claim), as predicted only when
  // the interval lies inside exact ± margin, else not resolved — never "holds" by not rejecting.
  void equals(const std::string& name,
              std::size_t k,
              std::size_t N,
              double exact,
              double margin,
              double confidence,
              scenario_result& r,
              const std::string& part = "") {
    const sim::confidence_interval ci = sim::clopper_pearson(k, N, confidence);
    const int outcome = !(ci.lower <= exact && exact <= ci.upper)                    ? -1
                        : (ci.lower >= exact - margin && ci.upper <= exact + margin) ? 1
                                                                                     : 0;
    record(name, outcome, true, r,
           std::to_string(k) + "/" + std::to_string(N) + " = " + sig(ci.estimate, 4) + " [" +
               sig(ci.lower, 4) + ", " + sig(ci.upper, 4) + "] vs exact " + sig(exact, 4) + " +- " +
               sig(margin, 2),
           part);
  }
  void finish(double confidence, scenario_result& r) const {
    r.verdict = wrong > 0         ? verdict::violated
                : unresolved == 0 ? verdict::holds
                                  : verdict::inconclusive;
    r.verdict_reason = wrong > 0 ? std::to_string(wrong) + " of " + std::to_string(total) +
                                       " checks refuted (first: " + first_wrong + ")"
                       : unresolved == 0
                           ? "every check as predicted (refute-only ties allowed)"
                           : std::to_string(unresolved) + " of " + std::to_string(total) +
                                 " checks not resolved at this sample size";
    r.confidence = confidence;
  }
  // The self-check's verdict: violated (the wrong claim caught) only when each of `parts` has a
  // refuted check — one rejected part alone says nothing of the others' power.
  void finish_self_check(double confidence,
                         const std::vector<std::string>& parts,
                         scenario_result& r) const {
    std::string missed;
    for (const std::string& p : parts) {
      const auto it = wrong_in_part.find(p);
      if (it == wrong_in_part.end() || it->second == 0) missed += (missed.empty() ? "" : ", ") + p;
    }
    r.confidence = confidence;
    if (missed.empty()) {
      r.verdict = verdict::violated;
      r.verdict_reason = "every part of the wrong claim rejected: " + std::to_string(wrong) +
                         " of " + std::to_string(total) + " checks refuted";
    } else {
      r.verdict = verdict::inconclusive;
      r.verdict_reason = "part(s) of the wrong claim not rejected: " + missed + " (" +
                         std::to_string(wrong) + " of " + std::to_string(total) +
                         " checks refuted)";
    }
  }
};

}  // namespace dpkit::validation::longtail_lemmas_detail
