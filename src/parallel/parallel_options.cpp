// The `parallel` section: the halo exchange's variant, transport and ghost layers
// (docs/halo.md#halo-exchange).
#include "parallel/parallel_options.hpp"

#include <string>
#include <vector>

#include "core/config_reader.hpp"

namespace fvproxy {

using detail::Reader;

const char* to_string(HaloVariant v) {
  return v == HaloVariant::naive ? "naive" : "optimized";
}
const char* to_string(HaloTransport t) {
  switch (t) {
  case HaloTransport::automatic: return "auto";
  case HaloTransport::ipc: return "ipc";
  case HaloTransport::mpi: return "mpi";
  case HaloTransport::staged: return "staged";
  }
  return "?";
}

ParallelConfig read_parallel_options(const Reader& r, const YAML::Node& root, int default_layers) {
  ParallelConfig c;
  c.halo.layers = default_layers;
  if (const YAML::Node p = root["parallel"]) {
    r.check_keys(p, "parallel", {"halo"});
    if (const YAML::Node h = p["halo"]) {
      r.check_keys(h, "parallel.halo", {"variant", "transport", "layers"});
      if (h["variant"])
        c.halo.variant = r.enum_value(h["variant"], "parallel.halo.variant",
                                      std::vector<HaloVariant>{HaloVariant::naive, HaloVariant::optimized});
      if (h["transport"])
        c.halo.transport = r.enum_value(h["transport"], "parallel.halo.transport",
                                        std::vector<HaloTransport>{HaloTransport::automatic, HaloTransport::ipc,
                                                                   HaloTransport::mpi, HaloTransport::staged});
      if (h["layers"]) {
        const long long v = r.int_value(h["layers"], "parallel.halo.layers");
        if (v != 1 && v != 2)
          r.fail(h["layers"], "parallel.halo.layers", "must be 1 or 2, not " + std::to_string(v),
                 "1: the gradients and limiter values exchanged after the state; 2: the state of two ghost layers, "
                 "the first layer's gradients computed locally (docs/halo.md#two-ghost-layers)");
        c.halo.layers = static_cast<int>(v);
      }
    }
  }
  return c;
}

YAML::Node parallel_options_yaml(const ParallelConfig& p) {
  YAML::Node n;
  n["halo"]["variant"] = to_string(p.halo.variant);
  n["halo"]["transport"] = to_string(p.halo.transport);
  n["halo"]["layers"] = p.halo.layers;
  return n;
}

} // namespace fvproxy
