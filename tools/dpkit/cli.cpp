#include "cli.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include "dpkit/accounting/training_run.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/csv.hpp"
#include "dpkit/core/parse.hpp"
#include "dpkit/core/version.hpp"

namespace dpkit::cli {
namespace {

// The message after the flag name; main() joins "--flag" and this into one line.
std::string invalid(const std::string& value, const std::string& constraint) {
  return "is " + value + ", but must be " + constraint;
}

}  // namespace

// A number that strtod reads only by leaving the range of normal doubles: 1e400 overflows to
// inf (it is not infinity: inf is written inf), 1e-400 underflows to 0 and 1e-320 to a
// subnormal that keeps a few digits at most. Such text is refused, never read as inf or 0.
std::string out_of_range(const std::string& s, const std::string& constraint) {
  const parsed_number p = parse_number(s);
  if (p.status == number_status::overflow)
    return "is " + s + ", which overflows double precision (largest 1.8e308), but must be " +
           constraint;
  if (p.status != number_status::underflow) return "";
  return invalid(s, constraint) + " " + underflow_note(s);
}

namespace {

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
  if (v.is_number_float()) return csv_number(v.get<double>());
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

// `head` and `text` as lines of at most 90 characters, the continuation lines indented.
void write_wrapped(std::ostream& out, const std::string& head, const std::string& text) {
  for (const std::string& line : wrap({head, text}, 90, "    ")) out << line << "\n";
}

// A table wider than this moves its trailing `method` column below it, one wrapped line per
// accountant (a terminal's width; JSON and CSV keep the column).
constexpr std::size_t kTableWidth = 120;

void write_table(std::ostream& out, const report& r) {
  if (!r.title.empty()) out << r.title << "\n\n";
  std::vector<std::string> columns = r.columns;
  auto layout = [&](std::vector<std::size_t>& width, std::vector<std::vector<std::string>>& cells) {
    width.assign(columns.size(), 0);
    cells.clear();
    for (std::size_t c = 0; c < columns.size(); ++c) width[c] = columns[c].size();
    for (const json& row : r.results) {
      std::vector<std::string> line;
      for (std::size_t c = 0; c < columns.size(); ++c) {
        line.push_back(table_cell(row.contains(columns[c]) ? row.at(columns[c]) : json()));
        width[c] = std::max(width[c], line.back().size());
      }
      cells.push_back(std::move(line));
    }
    std::size_t total = 0;
    for (std::size_t w : width) total += w + 2;
    return total - 2;
  };
  std::vector<std::size_t> width;
  std::vector<std::vector<std::string>> cells;
  // Only a trailing `method` column is free text (in dpkit correlated it names the rows).
  const bool method_last = !columns.empty() && columns.back() == "method";
  bool moved = false;
  if (layout(width, cells) > kTableWidth && method_last) {
    columns.pop_back();
    layout(width, cells);
    moved = true;
  }
  auto print_row = [&](const std::vector<std::string>& line) {
    for (std::size_t c = 0; c < line.size(); ++c)
      out << (c ? "  " : "") << fmt::format("{:>{}}", line[c], width[c]);
    out << "\n";
  };
  print_row(columns);
  std::vector<std::string> rule;
  for (std::size_t w : width) rule.push_back(std::string(w, '-'));
  print_row(rule);
  for (const auto& line : cells) print_row(line);
  if (moved) {
    // Each row's method once per accountant (a curve's rows share theirs), wrapped.
    out << "\n";
    std::vector<std::string> said;
    for (const json& row : r.results) {
      if (!row.contains("method") || !row.at("method").is_string()) continue;
      const std::string who = row.contains("accountant") ? table_cell(row.at("accountant")) : "";
      const std::string text = row.at("method").get<std::string>();
      if (text.empty() || std::find(said.begin(), said.end(), who + "\n" + text) != said.end())
        continue;
      said.push_back(who + "\n" + text);
      write_wrapped(out, "method" + (who.empty() ? std::string() : " (" + who + ")") + ":", text);
    }
  }
  if (!r.notes.empty()) out << "\n";
  for (const std::string& n : r.notes) out << n << "\n";
  // Rows that could not answer say why (JSON and CSV carry it in `message`).
  bool first = true;
  for (const json& row : r.results) {
    if (!row.contains("kind") || row.at("kind") != "unavailable") continue;
    if (first) out << "\n";
    first = false;
    write_wrapped(out,
                  (row.contains("accountant") ? row.at("accountant").get<std::string>() + ": "
                                              : std::string()) +
                      "unavailable:",
                  row.contains("message") ? row.at("message").get<std::string>() : "");
  }
}

}  // namespace

std::vector<std::string> wrap(const std::vector<std::string>& texts,
                              std::size_t width,
                              const std::string& indent) {
  std::vector<std::string> lines;
  std::string line;
  for (const std::string& text : texts) {
    std::size_t at = 0;
    while (at < text.size()) {
      std::size_t end = text.find(' ', at);
      if (end == std::string::npos) end = text.size();
      const std::string word = text.substr(at, end - at);
      at = end + 1;
      if (word.empty()) continue;
      const std::size_t start = lines.empty() ? 0 : indent.size();
      if (line.size() > start && line.size() + 1 + word.size() > width) {
        lines.push_back(line);
        line = indent;
      }
      if (line.empty() && !lines.empty()) line = indent;
      line += (line.size() > (lines.empty() ? 0 : indent.size()) ? " " : "") + word;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string format_number(double x) {
  return fmt::format("{:.10g}", x);
}

// A finite real satisfying `accept`; `constraint` completes "must be a finite number ...".
template <class Accept>
CLI::Validator finite_real(Accept accept, const std::string& relation) {
  const std::string constraint = relation.empty()             ? std::string("a finite number")
                                 : relation.rfind("in ", 0) == 0 ? "a number " + relation
                                                                 : "a finite number " + relation;
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        if (std::string m = out_of_range(s, constraint); !m.empty()) return m;
        const auto v = parse_double(s);
        return v && std::isfinite(*v) && accept(*v) ? std::string() : invalid(s, constraint);
      },
      relation, "finite_real");
}

// The three intervals: one finite_real each (its out_of_range, parse and message).
namespace {
std::string interval(char open, double lo, double hi, char close) {
  return "in " + std::string(1, open) + format_value(lo) + ", " + format_value(hi) +
         std::string(1, close);
}
}  // namespace

CLI::Validator real_in_open_interval(double lo, double hi) {
  return finite_real([=](double v) { return v > lo && v < hi; }, interval('(', lo, hi, ')'));
}

CLI::Validator real_in_closed_interval(double lo, double hi) {
  return finite_real([=](double v) { return v >= lo && v <= hi; }, interval('[', lo, hi, ']'));
}

CLI::Validator real_in_half_open_interval(double lo, double hi) {
  return finite_real([=](double v) { return v >= lo && v < hi; }, interval('[', lo, hi, ')'));
}

CLI::Validator real_finite() {
  return finite_real([](double) { return true; }, "");
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

CLI::Validator real_in_left_open_interval(double lo, double hi) {
  return finite_real([lo, hi](double v) { return v > lo && v <= hi; },
                     "in (" + format_value(lo) + ", " + format_value(hi) + "]");
}

CLI::Validator pld_accuracy_validator() {
  return finite_real([](double v) { return v >= 1e-6 && v < 1; }, "in [1e-6, 1)");
}

CLI::Validator sampling_rate_validator() {
  // Subnormal rates (below DBL_MIN) are not computable: their square, and log-space terms the
  // accountants form from them, lose all precision.
  return finite_real(
      [](double v) { return v >= accounting::kSmallestSamplingRate && v <= 1; },
      std::string("in [") + kSmallestNormalText + ", 1] (normal doubles; 1 = full batch)");
}

CLI::Validator noise_multiplier_validator() {
  return real_at_least(accounting::kSmallestNoiseMultiplier);
}

CLI::Validator noise_multiplier_edge_validator() {
  const std::string constraint = "a number >= 1e-100, 0 or inf";
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        if (std::string m = out_of_range(s, constraint); !m.empty()) return m;
        const auto v = parse_double(s);
        // NaN fails both comparisons.
        return v && (*v == 0 || *v >= accounting::kSmallestNoiseMultiplier)
                   ? std::string()
                   : invalid(s, constraint);
      },
      ">= 1e-100, 0 or inf (0: no noise, inf: nothing released)", "noise_multiplier_edge");
}

CLI::Validator sampling_rate_edge_validator() {
  return finite_real(
      [](double v) { return v == 0 || (v >= accounting::kSmallestSamplingRate && v <= 1); },
      std::string("in [") + kSmallestNormalText +
          ", 1] or 0 (normal doubles; 1 = full batch, 0 = never sampled)");
}

CLI::Validator integer_at_least(long long lo, long long hi) {
  auto text = [](long long v) {
    // 2^53 reads better than its digits; 1e9 is written out, since integers are read in
    // digits only ("--max-order 1e9" is not one).
    if (v == kMaxExactInteger) return std::string("2^53");
    return std::to_string(v);
  };
  const std::string range = "[" + text(lo) + ", " + text(hi) + "]";
  const std::string constraint = "an integer in " + range;
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        const std::optional<long long> v = parse_integer(s);
        return v && *v >= lo && *v <= hi ? std::string() : invalid(s, constraint);
      },
      range, "integer_at_least");
}

void add_output_options(CLI::App* app, output_options& options) {
  app->add_option("--format", options.format,
                  "Output format: 'table' for people, 'json' ({context, results}) or 'csv' "
                  "(one header row) for programs")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  app->add_option("--output", options.file,
                  "Write the data to FILE instead of stdout: checked before the work starts, "
                  "written whole or not at all (a temporary file renamed into place), never one "
                  "of the command's input files")
      ->check(writable_file_validator())
      ->type_name("FILE");
}

CLI::Validator writable_file_validator() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        namespace fs = std::filesystem;
        if (path.empty()) return "is empty, but must name a file";
        std::error_code ec;
        const fs::path p(path);
        const fs::file_status st = fs::status(p, ec);
        if (fs::exists(st)) {
          if (fs::is_directory(st)) return "is " + path + ", a directory, but must name a file";
          if (::access(path.c_str(), W_OK) != 0)
            return "is " + path + ", which cannot be written (" + std::strerror(errno) + ")";
          return {};
        }
        const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
        if (!fs::is_directory(parent, ec))
          return "is " + path + ", but the folder " + parent.string() + " does not exist";
        if (::access(parent.c_str(), W_OK) != 0)
          return "is " + path + ", but the folder " + parent.string() + " cannot be written (" +
                 std::strerror(errno) + ")";
        return {};
      },
      "FILE", "writable_file");
}

namespace {
// Whether two paths name the same file, as far as it can be told before one exists: the same
// existing file (std::filesystem::equivalent), or the same normalised absolute path (symbolic
// links resolved where they can be).
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
  auto normal = [](const std::string& p) {
    std::error_code e;
    const fs::path c = fs::weakly_canonical(p, e);
    return e ? fs::absolute(p).lexically_normal() : c;
  };
  return normal(a) == normal(b);
}
}  // namespace

void check_not_an_input(const std::string& output_flag,
                        const std::string& output,
                        const std::string& input_flag,
                        const std::string& input) {
  std::error_code ec;
  if (output.empty() || input.empty() || !std::filesystem::exists(input, ec)) return;
  if (same_file(output, input))
    throw usage_error(output_flag + " is " + output + ", the file given to " + input_flag +
                      ": it would be overwritten (choose another output file)");
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  namespace fs = std::filesystem;
  auto device = [](const std::string& p) {  // a device or a pipe: written in place, shareable
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);
    return fs::exists(st) && !fs::is_regular_file(st);
  };
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      const auto& [flag_a, a] = outputs[i];
      const auto& [flag_b, b] = outputs[j];
      if (a.empty() || b.empty() || device(a) || device(b)) continue;
      if (same_file(a, b))
        throw usage_error(flag_b + " is " + b + ", the file given to " + flag_a +
                          ": one would replace the other (give each its own file)");
    }
}

void write_file(const std::string& flag, const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& reason) {
    return usage_error(flag + ": cannot write " + path + ": " + reason);
  };
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    // A device or pipe (/dev/stdout, /dev/full): no rename; write, flush and close, checked.
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) throw fail(std::strerror(errno));
    const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const int saved = errno;
    const bool flushed = std::fflush(f) == 0;
    const int flush_errno = errno;
    const bool closed = std::fclose(f) == 0;
    if (!wrote || !flushed || !closed)
      throw fail(std::strerror(!wrote ? saved : !flushed ? flush_errno : errno));
    return;
  }
  const fs::path target(path);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // A name of our own in the same folder (so that rename is atomic); created exclusively.
  std::random_device rd;
  fs::path temp;
  std::FILE* f = nullptr;
  for (int attempt = 0; attempt < 16 && f == nullptr; ++attempt) {
    temp = folder / ("." + target.filename().string() + ".dpkit-" + std::to_string(rd()) + ".tmp");
    f = std::fopen(temp.c_str(), "wbx");
  }
  if (f == nullptr) throw fail(std::strerror(errno));
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool flushed = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  const int saved = errno;
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !flushed || !closed) {
    fs::remove(temp, ec);
    throw fail(std::strerror(saved != 0 ? saved : EIO));
  }
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp, ec);
    throw fail(ec.message());
  }
}

std::vector<csv_record> read_csv_records(const std::string& label, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(label + ": cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw usage_error(label + ": cannot read " + path);
  try {
    return parse_csv(text.str());
  } catch (const std::runtime_error& e) {
    throw usage_error(label + ": " + path + ":" + e.what());
  }
}

std::string argument_message(const argument_error& e, const CLI::App* app) {
  auto as_flag = [](const std::string& library_name) {
    std::string flag = "--" + library_name;
    for (char& c : flag)
      if (c == '_') c = '-';
    return flag;
  };
  std::string name = e.name();
  // An entry of a list, X[j] (hsgd's times[0]), is entry j + 1 of the command's --X.
  std::string entry;
  if (const auto open = name.find('[');
      app != nullptr && open != std::string::npos && name.back() == ']' &&
      app->get_option_no_throw(as_flag(name.substr(0, open))) != nullptr) {
    const std::string index = name.substr(open + 1, name.size() - open - 2);
    if (!index.empty() && index.find_first_not_of("0123456789") == std::string::npos) {
      entry = " entry " + std::to_string(std::stoll(index) + 1);
      name = name.substr(0, open);
    }
  }
  // A learner's options.X (adaptive_gd_options::steps) is the command's --X where it has one.
  if (const std::string prefix = "options.";
      app != nullptr && name.rfind(prefix, 0) == 0 &&
      app->get_option_no_throw(as_flag(name.substr(prefix.size()))) != nullptr)
    name = name.substr(prefix.size());
  std::string flag = as_flag(name);
  // A library's target_X (calibrate_noise_multiplier's target_epsilon) is the command's --X.
  const std::string target = "--target-";
  if (app != nullptr && app->get_option_no_throw(flag) == nullptr && flag.rfind(target, 0) == 0)
    flag = "--" + flag.substr(target.size());
  // A training run's G(mu) factor (training_run::gaussian_mu) is what --mu gives.
  if (app != nullptr && app->get_option_no_throw(flag) == nullptr && name == "gaussian_mu")
    flag = "--mu";
  const CLI::Option* option = app != nullptr ? app->get_option_no_throw(flag) : nullptr;
  if (option == nullptr) return name + " is " + e.value() + ", but must be " + e.constraint();
  // A flag the user did not give: the value is its default, or one derived from the other
  // inputs (an automatic --jl-dim once read "--jl-dim is inf" as if the user had typed inf).
  // (Entries of a list the user did not give, --times derived from --points, fall through to
  // "was not given" below.)
  if (!entry.empty() && option->count() > 0)
    return flag + entry + " is " + e.value() + ", but must be " + e.constraint();
  if (option->count() == 0) {
    const std::string d = option->get_default_str();
    const bool derived = d.empty() || d == "auto" || d == "none";
    const auto shown = parse_double(d), used = parse_double(e.value());
    // "its default" only where the value is the default --help shows: a paper algorithm may use
    // its own (adaptive-batched-gd's 10 steps against --help's 100).
    const bool is_default = !derived && shown && used && *shown == *used;
    if (derived)
      return flag + " was not given, and the value derived for it from the other inputs is " +
             e.value() + ", but must be " + e.constraint() + " (give " + flag +
             ", or change the inputs it is derived from)";
    return flag + " was not given, and " +
           (is_default ? std::string("its default") : std::string("the value used for it")) +
           " is " + e.value() + ", but must be " + e.constraint() + " (give " + flag + ")";
  }
  return flag + " is " + e.value() + ", but must be " + e.constraint();
}

std::string library_reason(
    const std::exception& e,
    const CLI::App* app,
    std::initializer_list<std::pair<std::string_view, std::string_view>> flags) {
  const auto* a = dynamic_cast<const argument_error*>(&e);
  if (a == nullptr) return e.what();
  for (const auto& [name, flag] : flags)
    if (a->name() == name)
      return std::string(flag) + " is " + a->value() + ", but must be " + a->constraint();
  return argument_message(*a, app);
}

CLI::Validator delta_validator() {
  // accounting::kSmallestDelta: below it the accountants' tail corrections swamp delta.
  return finite_real([](double v) { return v >= accounting::kSmallestDelta && v < 1; },
                     "in [" + format_value(accounting::kSmallestDelta) + ", 1)");
}

CLI::Option* add_delta_option(CLI::App* app, double& delta, bool required) {
  CLI::Option* o = app->add_option("-d,--delta", delta,
                                   "Target delta, in [" +
                                       format_value(accounting::kSmallestDelta) + ", 1)")
                       ->check(delta_validator())
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
    // RFC 4180: cells with commas, quotes or line breaks are quoted (core/csv.hpp).
    out << csv_row(r.columns) << "\n";
    for (const json& row : r.results) {
      std::vector<std::string> cells;
      for (const std::string& c : r.columns)
        cells.push_back(csv_cell(row.contains(c) ? row.at(c) : json()));
      out << csv_row(cells) << "\n";
    }
  } else {
    write_table(out, r);
  }
  if (options.file.empty()) {
    std::cout << out.str() << std::flush;
    if (!std::cout) throw usage_error("cannot write to standard output");
    return;
  }
  write_file("--output", options.file, out.str());
}

void add_accountant_options(CLI::App* app, accountant_options& options, bool with_all) {
  std::vector<std::string> names(accounting::kAccountantNames.begin(),
                                 accounting::kAccountantNames.end());
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
      ->check(pld_accuracy_validator())
      ->type_name("A")
      ->capture_default_str();
  add_max_fft_size_option(app, options.max_fft_size);
}

void add_max_fft_size_option(CLI::App* app, long long& max_fft_size) {
  app->add_option("--max-fft-size", max_fft_size,
                  "PLD: largest FFT (points) the engine may use; memory is about 64 bytes per "
                  "point (2^24: ~1.1 GB). When --accuracy would need more, the tightest certified "
                  "bracket within the limit is reported with a note")
      ->check(integer_at_least(1024, 1LL << 34))
      ->type_name("N")
      ->capture_default_str();
}

std::vector<accounting::accountant_type> selected_accountants(const accountant_options& options) {
  using accounting::accountant_type;
  if (options.accountant == "all") {
    std::vector<accountant_type> all;
    for (std::string_view name : accounting::kAccountantNames)
      all.push_back(*accounting::parse_accountant(name));
    return all;
  }
  // --accountant was checked against the names (CLI::IsMember).
  return {accounting::parse_accountant(options.accountant).value()};
}

accounting::pld_options pld_options_of(const accountant_options& options) {
  accounting::pld_options o;
  o.relative_accuracy = options.accuracy;
  o.max_fft_size = static_cast<std::size_t>(options.max_fft_size);
  return o;
}

json number_or_null(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}

json number_or_word(double x) {
  if (std::isfinite(x)) return x;
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

json unavailable_row(accounting::accountant_type a,
                     const std::string& quantity,
                     const std::string& reason) {
  return json{{"accountant", std::string(accounting::to_string(a))},
              {quantity, nullptr},
              {"kind", "unavailable"},
              {"tight", false},
              {quantity + "_lower", nullptr},
              {quantity + "_upper", nullptr},
              {"method", ""},
              {"termination", "failure"},
              {"message", reason}};
}

json estimate_row(const accounting::privacy_estimate& e, const std::string& quantity) {
  // Edge values (noise multiplier 0 or inf, sampling rate 0) are exact answers, and may be
  // infinite: epsilon = inf is written as the string "inf" (JSON has no infinity).
  const bool edge = e.edge_value;
  const auto number = [edge](double x) {
    return edge && std::isinf(x) && x > 0 ? json("inf") : number_or_null(x);
  };
  if (!std::isfinite(e.value) && !edge) {
    // No finite value: never labelled a bound (a failed search, or corrections that exceed the
    // target).
    json row =
        unavailable_row(e.accountant, quantity,
                        e.message.empty() ? "no finite " + quantity + " was obtained" : e.message);
    if (e.termination != termination_type::converged)
      row["termination"] = std::string(to_string(e.termination));
    return row;
  }
  json row = {{"accountant", std::string(accounting::to_string(e.accountant))},
              {quantity, number(e.value)},
              {"kind", std::string(to_string(e.kind))},
              {"tight", e.tight},
              {quantity + "_lower", number(e.lower)},
              {quantity + "_upper", number(e.upper)},
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
