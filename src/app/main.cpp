// fvproxy command-line interface: parses the command, starts MPI and Kokkos, dispatches.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <Kokkos_Core.hpp>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/run.hpp"
#include "app/tool_libraries.hpp"
#include "core/error.hpp"
#include "parallel/mpi_environment.hpp"

namespace fvproxy {

namespace {

// Kokkos::initialize; returns why it failed, on one line ("" when Kokkos started).
std::string initialize_kokkos(int kargc, char** kargv) {
  std::string failed;
  try {
    Kokkos::initialize(kargc, kargv);
  } catch (const std::exception& e) {
    // Kokkos 3.4 throws on what it cannot parse (KOKKOS_NUM_THREADS that does not match
    // --kokkos-threads, ...): bad input, said once, not an uncaught exception.
    failed = e.what();
    failed = failed.substr(0, failed.find('\n')); // Kokkos appends "Traceback functionality ..."
    if (failed.empty()) failed = "unknown error";
  }
  return failed;
}

// OpenMP thread binding left unset: say so in the environment (OMP_PROC_BIND=false, which is what
// the OpenMP runtime does when it is unset, having read its environment when the program loaded),
// so that Kokkos does not print its four-line binding advice at every start (eight blocks at -np 4)
// to users who did not ask for it. Set OMP_PROC_BIND=spread OMP_PLACES=threads to bind
// (docs/running.md#threads-and-binding); a value given is kept.
void default_thread_binding() {
  if (!std::getenv("OMP_PROC_BIND")) setenv("OMP_PROC_BIND", "false", 0);
}

// Kokkos::initialize with stdout sent to stderr meanwhile; returns initialize_kokkos's message.
std::string initialize_kokkos_on_stderr(int kargc, char** kargv) {
  // Kokkos' start-up warnings (OMP_PROC_BIND unset, ...) go to stdout: send them to stderr, so
  // that stdout holds only what the command prints (one JSON object with --json).
  std::cout.flush();
  std::fflush(stdout);
  const int saved_stdout = dup(1);
  if (saved_stdout >= 0) dup2(2, 1);
  const std::string failed = initialize_kokkos(kargc, kargv);
  std::cout.flush();
  std::fflush(stdout);
  if (saved_stdout >= 0) {
    dup2(saved_stdout, 1);
    close(saved_stdout);
  }
  return failed;
}

void report_kokkos_failure(const MpiEnvironment& mpi, const std::vector<std::string>& kokkos_args,
                           const std::string& failed) {
  if (mpi.rank() == 0) {
    std::string args;
    for (std::size_t i = 1; i < kokkos_args.size(); ++i) args += " " + kokkos_args[i];
    std::cerr << InputError("Kokkos::initialize", "Kokkos did not start: " + failed,
                            "its arguments:" + (args.empty() ? std::string(" none") : args) +
                                "; check them and the KOKKOS_* environment variables")
                     .what()
              << '\n';
  }
}

// On several ranks an error is usually met by every rank at once (the same input): rank 0
// reports it and ends the job; the others report theirs only if rank 0 has not ended it
// within a second (an error on their part alone), prefixed with their rank.
void report_error(const MpiEnvironment& mpi, std::optional<StopSignals>& stop_signals, const std::string& message) {
  // The run is over: signals act as usual again (mpirun ends the job with SIGTERM once rank 0 aborts).
  stop_signals.reset();
  if (mpi.size() > 1 && MpiEnvironment::collective_exit()) { // every rank has this error: rank 0 says it
    if (mpi.rank() == 0) std::cerr << message << '\n';
    return;
  }
  if (mpi.size() > 1 && mpi.rank() != 0) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (StopSignals::received() != 0) return; // told to end (mpirun, as rank 0 aborted) before the reset
    std::cerr << "[rank " << mpi.rank() << "] ";
  }
  std::cerr << message << '\n';
}

// The command's exit code; an error it throws is reported (report_error) as exit 2 (bad input) or 1.
int run_reporting_errors(const CliArgs& cli, MpiEnvironment& mpi, std::optional<StopSignals>& stop_signals) {
  int code = 0;
  try {
    code = run_command(cli, mpi);
  } catch (const InputError& e) {
    report_error(mpi, stop_signals, e.what());
    code = 2;
  } catch (const RunError& e) {
    report_error(mpi, stop_signals, e.what());
    code = 1;
  } catch (const std::exception& e) {
    report_error(mpi, stop_signals, std::string("error: ") + e.what());
    code = 1;
  }
  return code;
}

} // namespace

} // namespace fvproxy

int main(int argc, char** argv) {
  using namespace fvproxy;
  // A file-size limit (ulimit -f) makes write() fail with EFBIG, reported with the file's name
  // like a full disk, instead of killing the process with SIGXFSZ and leaving temporary files.
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> ours, kokkos_args;
  split_kokkos_args(argc, argv, ours, kokkos_args);
  CliArgs cli;
  try {
    cli = parse_cli(ours);
    kokkos_args = check_kokkos_args(kokkos_args);
    check_tool_libraries(kokkos_args);
  } catch (const InputError& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
  if (cli.command == "help" || cli.help) {
    std::cout << usage();
    return 0;
  }
  // fvproxy run's stop signals from before MPI and Kokkos start (a stop during set-up: exit 4).
  std::optional<StopSignals> stop_signals;
  if (cli.command == "run") stop_signals.emplace();
  MpiEnvironment mpi(argc, argv);
  int code = 0;
  {
    std::vector<char*> kargv;
    for (auto& s : kokkos_args) kargv.push_back(s.data());
    int kargc = static_cast<int>(kargv.size());
    kargv.push_back(nullptr);
    default_thread_binding();
    const std::string failed = initialize_kokkos_on_stderr(kargc, kargv.data());
    if (!failed.empty()) {
      report_kokkos_failure(mpi, kokkos_args, failed);
      return 2;
    }
    struct Finalize {
      ~Finalize() { Kokkos::finalize(); }
    } kokkos;
    code = run_reporting_errors(cli, mpi, stop_signals);
  }
  // An error on some ranks ends the job (the others may wait in a collective); a collective
  // outcome (every rank returns the same code) ends normally.
  if (code != 0 && mpi.size() > 1 && !MpiEnvironment::collective_exit()) MpiEnvironment::abort(code);
  return code;
}
