// Python bindings: the library's types that cross the boundary, bound as types — the enums of a
// run with the library's own names (to_string), a phase of a run, a phase's derivation from a
// training loop's units and one accountant's answer. The Python layer (dpkit/_core.py, _results.py)
// builds TrainingPhase objects and reads PrivacyEstimate attributes; no string protocol or
// positional tuple stands between the two languages.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <string>

#include "bindings.hpp"
#include "dpkit/accounting/accountant.hpp"
#include "dpkit/accounting/run_units.hpp"
#include "dpkit/accounting/training_run.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/result.hpp"

namespace py = pybind11;
namespace acc = dpkit::accounting;

namespace dpkit::python {
namespace {

// An enum whose Python member names are the library's spellings (to_string), so that
// `Enum.__members__[name]` reads a user's word and `member.name` writes it back.
template <class E, std::size_t N>
void bind_enum(py::module_& m, const char* name, const char* doc, const std::array<E, N>& values) {
  py::enum_<E> e(m, name, doc);
  for (const E v : values) e.value(std::string(to_string(v)).c_str(), v);
}

}  // namespace

void bind_types(py::module_& m) {
  using acc::accountant_type;
  using acc::neighbouring;
  using acc::sampling_scheme;
  bind_enum(m, "SamplingScheme", "How a phase's batches are drawn (accounting/training_run.hpp).",
            std::array{sampling_scheme::poisson, sampling_scheme::truncated_poisson,
                       sampling_scheme::without_replacement, sampling_scheme::shuffling,
                       sampling_scheme::random_allocation});
  bind_enum(m, "Neighbouring",
            "The neighbouring relation of a phase ('standard': the scheme's own).",
            std::array{neighbouring::standard, neighbouring::add_remove, neighbouring::replace_one,
                       neighbouring::zero_out});
  bind_enum(m, "Accountant", "The accountants (accounting/accountant.hpp).",
            std::array{accountant_type::pld, accountant_type::rdp, accountant_type::clt});

  py::class_<acc::training_phase>(m, "TrainingPhase",
                                  "Low-level: one phase of a run (use dpkit.Phase), as "
                                  "accounting::training_phase; built by derive_phase.")
      .def_readonly("noise_multiplier", &acc::training_phase::noise_multiplier)
      .def_readonly("sampling_rate", &acc::training_phase::sampling_rate)
      .def_readonly("sampling", &acc::training_phase::sampling)
      .def_readonly("steps", &acc::training_phase::steps)
      .def_readonly("neighbours", &acc::training_phase::neighbours)
      .def_readonly("dataset_size", &acc::training_phase::dataset_size)
      .def_readonly("max_batch_size", &acc::training_phase::max_batch_size)
      .def_readonly("steps_per_epoch", &acc::training_phase::steps_per_epoch)
      .def_readonly("selected", &acc::training_phase::selected)
      .def("__repr__", [](const acc::training_phase& p) {
        return "TrainingPhase(noise_multiplier=" + format_value(p.noise_multiplier) +
               ", sampling_rate=" + format_value(p.sampling_rate) + ", sampling='" +
               std::string(to_string(p.sampling)) + "', steps=" + std::to_string(p.steps) + ")";
      });

  py::class_<acc::phase_derivation>(m, "PhaseDerivation",
                                    "Low-level: the phase a training loop's units describe and "
                                    "the numbers it was derived from (accounting/run_units.hpp).")
      .def_readonly("phase", &acc::phase_derivation::phase)
      .def_readonly("length_given", &acc::phase_derivation::length_given)
      .def_readonly("in_batches", &acc::phase_derivation::in_batches)
      .def_readonly("batch_size", &acc::phase_derivation::batch_size)
      .def_readonly("dataset_size", &acc::phase_derivation::dataset_size)
      .def_readonly("batches_per_epoch", &acc::phase_derivation::batches_per_epoch)
      .def_readonly("drop_last", &acc::phase_derivation::drop_last)
      .def_readonly("steps_per_epoch", &acc::phase_derivation::steps_per_epoch)
      .def_property_readonly("rule", [](const acc::phase_derivation& d) {
        return std::string(to_string(d.rule));
      });

  py::class_<acc::privacy_estimate>(m, "PrivacyEstimate",
                                    "Low-level: one accountant's answer (dpkit.PrivacyResult "
                                    "wraps it), as accounting::privacy_estimate.")
      // The enum-valued fields as the library spells them (to_string): a PrivacyResult is built
      // per answer, and reading a pybind11 enum's name costs ~3 µs, the string ~0.1 µs.
      .def_property_readonly(
          "accountant",
          [](const acc::privacy_estimate& e) { return std::string(to_string(e.accountant)); })
      .def_readonly("value", &acc::privacy_estimate::value)
      .def_readonly("lower", &acc::privacy_estimate::lower)
      .def_readonly("upper", &acc::privacy_estimate::upper)
      .def_property_readonly(
          "kind", [](const acc::privacy_estimate& e) { return std::string(to_string(e.kind)); })
      .def_readonly("tight", &acc::privacy_estimate::tight)
      .def_readonly("method", &acc::privacy_estimate::method)
      .def_readonly("log_value", &acc::privacy_estimate::log_value)
      .def_readonly("edge_value", &acc::privacy_estimate::edge_value)
      .def_property_readonly(
          "termination",
          [](const acc::privacy_estimate& e) { return std::string(to_string(e.termination)); })
      .def_readonly("message", &acc::privacy_estimate::message)
      .def_readonly("evaluations", &acc::privacy_estimate::evaluations)
      .def_property_readonly(
          "pld",
          [](const acc::privacy_estimate& e) -> py::object {
            // The grid of the last PLD pass, where the PLD engine answered.
            if (e.accountant != accountant_type::pld || e.pld.passes == 0) return py::none();
            py::dict d;
            d["grid_spacing"] = e.pld.grid_spacing;
            d["fft_size"] = e.pld.fft_size;
            d["passes"] = e.pld.passes;
            return d;
          },
          "grid_spacing, fft_size and passes of a PLD answer (None otherwise).");
}

}  // namespace dpkit::python
