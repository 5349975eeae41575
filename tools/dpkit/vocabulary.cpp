#include "vocabulary.hpp"

#include <algorithm>
#include <sstream>

namespace dpkit::cli {

const std::vector<flag_alias>& flag_aliases() {
  // Renamed in 0.2 to one vocabulary (docs/cli.md "Flag names"); the old names go in 0.3.
  static const std::vector<flag_alias> aliases = {
      {"shifted", "--n", "--dataset-size"},    {"shifted", "--noise", "--noise-std"},
      {"hsgd", "--n", "--dataset-size"},       {"hsgd", "--noise", "--noise-std"},
      {"hsgd", "--dim", "--dimension"},        {"hsgd", "--order", "--orders"},
      {"hsgd", "--dataset", "--data"},         {"simulate", "--examples", "--dataset-size"},
      {"simulate", "--noise", "--noise-std"},  {"bound", "--examples", "--dataset-size"},
      {"validate", "--out", "--output-dir"},   {"plot", "--out", "--output"},
  };
  return aliases;
}

std::vector<std::string> apply_aliases(const std::vector<std::string>& args,
                                       std::vector<std::string>& notes) {
  std::vector<std::string> out = args;
  if (out.size() < 2) return out;
  const std::string& sub = out[1];
  for (std::size_t i = 2; i < out.size(); ++i) {
    if (out[i] == "--") break;  // everything after is a value
    for (const flag_alias& a : flag_aliases()) {
      if (sub != a.subcommand) continue;
      const std::string old = a.old_name;
      if (out[i] == old || out[i].rfind(old + "=", 0) == 0) {
        out[i] = a.new_name + out[i].substr(old.size());
        const std::string note = old + " is now " + a.new_name;
        if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
        break;
      }
    }
  }
  return out;
}

namespace {

// Optimal string alignment distance (Damerau–Levenshtein without repeated edits of a substring).
std::size_t distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

}  // namespace

std::string closest(const std::string& typed, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const std::string& c : candidates) {
    std::size_t dist = distance(typed, c);
    // A unique-looking prefix ("--noise" for "--noise-multiplier") counts as close.
    if (typed.size() >= 4 && c.rfind(typed, 0) == 0) dist = std::min<std::size_t>(dist, 1);
    if (dist < best_distance) best_distance = dist, best = c;
  }
  const std::size_t allowed = std::max<std::size_t>(2, typed.size() / 3);
  return best_distance <= allowed ? best : std::string();
}

std::vector<std::string> flag_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) out.push_back("--" + l);
    for (const std::string& s : o->get_snames()) out.push_back("-" + s);
  }
  return out;
}

std::string subcommand_list(const CLI::App& app) {
  std::ostringstream out;
  std::size_t width = 0;
  for (const CLI::App* sub : app.get_subcommands({}))
    width = std::max(width, sub->get_name().size());
  for (const CLI::App* sub : app.get_subcommands({})) {
    // The description up to its first colon (the rest is in the subcommand's --help).
    std::string d = sub->get_description();
    if (const auto nl = d.find('\n'); nl != std::string::npos) d = d.substr(0, nl);
    if (const auto colon = d.find(": "); colon != std::string::npos && colon > 20)
      d = d.substr(0, colon);
    out << "  " << sub->get_name() << std::string(width + 2 - sub->get_name().size(), ' ') << d
        << "\n";
  }
  return out.str();
}

}  // namespace dpkit::cli
