// dpkit — command-line front end. See docs/cli.md for the contract and examples.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/core/version.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "vocabulary.hpp"

namespace {

std::string subcommand_path(const CLI::App& app) {
  std::string path = "dpkit";
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) {
    at = at->get_subcommands().front();
    path += " " + at->get_name();
  }
  return path;
}

// The deepest subcommand given (its flags name the parameters of library messages).
const CLI::App* active_subcommand(const CLI::App& app) {
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  return at;
}

// One line: CLI11 says "--delta: is 1.5, but ..." for our validators; join it as
// "--delta is 1.5, but ..." to match the library's check_* messages.
std::string one_line(std::string message) {
  const auto colon = message.find(": is ");
  if (colon != std::string::npos && message.rfind("--", 0) == 0) message.erase(colon, 1);
  // Line breaks and every other control character (a cell of a binary file quoted back, say)
  // become spaces: the message stays one line on any terminal.
  for (char& c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return message;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace dpkit::cli;
  // dpkit validate in a build without the scenarios: dpkit-validate takes over (before MPI).
  if (const auto forwarded = forward_validate(argc, argv)) return *forwarded;
  // mpirun over a build without MPI would run the whole command once per rank, each printing
  // and writing the same files: say so instead.
  if (!dpkit::sim::built_with_mpi() && dpkit::sim::mpi_session::launched_ranks() > 1) {
    std::cerr << "dpkit: this dpkit was built without MPI, so mpirun would run "
              << dpkit::sim::mpi_session::launched_ranks()
              << " independent copies of the command; install libopenmpi-dev and openmpi-bin "
                 "and build again (tools/bootstrap.sh demo does), or run without mpirun\n";
    return kExitUsage;
  }
  // Under mpirun (a build with DPKIT_WITH_MPI), every rank runs the same command and the Monte
  // Carlo replicates are sharded over the ranks; only rank 0 prints and writes files.
  dpkit::sim::mpi_session mpi(argc, argv);
  std::ostringstream discarded;
  struct restore_streams {  // std::cout is flushed after main returns: give its buffer back
    std::streambuf* out = std::cout.rdbuf();
    std::streambuf* err = std::cerr.rdbuf();
    ~restore_streams() {
      std::cout.rdbuf(out);
      std::cerr.rdbuf(err);
    }
  } restore;
  if (mpi.rank() != 0) {
    set_output_rank(false);
    std::cout.rdbuf(discarded.rdbuf());
    std::cerr.rdbuf(discarded.rdbuf());
  }
  CLI::App app{
      "dpkit: privacy accounting and theory of differentially private training.\n"
      "Every privacy number is labelled: upper-bound, lower-bound, estimate or approximation."};
  app.name("dpkit");
  app.set_version_flag(
      "--version",
      "dpkit " + std::string(dpkit::version()) + " (git " + std::string(dpkit::git_hash()) + ")",
      "Print the version and git hash, then exit");
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  dpkit epsilon --dataset-size 60000 --batch-size 256 --epochs 60 --noise-multiplier 1.1 "
      "--delta 1e-5\n"
      "  dpkit epsilon --noise-multiplier 20 --full-batch --steps 400 --delta 1e-5 --accountant "
      "all\n"
      "  dpkit calibrate --epsilon 2 --delta 1e-5 --sampling-rate 0.01 --steps 10000\n"
      "  dpkit shifted noisy-gd --sensitivity 1 --dataset-size 1 --noise-std 1 --contraction 0.95 "
      "--steps 100\n"
      "  dpkit bound --list\n"
      "  dpkit bound mlp-thm13 --dataset-size 60000 --width 256\n"
      "  dpkit simulate --algorithm sgd --batch-size 10 --noise-std 0.5 --steps 200\n"
      "  dpkit validate --all\n"
      "  dpkit demo\n"
      "Exit codes: 0 success, 1 numerical failure, 2 bad input or usage, 3 validation failed.\n"
      "Run 'dpkit <subcommand> --help' for the options of a subcommand; docs/cli.md has more.");

  int exit_code = kExitSuccess;
  register_epsilon(app, exit_code);
  register_delta(app, exit_code);
  register_calibrate(app, exit_code);
  register_rdp(app, exit_code);
  register_correlated(app, exit_code);
  register_tradeoff(app, exit_code);
  register_demo(app, exit_code);
  register_shifted(app, exit_code);
  register_hsgd(app, exit_code);
  register_bound(app, exit_code);
  register_simulate(app, exit_code);
  register_audit(app, exit_code);
  register_validate(app, exit_code);
  register_plot(app, exit_code);

  if (argc == 1) {
    // dpkit alone: what it can do, one line per subcommand.
    std::cout << "dpkit " << dpkit::version()
              << ": privacy accounting and theory of differentially private training.\n\n"
                 "Usage: dpkit <subcommand> [flags]   (dpkit <subcommand> --help for its flags)\n\n"
                 "Subcommands:\n"
              << subcommand_list(app)
              << "\nExample: dpkit epsilon --dataset-size 60000 --batch-size 256 --epochs 60 "
                 "--noise-multiplier 1.1 --delta 1e-5\n";
    return kExitSuccess;
  }
  std::vector<std::string> subcommand_names;
  for (const CLI::App* sub : app.get_subcommands({})) subcommand_names.push_back(sub->get_name());
  if (argv[1][0] != '-') {
    const std::string name = argv[1];
    if (std::find(subcommand_names.begin(), subcommand_names.end(), name) ==
        subcommand_names.end()) {
      const std::string guess = closest(name, subcommand_names);
      std::cerr << "dpkit: unknown subcommand '" << name << "'"
                << (guess.empty() ? "" : " (did you mean " + guess + "?)")
                << "; run dpkit alone for the list\n";
      return kExitUsage;
    }
  }
  // Old flag names of the one vocabulary (docs/cli.md) still work, with a note.
  std::vector<std::string> alias_notes;
  std::vector<std::string> args =
      apply_aliases(std::vector<std::string>(argv, argv + argc), alias_notes);
  for (const std::string& n : alias_notes)
    std::cerr << "dpkit " << args[1] << ": note: " << n << " (the old name will go)\n";
  std::vector<char*> arg_pointers;
  for (std::string& a : args) arg_pointers.push_back(a.data());

  try {
    app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    // An unknown flag: name it, with the closest flag of this subcommand.
    std::string message = one_line(e.what());
    std::istringstream words(message.substr(message.find(':') + 1));
    std::string word, unknown;
    while (words >> word)
      if (word.rfind("-", 0) == 0) unknown = word.substr(0, word.find('='));
    if (!unknown.empty()) {
      std::vector<std::string> names = flag_names(*active_subcommand(app));
      const std::string guess = closest(unknown, names);
      message = "unknown flag " + unknown +
                (guess.empty() ? "" : " (did you mean " + guess + "?)") + "; see " +
                subcommand_path(app) + " --help";
    }
    std::cerr << subcommand_path(app) << ": " << message << "\n";
    return kExitUsage;
  } catch (const CLI::ArgumentMismatch& e) {
    // CLI11 words a repeated flag "--steps: At Most 1 required but received 2" (its own text,
    // as for ExtrasError above): say it in ours.
    const std::string message = one_line(e.what());
    const auto colon = message.find(':');
    const std::string flag = message.substr(0, colon);
    if (colon != std::string::npos &&
        message.find("At Most 1 required", colon) != std::string::npos)
      std::cerr << subcommand_path(app) << ": " << flag
                << " is given more than once; give it once\n";
    else
      std::cerr << subcommand_path(app) << ": " << message << "\n";
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    if (app.get_subcommands().empty()) {
      std::cerr << "dpkit: a subcommand is required (" << one_line(e.what())
                << "); run dpkit alone for the list\n";
    } else {
      std::cerr << subcommand_path(app) << ": " << one_line(e.what()) << "\n";
    }
    return kExitUsage;
  } catch (const numerical_failure& e) {
    // A computation that did not converge or diverged: exit 1, and no "internal error".
    std::cerr << subcommand_path(app) << ": " << one_line(e.what()) << "\n";
    return kExitNumericalFailure;
  } catch (const usage_error& e) {
    std::cerr << subcommand_path(app) << ": " << one_line(e.what()) << "\n";
    return kExitUsage;
  } catch (const dpkit::argument_error& e) {
    // Bad input that passed the flag validators but not a library check_*: in the user's terms,
    // from the error's fields (the argument's name as the flag where there is one).
    std::cerr << subcommand_path(app) << ": "
              << one_line(argument_message(e, active_subcommand(app))) << "\n";
    return kExitUsage;
  } catch (const std::domain_error& e) {
    // Other bad input the library refused (its message, without the function's name).
    std::cerr << subcommand_path(app) << ": " << one_line(library_reason(e, active_subcommand(app)))
              << "\n";
    return kExitUsage;
  } catch (const std::length_error& e) {
    // A size the input asks for that cannot be allocated (an FFT beyond --max-fft-size, a
    // vector beyond the address space): the input's limit, not an internal error.
    std::cerr << subcommand_path(app) << ": the input asks for more memory than can be used: "
              << one_line(library_reason(e, active_subcommand(app)))
              << " (see --help for the limits)\n";
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << subcommand_path(app)
              << ": the input asks for more memory than is available (see --help for the "
                 "limits)\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << subcommand_path(app) << ": internal error: " << one_line(e.what()) << "\n";
    return kExitNumericalFailure;
  }
  return exit_code;
}
