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
  const std::string constraint =
      relation.rfind("in ", 0) == 0 ? "a number " + relation : "a finite number " + relation;
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

CLI::Validator finite_real_in_half_open_unit() {
  return finite_real([](double v) { return v > 0 && v <= 1; }, "in (0, 1]");
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

namespace {
bool g_output_rank = true;
}  // namespace

bool output_rank() {
  return g_output_rank;
}

void set_output_rank(bool writes) {
  g_output_rank = writes;
}

void emit(const report& r, const output_options& options) {
  if (!output_rank()) return;
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

void add_mechanism_options(CLI::App* app, mechanism_options& options, bool with_mu) {
  const char* group = "Mechanism";
  CLI::Option* mu = nullptr;
  if (with_mu)
    mu =
        app->add_option("--mu", options.mu,
                        "The mechanism is mu-GDP (Gaussian differential privacy; seed 002 Def 2.4)")
            ->check(real_at_least(0))
            ->type_name("M")
            ->group(group);
  auto* sigma =
      app->add_option("--noise-multiplier", options.noise_multiplier,
                      "DP-SGD noise multiplier sigma: noise standard deviation / clipping norm")
          ->check(real_greater_than(0))
          ->type_name("S")
          ->group(group);
  auto* q =
      app->add_option("--sampling-rate", options.sampling_rate,
                      "Probability q that an example is in a batch (Poisson), or batch size / "
                      "dataset size (without replacement); 1 = full batch")
          ->check(finite_real_in_half_open_unit())
          ->type_name("Q")
          ->group(group);
  auto* scheme =
      app->add_option("--sampling", options.sampling,
                      "poisson: add/remove neighbours; without-replacement: fixed batch size, "
                      "replace-one neighbours (sensitivity 2)")
          ->check(CLI::IsMember({"poisson", "without-replacement"}))
          ->capture_default_str()
          ->group(group);
  auto* steps =
      app->add_option("--steps", options.steps, "Number of steps T (noisy gradient updates)")
          ->check(integer_at_least(1))
          ->type_name("T")
          ->capture_default_str()
          ->group(group);
  if (mu != nullptr) {
    mu->excludes(sigma)->excludes(q)->excludes(scheme)->excludes(steps);
  }
}

resolved_mechanism resolve_mechanism(const mechanism_options& options) {
  resolved_mechanism m;
  if (options.mu) {
    m.run.gaussian_mu = *options.mu;
    m.description = "mu-GDP with mu = " + format_number(*options.mu);
    m.parameters = {{"mu", *options.mu}};
    return m;
  }
  if (!options.noise_multiplier) throw usage_error("one of --mu or --noise-multiplier is required");
  accounting::training_phase p;
  p.noise_multiplier = *options.noise_multiplier;
  p.sampling_rate = options.sampling_rate.value_or(1.0);
  p.sampling = options.sampling == "poisson" ? accounting::sampling_scheme::poisson
                                             : accounting::sampling_scheme::without_replacement;
  p.steps = options.steps;
  m.run.phases.push_back(p);
  m.description = m.run.describe();
  m.parameters = {{"noise_multiplier", p.noise_multiplier},
                  {"sampling_rate", p.sampling_rate},
                  {"sampling", options.sampling},
                  {"steps", p.steps}};
  return m;
}

void add_accountant_options(CLI::App* app, accountant_options& options, bool with_all) {
  std::vector<std::string> names = {"pld", "rdp", "clt"};
  if (with_all) names.push_back("all");
  app->add_option("--accountant", options.accountant,
                  std::string("pld: certified upper and lower bounds by privacy-loss distributions "
                              "and FFT (default); rdp: Renyi DP, best of four conversions (upper "
                              "bound); clt: Gaussian CLT (an approximation, not a bound)") +
                      (with_all ? "; all: every accountant" : ""))
      ->check(CLI::IsMember(names))
      ->capture_default_str();
  app->add_option("--accuracy", options.accuracy,
                  "PLD: target relative width of the bracket, (upper - lower)/upper")
      ->check(real_in_open_interval(0, 1))
      ->type_name("A")
      ->capture_default_str();
  add_max_fft_size_option(app, options.max_fft_size);
}

void add_max_fft_size_option(CLI::App* app, long long& max_fft_size) {
  app->add_option("--max-fft-size", max_fft_size,
                  "PLD: largest FFT (points) the engine may use; memory is about 64 bytes per "
                  "point (2^24: ~1.1 GB). When --accuracy would need more, the tightest certified "
                  "bracket within the limit is reported with a note")
      ->check(integer_at_least(1024))
      ->type_name("N")
      ->capture_default_str();
}

std::vector<accounting::accountant_type> selected_accountants(const accountant_options& options) {
  using accounting::accountant_type;
  if (options.accountant == "all")
    return {accountant_type::pld, accountant_type::rdp, accountant_type::clt};
  if (options.accountant == "rdp") return {accountant_type::rdp};
  if (options.accountant == "clt") return {accountant_type::clt};
  return {accountant_type::pld};
}

accounting::pld_options pld_options_of(const accountant_options& options) {
  accounting::pld_options o;
  o.relative_accuracy = options.accuracy;
  o.max_fft_size = static_cast<std::size_t>(options.max_fft_size);
  return o;
}

namespace {
json number_or_null(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}
}  // namespace

json estimate_row(const accounting::privacy_estimate& e, const std::string& quantity) {
  json row = {{"accountant", std::string(accounting::to_string(e.accountant))},
              {quantity, number_or_null(e.value)},
              {"kind", std::string(to_string(e.kind))},
              {"tight", e.tight},
              {quantity + "_lower", number_or_null(e.lower)},
              {quantity + "_upper", number_or_null(e.upper)},
              {"method", e.method},
              {"termination", std::string(to_string(e.termination))}};
  if (quantity == "delta") row["log_delta"] = number_or_null(e.log_value);
  if (e.accountant == accounting::accountant_type::pld && e.pld.passes > 0)
    row["pld"] = {{"grid_spacing", e.pld.grid_spacing},
                  {"fft_size", e.pld.fft_size},
                  {"passes", e.pld.passes}};
  if (!e.message.empty()) row["message"] = e.message;
  return row;
}

}  // namespace dpkit::cli
