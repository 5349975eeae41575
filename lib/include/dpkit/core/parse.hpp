// dpkit/core/parse.hpp — a number typed by a user or read from a file, as one rule: the whole
// text in strtod's (or strtoll's) syntax, nothing before or after it, and what the conversion
// did to it said, not hidden. The CLI's flags and --phase fields, `dpkit plot`'s cells, the
// audit and hsgd data files, read_csv and the spectrum files all read numbers through here.
//
// std::strtod rather than std::from_chars: users type "+1" and "inf", which from_chars rejects,
// and the accepted syntax must not change between a flag and a data file.
#pragma once

#include <optional>
#include <string_view>

namespace dpkit {

/// What reading a number's text gave.
enum class number_status {
  ok,            ///< the whole text is a number inside double precision
  empty,         ///< no text
  not_a_number,  ///< text strtod does not read whole ("1e", "0.5x", "one")
  overflow,      ///< a finite number beyond double precision ("1e400" reads as inf)
  underflow,     ///< a non-zero number below the smallest normal double ("1e-400" reads as 0,
                 ///< "1e-320" as a subnormal that keeps a few digits at most)
};

struct parsed_number {
  double value = 0;  ///< what strtod gave (inf on overflow, 0 or a subnormal on underflow)
  number_status status = number_status::empty;
  /// The whole text was read as a number (out of double precision or not).
  bool read() const noexcept {
    return status != number_status::empty && status != number_status::not_a_number;
  }
};

/// The whole text as a double, strtod's syntax ("1e-5", "+2", "inf", "nan", hexadecimal;
/// leading blanks skipped, nothing after the number), with what the conversion did to it.
parsed_number parse_number(std::string_view text);

/// The value when the whole text reads as a number (inf, nan, and out-of-range text included,
/// as strtod gives them); std::nullopt for empty text or text left over.
std::optional<double> parse_double(std::string_view text);

/// A finite number inside double precision: as parse_double, and also std::nullopt for inf,
/// nan, and text that overflows or underflows (status other than ok) — such text is refused,
/// never read as inf or 0.
std::optional<double> parse_finite(std::string_view text);

/// The whole text as a base-10 integer (strtoll's syntax: an optional sign, digits);
/// std::nullopt for empty text, text left over, or a value beyond long long.
std::optional<long long> parse_integer(std::string_view text);

/// Whether a name the user typed is `spelling`, with '_' read as '-' (Python's
/// "without_replacement" for the CLI's "without-replacement"): how every enum is read by name.
bool same_name(std::string_view name, std::string_view spelling) noexcept;

/// The text without the spaces, tabs and carriage returns around it (a CSV cell, an item of a
/// comma-separated list typed as "1, 2").
std::string_view trim(std::string_view text);

}  // namespace dpkit
