#pragma once
// The case file's `parallel` section (docs/halo.md#halo-exchange): the halo exchange's variant,
// transport and ghost layers. The case assembles the sections (solver/case_config.hpp).
#include <yaml-cpp/yaml.h>

#include "mesh/local_mesh.hpp"

namespace fvproxy {

/// The halo exchange's variant (parallel.halo.variant, docs/halo.md#halo-exchange): naive =
/// whole arrays through the host, blocking, no overlap; optimized = device pack/unpack, non-blocking
/// messages, inner cells computed while they fly.
enum class HaloVariant { naive, optimized };
const char* to_string(HaloVariant v);
/// How the optimized halo's packed rows travel between ranks (parallel.halo.transport,
/// docs/halo.md#transports): `automatic` ("auto") picks the fastest this build, MPI library and
/// placement allow (CUDA IPC, else MPI on the packed buffers where it can read them, else staged);
/// `ipc`: device to device through CUDA IPC (ranks of one node that see each other's GPUs);
/// `mpi`: MPI on the packed buffers (host backends; a CUDA-aware MPI); `staged`: through pinned host
/// memory. A transport that cannot be had falls back (with a message) to the best that can.
enum class HaloTransport { automatic, ipc, mpi, staged };
const char* to_string(HaloTransport t);
/// parallel.halo: the variant, for the optimized one the transport, and the ghost layers (1: the
/// gradients and limiter values exchanged after the state; 2: the state of two layers exchanged
/// once, the first layer's gradients computed here; docs/halo.md#two-ghost-layers).
struct HaloSettings {
  HaloVariant variant = HaloVariant::optimized;
  HaloTransport transport = HaloTransport::automatic;
  int layers = 1; ///< a case's default: 2 where one layer would exchange twice per stage (parse_case)
  /// Which cells the ghost layers take as neighbours (mesh/local_mesh.hpp): by faces, or by vertices (the
  /// vertex stencil's, at every cell; the corners stencil's, at the cells where its mirror patches meet),
  /// set by parse_case from operators.muscl.stencil and the boundary section.
  GhostAdjacency adjacency;
  HaloSettings() = default;
  HaloSettings(HaloVariant v, HaloTransport t = HaloTransport::automatic, int l = 1) // NOLINT
      : variant(v), transport(t), layers(l) {}
};
struct ParallelConfig {
  HaloSettings halo;
};

namespace detail {
class Reader;
}

/// `parallel` of the case root; `default_layers`: parallel.halo.layers when the case does not say
/// (the model's choice: docs/halo.md#two-ghost-layers).
ParallelConfig read_parallel_options(const detail::Reader& r, const YAML::Node& root, int default_layers);
YAML::Node parallel_options_yaml(const ParallelConfig& p);

} // namespace fvproxy
