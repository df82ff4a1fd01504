// fvproxy command-line interface: parses the command, starts MPI and Kokkos, dispatches.
#include <cstdio>
#include <iostream>
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "core/error.hpp"
#include "parallel/mpi_environment.hpp"

int main(int argc, char** argv) {
  using namespace fvproxy;
  std::vector<std::string> ours, kokkos_args;
  split_kokkos_args(argc, argv, ours, kokkos_args);
  CliArgs cli;
  try {
    cli = parse_cli(ours);
  } catch (const InputError& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
  if (cli.command == "help" || cli.help) {
    std::cout << usage();
    return 0;
  }
  MpiEnvironment mpi(argc, argv);
  int code = 0;
  {
    std::vector<char*> kargv;
    for (auto& s : kokkos_args) kargv.push_back(s.data());
    int kargc = static_cast<int>(kargv.size());
    kargv.push_back(nullptr);
    // Kokkos' start-up warnings (OMP_PROC_BIND unset, ...) go to stdout: send them to stderr, so
    // that stdout holds only what the command prints (one JSON object with --json).
    std::cout.flush();
    std::fflush(stdout);
    const int saved_stdout = dup(1);
    if (saved_stdout >= 0) dup2(2, 1);
    Kokkos::initialize(kargc, kargv.data());
    std::cout.flush();
    std::fflush(stdout);
    if (saved_stdout >= 0) {
      dup2(saved_stdout, 1);
      close(saved_stdout);
    }
    struct Finalize {
      ~Finalize() { Kokkos::finalize(); }
    } kokkos;
    try {
      code = run_command(cli, mpi);
    } catch (const InputError& e) {
      std::cerr << e.what() << '\n';
      code = 2;
    } catch (const RunError& e) {
      std::cerr << e.what() << '\n';
      code = 1;
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << '\n';
      code = 1;
    }
  }
  if (code != 0 && mpi.size() > 1) MpiEnvironment::abort(code);
  return code;
}
