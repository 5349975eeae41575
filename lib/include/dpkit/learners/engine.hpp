#pragma once
// The simulator engine's names the learners are written in. The learners (glm, mlp, kan,
// longtail) are models and training loops on sim's engine: a model is a sim::model, a run is
// sim::run_noisy_gradient with sim::noisy_gradient_options. These using-declarations let their
// code say `model` and `vector` as the engine does; a caller names them through sim:: (the
// learners' own names are learners::).
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/dataset.hpp"
#include "dpkit/sim/model.hpp"

namespace dpkit::learners {

using sim::batch_rule;
using sim::check_dataset;
using sim::const_vector_ref;
using sim::dataset;
using sim::model;
using sim::noisy_gradient_options;
using sim::projection;
using sim::random_key;
using sim::run_noisy_gradient;
using sim::step_observer;
using sim::vector;
using sim::vector_ref;

}  // namespace dpkit::learners
