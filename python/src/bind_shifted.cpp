// Python bindings: dpkit/shifted (BSA24, shifted interpolation) — the GDP bounds of NoisyGD,
// NoisyCGD and LMC, the PLD-certified NoisySGD bounds, the CLT choices, the YS22 RDP bounds and
// the optimisation problem itself. Results come back as dicts; python/dpkit/shifted.py turns
// them into labelled result objects; the tables of `dpkit shifted` come from the library's
// decision tree (shifted_report). Argument
// checking with user-facing names happens in the Python layer; what the library still rejects
// arrives as ValueError (std::domain_error) with the library's message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bindings.hpp"
#include "dpkit/accounting/accountant.hpp"
#include "dpkit/accounting/training_run.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "dpkit/divergence/rdp.hpp"
#include "dpkit/shifted/bounds.hpp"
#include "dpkit/shifted/interpolation.hpp"
#include "dpkit/shifted/noisy_sgd.hpp"
#include "dpkit/shifted/report.hpp"

namespace py = pybind11;
namespace acc = dpkit::accounting;
namespace sh = dpkit::shifted;

namespace dpkit::python {
namespace {

// The setting from a dict with any of its fields (missing ones keep the struct's defaults:
// NaN, 0 or +inf, which the library rejects where the bound needs them).
sh::noisy_gradient_setting make_setting(const py::dict& d) {
  sh::noisy_gradient_setting s;
  if (d.contains("sensitivity")) s.sensitivity = d["sensitivity"].cast<double>();
  if (d.contains("examples")) s.examples = d["examples"].cast<long long>();
  if (d.contains("batch_size")) s.batch_size = d["batch_size"].cast<long long>();
  if (d.contains("noise")) s.noise = d["noise"].cast<double>();
  if (d.contains("learning_rate")) s.learning_rate = d["learning_rate"].cast<double>();
  if (d.contains("steps")) s.steps = d["steps"].cast<long long>();
  if (d.contains("contraction")) s.contraction = d["contraction"].cast<double>();
  if (d.contains("diameter")) s.diameter = d["diameter"].cast<double>();
  return s;
}

// ε at δ of μ-GDP (exact, certified bracket) into d.
void gdp_epsilon_into(py::dict& d, double mu, double delta) {
  if (!(mu >= 0 && mu <= 1e6)) {
    d["epsilon"] = NAN;
    d["epsilon_lower"] = NAN;
    d["epsilon_upper"] = NAN;
    d["termination"] = std::string("failure");
    d["message"] = std::string("mu = ") + std::to_string(mu) +
                   " is outside [0, 1e6], the range of the exact GDP conversion: no epsilon";
    return;
  }
  const divergence::epsilon_result e = divergence::gdp_epsilon(mu, delta);
  d["epsilon"] = e.value;
  d["epsilon_lower"] = e.lower;
  d["epsilon_upper"] = e.upper;
  d["termination"] = std::string(to_string(e.termination));
  d["message"] = e.message;
}

py::dict gdp_dict(const sh::gdp_bound& g, double delta) {
  py::dict d;
  d["mu"] = g.mu;
  d["kind"] = std::string(to_string(g.kind));
  d["tau"] = g.tau;
  d["source"] = g.source;
  d["note"] = g.note;
  gdp_epsilon_into(d, g.mu, delta);
  return d;
}

py::dict estimate_into(const acc::privacy_estimate& e) {
  py::dict d = status_dict(e);
  d["value"] = e.value;
  d["lower"] = e.lower;
  d["upper"] = e.upper;
  d["kind"] = std::string(to_string(e.kind));
  d["method"] = e.method;
  return d;
}

py::dict run_dict(const acc::training_run& run) {
  py::dict d;
  d["phases"] = run.phases;  // TrainingPhase objects (bind_types.cpp)
  d["gaussian_mu"] = run.gaussian_mu;
  d["description"] = run.describe();
  return d;
}

// ---- GDP bounds of a noisy_gradient_setting ----------------------------------------------

using gdp_fn = std::function<sh::gdp_bound(const sh::noisy_gradient_setting&, long long)>;

const std::map<std::string, gdp_fn>& gdp_table() {
  static const std::map<std::string, gdp_fn> table = {
      {"noisy_gd_composition",
       [](const auto& s, long long) { return sh::noisy_gd_composition(s); }},
      {"noisy_gd_strongly_convex",
       [](const auto& s, long long) { return sh::noisy_gd_strongly_convex(s); }},
      {"noisy_gd_constrained_convex",
       [](const auto& s, long long) { return sh::noisy_gd_constrained_convex(s); }},
      {"noisy_gd_constrained_convex_at",
       [](const auto& s, long long tau) { return sh::noisy_gd_constrained_convex_at(s, tau); }},
      {"noisy_gd_constrained_convex_best_tau",
       [](const auto& s, long long) { return sh::noisy_gd_constrained_convex_best_tau(s); }},
      {"noisy_gd_shifted", [](const auto& s, long long) { return sh::noisy_gd_shifted(s); }},
      {"noisy_cgd_composition",
       [](const auto& s, long long) { return sh::noisy_cgd_composition(s); }},
      {"noisy_cgd_strongly_convex",
       [](const auto& s, long long) { return sh::noisy_cgd_strongly_convex(s); }},
      {"noisy_cgd_constrained_convex",
       [](const auto& s, long long) { return sh::noisy_cgd_constrained_convex(s); }},
      {"noisy_cgd_constrained_convex_at",
       [](const auto& s, long long tau) { return sh::noisy_cgd_constrained_convex_at(s, tau); }},
      {"noisy_cgd_constrained_convex_best_tau",
       [](const auto& s, long long) { return sh::noisy_cgd_constrained_convex_best_tau(s); }},
      {"noisy_cgd_convex", [](const auto& s, long long) { return sh::noisy_cgd_convex(s); }},
      {"noisy_cgd_strongly_convex_lower",
       [](const auto& s, long long) { return sh::noisy_cgd_strongly_convex_lower(s); }},
      {"noisy_cgd_shifted", [](const auto& s, long long) { return sh::noisy_cgd_shifted(s); }},
  };
  return table;
}

py::dict gdp(const std::string& name, const py::dict& setting, long long tau, double delta) {
  const auto& table = gdp_table();
  const auto it = table.find(name);
  if (it == table.end()) throw std::invalid_argument("bound: unknown GDP bound '" + name + "'");
  const sh::noisy_gradient_setting s = make_setting(setting);
  sh::gdp_bound g;
  {
    py::gil_scoped_release release;  // noisy_*_shifted solve O(t²) problems
    g = it->second(s, tau);
  }
  return gdp_dict(g, delta);
}

// LMC and the exponential mechanisms (BSA24 §5).
py::dict mechanism(
    const std::string& name, double L, double m, double eta, long long t, double D, double delta) {
  sh::gdp_bound g;
  if (name == "lmc")
    g = sh::lmc(L, m, eta);
  else if (name == "lmc_at")
    g = sh::lmc_at(L, m, eta, t);
  else if (name == "exponential_mechanism")
    g = sh::exponential_mechanism(L, m);
  else if (name == "log_concave_mechanism")
    g = sh::log_concave_mechanism(L, D);
  else if (name == "projected_lmc")
    g = sh::projected_lmc(L, D, eta);
  else
    throw std::invalid_argument("bound: unknown mechanism '" + name + "'");
  return gdp_dict(g, delta);
}

// ---- NoisySGD (PLD) -------------------------------------------------------------------------

sh::sgd_search_options sgd_options(const py::dict& o) {
  sh::sgd_search_options so;
  so.pld = make_pld_options(o);
  if (o.contains("exhaustive_limit")) so.exhaustive_limit = o["exhaustive_limit"].cast<long long>();
  if (o.contains("optimise_split")) so.optimise_split = o["optimise_split"].cast<bool>();
  return so;
}

py::dict sgd_dict(const sh::sgd_bound& b) {
  py::dict d;
  d["estimate"] = estimate_into(b.estimate);
  d["tau"] = b.tau;
  d["alpha"] = b.alpha;
  d["evaluations"] = b.evaluations;
  d["source"] = b.source;
  d["run"] = run_dict(b.run);
  return d;
}

py::dict sgd(const std::string& name,
             const py::dict& setting,
             double delta,
             const py::dict& options) {
  const sh::noisy_gradient_setting s = make_setting(setting);
  const sh::sgd_search_options so = sgd_options(options);
  if (name != "composition" && name != "strongly_convex" && name != "constrained_convex")
    throw std::invalid_argument("bound: unknown NoisySGD bound '" + name + "'");
  sh::sgd_bound b;
  {
    py::gil_scoped_release release;
    if (name == "composition")
      b = sh::noisy_sgd_composition(s, delta, so);
    else if (name == "strongly_convex")
      b = sh::noisy_sgd_strongly_convex(s, delta, so);
    else
      b = sh::noisy_sgd_constrained_convex(s, delta, so);
  }
  return sgd_dict(b);
}

// One τ (and split α) of Thm 4.9 / 4.10, or Thm C.13 with given absolute shifts a_1..a_{t-1}.
py::dict sgd_at(const std::string& name,
                const py::dict& setting,
                long long tau,
                double alpha,
                const dvec& shifts,
                double delta,
                const py::dict& options) {
  const sh::noisy_gradient_setting s = make_setting(setting);
  const sh::sgd_search_options so = sgd_options(options);
  sh::sgd_bound b;
  b.alpha = alpha;
  b.tau = tau;
  if (name == "strongly_convex") {
    b.run = sh::noisy_sgd_strongly_convex_run(s, tau, alpha);
    b.source = "BSA24 Thm 4.9 (given tau, PLD)";
  } else if (name == "constrained_convex") {
    b.run = sh::noisy_sgd_constrained_convex_run(s, tau, alpha);
    b.source = "BSA24 Thm 4.10 (given tau, PLD)";
  } else if (name == "shifts") {
    b.run = sh::noisy_sgd_general_run(s, to_vector(shifts), alpha);
    b.source = "BSA24 Thm C.13 (the given shifts, PLD)";
    b.tau = -1;
  } else {
    throw std::invalid_argument("bound: unknown NoisySGD bound '" + name + "'");
  }
  {
    py::gil_scoped_release release;
    b.estimate = acc::estimate_epsilon(b.run, delta, acc::accountant_type::pld, so.pld);
  }
  b.evaluations = 1;
  return sgd_dict(b);
}

// ---- the tables of `dpkit shifted` (the library's decision tree) ------------------------------

// report_error's placeholders as this package's keywords: noise=, setting='strongly-convex'.
std::string keyword_of(std::string_view name, std::string_view value) {
  return value.empty() ? std::string(name) : std::string(name) + "='" + std::string(value) + "'";
}

template <class T>
std::optional<T> optional_of(const py::dict& d, const char* key) {
  if (!d.contains(key) || d[key].is_none()) return std::nullopt;
  return d[key].cast<T>();
}

py::dict report_row_dict(const sh::report_row& r) {
  py::dict d;
  d["bound"] = r.bound;
  d["source"] = r.source;
  d["note"] = r.note;
  d["kind"] = std::string(to_string(r.kind));
  d["mu"] = r.mu;
  d["epsilon"] = r.epsilon;
  d["epsilon_lower"] = r.epsilon_lower;
  d["epsilon_upper"] = r.epsilon_upper;
  d["tau"] = r.tau;
  d["termination"] = std::string(to_string(r.termination));
  d["message"] = r.message;
  d["run"] = r.run ? py::object(run_dict(*r.run)) : py::none();
  d["rho"] = r.rho;
  d["rdp_order"] = r.rdp_order;
  d["conversion"] = r.conversion;
  d["noise_split"] = r.noise_split;
  d["evaluations"] = r.evaluations;
  d["pld_method"] = r.pld_method;
  d["exhaustive"] = r.exhaustive ? py::object(py::bool_(*r.exhaustive)) : py::none();
  d["steps_after_tau"] = r.steps_after_tau;
  return d;
}

// inputs: the keys of report_inputs (absent or None: not given), plus relative_accuracy,
// exhaustive_tau and optimise_split for NoisySGD's search.
py::dict report(const std::string& algorithm,
                const std::string& setting,
                const py::dict& inputs,
                double delta) {
  const auto a = sh::parse_algorithm(algorithm);
  const auto c = sh::parse_convexity(setting);
  if (!a || !c) throw std::invalid_argument("unknown algorithm or setting");  // checked in Python
  sh::report_inputs in;
  in.sensitivity = optional_of<double>(inputs, "sensitivity");
  in.noise = optional_of<double>(inputs, "noise");
  in.dataset_size = optional_of<long long>(inputs, "dataset_size");
  in.batch_size = optional_of<long long>(inputs, "batch_size");
  in.steps = optional_of<long long>(inputs, "steps");
  in.epochs = optional_of<long long>(inputs, "epochs");
  in.batches_per_epoch = optional_of<long long>(inputs, "batches_per_epoch");
  in.learning_rate = optional_of<double>(inputs, "learning_rate");
  in.contraction = optional_of<double>(inputs, "contraction");
  in.strong_convexity = optional_of<double>(inputs, "strong_convexity");
  in.smoothness = optional_of<double>(inputs, "smoothness");
  in.diameter = optional_of<double>(inputs, "diameter");
  in.lr_decay = optional_of<double>(inputs, "lr_decay");
  in.learning_rates = optional_of<std::vector<double>>(inputs, "learning_rates");
  in.shifts = optional_of<std::vector<double>>(inputs, "shifts");
  if (const auto acc = optional_of<double>(inputs, "relative_accuracy"))
    in.sgd.pld.relative_accuracy = *acc;
  if (optional_of<bool>(inputs, "exhaustive_tau").value_or(false))
    in.sgd.exhaustive_limit = std::numeric_limits<long long>::max();
  in.sgd.optimise_split = optional_of<bool>(inputs, "optimise_split").value_or(false);
  sh::report_result r;
  try {
    py::gil_scoped_release release;
    r = sh::report(*a, *c, in, delta);
  } catch (const sh::report_error& e) {
    throw py::value_error(e.render(keyword_of));
  }
  py::list rows;
  for (const sh::report_row& row : r.rows) rows.append(report_row_dict(row));
  py::dict d;
  d["rows"] = rows;
  d["notes"] = r.notes;
  return d;
}

// ---- the optimisation problem ---------------------------------------------------------------

sh::interpolation_problem make_problem(double contraction,
                                       const dvec& sensitivities,
                                       double initial_shift,
                                       const dvec& contractions,
                                       const dvec& noise) {
  sh::interpolation_problem p;
  p.contraction = contraction;
  p.sensitivities = to_vector(sensitivities);
  p.initial_shift = initial_shift;
  p.contractions = to_vector(contractions);
  p.noise = to_vector(noise);
  return p;
}

py::dict solution_dict(const sh::interpolation_solution& r) {
  py::dict d = status_dict(r);
  d["value"] = r.value;
  d["a"] = as_array(r.a);
  d["z"] = as_array(r.z);
  d["lambda"] = as_array(r.lambda);
  return d;
}

py::dict solve_interpolation(double contraction,
                             const dvec& sensitivities,
                             double initial_shift,
                             const dvec& contractions,
                             const dvec& noise) {
  const sh::interpolation_problem p =
      make_problem(contraction, sensitivities, initial_shift, contractions, noise);
  sh::interpolation_solution r;
  {
    py::gil_scoped_release release;
    r = sh::solve_interpolation(p);
  }
  return solution_dict(r);
}

py::dict best_interpolation(double contraction,
                            const dvec& sensitivities,
                            double diameter,
                            double initial_shift,
                            const dvec& contractions,
                            const dvec& noise,
                            long long exhaustive_limit) {
  const sh::interpolation_problem p =
      make_problem(contraction, sensitivities, initial_shift, contractions, noise);
  sh::interpolation_scan r;
  {
    py::gil_scoped_release release;
    r = sh::best_interpolation(p, diameter, exhaustive_limit);
  }
  py::dict d = solution_dict(r);
  d["tau"] = r.tau;
  d["start_shift"] = r.start_shift;
  d["exhaustive"] = r.exhaustive;
  return d;
}

}  // namespace

void bind_shifted(py::module_& m) {
  const char* setting_doc =
      " setting: dict with any of sensitivity, examples, batch_size, noise, learning_rate, "
      "steps, contraction, diameter (BSA24's L, n, b, sigma, eta, t, c, D).";
  m.def("shifted_gdp", &gdp, py::arg("name"), py::arg("setting"), py::arg("tau"), py::arg("delta"),
        (std::string("Low-level: one GDP bound of dpkit/shifted/bounds.hpp by function name "
                     "(mu, kind, tau, source, note, epsilon at delta); use dpkit.shifted.") +
         setting_doc)
            .c_str());
  m.def("shifted_mechanism", &mechanism, py::arg("name"), py::arg("sensitivity"),
        py::arg("strong_convexity"), py::arg("learning_rate"), py::arg("steps"),
        py::arg("diameter"), py::arg("delta"),
        "Low-level: lmc, lmc_at, exponential_mechanism, log_concave_mechanism, projected_lmc.");
  m.def("shifted_sgd", &sgd, py::arg("name"), py::arg("setting"), py::arg("delta"),
        py::arg("options"),
        "Low-level: NoisySGD bound (composition, strongly_convex, constrained_convex) certified "
        "by PLD, tau (and split) optimised. options: relative_accuracy, max_fft_size, "
        "exhaustive_limit, optimise_split.");
  m.def("shifted_sgd_at", &sgd_at, py::arg("name"), py::arg("setting"), py::arg("tau"),
        py::arg("alpha"), py::arg("shifts"), py::arg("delta"), py::arg("options"),
        "Low-level: NoisySGD bound at one tau (strongly_convex, constrained_convex) or with "
        "given absolute shifts a_1..a_{t-1} (shifts, Thm C.13), certified by PLD.");
  m.def("shifted_report", &report, py::arg("algorithm"), py::arg("setting"), py::arg("inputs"),
        py::arg("delta"),
        "Low-level: every bound of `dpkit shifted ALGORITHM` (shifted/report.hpp) as row dicts "
        "and notes (use dpkit.shifted.noisy_gd, noisy_cgd, noisy_sgd, lmc).");
  m.def("shifted_contraction", &sh::contraction, py::arg("learning_rate"),
        py::arg("strong_convexity"), py::arg("smoothness"),
        "c = max{|1 - eta m|, |1 - eta M|} (BSA24 Lemma 2.8).");
  m.def("shifted_exponential_mechanism_threshold", &sh::exponential_mechanism_threshold,
        "c* of BSA24 D.4 (about 0.67639).");
  m.def("shifted_clt_k", &sh::clt_k, py::arg("mu"),
        "K(mu) = e^{mu^2} Phi(1.5 mu) + 3 Phi(-0.5 mu) - 2 (BSA24 Lemma A.5).");
  m.def("shifted_solve_interpolation", &solve_interpolation, py::arg("contraction"),
        py::arg("sensitivities"), py::arg("initial_shift"), py::arg("contractions"),
        py::arg("noise"), "Low-level: the optimisation problem of Thm C.3 on one window.");
  m.def("shifted_best_interpolation", &best_interpolation, py::arg("contraction"),
        py::arg("sensitivities"), py::arg("diameter"), py::arg("initial_shift"),
        py::arg("contractions"), py::arg("noise"), py::arg("exhaustive_limit"),
        "Low-level: the best window over tau (z_tau = diameter for tau > 0).");
}

}  // namespace dpkit::python
