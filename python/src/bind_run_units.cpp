// Python bindings: a phase from a training loop's units (dpkit/accounting/run_units.hpp), the
// one rule for q = B/N and T = ⌈E·N/B⌉ that the CLI uses too. dpkit/_core.py converts the
// arguments' types (the scheme and relation to the enums of bind_types.cpp); the library checks
// their combination and ranges, and its units_error is worded here with the Python package's
// keyword names (sample_rate for the library's sampling_rate), from the error's fields, never from
// its text.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "bindings.hpp"
#include "dpkit/accounting/accountant.hpp"
#include "dpkit/accounting/run_units.hpp"
#include "dpkit/accounting/training_run.hpp"

namespace py = pybind11;
namespace acc = dpkit::accounting;

namespace dpkit::python {
namespace {

std::string keyword(const std::string& name) {
  return name == "sampling_rate" ? std::string("sample_rate") : name;
}

std::string python_message(const acc::units_error& e, const acc::phase_units& u) {
  using acc::units_rule;
  switch (e.rule()) {
    case units_rule::sampling_missing:
      return "sample_rate is required (or batch_size and dataset_size)";
    case units_rule::sampling_twice:
      return "sample_rate must not be given together with batch_size and dataset_size (it is "
             "batch_size / dataset_size)";
    case units_rule::dataset_missing:
      return "dataset_size is required with batch_size";
    case units_rule::dataset_unused:
      return "dataset_size is only used with batch_size (sample_rate = batch_size / "
             "dataset_size) or sampling='truncated-poisson'";
    case units_rule::batch_too_large:
      return "batch_size is " + std::to_string(*u.batch_size) +
             ", but must be at most "
             "dataset_size (" +
             std::to_string(*u.dataset_size) + ")";
    case units_rule::length_twice:
      return "steps must not be given together with epochs";
    case units_rule::epochs_never_end:
      return "epochs: with sample_rate 0 no epoch ends; give steps";
    case units_rule::truncation_missing:
      return e.name() == "max_batch_size"
                 ? "max_batch_size is required with sampling='truncated-poisson' (the largest "
                   "batch; a larger Poisson batch keeps a random max_batch_size of its records)"
                 : "dataset_size is required with sampling='truncated-poisson' (the number of "
                   "records, which sets how often a batch is truncated)";
    case units_rule::max_batch_unused:
      return "max_batch_size is only used with sampling='truncated-poisson'";
    case units_rule::drop_last_unused:
      return e.other() == "sampling"
                 ? "drop_last is only used with sampling='shuffling' or 'without-replacement' ('" +
                       std::string(acc::to_string(u.sampling)) +
                       "' batches have no last, incomplete batch to drop)"
                 : "drop_last needs batch_size and dataset_size (the loader takes "
                   "dataset_size // batch_size full batches per epoch)";
    case units_rule::selected_unused:
      return "selected is only used with sampling='random-allocation' (each example in k of the "
             "t steps of every epoch); '" +
             std::string(acc::to_string(u.sampling)) + "' batches have no such k";
    case units_rule::neighbours_fixed:
    case units_rule::too_many_steps:
    case units_rule::out_of_range:
      break;
  }
  return keyword(e.name()) + " is " + e.value() + ", but must be " + e.constraint();
}

acc::phase_units units_of(std::optional<double> noise_multiplier,
                          std::optional<double> sample_rate,
                          std::optional<long long> batch_size,
                          std::optional<long long> dataset_size,
                          std::optional<long long> steps,
                          std::optional<double> epochs,
                          acc::sampling_scheme sampling,
                          std::optional<acc::neighbouring> neighbours,
                          std::optional<long long> max_batch_size,
                          bool drop_last,
                          long long selected) {
  acc::phase_units u;
  u.noise_multiplier = noise_multiplier;
  u.sampling_rate = sample_rate;
  u.batch_size = batch_size;
  u.dataset_size = dataset_size;
  u.steps = steps;
  u.epochs = epochs;
  u.sampling = sampling;
  if (neighbours) u.neighbours = *neighbours;
  u.max_batch_size = max_batch_size;
  u.drop_last = drop_last;
  u.selected = selected;
  return u;
}

}  // namespace

void bind_run_units(py::module_& m) {
  m.attr("SMALLEST_NOISE_MULTIPLIER") = acc::kSmallestNoiseMultiplier;
  m.attr("SMALLEST_SAMPLING_RATE") = acc::kSmallestSamplingRate;
  m.attr("SMALLEST_DELTA") = acc::kSmallestDelta;
  m.attr("MAX_STEPS") = acc::kMaxSteps;
  // The subnormal rule (core/check.hpp): which numbers are refused, and the words of the note.
  m.attr("SMALLEST_NORMAL_TEXT") = dpkit::kSmallestNormalText;
  m.def("is_subnormal", &dpkit::is_subnormal);
  m.def("underflow_note", [](const std::string& text) { return dpkit::underflow_note(text); });
  // The names, as the library spells them (the Python layer's SAMPLING_SCHEMES and ACCOUNTANTS).
  auto names = [](const auto& array) {
    py::tuple t(array.size());
    for (std::size_t i = 0; i < array.size(); ++i) t[i] = std::string(array[i]);
    return t;
  };
  m.attr("SAMPLING_SCHEMES") = names(acc::kSamplingSchemeNames);
  m.attr("NEIGHBOURS") = names(acc::kNeighbouringNames);
  m.attr("ACCOUNTANTS") = names(acc::kAccountantNames);
  m.def(
      "derive_phase",
      [](std::optional<double> noise_multiplier, std::optional<double> sample_rate,
         std::optional<long long> batch_size, std::optional<long long> dataset_size,
         std::optional<long long> steps, std::optional<double> epochs,
         acc::sampling_scheme sampling, std::optional<acc::neighbouring> neighbours,
         std::optional<long long> max_batch_size, bool edge_values, bool drop_last,
         long long selected) {
        const acc::phase_units u =
            units_of(noise_multiplier, sample_rate, batch_size, dataset_size, steps, epochs,
                     sampling, neighbours, max_batch_size, drop_last, selected);
        try {
          return acc::derive_phase(u, edge_values);
        } catch (const acc::units_error& e) {
          throw py::value_error(python_message(e, u));
        }
      },
      py::arg("noise_multiplier"), py::arg("sample_rate"), py::arg("batch_size"),
      py::arg("dataset_size"), py::arg("steps"), py::arg("epochs"), py::arg("sampling"),
      py::arg("neighbours"), py::arg("max_batch_size"), py::arg("edge_values"),
      py::arg("drop_last") = false, py::arg("selected") = 1,
      "Low-level: the phase a training loop's units describe (accounting/run_units.hpp), as a "
      "PhaseDerivation: the TrainingPhase and the numbers it came from.");
  m.def(
      "steps_for_epochs_of",
      [](double epochs, const acc::phase_derivation& d) {
        try {
          return acc::steps_for_epochs(epochs, d);
        } catch (const acc::units_error& e) {
          acc::phase_units u;  // the units the derivation came from, for the message's names
          if (d.in_batches) {
            u.batch_size = d.batch_size;
            u.dataset_size = d.dataset_size;
          } else {
            u.sampling_rate = d.phase.sampling_rate;
          }
          u.sampling = d.phase.sampling;
          throw py::value_error(python_message(e, u));
        }
      },
      py::arg("epochs"), py::arg("derivation"),
      "Low-level: the steps `epochs` epochs of a derived phase take, by its scheme's rule "
      "(accounting/run_units.hpp: ceil(E*N/B) or ceil(E/q) for Poisson, ceil(E*k) with k "
      "batches per pass for a data loader's schemes).");
}

}  // namespace dpkit::python
