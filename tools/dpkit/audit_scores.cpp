// dpkit audit --scores (audit_scores.hpp): reads the canary scores, calls
// audit::audit_canary_scores, and prints its rows beside the accountant's certified ε of the
// run the scores came from (--accountant-run, the epsilon command's run flags).
#include "audit_scores.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/audit/canary_scores.hpp"
#include "dpkit/core/parse.hpp"
#include "figure.hpp"
#include "run_options.hpp"

namespace dpkit::cli {
namespace {

// The flags that mean something with --scores (everything else describes a simulated run).
const std::set<std::string> kScoreFlags = {
    "--scores",   "--one-run",    "--guesses", "--threshold-strategy", "--split-fraction",
    "--two-sided", "--fpr",       "--accountant-run", "--epsilon", "--delta",
    "--confidence", "--seed",     "--figure",  "--format",  "--output",  "--help"};

void refuse_simulation_flags(const CLI::App* app) {
  for (const CLI::Option* opt : app->get_options()) {
    if (opt->count() == 0) continue;
    bool ours = false;
    for (const std::string& n : opt->get_lnames()) ours = ours || kScoreFlags.count("--" + n) > 0;
    if (!ours)
      throw usage_error("--scores audits scores you computed from your own training run; " +
                        opt->get_name() +
                        " describes a simulated run (leave it out, or drop --scores to audit "
                        "a simulated run)");
  }
}

bool is_number(const std::string& cell) { return parse_finite(trim(cell)).has_value(); }

double number_in(const std::string& label, const std::string& path, const csv_record& r,
                 std::size_t column) {
  const std::string cell(trim(r.cells[column]));
  const std::optional<double> x = parse_finite(cell);
  if (!x)
    throw usage_error(label + ": " + path + ":" + std::to_string(r.line) + ": '" + cell +
                      "' is not a finite number (one score per line)");
  return *x;
}

// One score per line, an optional header line.
std::vector<double> read_score_column(const std::string& label, const std::string& path) {
  const std::vector<csv_record> records = read_csv_records(label, path);
  std::vector<double> out;
  for (std::size_t k = 0; k < records.size(); ++k) {
    const csv_record& r = records[k];
    if (r.cells.size() != 1)
      throw usage_error(label + ": " + path + ":" + std::to_string(r.line) + ": " +
                        std::to_string(r.cells.size()) +
                        " cells, but a scores file has one number per line (or give one file "
                        "with columns score and member)");
    if (k == 0 && !is_number(r.cells[0])) continue;  // the header
    out.push_back(number_in(label, path, r, 0));
  }
  if (out.empty()) throw usage_error(label + ": " + path + " holds no scores");
  return out;
}

bool member_value(const std::string& label, const std::string& path, const csv_record& r,
                  std::size_t column) {
  const std::string cell(trim(r.cells[column]));
  for (const char* yes : {"1", "true", "in", "member"})
    if (same_name(cell, yes)) return true;
  for (const char* no : {"0", "false", "out", "non-member"})
    if (same_name(cell, no)) return false;
  throw usage_error(label + ": " + path + ":" + std::to_string(r.line) + ": member is '" + cell +
                    "', but must be 1 or 0 (true/false, in/out)");
}

// One file with a header naming the columns score and member.
void read_member_file(const std::string& path, std::vector<double>& in, std::vector<double>& out) {
  const std::vector<csv_record> records = read_csv_records("--scores", path);
  if (records.empty()) throw usage_error("--scores: " + path + " is empty");
  std::optional<std::size_t> score_col, member_col;
  for (std::size_t c = 0; c < records[0].cells.size(); ++c) {
    const std::string name(trim(records[0].cells[c]));
    if (same_name(name, "score")) score_col = c;
    if (same_name(name, "member")) member_col = c;
  }
  if (!score_col || !member_col)
    throw usage_error("--scores: " + path +
                      ": one file needs a header with the columns score and member (1 for a "
                      "canary inserted in training, 0 for one held out); or give two files, "
                      "IN.csv and OUT.csv, one score per line");
  for (std::size_t k = 1; k < records.size(); ++k) {
    const csv_record& r = records[k];
    if (r.cells.size() != records[0].cells.size())
      throw usage_error("--scores: " + path + ":" + std::to_string(r.line) + ": " +
                        std::to_string(r.cells.size()) + " cells, but the header has " +
                        std::to_string(records[0].cells.size()));
    const double s = number_in("--scores", path, r, *score_col);
    (member_value("--scores", path, r, *member_col) ? in : out).push_back(s);
  }
  if (in.empty() || out.empty())
    throw usage_error("--scores: " + path + " has " + std::to_string(in.size()) +
                      " inserted and " + std::to_string(out.size()) +
                      " held-out canaries, but the audit needs both");
}

// The accountant's ε at δ for the run typed in --accountant-run.
accounting::privacy_estimate accountant_epsilon(const std::string& flags, double delta,
                                                std::string& description) {
  std::istringstream words(flags);
  std::vector<std::string> args;
  for (std::string w; words >> w;) args.push_back(w);
  if (args.empty())
    throw usage_error("--accountant-run is empty: give the run's flags as for dpkit epsilon, "
                      "e.g. --accountant-run \"--noise-multiplier 1.1 --sampling-rate 0.01 "
                      "--steps 1000\"");
  CLI::App parser("--accountant-run", "--accountant-run");
  run_options ro;
  run_requirements needs;
  needs.curve = false;
  needs.subcommand = "--accountant-run";
  needs.edge_values = true;
  add_run_options(&parser, ro, needs);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    parser.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw usage_error("--accountant-run: " + std::string(e.what()) +
                      " (it takes the run flags of dpkit epsilon: dpkit epsilon --help)");
  }
  resolved_run m;
  try {
    m = resolve_run(ro, needs);
  } catch (const usage_error& e) {
    throw usage_error("--accountant-run: " + std::string(e.what()));
  }
  description = m.description;
  return accounting::estimate_epsilon(m.run, delta, accounting::accountant_type::pld);
}

json statistic_row(const audit::audit_statistic& s) {
  json row = {{"statistic", s.statistic}, {"kind", std::string(to_string(s.kind))},
              {"method", s.method}};
  for (const audit::audit_field& f : audit::reported_fields(s)) {
    const std::string key(f.name);
    if (f.integer)
      row[key] = static_cast<long long>(f.value);
    else
      row[key] = f.value;
  }
  return row;
}

std::string words_of(const audit::audit_statistic& s, bool one_run) {
  const std::string conf = format_number(100 * s.confidence) + " %";
  if (s.statistic == "tpr-at-fpr")
    return "TPR at FPR " + format_number(s.fpr) + ": " + format_number(s.tpr) + " (interval [" +
           format_number(s.tpr_lower) + ", " + format_number(s.tpr_upper) + "] at " + conf +
           "): an estimate";
  if (s.statistic == "auroc") return "AUROC " + format_number(s.auroc) + ": an estimate";
  std::string w = s.statistic + ": epsilon " + format_number(s.epsilon) + " at delta " +
                  format_number(s.delta) + " — ";
  if (one_run && (s.statistic == "clopper-pearson" || s.statistic == "gdp"))
    return w + "an estimate: it assumes independent runs, and scores of one run are dependent";
  if (s.kind == bound_kind::lower_bound && s.epsilon == 0)
    return w + "no positive lower bound (" + s.method + ")";
  if (s.kind == bound_kind::lower_bound)
    w += "a lower bound on epsilon of every (epsilon, delta)-DP guarantee, with probability >= " +
         conf;
  else if (!std::isnan(s.mu_lower))
    w += "an estimate: mu_lower " + format_number(s.mu_lower) +
         " bounds mu of every mu-GDP guarantee from below (probability >= " + conf +
         "), and epsilon is that of mu_lower-GDP";
  return w;
}

// The ROC of the scores on log-log axes with the boundary TPR = e^ε·FPR + δ of the claimed ε
// (everything above it is impossible for an (ε, δ)-DP run) and of the primary lower bound.
figures::figure roc_figure(const std::vector<double>& in, const std::vector<double>& out,
                           const audit::canary_audit& a, double primary, double delta) {
  figures::figure f;
  f.title = "dpkit audit --scores: ROC of the membership tests (" + std::to_string(a.n_in) +
            " inserted, " + std::to_string(a.n_out) + " held out)";
  f.subtitle = a.verdict.empty() ? std::string("no claim") : "verdict: " + a.verdict;
  f.x_label = "false positive rate (held-out canaries guessed in)";
  f.y_label = "true positive rate (inserted canaries guessed in)";
  f.log_x = f.log_y = true;
  f.key = "bottom right";
  const audit::score_counts c = audit::count_scores(in, out);
  figures::series roc;
  roc.name = "the scores' tests";
  roc.style = "points";
  double fpr_min = 1;
  for (std::size_t j = 0; j < c.thresholds.size(); ++j) {
    const double fpr = static_cast<double>(c.false_positives[j]) / static_cast<double>(c.n_out);
    const double tpr = static_cast<double>(c.true_positives[j]) / static_cast<double>(c.n_in);
    if (fpr <= 0 || tpr <= 0) continue;
    roc.x.push_back(fpr);
    roc.y.push_back(tpr);
    fpr_min = std::min(fpr_min, fpr);
  }
  f.data.push_back(roc);
  const auto boundary = [&](double eps, const std::string& name, int dash) {
    figures::series s;
    s.name = name;
    s.dash = dash;
    const double lo = std::log10(fpr_min) - 0.5;
    for (int i = 0; i <= 200; ++i) {
      const double x = std::pow(10.0, lo + (0 - lo) * i / 200.0);
      s.x.push_back(x);
      s.y.push_back(std::min(1.0, std::exp(eps) * x + delta));
    }
    f.data.push_back(s);
  };
  if (!std::isnan(a.options.claim_epsilon))
    boundary(a.options.claim_epsilon,
             "boundary of the claimed ε = " + format_number(a.options.claim_epsilon), 2);
  if (primary > 0)
    boundary(primary, "boundary of the " + a.primary + " lower bound ε = " + format_number(primary), 3);
  return f;
}

}  // namespace

void add_score_audit_options(CLI::App* sub, score_audit_options& s) {
  const char* g = "Canary scores (a real training run: docs/audit.md)";
  sub->add_option("--scores", s.scores,
                  "Audit your own run from canary scores: IN.csv OUT.csv (scores of the "
                  "canaries inserted in training and of those held out, one number per line, "
                  "an optional header; larger = more likely a member), or one FILE.csv with "
                  "columns score and member (1/0)")
      ->expected(1, 2)
      ->check(CLI::ExistingFile)
      ->type_name("FILE")
      ->group(g);
  sub->add_flag("--one-run", s.one_run,
                "The scores come from ONE run with m canaries, each inserted by a fair coin: "
                "adds the one-run bounds (Steinke et al. 2023; Mahloujifar et al. 2024), the "
                "only sound ones for one run")
      ->group(g);
  sub->add_option("--guesses", s.guesses,
                  "One run: guess 'in' for the K highest scores, K fixed before seeing them "
                  "(no threshold search)")
      ->check(integer_at_least(1))
      ->type_name("K")
      ->group(g);
  sub->add_option("--threshold-strategy", s.strategy,
                  "bonferroni: every score as a threshold, the error split over them; split: "
                  "half the scores choose the threshold, the other half evaluate it (exact)")
      ->check(CLI::IsMember({"bonferroni", "split"}))
      ->capture_default_str()
      ->group(g);
  sub->add_option("--split-fraction", s.split_fraction,
                  "split: the share of the scores that chooses the threshold")
      ->check(real_in_open_interval(0.0, 1.0))
      ->capture_default_str()
      ->group(g);
  sub->add_flag("--two-sided", s.two_sided,
                "Clopper-Pearson: also the reverse tests (in iff score below the threshold)")
      ->group(g);
  sub->add_option("--fpr", s.fpr, "The false positive rate at which TPR is reported")
      ->check(real_in_closed_interval(0.0, 1.0))
      ->capture_default_str()
      ->group(g);
  sub->add_option("--accountant-run", s.accountant_run,
                  "The run the scores came from, in dpkit epsilon's flags, quoted: print the "
                  "certified upper bound beside the lower bounds, and audit against it when no "
                  "--epsilon is claimed")
      ->type_name("\"FLAGS\"")
      ->group(g);
}

int run_score_audit(const score_audit_options& s,
                    std::optional<double> claim_epsilon,
                    std::optional<double> delta,
                    double confidence,
                    std::uint64_t seed,
                    const std::string& figure_file,
                    const output_options& output,
                    const CLI::App* app) {
  refuse_simulation_flags(app);
  check_distinct_outputs({{"--output", output.file}, {"--figure", figure_file}});
  if (!figure_file.empty() &&
      !figures::is_figure_extension(std::filesystem::path(figure_file).extension().string()))
    throw usage_error("--figure is " + figure_file + ", but must end in .svg, .png or .pdf");
  std::vector<double> in, out;
  if (s.scores.size() == 2) {
    for (const std::string& f : s.scores) check_not_an_input("--output", output.file, "--scores", f);
    in = read_score_column("--scores IN.csv", s.scores[0]);
    out = read_score_column("--scores OUT.csv", s.scores[1]);
  } else {
    check_not_an_input("--output", output.file, "--scores", s.scores[0]);
    read_member_file(s.scores[0], in, out);
  }

  audit::canary_audit_options o;
  if (delta) o.delta = *delta;
  o.confidence = confidence;
  o.strategy = *audit::parse_threshold_strategy(s.strategy);  // CLI::IsMember checked it
  o.split_fraction = s.split_fraction;
  o.seed = seed;
  o.two_sided = s.two_sided;
  o.fpr = s.fpr;
  o.one_run = s.one_run;
  if (s.guesses) {
    if (!s.one_run)
      throw usage_error("--guesses K is the one-run protocol's fixed number of guesses: add "
                        "--one-run (the scores come from one run with m canaries)");
    o.guesses = static_cast<std::size_t>(*s.guesses);
  }

  // The accountant's certified bracket, and the claim it stands for when none is typed.
  std::optional<accounting::privacy_estimate> certified;
  std::string run_words;
  if (!s.accountant_run.empty()) certified = accountant_epsilon(s.accountant_run, o.delta, run_words);
  std::string claim_source;
  if (claim_epsilon) {
    o.claim_epsilon = *claim_epsilon;
    claim_source = "the claimed epsilon " + format_number(*claim_epsilon);
  } else if (certified && std::isfinite(certified->value)) {
    o.claim_epsilon = certified->value;
    claim_source = "the accountant's certified epsilon " + format_number(certified->value);
  }

  const audit::canary_audit a = audit::audit_canary_scores(in, out, o);

  report rep;
  rep.tool = "dpkit audit";
  rep.parameters = {{"scores", s.scores},
                    {"inserted", a.n_in},
                    {"held_out", a.n_out},
                    {"delta", o.delta},
                    {"confidence", o.confidence},
                    {"protocol", o.one_run ? "one run, m canaries" : "independent runs"},
                    {"threshold_strategy", std::string(audit::to_string(o.strategy))},
                    {"two_sided", o.two_sided}};
  if (o.strategy == audit::threshold_strategy::split) {
    rep.parameters["split_fraction"] = o.split_fraction;
    rep.parameters["seed"] = o.seed;
  }
  if (o.guesses) rep.parameters["guesses"] = *o.guesses;
  rep.title = "Canary-score audit: " + std::to_string(a.n_in) + " inserted, " +
              std::to_string(a.n_out) + " held out (" +
              (o.one_run ? "one run" : "independent runs") + "), epsilon at delta " +
              format_number(o.delta);
  for (const audit::audit_statistic& st : a.rows) {
    rep.results.push_back(statistic_row(st));
    rep.notes.push_back(words_of(st, o.one_run));
  }
  if (certified) {
    json row = estimate_row(*certified, "epsilon");
    row["statistic"] = "accountant";
    rep.results.push_back(row);
    rep.parameters["accountant_run"] = run_words;
    rep.notes.push_back("accountant (" + run_words + "): epsilon " +
                        format_number(certified->value) + " — certified upper bound (" +
                        certified->method + ")");
  }
  rep.columns = {"statistic", "kind", "epsilon", "mu_lower", "threshold", "tpr", "auroc"};
  const bool violated = a.verdict == "violated";
  if (!a.verdict.empty()) {
    double primary = NAN;
    for (const audit::audit_statistic& st : a.rows)
      if (st.statistic == a.primary) primary = st.epsilon;
    rep.parameters["claim_epsilon"] = o.claim_epsilon;
    rep.parameters["verdict"] = a.verdict;
    rep.parameters["primary"] = a.primary;
    rep.notes.push_back(
        "verdict: " + a.verdict + " — the " + a.primary + " lower bound " +
        format_number(primary) + (violated ? " exceeds " : " does not exceed ") + claim_source +
        (violated ? ": the claim is refuted at " + format_number(100 * o.confidence) +
                        " % confidence (a bug in the run or in its accounting)"
                  : " (scores can refute a privacy claim, never prove one)"));
  }
  emit(rep, output);
  if (!figure_file.empty()) {
    double primary = 0;
    for (const audit::audit_statistic& st : a.rows)
      if (st.statistic == a.primary) primary = st.epsilon;
    std::string error;
    if (!figures::render(roc_figure(in, out, a, primary, o.delta), figure_file, error))
      throw usage_error("--figure: " + error);
  }
  return violated ? kExitValidationFailed : kExitSuccess;
}

}  // namespace dpkit::cli
