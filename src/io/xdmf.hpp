#pragma once
// The XDMF (Version 3.0) file that makes mesh.h5 + fields_*.h5 one time series for ParaView and
// meshio: a temporal collection of uniform grids, each with its <Time Value>, the mixed-topology
// mesh (referenced in mesh.h5) and its cell fields (referenced in its fields file).
#include <cstdint>
#include <string>
#include <vector>

#include "io/field_file.hpp"

namespace fvproxy {

struct XdmfStep {
  std::string file; ///< fields file name, relative to the XDMF file's folder
  double time = 0;
  std::int64_t step = 0;
  std::vector<std::string> fields;
  std::vector<int> widths; ///< per field: 1, or 3 for a vector (cells, 3); empty: all 1
};

/// The XDMF text; `mesh_file` relative to the XDMF file's folder, `precision` 4 or 8.
std::string xdmf_text(const std::string& mesh_file, const MeshFileInfo& mesh, const std::vector<XdmfStep>& steps,
                      int precision);

/// A mesh alone (`fvproxy mesh --write`): one uniform grid with the cell global ids as a field.
std::string xdmf_mesh_text(const std::string& mesh_file, const MeshFileInfo& mesh);

} // namespace fvproxy
