// How long each scenario's quick tier takes, in seconds on one core of the 2-core reference
// machine (docs/performance.md), measured by `dpkit validate --all --no-figures` at seed 2026
// (the `seconds` column; re-measure when a quick size changes). `dpkit validate` starts the
// longest scenarios first, so that scenarios run side by side finish together instead of one
// long scenario running alone at the end. A scheduling hint only: no result depends on it, and a
// scenario not listed (under half a second) starts after the listed ones, in id order.
#include "../harness/harness.hpp"

namespace dpkit::validation {

const std::vector<std::pair<std::string, double>>& quick_costs() {
  static const std::vector<std::pair<std::string, double>> list = {
      {"000-correlated-kappa-grid", 0.7},
      {"000-correlated-privacy-mc", 1.5},
      {"000-dplcgd-kan-horizon", 1.8},
      {"000-dplcgd-kan-sample-size", 7.0},
      {"000-dplcgd-kan-trends", 4.9},
      {"000-lemmaB6-B7-random-kan", 0.5},
      {"001-alg10-clip-flat", 2.3},
      {"001-alg10-steps-ushape", 2.3},
      {"001-alg10-width-ushape", 5.4},
      {"001-fig1-ntrf", 3.8},
      {"001-fig5-sample-size", 3.6},
      {"001-lemma20-22-init", 1.2},
      {"001-lemma4-6-moreau", 0.6},
      {"001-thm1-phase-sum", 0.7},
      {"001-thm1-rate", 2.0},
      {"001-thm1-theta-not-d", 1.6},
      {"001-thm2-alg3-rate", 4.5},
      {"001-thm2-jl-ushape", 1.9},
      {"001-thm4-alg5-rate", 0.6},
      {"001-thm6-alg7-rate", 2.1},
      {"001-thm6-steps-ushape", 1.8},
      {"001-thm7-alg8-contraction", 1.2},
      {"001-thm7-alg8-dimension", 1.4},
      {"002-cor5.2-lmc-logistic", 0.9},
      {"002-cor5.4-lmc-box", 1.8},
      {"002-fig1-noisy-gd", 0.5},
      {"002-fig6-noisy-gd", 2.0},
      {"002-fig8-noisy-cgd", 0.9},
      {"002-rem5.3-lmc", 0.9},
      {"002-thm4.10-box", 1.8},
      {"002-thm4.2-logistic", 0.8},
      {"002-thm4.3-logistic", 1.6},
      {"002-thm4.6-logistic", 1.3},
      {"002-thm4.8-linear", 1.2},
      {"002-thm4.9-logistic", 1.0},
      {"003-fig-synthetic", 1.8},
      {"003-init-lemmas", 1.0},
      {"003-lemma21-dynamics", 2.5},
      {"003-lemma23-24-trained", 2.0},
      {"003-remark4-calibrated", 4.1},
      {"003-thm1-memorisation", 2.1},
      {"003-thm2-loss-floor", 0.9},
      {"003-thm2-plateau-scaling", 2.4},
      {"003-thm3-tail-L", 2.0},
      {"003-thm3-tail-gap", 2.3},
      {"004-fig1a-mahalanobis", 1.5},
      {"004-fig2a-seed-risk", 9.5},
      {"004-fig3a-clipped", 3.9},
      {"004-privacy-last-iterate", 2.6},
      {"004-risk-concentration", 1.8},
      {"004-risk-hsgd", 1.0},
      {"004-risk-sgd", 1.7},
  };
  return list;
}

}  // namespace dpkit::validation
