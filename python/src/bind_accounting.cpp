// Python bindings: the accountants (dpkit/accounting), as plain functions over a run given as a
// list of TrainingPhase objects (bind_types.cpp). An accountant's answer comes back as a
// PrivacyEstimate, the rest as dicts; dpkit/_results.py turns them into the labelled result
// objects users see. Argument checking with user-facing names happens in the Python
// layer; what the library still rejects arrives as ValueError (std::domain_error and
// std::invalid_argument are mapped by pybind11) with the library's message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "dpkit/accounting/accountant.hpp"
#include "dpkit/accounting/clt.hpp"
#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/accounting/rdp_accountant.hpp"
#include "dpkit/accounting/run_tradeoff.hpp"
#include "dpkit/accounting/training_run.hpp"
#include "dpkit/divergence/rdp.hpp"

namespace py = pybind11;
namespace acc = dpkit::accounting;

namespace dpkit::python {

acc::training_run make_run(const std::vector<acc::training_phase>& phases,
                           double gaussian_mu,
                           bool edge_values) {
  acc::training_run run;
  run.gaussian_mu = gaussian_mu;
  run.phases = phases;
  run.validate("dpkit", edge_values);
  return run;
}

acc::pld_options make_pld_options(const py::dict& o) {
  acc::pld_options p;
  if (o.contains("relative_accuracy")) p.relative_accuracy = o["relative_accuracy"].cast<double>();
  if (o.contains("max_fft_size")) p.max_fft_size = o["max_fft_size"].cast<std::size_t>();
  if (o.contains("grid_spacing")) p.grid_spacing = o["grid_spacing"].cast<double>();
  if (o.contains("initial_grid_spacing"))
    p.initial_grid_spacing = o["initial_grid_spacing"].cast<double>();
  p.validate("dpkit");
  return p;
}

py::dict status_dict(const solver_status& s) {
  py::dict d;
  d["termination"] = std::string(to_string(s.termination));
  d["message"] = s.message;
  d["evaluations"] = s.evaluations;
  return d;
}

namespace {

acc::privacy_estimate epsilon(const std::vector<acc::training_phase>& phases,
                              double gaussian_mu,
                              double delta,
                              acc::accountant_type accountant,
                              const py::dict& options) {
  const acc::training_run run = make_run(phases, gaussian_mu, /*edge_values=*/true);
  const acc::pld_options o = make_pld_options(options);
  const acc::accountant_type a = accountant;
  acc::privacy_estimate e;
  {
    py::gil_scoped_release release;
    e = acc::estimate_epsilon(run, delta, a, o);
  }
  return e;
}

acc::privacy_estimate delta(const std::vector<acc::training_phase>& phases,
                            double gaussian_mu,
                            double eps,
                            acc::accountant_type accountant,
                            const py::dict& options) {
  const acc::training_run run = make_run(phases, gaussian_mu, /*edge_values=*/true);
  const acc::pld_options o = make_pld_options(options);
  const acc::accountant_type a = accountant;
  acc::privacy_estimate e;
  {
    py::gil_scoped_release release;
    e = acc::estimate_delta(run, eps, a, o);
  }
  return e;
}

py::dict calibrate_noise(const std::vector<acc::training_phase>& phases,
                         double gaussian_mu,
                         double target_epsilon,
                         double delta,
                         acc::accountant_type accountant,
                         double relative_tolerance,
                         double budget_tolerance,
                         const py::dict& options) {
  const acc::training_run run = make_run(phases, gaussian_mu, false);
  acc::calibration_options c;
  c.accountant = accountant;
  c.pld = make_pld_options(options);
  c.relative_tolerance = relative_tolerance;
  c.budget_tolerance = budget_tolerance;
  acc::noise_calibration r;
  {
    py::gil_scoped_release release;
    r = acc::calibrate_noise_multiplier(run, target_epsilon, delta, c);
  }
  py::dict d = status_dict(r);
  d["noise_multiplier"] = r.noise_multiplier;
  d["noise_multiplier_lower"] = r.noise_multiplier_lower;
  d["estimate"] = r.estimate;
  return d;
}

py::dict calibrate_steps(const std::vector<acc::training_phase>& phases,
                         double gaussian_mu,
                         double target_epsilon,
                         double delta,
                         long long max_steps,
                         acc::accountant_type accountant,
                         const py::dict& options) {
  const acc::training_run run = make_run(phases, gaussian_mu, false);
  acc::calibration_options c;
  c.accountant = accountant;
  c.pld = make_pld_options(options);
  acc::steps_calibration r;
  {
    py::gil_scoped_release release;
    r = acc::calibrate_steps(run, target_epsilon, delta, max_steps, c);
  }
  py::dict d = status_dict(r);
  d["steps"] = r.steps;
  if (r.steps >= 1) d["estimate"] = r.estimate;
  return d;
}

// ε at δ for the last phase run for each of `steps` (≥ 1, any order): the library's curve
// (accounting::estimate_epsilon_curve) — PLD from one grid and one discretisation where the
// accuracy allows, each point certified from both sides; RDP equal to separate calls.
py::dict epsilon_curve(const std::vector<acc::training_phase>& phases,
                       double gaussian_mu,
                       const std::vector<long long>& steps,
                       double delta,
                       acc::accountant_type accountant,
                       const py::dict& options) {
  if (phases.empty()) throw std::invalid_argument("phases: the run needs at least one phase");
  const acc::training_run run = make_run(phases, gaussian_mu, false);
  const acc::pld_options o = make_pld_options(options);
  const acc::accountant_type a = accountant;
  const std::size_t n = steps.size();
  std::vector<double> value(n), lower(n), upper(n);
  std::vector<std::string> termination(n), kind(n);
  std::string messages;
  std::vector<acc::privacy_estimate> es;
  {
    py::gil_scoped_release release;
    es = acc::estimate_epsilon_curve(run, steps, delta, a, o);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const acc::privacy_estimate& e = es[i];
    value[i] = e.value;
    lower[i] = e.lower;
    upper[i] = e.upper;
    kind[i] = std::string(to_string(e.kind));
    termination[i] = std::string(to_string(e.termination));
    if (!e.converged() && messages.empty())
      messages = "steps " + std::to_string(steps[i]) + ": " + e.message;
  }
  py::dict d;
  d["value"] = as_array(value);
  d["lower"] = as_array(lower);
  d["upper"] = as_array(upper);
  d["kind"] = kind;
  d["termination"] = termination;
  d["message"] = messages;
  return d;
}

py::dict delta_profile(const std::vector<acc::training_phase>& phases,
                       double gaussian_mu,
                       const py::array_t<double, py::array::c_style | py::array::forcecast>& eps,
                       const py::dict& options) {
  const acc::training_run run = make_run(phases, gaussian_mu, false);
  const acc::pld_options o = make_pld_options(options);
  const std::vector<double> e(eps.data(), eps.data() + eps.size());
  acc::pld_profile_result r;
  {
    py::gil_scoped_release release;
    r = acc::pld_delta_profile(run, e, o);
  }
  py::dict d = status_dict(r);
  d["lower"] = as_array(r.lower);
  d["upper"] = as_array(r.upper);
  d["tight"] = r.tight;
  d["grid_spacing"] = r.grid_spacing;
  d["fft_size"] = r.fft_size;
  d["passes"] = r.passes;
  return d;
}

py::dict tradeoff(const std::vector<acc::training_phase>& phases,
                  double gaussian_mu,
                  const py::array_t<double, py::array::c_style | py::array::forcecast>& alpha,
                  const py::dict& options) {
  const acc::training_run run = make_run(phases, gaussian_mu, false);
  const acc::pld_options o = make_pld_options(options);
  const std::vector<double> a(alpha.data(), alpha.data() + alpha.size());
  acc::run_tradeoff_result r;
  {
    py::gil_scoped_release release;
    r = acc::run_tradeoff(run, a, o);
  }
  py::dict d = status_dict(r);
  d["lower"] = as_array(r.beta_lower);
  d["upper"] = as_array(r.beta_upper);
  d["power_upper"] = as_array(r.power_upper);
  d["power_lower"] = as_array(r.power_lower);
  d["exact"] = r.exact;
  d["method"] = r.method;
  return d;
}

py::dict gdp_mu(const std::vector<acc::training_phase>& phases,
                double gaussian_mu,
                double alpha_min,
                std::size_t points,
                const py::dict& options) {
  const acc::training_run run = make_run(phases, gaussian_mu, false);
  const acc::pld_options o = make_pld_options(options);
  acc::gdp_mu_result r;
  {
    py::gil_scoped_release release;
    r = acc::run_gdp_mu(run, alpha_min, points, o);
  }
  py::dict d = status_dict(r);
  d["mu_lower"] = r.mu_lower;
  d["mu_upper"] = r.mu_upper;
  d["alpha_min"] = r.alpha_min;
  d["alpha_at_max"] = r.alpha_at_max;
  d["points"] = r.points;
  d["exact"] = r.exact;
  d["method"] = r.method;
  return d;
}

py::array_t<double> rdp(
    const std::vector<acc::training_phase>& phases,
    double gaussian_mu,
    const py::array_t<double, py::array::c_style | py::array::forcecast>& orders) {
  const acc::training_run run = make_run(phases, gaussian_mu, false);
  py::array_t<double> out(orders.size());
  auto w = out.mutable_unchecked<1>();
  const double* a = orders.data();
  for (py::ssize_t i = 0; i < orders.size(); ++i) w(i) = acc::run_rdp(run, a[i]);
  return out;
}

py::dict rdp_result_dict(const dpkit::divergence::epsilon_result& r,
                         double alpha,
                         dpkit::divergence::rdp_conversion c) {
  py::dict d = status_dict(r);
  d["epsilon"] = r.value;
  d["alpha"] = alpha;
  d["conversion"] = std::string(dpkit::divergence::to_string(c));
  return d;
}

py::dict rdp_epsilon_run(const std::vector<acc::training_phase>& phases,
                         double gaussian_mu,
                         double delta) {
  const acc::training_run run = make_run(phases, gaussian_mu, false);
  const auto r = acc::rdp_epsilon(run, delta);
  return rdp_result_dict(r, r.alpha, r.conversion);
}

dpkit::divergence::rdp_curve curve_at(const dvec& orders, const dvec& rdp) {
  if (orders.size() != rdp.size())
    throw std::invalid_argument("orders and rdp must have the same length");
  return dpkit::divergence::rdp_curve::at_orders(
      std::vector<double>(orders.data(), orders.data() + orders.size()),
      std::vector<double>(rdp.data(), rdp.data() + rdp.size()));
}

py::dict rdp_epsilon_at_orders(const dvec& orders, const dvec& rdp, double delta) {
  const auto r = dpkit::divergence::rdp_epsilon(curve_at(orders, rdp), delta);
  return rdp_result_dict(r, r.alpha, r.conversion);
}

py::dict rdp_delta_at_orders(const dvec& orders, const dvec& rdp, double eps) {
  const auto r = dpkit::divergence::rdp_delta(curve_at(orders, rdp), eps);
  py::dict d = status_dict(r);
  d["delta"] = r.value;
  d["log_delta"] = r.log_value;
  d["alpha"] = r.alpha;
  d["conversion"] = std::string(dpkit::divergence::to_string(r.conversion));
  return d;
}

}  // namespace

void bind_accounting(py::module_& m) {
  py::class_<acc::incremental_accountant>(
      m, "IncrementalAccountant",
      "Low-level: a run accounted as it grows (use dpkit.Accountant). phases as for epsilon; "
      "the last phase grows from 0 steps.")
      .def(py::init([](const std::vector<acc::training_phase>& phases, double gaussian_mu,
                       const py::dict& options) {
             acc::training_run run = make_run(phases, gaussian_mu, /*edge_values=*/true);
             run.phases.back().steps = 0;
             return acc::incremental_accountant(std::move(run), make_pld_options(options));
           }),
           py::arg("phases"), py::arg("gaussian_mu"), py::arg("options"))
      .def("add_steps", &acc::incremental_accountant::add_steps, py::arg("count"))
      .def_property_readonly("steps", &acc::incremental_accountant::steps)
      .def_property_readonly("discretisations", &acc::incremental_accountant::discretisations)
      .def(
          "epsilon",
          [](acc::incremental_accountant& a, double delta) {
            // The GIL stays held: another thread's add_steps must not run during a query.
            return a.epsilon(delta);
          },
          py::arg("delta"))
      .def(
          "delta",
          [](acc::incremental_accountant& a, double epsilon) {
            // The GIL stays held: another thread's add_steps must not run during a query.
            return a.delta(epsilon);
          },
          py::arg("epsilon"));
  const char* run_doc =
      "phases: list of TrainingPhase (derive_phase(...).phase); gaussian_mu: an extra mu-GDP "
      "factor (0: none).";
  m.def("epsilon", &epsilon, py::arg("phases"), py::arg("gaussian_mu"), py::arg("delta"),
        py::arg("accountant"), py::arg("options"),
        (std::string("Low-level: epsilon at delta as a PrivacyEstimate (use dpkit.epsilon). ") +
         run_doc)
            .c_str());
  m.def("delta", &delta, py::arg("phases"), py::arg("gaussian_mu"), py::arg("epsilon"),
        py::arg("accountant"), py::arg("options"),
        "Low-level: delta at epsilon as a PrivacyEstimate (use dpkit.delta).");
  m.def("calibrate_noise", &calibrate_noise, py::arg("phases"), py::arg("gaussian_mu"),
        py::arg("target_epsilon"), py::arg("delta"), py::arg("accountant"),
        py::arg("relative_tolerance"), py::arg("budget_tolerance"), py::arg("options"),
        "Low-level: smallest common noise multiplier (use dpkit.calibrate_noise).");
  m.def("calibrate_steps", &calibrate_steps, py::arg("phases"), py::arg("gaussian_mu"),
        py::arg("target_epsilon"), py::arg("delta"), py::arg("max_steps"), py::arg("accountant"),
        py::arg("options"), "Low-level: largest number of steps (use dpkit.calibrate_steps).");
  m.def("epsilon_curve", &epsilon_curve, py::arg("phases"), py::arg("gaussian_mu"),
        py::arg("steps"), py::arg("delta"), py::arg("accountant"), py::arg("options"),
        "Low-level: epsilon against the last phase's steps (use dpkit.epsilon_curve).");
  m.def("delta_profile", &delta_profile, py::arg("phases"), py::arg("gaussian_mu"),
        py::arg("epsilons"), py::arg("options"),
        "Low-level: certified delta(epsilon) bracket at ascending epsilons, one composition.");
  m.def("tradeoff", &tradeoff, py::arg("phases"), py::arg("gaussian_mu"), py::arg("alpha"),
        py::arg("options"), "Low-level: certified tradeoff curve bracket at alpha in [0, 1].");
  m.def("gdp_mu", &gdp_mu, py::arg("phases"), py::arg("gaussian_mu"), py::arg("alpha_min"),
        py::arg("points"), py::arg("options"),
        "The GDP mu the run is closest to over FPRs in [alpha_min, 1/2]: certified bracket.");
  m.def("rdp", &rdp, py::arg("phases"), py::arg("gaussian_mu"), py::arg("orders"),
        "Low-level: the run's Renyi DP epsilon at each order alpha in (1, 1e6].");
  m.def("rdp_epsilon_run", &rdp_epsilon_run, py::arg("phases"), py::arg("gaussian_mu"),
        py::arg("delta"), "Low-level: the RDP accountant's epsilon with its optimal order.");
  m.def("rdp_epsilon_at_orders", &rdp_epsilon_at_orders, py::arg("orders"), py::arg("rdp"),
        py::arg("delta"),
        "Low-level: epsilon from RDP values at discrete orders (best of four conversions).");
  m.def("rdp_delta_at_orders", &rdp_delta_at_orders, py::arg("orders"), py::arg("rdp"),
        py::arg("epsilon"), "Low-level: delta from RDP values at discrete orders.");
}

}  // namespace dpkit::python
