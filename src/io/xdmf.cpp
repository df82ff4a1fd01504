#include "io/xdmf.hpp"

#include <cstdio>
#include <sstream>

namespace fvproxy {

namespace {

std::string escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    switch (c) {
    case '&': r += "&amp;"; break;
    case '<': r += "&lt;"; break;
    case '>': r += "&gt;"; break;
    case '"': r += "&quot;"; break;
    default: r += c;
    }
  }
  return r;
}

void mesh_items(std::ostringstream& o, const std::string& mesh_file, const MeshFileInfo& m, const char* indent) {
  const std::string f = escape(mesh_file);
  o << indent << "<Topology TopologyType=\"Mixed\" NumberOfElements=\"" << m.cells << "\">\n"
    << indent << "  <DataItem Dimensions=\"" << m.topology_length
    << "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">" << f << ":/mesh/topology</DataItem>\n"
    << indent << "</Topology>\n"
    << indent << "<Geometry GeometryType=\"XYZ\">\n"
    << indent << "  <DataItem Dimensions=\"" << m.nodes << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
    << f << ":/mesh/nodes</DataItem>\n"
    << indent << "</Geometry>\n";
}

std::string time_string(double t) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", t);
  return buf;
}

} // namespace

std::string xdmf_text(const std::string& mesh_file, const MeshFileInfo& m, const std::vector<XdmfStep>& steps,
                      int precision) {
  std::ostringstream o;
  o << "<?xml version=\"1.0\" ?>\n"
    << "<Xdmf Version=\"3.0\">\n"
    << "  <Domain>\n"
    << "    <Grid Name=\"TimeSeries\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const XdmfStep& s : steps) {
    o << "      <Grid Name=\"step_" << s.step << "\" GridType=\"Uniform\">\n"
      << "        <Time Value=\"" << time_string(s.time) << "\"/>\n";
    mesh_items(o, mesh_file, m, "        ");
    for (std::size_t k = 0; k < s.fields.size(); ++k) {
      const std::string& name = s.fields[k];
      const int width = k < s.widths.size() ? s.widths[k] : 1; // 3: a (cells, 3) vector dataset
      o << "        <Attribute Name=\"" << escape(name) << "\" AttributeType=\"" << (width == 3 ? "Vector" : "Scalar")
        << "\" Center=\"Cell\">\n"
        << "          <DataItem Dimensions=\"" << m.cells << (width == 3 ? " 3" : "")
        << "\" NumberType=\"Float\" Precision=\"" << precision << "\" Format=\"HDF\">" << escape(s.file) << ":/fields/"
        << escape(name) << "</DataItem>\n"
        << "        </Attribute>\n";
    }
    o << "      </Grid>\n";
  }
  o << "    </Grid>\n"
    << "  </Domain>\n"
    << "</Xdmf>\n";
  return o.str();
}

std::string xdmf_mesh_text(const std::string& mesh_file, const MeshFileInfo& m) {
  std::ostringstream o;
  o << "<?xml version=\"1.0\" ?>\n"
    << "<Xdmf Version=\"3.0\">\n"
    << "  <Domain>\n"
    << "    <Grid Name=\"mesh\" GridType=\"Uniform\">\n";
  mesh_items(o, mesh_file, m, "      ");
  o << "      <Attribute Name=\"global_id\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
    << "        <DataItem Dimensions=\"" << m.cells << "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">"
    << escape(mesh_file) << ":/cells/global_id</DataItem>\n"
    << "      </Attribute>\n"
    << "    </Grid>\n"
    << "  </Domain>\n"
    << "</Xdmf>\n";
  return o.str();
}

} // namespace fvproxy
