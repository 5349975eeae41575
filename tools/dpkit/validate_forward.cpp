// dpkit validate in the program built without the validation scenarios.
//
// The scenarios (validation/scenarios, about a third of the build) live in a second program,
// dpkit-validate: the same command line with the scenarios compiled in, built next to dpkit by
// the test set-up and on request (cmake --build <build> --target dpkit-validate). `dpkit
// validate ...` runs it in place of this process (exec, before MPI starts, so `mpirun dpkit
// validate` works as before), and says how to build it where it is missing. The demo set-up
// builds only dpkit, so the first run does not wait for the scenarios.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"

#ifndef DPKIT_BUILD_DIR
#define DPKIT_BUILD_DIR "<build directory>"
#endif

namespace dpkit::cli {

namespace {

// The directory of the running program (/proc/self/exe), or empty.
std::filesystem::path program_directory() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return self.parent_path();
}

}  // namespace

std::optional<int> forward_validate(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "validate") != 0) return std::nullopt;
  const std::filesystem::path helper = program_directory() / "dpkit-validate";
  std::error_code ec;
  if (!helper.empty() && std::filesystem::is_regular_file(helper, ec)) {
    std::vector<char*> args(argv, argv + argc);
    args.push_back(nullptr);
    const std::string path = helper.string();
    ::execv(path.c_str(), args.data());
    std::cerr << "dpkit validate: cannot run " << path << ": " << std::strerror(errno) << "\n";
    return kExitUsage;
  }
  std::cerr << "dpkit validate: the validation scenarios are not part of this build (the demo "
               "set-up builds only what dpkit needs). Build them once with\n"
               "  cmake --build "
            << DPKIT_BUILD_DIR
            << " --target dpkit-validate    # about 3 min on 2 cores\n"
               "(tools/bootstrap.sh test builds them too); then run the same command again.\n";
  return kExitUsage;
}

// Listed with the other subcommands (dpkit alone, dpkit --help); never parsed here, since
// forward_validate has already handed `dpkit validate ...` to dpkit-validate.
void register_validate(CLI::App& app, int& /*exit_code*/) {
  app.add_subcommand("validate",
                     "Check theorems against the reference simulator: a scoreboard of verdicts "
                     "(holds / violated / inconclusive / refuted) with tightness, and "
                     "per-scenario JSON, CSV and figures")
      ->allow_extras();
}

}  // namespace dpkit::cli
