// Registration of the dpkit subcommands (one file each). A subcommand's callback runs its
// computation and stores the process exit code in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

namespace dpkit::cli {

void register_epsilon(CLI::App& app, int& exit_code);
void register_delta(CLI::App& app, int& exit_code);
void register_calibrate(CLI::App& app, int& exit_code);
void register_rdp(CLI::App& app, int& exit_code);
void register_correlated(CLI::App& app, int& exit_code);
void register_tradeoff(CLI::App& app, int& exit_code);
void register_demo(CLI::App& app, int& exit_code);
void register_validate(CLI::App& app, int& exit_code);
/// `dpkit validate ...` in the program built without the scenarios: runs dpkit-validate in
/// place of this process (validate_forward.cpp) and returns only on failure, with the exit
/// code. std::nullopt for any other command line, and always in dpkit-validate itself.
std::optional<int> forward_validate(int argc, char** argv);
void register_plot(CLI::App& app, int& exit_code);  // any dpkit output as a figure (gnuplot)
void register_simulate(CLI::App& app, int& exit_code);
void register_audit(CLI::App& app, int& exit_code);
void register_shifted(CLI::App& app, int& exit_code);
void register_hsgd(CLI::App& app, int& exit_code);  // hsgd risk (and privacy)
void register_bound(CLI::App& app, int& exit_code);  // risk bounds of dpkit::risk

}  // namespace dpkit::cli
