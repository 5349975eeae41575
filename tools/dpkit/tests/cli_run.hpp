// Runs the dpkit program for the CLI tests: its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace dpkit::test {

struct run_result {
  int exit_code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A path named `name` in this process's own scratch folder under the temporary directory
/// (CTest runs test cases in parallel processes, which must not share their files).
inline std::filesystem::path scratch(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("dpkit_cli_tests_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

/// Writes `text` to scratch(name) and returns the path.
inline std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto p = scratch(name);
  std::ofstream(p) << text;
  return p;
}

inline run_result dpkit_run(const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path();
  // Per-process names: CTest runs test cases in parallel processes (-j), which must not share
  // their capture files.
  const std::string tag = std::to_string(getpid());
  const auto out = dir / ("dpkit_cli_test_" + tag + ".out"),
             err = dir / ("dpkit_cli_test_" + tag + ".err");
  const std::string cmd = std::string("'") + DPKIT_CLI_PATH + "' " + args + " >'" + out.string() +
                          "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  run_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

inline std::size_t count_lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace dpkit::test
