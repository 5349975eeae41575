// The rows of dpkit epsilon and dpkit delta: each selected accountant at each length of the run
// (one row per accountant for a single run; one per length and accountant for a curve).
#pragma once

#include <string>
#include <vector>

#include "cli.hpp"
#include "run_options.hpp"

namespace dpkit::cli {

struct privacy_query {
  std::string quantity;  ///< "epsilon" (at a δ) or "delta" (at an ε)
  double at = 0;         ///< the δ or ε
  std::string at_name;   ///< "delta" or "epsilon"
  /// What the user's noise multiplier is relative to (--noise-relative-to), for the legend.
  accounting::noise_scale scale = accounting::noise_scale::clip_norm;
};

struct query_outcome {
  std::size_t answered = 0;        ///< rows with a finite value
  std::string failure;             ///< the first failure's message
  std::vector<std::string> notes;  ///< messages of answers that stopped short (max_iterations)
};

/// On stderr, before a single PLD composition of the run that is expected to take over 30 s: a
/// rough estimate of its duration from the steps, the accuracy and the FFT limit (the curves
/// project theirs from their first points).
void announce_pld_cost(const std::string& tool,
                       const accounting::training_run& run,
                       const accountant_options& options);

/// Fills r.results and r.columns. An accountant that cannot answer this run gets rows of kind
/// "unavailable" saying why when several accountants were asked for (with one, its error
/// propagates: exit 2 or 1 as main() decides).
query_outcome privacy_rows(const resolved_run& run,
                           const privacy_query& query,
                           const accountant_options& accountants,
                           const CLI::App* app,
                           const std::string& format,
                           report& r);

/// For each sampling scheme the run uses (once, in the order of its phases): its neighbouring
/// relation, the sensitivity the noise multiplier is relative to, and what its bounds on
/// `quantity` ("epsilon" or "delta") are. Sentences, not lines (cli.hpp's wrap makes lines).
std::vector<std::string> scheme_sentences(
    const accounting::training_run& run,
    const std::string& x,
    accounting::noise_scale scale = accounting::noise_scale::clip_norm);

/// The table's legend for these rows: what each kind of row shown promises, and, for each
/// sampling scheme the run uses, its neighbouring relation, the sensitivity the noise multiplier
/// is relative to, and what its bounds are — nothing about rows or schemes the run did not use.
/// Lines of at most 90 characters.
std::vector<std::string> privacy_legend(const privacy_query& query,
                                        const accounting::training_run& run,
                                        const std::vector<json>& rows);

/// After the output is written: the notes and the failure on stderr, one line each, and the
/// exit code (1 when no row could answer).
int finish(const std::string& tool, const query_outcome& outcome);

}  // namespace dpkit::cli
