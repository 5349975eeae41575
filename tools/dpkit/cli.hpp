// Shared pieces of the dpkit program: option validators, the mechanism options shared by
// epsilon/delta/tradeoff, and the output layer (--format table|json|csv, --output FILE).
//
// Output contract (docs/architecture.md, "The command line"): data goes to stdout (or --output
// FILE), diagnostics to stderr. JSON is {"context": {...}, "results": [...]}; CSV has one header
// row and no context; the table is for people. Exit codes: 0 success, 1 numerical failure,
// 2 bad input or usage, 3 a validation check failed.
#pragma once

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/csv.hpp"

namespace dpkit::cli {

using json = nlohmann::ordered_json;

inline constexpr int kExitSuccess = 0;
inline constexpr int kExitNumericalFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitValidationFailed = 3;

/// Thrown for usage errors detected after parsing (exit 2, one line on stderr).
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Thrown when a computation on valid input fails (did not converge, diverged): exit 1, one
/// line on stderr.
struct numerical_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- validators: parse the string themselves, so "nan", "abc", "1.5" for an integer, and
// out-of-range values all give one line "--flag is <value>, but must be <constraint>".
CLI::Validator real_in_open_interval(double lo, double hi);       // (lo, hi)
CLI::Validator real_in_half_open_interval(double lo, double hi);  // [lo, hi)
CLI::Validator real_in_closed_interval(double lo, double hi);     // [lo, hi]
CLI::Validator real_in_left_open_interval(double lo, double hi);  // (lo, hi]
CLI::Validator real_finite();                                     // any finite number
CLI::Validator real_at_least(double lo);                          // finite, >= lo
CLI::Validator real_greater_than(double lo);  // finite, > lo
/// 2^53: the largest integer below which every count converts to a double exactly.
inline constexpr long long kMaxExactInteger = 9007199254740992LL;
/// An integer in [lo, hi]. The default cap, 1e9, bounds counts whose work or memory grows with
/// them (steps, replicates, points): larger values are rejected, with the range, instead of
/// running out of memory or time.
CLI::Validator integer_at_least(long long lo, long long hi = 1000000000LL);
CLI::Validator sampling_rate_validator();  // [2.2e-308, 1]
/// A noise multiplier: finite and >= 1e-100 (accounting::kSmallestNoiseMultiplier).
CLI::Validator noise_multiplier_validator();
/// The edge values accepted as well: noise multiplier 0, inf or >= 1e-100, sampling rate 0 or in
/// [2.2e-308, 1].
CLI::Validator noise_multiplier_edge_validator();
CLI::Validator sampling_rate_edge_validator();
/// PLD accuracy targets: [1e-6, 1). Finer brackets would need grids beyond the memory limit
/// and the rounding allowances (1e-9 relative) would dominate them anyway.
CLI::Validator pld_accuracy_validator();
CLI::Validator finite_real_in_half_open_unit();  // (0, 1]
CLI::Validator delta_validator();                // [1e-290, 1)
CLI::Validator writable_file_validator();        // --output FILE (see below)

// ---- output
struct output_options {
  std::string format = "table";
  std::string file;  ///< empty: stdout
};

/// --format and --output. --output is checked when the command line is parsed, before any work:
/// its folder must exist and be writable, and an existing FILE must be a writable file.
void add_output_options(CLI::App* app, output_options& options);

/// Usage error unless `output` (an --output or --output-dir value; may be empty) names a different
/// file than `input` (the file given to `input_flag`).
void check_not_an_input(const std::string& output_flag,
                        const std::string& output,
                        const std::string& input_flag,
                        const std::string& input);

/// Usage error when two of one command's output files are the same file, so that one would
/// replace the other: `outputs` pairs each flag with its value (empty: not given). Devices and
/// pipes (/dev/stdout) are not files that a write replaces, and may be shared.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

/// Writes `text` to `path` so that nothing half-written is ever left: a temporary file in the
/// same folder, flushed, closed and checked, then renamed over `path`. Files that cannot be
/// replaced that way (devices such as /dev/stdout or /dev/full) are written directly, with the
/// flush and close checked. Throws usage_error "<flag>: cannot write PATH: <reason>".
void write_file(const std::string& flag, const std::string& path, const std::string& text);

/// The records of the CSV file `path` (core/csv.hpp's RFC 4180 reader); a file that cannot be
/// read or parsed is a usage_error "<label>: PATH[:LINE]: <reason>".
std::vector<csv_record> read_csv_records(const std::string& label, const std::string& path);

/// A library argument_error in the user's terms, from its fields: "<name> is <value>, but must
/// be <constraint>", the name written as the flag where `app` has one (--noise-multiplier for
/// noise_multiplier).
std::string argument_message(const argument_error& e, const CLI::App* app);

/// The message after the flag's name for text that reads as a number only outside double
/// precision ("is 1e400, which overflows ...", "is 1e-320, but must be ... (underflows ...)"),
/// or "" where the text is not such a number. `constraint` completes "but must be ...".
std::string out_of_range(const std::string& s, const std::string& constraint);

/// Why the library refused, in the user's terms, by the exception's type: an argument_error
/// from its fields (argument_message; `flags` maps library names to flags where `app` is
/// null), any other exception's own text (the library's messages carry no function name).
std::string library_reason(
    const std::exception& e,
    const CLI::App* app,
    std::initializer_list<std::pair<std::string_view, std::string_view>> flags = {});

// ---- options shared by several subcommands (same flag, same constraint everywhere)
/// -d/--delta D in [1e-290, 1); required unless a default is already in `delta`.
CLI::Option* add_delta_option(CLI::App* app, double& delta, bool required);
/// --epsilon E, finite and >= 0, required.
CLI::Option* add_epsilon_option(CLI::App* app, double& epsilon);

/// A command's result: a list of records (one JSON object each) plus the columns shown in
/// table and CSV form, and notes printed under the table.
/// The words of `texts`, in order, joined into lines of at most `width` characters (a word
/// longer than that on a line of its own); lines after the first start with `indent`.
std::vector<std::string> wrap(const std::vector<std::string>& texts,
                              std::size_t width,
                              const std::string& indent = "");

struct report {
  std::string tool;  ///< e.g. "dpkit epsilon"
  json parameters = json::object();
  std::vector<json> results;
  std::vector<std::string> columns;  ///< keys of `results` shown in table/CSV
  std::vector<std::string> notes;    ///< table format only
  std::string title;                 ///< table format only
};

/// Whether this process writes output (false on MPI ranks other than 0; main sets it).
bool output_rank();
void set_output_rank(bool writes);

/// Writes the report in the requested format (nothing on a non-output rank). Throws usage_error if
/// the file cannot be written.
void emit(const report& r, const output_options& options);

// ---- accountant options
struct accountant_options {
  std::string accountant = "pld";
  double accuracy = 1e-3;
  long long max_fft_size = 1LL << 24;
};
/// --accountant pld|rdp|clt|all (all: with_all), --accuracy and --max-fft-size.
void add_accountant_options(CLI::App* app, accountant_options& options, bool with_all);
/// The accountants selected ("all" expands to pld, rdp, clt).
std::vector<accounting::accountant_type> selected_accountants(const accountant_options& options);
accounting::pld_options pld_options_of(const accountant_options& options);
/// --max-fft-size: the memory cap of the PLD engine (shared by the PLD-based commands).
void add_max_fft_size_option(CLI::App* app, long long& max_fft_size);

/// One result row (JSON object) from an accountant's estimate; `quantity` is "epsilon" or "delta".
/// A row without a finite value is never labelled a bound: its kind is "unavailable" and its
/// message says why.
json estimate_row(const accounting::privacy_estimate& e, const std::string& quantity);

/// The row of an accountant that cannot answer this run (out of its range): kind "unavailable",
/// termination "failure", the reason in `message`.
json unavailable_row(accounting::accountant_type a,
                     const std::string& quantity,
                     const std::string& reason);

/// A number for JSON output: the value where finite, null otherwise (JSON has no inf or NaN).
json number_or_null(double x);

/// A number for JSON output that keeps what a non-finite value is: the value where finite, else
/// the string "inf", "-inf" or "nan" (a table then shows that word, where null shows "-", which
/// is kept for "nothing here", such as a term's limit).
json number_or_word(double x);

/// The value of a double for tables: 10 significant digits.
std::string format_number(double x);

}  // namespace dpkit::cli
