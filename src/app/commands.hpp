#pragma once
#include "app/cli.hpp"
#include "parallel/mpi_environment.hpp"

namespace fvproxy {
/// Runs the parsed command; returns the exit code. Errors are thrown (InputError, RunError).
int run_command(const CliArgs& cli, const MpiEnvironment& mpi);
} // namespace fvproxy
