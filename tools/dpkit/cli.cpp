#include "cli.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "dpkit/core/check.hpp"
#include "dpkit/core/version.hpp"

namespace dpkit::cli {
namespace {

// Parses a whole string as a double (strtod syntax). Returns nullopt on any trailing text.
std::optional<double> parse_real(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

std::optional<long long> parse_integer(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() || errno == ERANGE) return std::nullopt;
  return v;
}

// The message after the flag name; main() joins "--flag" and this into one line.
std::string invalid(const std::string& value, const std::string& constraint) {
  return "is " + value + ", but must be " + constraint;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string csv_cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_number_float()) return fmt::format("{:.17g}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string table_cell(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_number_float()) return format_number(v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

void write_table(std::ostream& out, const report& r) {
  if (!r.title.empty()) out << r.title << "\n\n";
  std::vector<std::size_t> width(r.columns.size());
  std::vector<std::vector<std::string>> cells;
  for (std::size_t c = 0; c < r.columns.size(); ++c) width[c] = r.columns[c].size();
  for (const json& row : r.results) {
    std::vector<std::string> line;
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
      line.push_back(table_cell(row.contains(r.columns[c]) ? row.at(r.columns[c]) : json()));
      width[c] = std::max(width[c], line.back().size());
    }
    cells.push_back(std::move(line));
  }
  auto print_row = [&](const std::vector<std::string>& line) {
    for (std::size_t c = 0; c < line.size(); ++c)
      out << (c ? "  " : "") << fmt::format("{:>{}}", line[c], width[c]);
    out << "\n";
  };
  print_row(r.columns);
  std::vector<std::string> rule;
  for (std::size_t w : width) rule.push_back(std::string(w, '-'));
  print_row(rule);
  for (const auto& line : cells) print_row(line);
  if (!r.notes.empty()) out << "\n";
  for (const std::string& n : r.notes) out << n << "\n";
}

}  // namespace

std::string format_number(double x) {
  return fmt::format("{:.10g}", x);
}

CLI::Validator real_in_open_interval(double lo, double hi) {
  const std::string constraint = "a number in (" + format_value(lo) + ", " + format_value(hi) + ")";
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        const auto v = parse_real(s);
        return v && *v > lo && *v < hi ? std::string() : invalid(s, constraint);
      },
      "in (" + format_value(lo) + ", " + format_value(hi) + ")", "real_in_open_interval");
}

// A finite real satisfying `accept`; `constraint` completes "must be a finite number ...".
template <class Accept>
CLI::Validator finite_real(Accept accept, const std::string& relation) {
  const std::string constraint = "a finite number " + relation;
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        const auto v = parse_real(s);
        return v && std::isfinite(*v) && accept(*v) ? std::string() : invalid(s, constraint);
      },
      relation, "finite_real");
}

CLI::Validator real_at_least(double lo) {
  return finite_real([lo](double v) { return v >= lo; }, ">= " + format_value(lo));
}

CLI::Validator real_greater_than(double lo) {
  return finite_real([lo](double v) { return v > lo; }, "> " + format_value(lo));
}

CLI::Validator integer_at_least(long long lo) {
  const std::string constraint = "an integer >= " + std::to_string(lo);
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        const auto v = parse_integer(s);
        return v && *v >= lo ? std::string() : invalid(s, constraint);
      },
      ">= " + std::to_string(lo), "integer_at_least");
}

void add_output_options(CLI::App* app, output_options& options) {
  app->add_option("--format", options.format,
                  "Output format: 'table' for people, 'json' ({context, results}) or 'csv' "
                  "(one header row) for programs")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  app->add_option("--output", options.file, "Write the data to FILE instead of stdout")
      ->type_name("FILE");
}

CLI::Option* add_delta_option(CLI::App* app, double& delta, bool required) {
  CLI::Option* o = app->add_option("--delta", delta, "Target delta")
                       ->check(real_in_open_interval(0, 1))
                       ->type_name("D");
  return required ? o->required() : o->capture_default_str();
}

CLI::Option* add_epsilon_option(CLI::App* app, double& epsilon) {
  return app->add_option("--epsilon", epsilon, "Target epsilon")
      ->required()
      ->check(real_at_least(0))
      ->type_name("E");
}

CLI::Option* add_accountant_option(CLI::App* app, std::string& accountant) {
  return app
      ->add_option("--accountant", accountant,
                   "gdp: exact conversion of the mechanism's mu-GDP guarantee (tight); rdp: Renyi "
                   "DP with the best of four conversions (loose); all: both")
      ->check(CLI::IsMember({"gdp", "rdp", "all"}))
      ->capture_default_str();
}

void emit(const report& r, const output_options& options) {
  std::ostringstream out;
  if (options.format == "json") {
    json doc;
    doc["context"] = {{"tool", r.tool},
                      {"version", std::string(version())},
                      {"git_hash", std::string(git_hash())},
                      {"compiler", std::string(compiler())},
                      {"build_type", std::string(build_type())},
                      {"date", utc_now()},
                      {"parameters", r.parameters},
                      {"seed", nullptr}};
    doc["results"] = r.results;
    out << doc.dump(2) << "\n";
  } else if (options.format == "csv") {
    for (std::size_t c = 0; c < r.columns.size(); ++c) out << (c ? "," : "") << r.columns[c];
    out << "\n";
    for (const json& row : r.results) {
      for (std::size_t c = 0; c < r.columns.size(); ++c)
        out << (c ? "," : "")
            << csv_cell(row.contains(r.columns[c]) ? row.at(r.columns[c]) : json());
      out << "\n";
    }
  } else {
    write_table(out, r);
  }
  if (options.file.empty()) {
    std::cout << out.str() << std::flush;
    return;
  }
  std::ofstream file(options.file);
  if (!(file << out.str())) throw usage_error("--output: cannot write '" + options.file + "'");
}

void add_mechanism_options(CLI::App* app, mechanism_options& options) {
  auto* mu = app->add_option("--mu", options.mu,
                             "The mechanism is mu-GDP (Gaussian differential privacy; "
                             "seed 002 Def 2.4)")
                 ->check(real_at_least(0))
                 ->type_name("M")
                 ->group("Mechanism (one of)");
  auto* sigma = app->add_option("--noise-multiplier", options.noise_multiplier,
                                "Gaussian noise multiplier sigma (noise std / L2 sensitivity) of a "
                                "full-batch noisy gradient step")
                    ->check(real_greater_than(0))
                    ->type_name("S")
                    ->group("Mechanism (one of)");
  app->add_option("--steps", options.steps,
                  "Number of full-batch steps T composed; the run is sqrt(T)/S-GDP")
      ->check(integer_at_least(1))
      ->type_name("T")
      ->capture_default_str()
      ->needs(sigma)
      ->group("Mechanism (one of)");
  mu->excludes(sigma);
}

resolved_mechanism resolve_mechanism(const mechanism_options& options) {
  resolved_mechanism m;
  if (options.mu) {
    m.mu = *options.mu;
    m.description = "mu-GDP with mu = " + format_number(m.mu);
    m.parameters = {{"mu", m.mu}};
    return m;
  }
  if (!options.noise_multiplier) throw usage_error("one of --mu or --noise-multiplier is required");
  const double sigma = *options.noise_multiplier;
  const double t = static_cast<double>(options.steps);
  // T-fold composition of G(1/σ) is G(√T/σ) (seed 002 eq. (3.4)).
  m.mu = std::sqrt(t) / sigma;
  if (!std::isfinite(m.mu))
    throw usage_error("--noise-multiplier " + format_value(sigma) + " with --steps " +
                      std::to_string(options.steps) + " gives mu = inf");
  m.description = "Gaussian mechanism, noise multiplier " + format_number(sigma) + ", " +
                  std::to_string(options.steps) + " full-batch step" +
                  (options.steps == 1 ? "" : "s") +
                  " (mu = sqrt(T)/sigma = " + format_number(m.mu) + ")";
  m.parameters = {{"noise_multiplier", sigma}, {"steps", options.steps}, {"mu", m.mu}};
  return m;
}

}  // namespace dpkit::cli
