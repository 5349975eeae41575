#pragma once
// The grammar of hsgd's spec flags, "name:a,b,c" (--spectrum, --schedule, --pairs): reading
// the numbers, checking their count and integer parts, and naming what the library refuses in
// the spec's own words (split from hsgd.cpp along that seam).
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/volterra/schedule.hpp"

namespace dpkit::cli::hsgd_specs {

/// "name:a,b,c" → name and the numbers (each finite; a subnormal is refused with the note).
std::pair<std::string, std::vector<double>> parse_spec(const std::string& flag,
                                                       const std::string& text);

/// usage_error unless lo <= v.size() <= hi, naming the spec's form.
void need_count(const std::string& flag,
                const std::string& text,
                const std::vector<double>& v,
                std::size_t lo,
                std::size_t hi,
                const std::string& form);

/// An integer part of a spec (GROUPS, K, I, J), refused unless it is an integer in [lo, hi]
/// before any conversion: a double beyond 2^63 converted to long long is undefined behaviour
/// (it wrapped to -2^63), and 1.5 was truncated silently.
long long spec_integer(const std::string& where, double x, long long lo, long long hi);

/// The learning-rate schedule of --schedule (constant, step, polynomial, cosine, table).
volterra::schedule build_schedule(const std::string& text, double gamma);

// Runs a library builder of a --spectrum or --schedule spec and names the argument it refuses
// in the user's words: the spec's own part name (BULK, SPIKE2, INTERVAL, HORIZON) with the spec's
// form, or the flag of the start energies. The library's names go in by field (argument_error),
// never by parsing its text; a name not listed passes on unchanged.
template <class F>
auto in_spec_words(const std::string& flag,
                   const std::string& form,
                   const std::vector<std::pair<std::string, std::string>>& parts,
                   F&& build) {
  try {
    return build();
  } catch (const argument_error& e) {
    std::string who;
    for (const auto& [lib, word] : parts)
      if (e.name() == lib) who = word + " in " + flag + " " + form;
    // Indexed parts: spikes[i] is SPIKE(i+1); a table's times[k] and rates[k] are Tk and Gk.
    static const std::tuple<const char*, const char*, int> indexed[] = {
        {"spikes[", "SPIKE", 1}, {"times[", "T", 0}, {"rates[", "G", 0}};
    for (const auto& [prefix, word, offset] : indexed) {
      const std::string_view pre(prefix);
      if (who.empty() && e.name().rfind(pre, 0) == 0 && e.name().back() == ']')
        who = word + std::to_string(std::atoll(e.name().c_str() + pre.size()) + offset) + " in " +
              flag + " " + form;
    }
    static const std::pair<const char*, const char*> energy_flags[] = {
        {"energies.e0_sq", "--start-error"},
        {"energies.xstar_sq", "--target-norm"},
        {"energies.e0_xstar", "--start-target"}};
    for (const auto& [lib, word] : energy_flags)
      if (e.name() == lib) who = word;
    if (who.empty()) throw;
    throw usage_error(who + " is " + e.value() + ", but must be " + e.constraint());
  }
}

}  // namespace dpkit::cli::hsgd_specs
