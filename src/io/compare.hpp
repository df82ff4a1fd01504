#pragma once
// Cell-by-cell comparison of two fields or checkpoint files (docs/output.md#fvproxy-compare):
// cells matched by global id, so outputs of different orderings (and later of different rank
// counts) compare; per field the max abs difference, the max normwise-relative difference
// max|a-b| / max|b|, and the L2 (root-mean-square) difference. A field passes when
// max|a-b| <= atol + rtol max|b|; a NaN anywhere fails it. A vector's components (`v[0]`, `v[1]`,
// `v[2]`) take the vector's max|b| (the largest of its components') in place of their own.
#include <string>
#include <vector>

#include "io/field_file.hpp"

namespace fvproxy {

struct FieldDifference {
  std::string name;
  double max_abs = 0, max_rel = 0, l2 = 0, max_b = 0;
  gid_t worst_cell = -1; ///< global id of the cell with the largest difference
  bool pass = true;
  bool non_finite = false; ///< a NaN or infinity in either file
  std::string missing_in;  ///< "A" or "B": the field is only in the other file (a mismatch)
};

/// Every field of `a` and `b` (a's first, then those only in b); a field only in one of them is a
/// mismatch (`missing_in`). InputError (naming the files) when the cells differ (count or global
/// ids).
std::vector<FieldDifference> compare_fields(const FieldFile& a, const std::string& a_name, const FieldFile& b,
                                            const std::string& b_name, double rtol, double atol);

} // namespace fvproxy
