// dpkit plot — draws any CSV or JSON output of dpkit with gnuplot, through the figure library
// (tools/figure/figure.hpp): validation results, epsilon / delta (against steps or
// epochs, by accountant, with the PLD bracket), tradeoff curves with their bracket (or the ROC
// view), hsgd risk and privacy trajectories, shifted bounds, simulate observables with their
// intervals, correlated-noise calibrations, and any other CSV by --x / --y.
//
// The kind of a file is recognised by its columns (CSV) or by context.tool (JSON); what each
// kind draws by default is a `plan` (x column, y columns with their interval columns, a column
// that splits the rows into series) that --x, --y, --group and the interval flags override.
//
// Reading an input and recognising its kind is in plot_input.cpp; the default plans, the words
// for dpkit's codes and drawing a plan as series are in plot_plans.cpp.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "cli.hpp"
#include "commands.hpp"
#include "figure.hpp"
#include "plot_detail.hpp"

namespace dpkit::cli {
namespace {

using figures::enhanced_escape;
using figures::figure;
using figures::series;

using detail::plot::correlated_plan;
using detail::plot::draw;
using detail::plot::draw_validation_csv;
using detail::plot::epsilon_plan;
using detail::plot::first_numeric;
using detail::plot::hsgd_privacy_plan;
using detail::plot::hsgd_risk_plan;
using detail::plot::json_cell;
using detail::plot::kExpected;
using detail::plot::kind;
using detail::plot::kind_name;
using detail::plot::plan;
using detail::plot::pretty_column;
using detail::plot::read_table;
using detail::plot::recognise;
using detail::plot::reference;
using detail::plot::shifted_plan;
using detail::plot::simulate_plan;
using detail::plot::table;
using detail::plot::tradeoff_plan;
using detail::plot::y_spec;

// A dpkit validate result's figure, with its `ID: verdict, tightness` line as the subtitle.
// Throws json::exception where the document holds no figure.
figure validation_figure(const json& doc) {
  figure f = figures::figure_from_json(doc.at("figure"));
  f.subtitle = figures::validation_subtitle(
      doc.value("id", std::string()), doc.value("verdict", std::string()),
      doc.contains("tightness") && doc["tightness"].is_number() ? doc["tightness"].get<double>()
                                                                : std::nan(""));
  return f;
}

struct plot_options {
  std::vector<std::string> inputs;
  std::string out;
  std::vector<std::string> labels;
  std::vector<std::string> names;
  std::string x, y, y_lower, y_upper, x_lower, x_upper, y_error, group, y2;
  bool log_x = false, log_y = false, linear_x = false, linear_y = false;
  bool roc = false;
  std::vector<std::string> styles;
  std::string title, x_label, y_label, y2_label;
  std::string key;
  std::string script;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// ---- several files: a sweep over one run parameter ------------------------------------------

bool single_run_kind(kind k) {
  return k == kind::epsilon || k == kind::delta || k == kind::shifted || k == kind::correlated;
}

// The numeric context parameter that differs between the files (--x may name it).
std::string sweep_parameter(const std::vector<table>& tables, const std::string& requested) {
  std::vector<std::string> differing;
  for (auto it = tables.front().parameters.begin(); it != tables.front().parameters.end(); ++it) {
    if (!it.value().is_number()) continue;
    for (const table& t : tables)
      if (!t.parameters.contains(it.key()) || !t.parameters[it.key()].is_number() ||
          t.parameters[it.key()] != it.value()) {
        differing.push_back(it.key());
        break;
      }
  }
  if (!requested.empty()) {
    if (std::find(differing.begin(), differing.end(), requested) != differing.end())
      return requested;
    return "";
  }
  if (differing.size() == 1) return differing.front();
  for (const char* preferred : {"epochs", "steps"})
    if (std::find(differing.begin(), differing.end(), preferred) != differing.end())
      return preferred;
  if (differing.empty())
    throw usage_error(tables.front().path +
                      " and the other files describe the same run: give "
                      "runs that differ in one parameter to draw against it");
  std::string list;
  for (const std::string& d : differing) list += (list.empty() ? "" : ", ") + d;
  throw usage_error("--x: the files differ in " + list + "; name the one to draw against");
}

// ---- the figure ----------------------------------------------------------------------------

figure build_figure(std::vector<table>& tables, const plot_options& o) {
  std::vector<kind> kinds;
  for (const table& t : tables) kinds.push_back(recognise(t));
  const bool generic_y = !o.y.empty();
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (kinds[i] == kind::other && !generic_y) {
      if (tables[i].tool == "dpkit validate")
        throw usage_error(tables[i].path +
                          " is the dpkit validate scoreboard, which has no "
                          "figure: draw a scenario's ID.json from its --output "
                          "folder, or give --x COL and --y COL");
      if (!tables[i].tool.empty())
        throw usage_error(tables[i].path + " is " + tables[i].tool +
                          " output, which has no default figure: give --x COL and --y COL");
      throw usage_error(tables[i].path + " is not a dpkit output dpkit plot knows (expected " +
                        std::string(kExpected) + "); give --y COL to plot its columns");
    }
  }

  // Single-run outputs (one row per accountant, bound or method) given several at a time are
  // pooled into one sweep over the run parameter that differs between them.
  const bool pooled =
      tables.size() > 1 && single_run_kind(kinds.front()) &&
      std::all_of(kinds.begin(), kinds.end(), [&](kind k) { return k == kinds.front(); }) &&
      std::all_of(tables.begin(), tables.end(), [](const table& t) {
        return first_numeric(t, {"epochs", "steps"}).empty();
      });
  std::string swept;
  if (pooled) {
    // The run parameter each file's rows are drawn at: a steps (epochs) column every file has,
    // else the parameter that differs between the JSON contexts.
    std::string parameter;
    for (const char* column : {"epochs", "steps"})
      if (parameter.empty() &&
          std::all_of(tables.begin(), tables.end(), [&](const table& t) { return t.has(column); }))
        parameter = column;
    if (parameter.empty() || !o.x.empty()) {
      for (const table& t : tables)
        if (t.tool.empty() && t.parameters.empty())
          throw usage_error(t.path + ": a " + std::string(kind_name(kinds.front())) +
                            " CSV holds one run without its parameters: give the JSON outputs "
                            "(their context names the run), or CSVs with a steps column");
      parameter = sweep_parameter(tables, o.x);
      if (parameter.empty())
        throw usage_error("--x is " + o.x +
                          ", but must be a run parameter that differs between the files");
    }
    swept = parameter;
    table all = tables.front();
    all.text.clear();
    if (!all.has(parameter)) all.columns.push_back(parameter);
    for (table& t : tables) {
      const bool from_context = !t.has(parameter);
      const auto value = from_context ? json_cell(t.parameters[parameter]) : std::string();
      for (auto row : t.text) {
        std::vector<std::string> cells;
        for (const std::string& c : all.columns) {
          if (c == parameter && from_context) {
            cells.push_back(value);
            continue;
          }
          const auto k = t.column(c);
          cells.push_back(k ? row[*k] : "");
        }
        all.text.push_back(std::move(cells));
      }
    }
    tables = {all};
    kinds = {kinds.front()};
  }

  figure f;
  std::vector<std::string> categories;
  std::vector<std::vector<series>> parts;
  std::vector<reference> extra;
  bool first = true;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const table& t = tables[i];
    std::vector<series> part;
    figure labels;
    if (kinds[i] == kind::validation_result) {
      const json& doc = *t.validation_result;
      try {
        labels = validation_figure(doc);
      } catch (const json::exception&) {
        throw usage_error(t.path + " is not a dpkit validate result (its figure does not read)");
      }
      part = labels.data;
      labels.data.clear();
    } else if (kinds[i] == kind::validation_csv && !generic_y) {
      part = draw_validation_csv(t);
      labels.title = enhanced_escape(std::filesystem::path(t.path).stem().string());
      labels.x_label = "x";
      labels.y_label = "y";
      // dpkit validate writes <id>.csv (the data) beside <id>.json (the result, with the
      // figure's title, axis names and scales): the CSV plots with those where they are there.
      std::ifstream sibling(std::filesystem::path(t.path).replace_extension(".json"));
      if (sibling) {
        try {
          labels = validation_figure(json::parse(sibling));
          labels.data.clear();
        } catch (const json::exception&) {
          // Not a validation result beside it: the CSV's own names stand.
        }
      }
    } else {
      plan p;
      switch (kinds[i]) {
        case kind::epsilon:
          p = epsilon_plan(t, false, swept);
          break;
        case kind::delta:
          p = epsilon_plan(t, true, swept);
          break;
        case kind::tradeoff:
          p = tradeoff_plan(t, o.roc);
          break;
        case kind::hsgd_risk:
          p = hsgd_risk_plan(t);
          break;
        case kind::hsgd_privacy:
          p = hsgd_privacy_plan(t);
          break;
        case kind::shifted:
          p = shifted_plan(t, swept);
          break;
        case kind::simulate:
          p = simulate_plan(t);
          break;
        case kind::correlated:
          p = correlated_plan(t, swept);
          break;
        case kind::validation_csv:
          p.x = "x";
          p.group = {"series"};
          p.group_name = [](const std::vector<std::string>& g) { return g[0]; };
          break;
        default:
          p.x = t.columns.front();
          break;
      }
      // The flags override the plan.
      if (!o.x.empty() && !pooled) {
        p.x = o.x;
        p.labels.x_label = pretty_column(o.x);
      }
      if (!o.group.empty()) {
        p.group = split_list(o.group);
        p.group_name = nullptr;
      }
      if (!o.y.empty() || !o.y2.empty()) {
        const auto lowers = split_list(o.y_lower), uppers = split_list(o.y_upper),
                   errors = split_list(o.y_error);
        std::vector<y_spec> chosen;
        const auto add = [&](const std::string& c, bool right, std::size_t k) {
          const auto known =
              std::find_if(p.y.begin(), p.y.end(), [&](const y_spec& s) { return s.column == c; });
          y_spec s = known != p.y.end() ? *known : y_spec{c, "", "", "", "", false, false};
          s.right_axis = right;
          if (k < lowers.size()) s.lower = lowers[k];
          if (k < uppers.size()) s.upper = uppers[k];
          if (k < errors.size()) s.error = errors[k];
          chosen.push_back(s);
        };
        const auto ys = split_list(o.y);
        for (std::size_t k = 0; k < ys.size(); ++k) add(ys[k], false, k);
        for (const std::string& c : split_list(o.y2)) add(c, true, ys.size() + 1000);
        p.y = chosen;
        if (kinds[i] == kind::other || kinds[i] == kind::validation_csv) {
          p.labels.y_label = ys.size() == 1 ? pretty_column(ys.front()) : "";
          p.labels.title.clear();
        }
        if (!o.y2.empty()) {
          const auto y2s = split_list(o.y2);
          p.labels.y2_label = y2s.size() == 1 ? pretty_column(y2s.front()) : "";
        }
      } else if (!o.y_lower.empty() || !o.y_upper.empty() || !o.y_error.empty()) {
        for (y_spec& s : p.y) {
          if (!o.y_lower.empty()) s.lower = o.y_lower;
          if (!o.y_upper.empty()) s.upper = o.y_upper;
          if (!o.y_error.empty()) s.error = o.y_error;
        }
      }
      for (std::size_t k = 0; k < o.names.size() && k < p.y.size(); ++k) p.y[k].name = o.names[k];
      if (!o.x_lower.empty()) p.x_lower = o.x_lower;
      if (!o.x_upper.empty()) p.x_upper = o.x_upper;
      if (p.x.empty()) p.x = t.columns.front();
      if (p.labels.x_label.empty()) p.labels.x_label = pretty_column(p.x);
      if (p.y.empty())
        throw usage_error("--y: nothing to draw from " + t.path +
                          " (its columns: " + t.column_list() + ")");
      part = draw(t, p, categories);
      labels = p.labels;
      if (first) extra = p.extra;
    }
    if (!o.styles.empty())
      for (series& s : part) s.style = o.styles[o.styles.size() == 1 ? 0 : i];
    if (first) {
      f = labels;
      first = false;
    } else if (labels.subtitle != f.subtitle) {
      f.subtitle.clear();  // the files describe different runs
    }
    parts.push_back(std::move(part));
  }

  // Overlay: several files share the figure. A file given a --label is named by it (alone when
  // the file gives one series); otherwise files are named by their file names only where their
  // series' names would be the same. Colours: one series per file, by file; the same series in
  // several files (the same curves of other runs), by series with a dash per file; otherwise
  // every series its own.
  const bool one_each = std::all_of(parts.begin(), parts.end(),
                                    [](const std::vector<series>& p) { return p.size() == 1; });
  std::set<std::string> names;
  bool collide = false;
  for (const auto& part : parts)
    for (const series& s : part) collide = !names.insert(s.name).second || collide;
  int running = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    for (std::size_t k = 0; k < parts[i].size(); ++k) {
      series s = parts[i][k];
      const std::string& label = tables[i].label;
      if (!o.labels.empty() && !pooled) {
        s.name = parts[i].size() == 1 || s.name.empty() ? label : label + ": " + s.name;
      } else if (parts.size() > 1 && collide) {
        s.name = s.name.empty() ? label : label + ": " + s.name;
      }
      if (parts.size() > 1) {
        if (one_each) {
          s.colour = static_cast<int>(i);
        } else if (collide) {
          if (s.colour < 0) s.colour = static_cast<int>(k);
          s.dash = static_cast<int>(i) + 1;
        } else {
          s.colour = running;
        }
      }
      ++running;
      f.data.push_back(std::move(s));
    }
  }
  if (pooled) f.subtitle.clear();  // the first file's run, not the sweep's
  if (!categories.empty()) {       // a text x column (a validation result brings its own)
    f.x_categories = categories;
    f.linear_x = true;
  }

  // Flags that set the look.
  if (!o.title.empty()) f.title = o.title;
  if (!o.x_label.empty()) f.x_label = o.x_label;
  if (!o.y_label.empty()) f.y_label = o.y_label;
  if (!o.y2_label.empty()) f.y2_label = o.y2_label;
  if (o.log_x) f.log_x = true, f.linear_x = false;
  if (o.log_y) f.log_y = true, f.linear_y = false;
  if (o.linear_x) f.linear_x = true, f.log_x = false;
  if (o.linear_y) f.linear_y = true, f.log_y = false;
  if (!o.key.empty()) {
    std::string key = o.key;
    std::replace(key.begin(), key.end(), '-', ' ');
    f.key = key;
  }

  // Reference lines across the fitted x range (drawn last, in grey).
  if (!extra.empty()) {
    const figures::figure_axes axes = figures::fit_axes(f);
    for (const reference& r : extra) {
      series s = r.style;
      const int n = 100;
      for (int k = 0; k <= n; ++k) {
        const double x = axes.x.log ? axes.x.lo * std::pow(axes.x.hi / axes.x.lo, k / double(n))
                                    : axes.x.lo + (axes.x.hi - axes.x.lo) * k / n;
        const double y = r.curve(x);
        if (x >= 0 && x <= 1 && (!axes.y.log || y > 0)) {
          s.x.push_back(x);
          s.y.push_back(y);
        }
      }
      f.data.push_back(s);
    }
    // The reference line must not widen the axes the data chose.
    f.x_min = axes.x.lo;
    f.x_max = axes.x.hi;
    f.y_min = axes.y.lo;
    f.y_max = axes.y.hi;
  }
  return f;
}

int run_plot(const plot_options& o) {
  check_distinct_outputs({{"--output", o.out}, {"--script", o.script}});
  for (const std::string& in : o.inputs) {
    check_not_an_input("--output", o.out, "the input", in);
    check_not_an_input("--script", o.script, "the input", in);
  }
  if (o.styles.size() > 1 && o.styles.size() != o.inputs.size())
    throw usage_error("--style is given " + std::to_string(o.styles.size()) +
                      " times, but must be given once, or once per input file (" +
                      std::to_string(o.inputs.size()) + ")");
  if (!o.labels.empty() && o.labels.size() != o.inputs.size())
    throw usage_error("--label is given " + std::to_string(o.labels.size()) +
                      " times, but must be "
                      "given once per input file (" +
                      std::to_string(o.inputs.size()) + ")");
  std::vector<table> tables;
  for (std::size_t i = 0; i < o.inputs.size(); ++i) {
    tables.push_back(read_table(o.inputs[i]));
    if (!o.labels.empty()) tables.back().label = o.labels[i];
  }
  const figure f = build_figure(tables, o);
  if (!o.script.empty()) write_file("--script", o.script, figures::gnuplot_script(f, o.out));
  std::string error;
  if (!figures::render(f, o.out, error)) {
    std::cerr << "dpkit plot: " << error << "\n";
    return kExitNumericalFailure;
  }
  std::cerr << "dpkit plot: wrote " << o.out << "\n";
  return kExitSuccess;
}

CLI::Validator figure_file_validator() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        const std::string ext = std::filesystem::path(path).extension().string();
        if (!figures::is_figure_extension(ext))
          return "is " + path + ", but must end in .svg, .png or .pdf";
        return {};
      },
      "FIG", "figure_file");
}

CLI::Validator column_list_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (split_list(value).empty()) return "is '" + value + "', but must name a column";
        return {};
      },
      "COL", "column_list");
}

}  // namespace

void register_plot(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<plot_options>();
  CLI::App* sub = app.add_subcommand(
      "plot",
      "Draw any CSV or JSON output of dpkit with gnuplot (SVG, PNG or PDF): validation results, "
      "epsilon/delta against steps, tradeoff curves, hsgd trajectories, shifted bounds, "
      "simulate observables, correlated calibrations, or any CSV by its columns; intervals as "
      "error bars or bands");
  sub->add_option("files", o->inputs,
                  "Outputs of dpkit (--format csv or json), or any CSV with --y; several are drawn "
                  "together")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--output", o->out,
                  "The figure: FIG.svg, FIG.png or FIG.pdf (the format by extension; checked "
                  "before the work)")
      ->required()
      ->check(figure_file_validator())
      ->check(writable_file_validator())
      ->type_name("FIG");
  auto* label = sub->add_option("--label", o->labels,
                                "Legend name of each file, once per file (default: the file name)");
  label->type_name("TEXT");
  sub->add_option("--name", o->names,
                  "Legend name of each drawn column, in the order of --y then --y2 (repeat the "
                  "flag; enhanced text)")
      ->type_name("TEXT");
  sub->add_option("--x", o->x,
                  "Column to draw against (a text column gives a category axis); with several "
                  "single-run outputs, the run parameter that differs between them")
      ->check(column_list_validator());
  sub->add_option("--y", o->y, "Column(s) to draw, comma-separated (plots any CSV)")
      ->check(column_list_validator());
  sub->add_option("--y-lower", o->y_lower, "Column(s) of the lower ends of the y intervals")
      ->check(column_list_validator());
  sub->add_option("--y-upper", o->y_upper, "Column(s) of the upper ends of the y intervals")
      ->check(column_list_validator());
  sub->add_option("--y-error", o->y_error, "Column(s) of ± half-widths of the y intervals")
      ->check(column_list_validator());
  sub->add_option("--x-lower", o->x_lower, "Column of the lower ends of the x intervals")
      ->check(column_list_validator());
  sub->add_option("--x-upper", o->x_upper, "Column of the upper ends of the x intervals")
      ->check(column_list_validator());
  sub->add_option("--y2", o->y2, "Column(s) drawn against a right-hand axis")
      ->check(column_list_validator());
  sub->add_option("--group", o->group,
                  "Column(s) whose values split the rows into series, comma-separated")
      ->check(column_list_validator());
  auto* log_x = sub->add_flag("--log-x", o->log_x, "Logarithmic x axis");
  auto* log_y = sub->add_flag("--log-y", o->log_y, "Logarithmic y axis");
  sub->add_flag("--linear-x", o->linear_x, "Linear x axis")->excludes(log_x);
  sub->add_flag("--linear-y", o->linear_y, "Linear y axis")->excludes(log_y);
  sub->add_flag("--roc", o->roc,
                "dpkit tradeoff: the ROC view of membership inference, true-positive rate "
                "1 − β against false-positive rate α, log-log");
  sub->add_option("--style", o->styles,
                  "Draw the series as lines, points or linespoints: once for every file, or once "
                  "per file")
      ->check(CLI::IsMember({"lines", "points", "linespoints"}));
  sub->add_option("--title", o->title, "Title (gnuplot enhanced text: ε_{lower}, 10^{-5})");
  sub->add_option("--x-label", o->x_label, "x axis label (enhanced text)");
  sub->add_option("--y-label", o->y_label, "y axis label (enhanced text)");
  sub->add_option("--y2-label", o->y2_label, "Right-hand axis label (enhanced text)");
  sub->add_option("--key", o->key, "Where the legend goes")
      ->check(CLI::IsMember({"below", "top-left", "top-right", "bottom-left", "bottom-right"}));
  sub->add_option("--script", o->script,
                  "Also write the gnuplot script to FILE (to adjust the figure by hand)")
      ->check(writable_file_validator())
      ->type_name("FILE");
  sub->footer(
      "What it reads (recognised by the CSV's columns or the JSON's context.tool):\n"
      "  dpkit validate     a scenario's RESULT.json (or RESULT.csv): bound and Monte Carlo\n"
      "  dpkit epsilon/delta  epsilon (delta) against epochs or steps, one series per accountant,\n"
      "                     the PLD's certified bracket as error bars; one run: by accountant\n"
      "  dpkit tradeoff     beta(alpha) with its certified bracket (band); --roc: TPR = 1 - beta\n"
      "                     against FPR = alpha, log-log (membership inference)\n"
      "  dpkit hsgd risk    P_t and R_t against t;  dpkit hsgd privacy: eps_alpha(t) and epsilon\n"
      "  dpkit shifted      epsilon by bound (against steps/epochs given a column or several "
      "runs)\n"
      "  dpkit simulate     observables' means with their 95 % intervals (against the step)\n"
      "  dpkit correlated   kappa by method; several runs: against the parameter that differs\n"
      "  any CSV            --x COL --y COL[,COL] [--y-lower COL --y-upper COL] [--group COL]\n"
      "Axes fit the data; an axis whose values are positive and span more than two decades is\n"
      "logarithmic (--log-x/--linear-x... override). Several files are drawn together, each\n"
      "named in the legend by its file name or --label.\n"
      "Examples:\n"
      "  dpkit validate 002-thm4.2-tight && dpkit plot validation-results/002-thm4.2-tight.json "
      "--output thm42.pdf\n"
      "  dpkit epsilon --noise-multiplier 1 --sampling-rate 0.01 --steps 100,1000,10000 --delta "
      "1e-5 --accountant all --format csv --output eps.csv && dpkit plot eps.csv --output eps.svg\n"
      "  dpkit tradeoff --noise-multiplier 1 --sampling-rate 0.01 --steps 1000 --format csv "
      "--output t.csv && dpkit plot t.csv --roc --output roc.png\n"
      "  for s in 1 2 4; do dpkit correlated --correlation 0.5 --sampling-rate 0.01 --steps 1000 "
      "--epsilon $s --delta 1e-5 --format json --output c$s.json; done; dpkit plot c1.json "
      "c2.json c4.json --output kappa.svg\n"
      "  dpkit plot run.csv --x epoch --y eps_upper --y-lower eps_lower --y-upper eps_upper "
      "--y2 test_accuracy --output run.svg\n"
      "Exit codes: 0 drawn, 2 bad input (a file that is not a dpkit output, a missing column, "
      "an --output that is not .svg/.png/.pdf or cannot be written), 1 gnuplot missing or failed "
      "(install gnuplot-nox).");
  sub->callback([o, &exit_code] { exit_code = run_plot(*o); });
}

}  // namespace dpkit::cli
