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
      {"wsk26-correlated-kappa-grid", 0.4},
      {"wsk26-correlated-privacy-mc", 1.6},
      {"wsk26-dplcgd-kan-horizon", 1.5},
      {"wsk26-dplcgd-kan-sample-size", 6.7},
      {"wsk26-dplcgd-kan-trends", 4.9},
      {"wsk26-lemmaB6-B7-random-kan", 0.5},
      {"swx23-alg10-clip-flat", 2.2},
      {"swx23-alg10-steps-ushape", 2.3},
      {"swx23-alg10-width-ushape", 5.1},
      {"swx23-fig1-ntrf", 5.4},
      {"swx23-fig5-sample-size", 3.5},
      {"swx23-lemma20-22-init", 1.3},
      {"swx23-lemma4-6-moreau", 0.7},
      {"swx23-thm1-phase-sum", 0.7},
      {"swx23-thm1-rate", 2.1},
      {"swx23-thm1-theta-not-d", 1.5},
      {"swx23-thm2-alg3-rate", 3.4},
      {"swx23-thm2-jl-ushape", 1.5},
      {"swx23-thm4-alg5-rate", 0.6},
      {"swx23-thm6-alg7-rate", 2.4},
      {"swx23-thm6-steps-ushape", 1.5},
      {"swx23-thm7-alg8-contraction", 1.1},
      {"swx23-thm7-alg8-dimension", 0.9},
      {"bsa24-cor5.2-lmc-logistic", 0.8},
      {"bsa24-cor5.4-lmc-box", 2.0},
      {"bsa24-fig1-noisy-gd", 0.4},
      {"bsa24-fig6-noisy-gd", 1.4},
      {"bsa24-fig8-noisy-cgd", 0.6},
      {"bsa24-rem5.3-lmc", 0.6},
      {"bsa24-thm4.10-box", 1.7},
      {"bsa24-thm4.2-logistic", 0.6},
      {"bsa24-thm4.3-logistic", 1.7},
      {"bsa24-thm4.6-logistic", 1.4},
      {"bsa24-thm4.8-linear", 0.9},
      {"bsa24-thm4.9-logistic", 0.8},
      {"zxd26-fig-synthetic", 1.7},
      {"zxd26-init-lemmas", 1.6},
      {"zxd26-lemma21-dynamics", 2.3},
      {"zxd26-lemma23-24-trained", 1.1},
      {"zxd26-remark4-calibrated", 4.2},
      {"zxd26-thm1-memorisation", 1.9},
      {"zxd26-thm2-loss-floor", 0.7},
      {"zxd26-thm2-plateau-scaling", 2.2},
      {"zxd26-thm3-tail-L", 1.6},
      {"zxd26-thm3-tail-gap", 2.2},
      {"lksp25-fig1a-mahalanobis", 1.4},
      {"lksp25-fig2a-risk", 8.4},
      {"lksp25-fig3a-clipped", 3.9},
      {"lksp25-privacy-last-iterate", 2.5},
      {"lksp25-privacy-fixed-pair-exact", 1.2},
      {"lksp25-privacy-fixed-pair", 1.2},
      {"lksp25-risk-concentration", 1.8},
      {"lksp25-risk-hsgd", 0.8},
      {"lksp25-risk-sgd", 1.5},
  };
  return list;
}

}  // namespace dpkit::validation
