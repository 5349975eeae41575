// Internal to the paper layer of dpkit simulate (simulate_papers.hpp): what its files share
// (simulate_papers.cpp: the algorithm table, the report helpers, the options and the dispatch;
// simulate_papers_glm.cpp: SWX+23's GLM learners, Algorithms 1–3 and 5–9;
// simulate_papers_networks.cpp: SWX+23's Algorithm 10 and ZXD+26's long-tail DP-SGD).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "simulate_papers.hpp"

namespace dpkit::cli::detail::papers {

// Streams of a replicate r (random.hpp convention): the algorithms use stream_base 0 (streams 2,
// 3 and 5); the data use 10 (features), 11 (labels), 12 (risk evaluation), 13 (initialisation),
// 14 (test data), so nothing is shared between them.
constexpr std::uint64_t kFeatures = 10, kLabels = 11, kEvaluation = 12, kInit = 13, kTest = 14;

struct algorithm_info {
  const char* name;
  const char* source;
  const char* family;  // glm, relu-pgd, adaptive, mlp, longtail
};

const algorithm_info& info_of(const std::string& name);

/// One table row per observable: mean with a normal-approximation 95 % interval, sd, min, max.
void summarise(const sim::monte_carlo_result& res,
               const std::vector<std::string>& descriptions,
               report& rep);

sim::monte_carlo_options mc_of(const paper_common_options& c);

// The run of a paper algorithm: sim::run_monte_carlo with every observable's per-replicate
// values kept when --samples asks for them.
sim::monte_carlo_result run_replicates(const paper_common_options& c,
                                       std::vector<sim::observable> obs,
                                       const sim::replicate_function& replicate);

// Emits a paper run's report (emit_simulation, `non_finite` the observables judged), then
// writes its --samples file, as the generic runs do; returns the exit status.
int emit_paper_run(const paper_common_options& c,
                   report& rep,
                   const sim::monte_carlo_result& mc,
                   const std::string& non_finite);

// A usage error naming the first option given that the algorithm does not use (the generic
// ones no paper algorithm uses, and those of `also_unsupported` among `given`).
void reject_unsupported(const paper_common_options& c,
                        const std::vector<std::string>& also_unsupported,
                        const std::vector<std::string>& given);

// The generic options given on the command line, by flag.
std::vector<std::string> given_of(const paper_common_options& c);

// The privacy report as rep.parameters["privacy"] and its summary as a note.
void add_privacy_note(report& rep, const json& privacy);

// The runs of each family of algorithms (the report emitted; the exit code returned).
int run_glm(const paper_common_options& c, const paper_options& o);   // SWX+23 Algs 1-3, 5, 6, 9
int run_relu(const paper_common_options& c, const paper_options& o);  // SWX+23 Algs 7, 8
int run_mlp(const paper_common_options& c, const paper_options& o);   // SWX+23 Alg 10
int run_longtail(const paper_common_options& c, const paper_options& o);  // ZXD+26

}  // namespace dpkit::cli::detail::papers
