// Python bindings: dpkit/accounting/correlated.hpp — noise calibration for DP-λCGD (WSK+26):
// the noise multiplier κ of every method with its validity label, the lower bound, and the
// ingredients (row sum, certified ‖C‖₂, leading-block norm, binomial tail, Lemma F.9's δ, the
// projected δ, the closed forms, eq. (19)). python/dpkit/correlated.py wraps them with argument
// checking and labelled result objects.
#include "dpkit/accounting/correlated.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"

namespace py = pybind11;
namespace acc = dpkit::accounting;

namespace dpkit::python {
namespace {

acc::correlated_setting make_setting(double correlation, double sampling_rate, long long steps) {
  acc::correlated_setting s{correlation, sampling_rate, steps};
  s.validate("dpkit");
  return s;
}

acc::correlated_options make_options(const py::dict& o) {
  acc::correlated_options c;
  c.pld = make_pld_options(o);
  if (o.contains("relative_tolerance"))
    c.relative_tolerance = o["relative_tolerance"].cast<double>();
  if (o.contains("max_order")) c.max_order = o["max_order"].cast<long long>();
  c.validate("dpkit");
  return c;
}

py::dict noise_dict(const acc::correlated_noise& c) {
  py::dict d = status_dict(c);
  d["method"] = c.method;
  d["noise_multiplier"] = c.noise_multiplier;
  d["noise_multiplier_lower"] = c.noise_multiplier_lower;
  d["validity"] = std::string(acc::to_string(c.validity));
  d["closed_form"] = c.closed_form;
  d["relation"] = std::string(acc::to_string(c.relation));
  d["label"] = c.label;
  d["source"] = c.source;
  d["conditions_met"] = c.conditions_met;
  d["attainable"] = c.attainable;
  d["conditions"] = c.conditions;
  d["details"] = c.details;
  d["split"] = c.split;
  d["sensitivity"] = c.sensitivity;
  d["tail_probability"] = c.tail_probability;
  d["alpha"] = c.alpha;
  d["certified_epsilon"] = c.certified_epsilon;
  d["certified_delta"] = c.certified_delta;
  return d;
}

py::dict calibrate(double correlation,
                   double sampling_rate,
                   long long steps,
                   double epsilon,
                   double delta,
                   const std::string& method,
                   const py::dict& options) {
  const acc::correlated_setting s = make_setting(correlation, sampling_rate, steps);
  const acc::correlated_options o = make_options(options);
  const auto m = acc::parse_correlated_method(method);
  if (!m) throw std::invalid_argument("method: unknown method '" + method + "'");
  acc::correlated_noise c;
  {
    py::gil_scoped_release release;
    c = acc::calibrate_correlated(s, epsilon, delta, *m, o);
  }
  return noise_dict(c);
}

std::vector<std::string> methods() {
  std::vector<std::string> out;
  for (acc::correlated_method m : acc::kAllCorrelatedMethods) out.emplace_back(acc::to_string(m));
  return out;
}

py::dict lower_bound(double correlation,
                     double sampling_rate,
                     long long steps,
                     double epsilon,
                     double delta,
                     double relative_tolerance) {
  const acc::correlated_setting s = make_setting(correlation, sampling_rate, steps);
  acc::projected_lower_bound r;
  {
    py::gil_scoped_release release;
    r = acc::correlated_noise_lower_bound(s, epsilon, delta, relative_tolerance);
  }
  py::dict d = status_dict(r);
  d["noise_multiplier"] = r.noise_multiplier;
  d["noise_multiplier_upper"] = r.noise_multiplier_upper;
  d["projection_norm"] = r.projection_norm;
  d["projected_delta"] = r.projected_delta;
  return d;
}

py::dict spectral_norm(double correlation, long long steps) {
  const acc::spectral_norm_result r = acc::correlation_spectral_norm(correlation, steps);
  py::dict d = status_dict(r);
  d["value"] = r.value;
  d["lower"] = r.lower;
  return d;
}

acc::f9_sensitivity parse_sensitivity(const std::string& s) {
  if (s == "row-sum") return acc::f9_sensitivity::row_sum;
  if (s == "spectral") return acc::f9_sensitivity::spectral;
  if (s == "leading-block") return acc::f9_sensitivity::leading_block;
  throw std::invalid_argument(
      "sensitivity: must be 'row-sum', 'spectral' or 'leading-block', got '" + s + "'");
}

py::dict f9(double correlation,
            double sampling_rate,
            long long steps,
            double noise_multiplier,
            double epsilon,
            const std::string& sensitivity) {
  const acc::correlated_setting s = make_setting(correlation, sampling_rate, steps);
  const acc::f9_sensitivity k = parse_sensitivity(sensitivity);
  acc::f9_bound b;
  {
    py::gil_scoped_release release;
    b = acc::f9_delta(s, noise_multiplier, epsilon, k);
  }
  py::dict d;
  d["delta"] = b.delta;
  d["split"] = b.split;
  d["sensitivity"] = b.sensitivity;
  d["tail_probability"] = b.tail_probability;
  return d;
}

double projected(double correlation,
                 double sampling_rate,
                 long long steps,
                 double noise_multiplier,
                 double epsilon) {
  return acc::projected_delta(make_setting(correlation, sampling_rate, steps), noise_multiplier,
                              epsilon);
}

double f12(double correlation,
           double sampling_rate,
           long long steps,
           double epsilon,
           double delta,
           double constant) {
  return acc::f12_noise_multiplier(make_setting(correlation, sampling_rate, steps), epsilon, delta,
                                   constant);
}

double d9(double correlation, double sampling_rate, long long steps, double epsilon, double delta) {
  return acc::d9_noise_multiplier(make_setting(correlation, sampling_rate, steps), epsilon, delta);
}

py::dict eq19(double correlation,
              double sampling_rate,
              long long steps,
              double noise_multiplier,
              double delta,
              long long max_order) {
  const acc::correlated_setting s = make_setting(correlation, sampling_rate, steps);
  acc::eq19_epsilon r;
  {
    py::gil_scoped_release release;
    r = acc::d9_eq19_epsilon(s, noise_multiplier, delta, max_order);
  }
  py::dict d;
  d["epsilon"] = r.epsilon;
  d["alpha"] = r.alpha;
  return d;
}

}  // namespace

void bind_correlated(py::module_& m) {
  const char* setting_doc =
      " correlation: lambda in [0, 1); sampling_rate: r = B/n in (0, 1]; steps: T >= 1.";
  m.def("correlated_calibrate", &calibrate, py::arg("correlation"), py::arg("sampling_rate"),
        py::arg("steps"), py::arg("epsilon"), py::arg("delta"), py::arg("method"),
        py::arg("options"),
        (std::string("Low-level: the noise multiplier kappa of one method (dict with validity "
                     "label); use dpkit.correlated.calibrate.") +
         setting_doc)
            .c_str());
  m.def("correlated_methods", &methods, "Every method name, in report order.");
  m.def("correlated_lower_bound", &lower_bound, py::arg("correlation"), py::arg("sampling_rate"),
        py::arg("steps"), py::arg("epsilon"), py::arg("delta"), py::arg("relative_tolerance"),
        "Low-level: kappa_LB, at or below which DP-lambdaCGD is not (epsilon, delta)-DP.");
  m.def("correlated_row_sum", &acc::correlation_row_sum, py::arg("correlation"), py::arg("steps"),
        "(1 - lambda^T)/(1 - lambda), the maximum row sum of C.");
  m.def("correlated_spectral_norm", &spectral_norm, py::arg("correlation"), py::arg("steps"),
        "Low-level: certified bracket [lower, value] on ||C||_2.");
  m.def("correlated_leading_block_norm", &acc::leading_block_norm, py::arg("correlation"),
        py::arg("steps"), py::arg("k"), "||C (1,..,1,0,..,0)||_2 with k ones.");
  m.def("correlated_binomial_tail", &acc::binomial_tail, py::arg("steps"), py::arg("sampling_rate"),
        py::arg("k"), "P(Bin(T, r) > k), exact.");
  m.def("correlated_f9_delta", &f9, py::arg("correlation"), py::arg("sampling_rate"),
        py::arg("steps"), py::arg("noise_multiplier"), py::arg("epsilon"), py::arg("sensitivity"),
        "Low-level: Lemma F.9's delta at kappa, minimised over the split k.");
  m.def("correlated_projected_delta", &projected, py::arg("correlation"), py::arg("sampling_rate"),
        py::arg("steps"), py::arg("noise_multiplier"), py::arg("epsilon"),
        "Low-level: delta_1(epsilon) of the projected pair (a lower bound on the mechanism's).");
  m.def("correlated_f12", &f12, py::arg("correlation"), py::arg("sampling_rate"), py::arg("steps"),
        py::arg("epsilon"), py::arg("delta"), py::arg("constant"),
        "Low-level: Thm F.12's kappa with the given constant (8 stated, 2 from the proof).");
  m.def("correlated_d9", &d9, py::arg("correlation"), py::arg("sampling_rate"), py::arg("steps"),
        py::arg("epsilon"), py::arg("delta"), "Low-level: Thm D.9's closed-form kappa.");
  m.def("correlated_eq19_epsilon", &eq19, py::arg("correlation"), py::arg("sampling_rate"),
        py::arg("steps"), py::arg("noise_multiplier"), py::arg("delta"), py::arg("max_order"),
        "Low-level: eq. (19) RDP composed over T and converted (Lemma D.2), best integer order.");
}

}  // namespace dpkit::python
