// One vocabulary across the subcommands (docs/cli.md "Flag names"): the flags that were renamed
// to it keep their old spelling as hidden aliases for one release, and a mistyped flag or
// subcommand gets a suggestion.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace dpkit::cli {

/// A renamed flag: `old_name` on `subcommand` (the first word after dpkit) now reads
/// `new_name`.
struct flag_alias {
  const char* subcommand;
  const char* old_name;
  const char* new_name;
};

/// Every alias still accepted.
const std::vector<flag_alias>& flag_aliases();

/// The command line with old flag names replaced by the new ones (also in "--old=value" form);
/// one note per replaced flag ("--n is now --dataset-size") goes to `notes`.
std::vector<std::string> apply_aliases(const std::vector<std::string>& args,
                                       std::vector<std::string>& notes);

/// The candidate closest to `typed` (edit distance, or a prefix), or "" when none is close.
std::string closest(const std::string& typed, const std::vector<std::string>& candidates);

/// Every flag of `app` (long and short names, with dashes).
std::vector<std::string> flag_names(const CLI::App& app);

/// The subcommands of `app`, one line each: name and description.
std::string subcommand_list(const CLI::App& app);

}  // namespace dpkit::cli
