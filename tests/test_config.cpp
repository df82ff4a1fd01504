// Configuration: typed values, defaults, and errors naming file:line, key path and suggestions.
#include "solver/case_config.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

using test::expect_input_error;

CaseConfig parse(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  ConfigSource src = ConfigSource::from_string(yaml, "case.yaml");
  for (const auto& s : sets) src.apply_set(s);
  return parse_case_mesh(src);
}

TEST(Config, DefaultsAndValues) {
  const CaseConfig c = parse("mesh:\n  generate:\n    cells: [4, 5, 6]\n");
  EXPECT_EQ(c.name, "case"); // file stem
  ASSERT_TRUE(c.mesh.generate.has_value());
  const BoxConfig& b = *c.mesh.generate;
  EXPECT_EQ(b.cells, (std::array<int, 3>{4, 5, 6}));
  EXPECT_EQ(b.element, ElementKind::hex);
  EXPECT_EQ(b.lengths, (std::array<double, 3>{1, 1, 1}));
  EXPECT_EQ(b.perturb, 0.0);
  EXPECT_EQ(b.periodic, (std::array<bool, 3>{false, false, false}));
  EXPECT_EQ(c.mesh.reorder, Ordering::zorder);
  EXPECT_EQ(c.mesh.reorder_seed, 1u);

  const CaseConfig d = parse(
      "case: other\nmesh:\n  generate: {cells: [3, 2, 3], element: prism, lengths: [2, 1, 0.5], origin: [-1, 0, 0],"
      " perturb: 0.3, periodic: [z, x], seed: 9}\n  reorder: random\n  reorder_seed: 3\nphysics: {anything: 1}\n");
  EXPECT_EQ(d.name, "other");
  EXPECT_EQ(d.mesh.generate->element, ElementKind::prism);
  EXPECT_EQ(d.mesh.generate->periodic, (std::array<bool, 3>{true, false, true}));
  EXPECT_EQ(d.mesh.generate->origin[0], -1.0);
  EXPECT_EQ(d.mesh.generate->seed, 9u);
  EXPECT_EQ(d.mesh.reorder, Ordering::random);
  EXPECT_EQ(d.mesh.reorder_seed, 3u);
}

TEST(Config, SetOverridesAndCreatesKeys) {
  const CaseConfig c = parse("mesh:\n  generate:\n    cells: [4, 4, 4]\n",
                             {"mesh.generate.cells=[8,9,10]", "mesh.reorder=hilbert", "case=x1"});
  EXPECT_EQ(c.mesh.generate->cells, (std::array<int, 3>{8, 9, 10}));
  EXPECT_EQ(c.mesh.reorder, Ordering::hilbert);
  EXPECT_EQ(c.name, "x1");
  // The resolved configuration round-trips through the parser.
  YAML::Emitter out;
  out << c.resolved();
  const CaseConfig r = parse(out.c_str());
  EXPECT_EQ(r.mesh.generate->cells, c.mesh.generate->cells);
  EXPECT_EQ(r.mesh.reorder, Ordering::hilbert);
}

TEST(Config, UnknownKeysSuggestTheClosest) {
  expect_input_error([] { parse("mesh:\n  generate:\n    cels: [4, 4, 4]\n"); },
                     {"case.yaml:3:5:", "unknown key 'mesh.generate.cels'", "did you mean 'mesh.generate.cells'?",
                      "valid keys of 'mesh.generate'"});
  expect_input_error([] { parse("mesg:\n  generate: {cells: [1, 1, 1]}\n"); },
                     {"case.yaml:1:1:", "unknown key 'mesg'", "did you mean 'mesh'?"});
  expect_input_error([] { parse("mesh:\n  generate: {cells: [1, 1, 1]}\n  reorder: zordr\n"); },
                     {"case.yaml:3:12:", "mesh.reorder: invalid value 'zordr'; did you mean 'zorder'?",
                      "none | zorder | hilbert | rcm | random"});
  expect_input_error([] { parse("mesh:\n  generate: {cells: [1, 1, 1], element: pyramid}\n"); },
                     {"mesh.generate.element: invalid value 'pyramid'", "hex | tet | prism"});
}

TEST(Config, TypeRangeAndRequiredErrors) {
  expect_input_error([] { parse("mesh:\n  generate:\n    cells: [4, x, 4]\n"); },
                     {"case.yaml:3:16:", "mesh.generate.cells[1]: expected an integer", "got 'x'"});
  expect_input_error([] { parse("mesh:\n  generate:\n    cells: [4, 2.5, 4]\n"); }, {"not a whole number"});
  expect_input_error([] { parse("mesh:\n  generate:\n    cells: [4, 4]\n"); },
                     {"mesh.generate.cells: expected a list of 3 integers"});
  expect_input_error([] { parse("mesh:\n  generate:\n    cells: [4, 0, 4]\n"); },
                     {"mesh.generate.cells[1]: value 0 out of range"});
  expect_input_error([] { parse("mesh:\n  generate:\n    cells: [4, 4, 4]\n    perturb: 0.5\n"); },
                     {"case.yaml:4:14:", "mesh.generate.perturb: value 0.5 out of range", "0 <= perturb <= 0.3"});
  expect_input_error([] { parse("mesh:\n  generate:\n    cells: [4, 4, 4]\n    lengths: [1, -1, 1]\n"); },
                     {"mesh.generate.lengths[1]: must be > 0"});
  expect_input_error([] { parse("mesh:\n  generate:\n    element: tet\n"); },
                     {"case.yaml:3:5:", "mesh.generate.cells: required key missing"});
  expect_input_error([] { parse("case: x\n"); }, {"mesh: required section missing"});
  expect_input_error([] { parse("mesh:\n  reorder: none\n"); }, {"mesh: one of 'generate' or 'file' is required"});
  expect_input_error([] { parse("mesh:\n  file: a.msh\n  generate: {cells: [1, 1, 1]}\n"); },
                     {"give exactly one of 'generate' and 'file'"});
  expect_input_error([] { parse("mesh:\n  generate: {cells: [1, 4, 4], periodic: [x]}\n"); },
                     {"mesh.generate.periodic[0]: a periodic axis needs at least 3 cells"});
  expect_input_error([] { parse("mesh:\n  generate: {cells: [4, 4, 2], periodic: [x, z]}\n"); },
                     {"mesh.generate.periodic[1]: a periodic axis needs at least 3 cells",
                      "mesh.generate.cells[2] = 2 at case.yaml:2:"});
  expect_input_error([] { parse("mesh:\n  generate: {cells: [3, 4, 4], periodic: [x, w]}\n"); },
                     {"mesh.generate.periodic[1]: invalid axis 'w'"});
  expect_input_error([] { parse("mesh:\n  generate: {cells: [3, 4, 4], periodic: [x, x]}\n"); }, {"listed twice"});
  expect_input_error([] { parse("case: a/b\nmesh:\n  generate: {cells: [2, 4, 4]}\n"); }, {"invalid case name 'a/b'"});
  // The default name is the file's stem; an unusable stem is reported against the file.
  expect_input_error(
      [] { parse_case_mesh(ConfigSource::from_string("mesh:\n  generate: {cells: [2, 4, 4]}\n", "my case.yaml")); },
      {"my case.yaml: error: case: invalid case name 'my case'"});
  expect_input_error([] { parse("mesh:\n  file: does_not_exist.msh\n"); },
                     {"case.yaml:2:9:", "mesh.file: mesh file 'does_not_exist.msh' not found"});
  expect_input_error([] { parse("mesh:\n  generate: {cells: [4096, 4096, 4096], element: tet}\n"); },
                     {"too many cells for 32-bit local indices"});
}

TEST(Config, SyntaxAndSetErrorsAreLocated) {
  expect_input_error([] { parse("mesh:\n  generate:\n    cells: [4, 4, 4\n  reorder: none\n"); },
                     {"case.yaml:", "YAML syntax error"});
  expect_input_error([] { parse("- a\n- b\n"); }, {"the case file must be a YAML mapping"});
  expect_input_error([] { parse("mesh:\n  generate:\n    cells: [4, 4, 4]\n", {"mesh.generate.cells=[4,x,4]"}); },
                     {"--set mesh.generate.cells=[4,x,4]: error: mesh.generate.cells[1]: expected an integer"});
  expect_input_error([] { parse("mesh:\n  generate:\n    cells: [4, 4, 4]\n", {"mesh.generate.seed"}); },
                     {"--set mesh.generate.seed", "expected KEY=VALUE"});
  expect_input_error([] { parse("mesh:\n  generate:\n    cells: [4, 4, 4]\n", {"mesh..seed=1"}); },
                     {"empty component in key path"});
  expect_input_error([] { parse("mesh:\n  generate:\n    cells: [4, 4, 4]\n", {"mesh.generate.perturb=[1"}); },
                     {"VALUE is not valid YAML"});
  expect_input_error([] { ConfigSource::from_file("/nonexistent/case.yaml"); },
                     {"/nonexistent/case.yaml: error: cannot open the case file"});
}

TEST(Config, DuplicateKeysSecondDocumentsAndComplexKeysAreRefused) {
  // yaml-cpp keeps both pairs of a repeated key and lookups see only the first: refused, naming both.
  expect_input_error([] { parse("mesh:\n  generate: {cells: [4, 4, 4]}\n  reorder: none\n  reorder: hilbert\n"); },
                     {"case.yaml:4:3:", "key 'mesh.reorder' given twice: here and at case.yaml:3:3"});
  expect_input_error([] { parse("mesh:\n  generate: {cells: [4, 4, 4]}\nmesh:\n  reorder: none\n"); },
                     {"case.yaml:3:1:", "key 'mesh' given twice: here and at case.yaml:1:1"});
  expect_input_error([] { parse("mesh:\n  generate: {cells: [4, 4, 4], cells: [8, 8, 8]}\n"); },
                     {"case.yaml:2:32:", "key 'mesh.generate.cells' given twice: here and at case.yaml:2:14"});
  // in a list's mappings too, with the index in the path
  expect_input_error(
      [] { parse("mesh:\n  generate: {cells: [4, 4, 4]}\ninitial:\n  - {type: constant, type: sine}\n"); },
      {"key 'initial[0].type' given twice"});
  // The same key in two different mappings is fine.
  EXPECT_NO_THROW(parse("mesh:\n  generate: {cells: [4, 4, 4], seed: 2}\n  reorder_seed: 2\n"));
  // --set VALUE with a repeated key in a flow mapping: names the --set and the columns.
  expect_input_error(
      [] { parse("mesh:\n  generate: {cells: [4, 4, 4]}\n", {"mesh.generate={cells: [4,4,4], cells: [5,5,5]}"}); },
      {"--set mesh.generate={cells: [4,4,4], cells: [5,5,5]}: error:",
       "key 'mesh.generate.cells' given twice in VALUE (columns 2 and 18)"});
  // A second document: yaml-cpp reads the first only.
  expect_input_error([] { parse("mesh:\n  generate: {cells: [4, 4, 4]}\n---\nmesh:\n  reorder: none\n"); },
                     {"case.yaml:3:1:", "a second YAML document in the case file"});
  expect_input_error([] { parse("mesh:\n  generate: {cells: [4, 4, 4]}\n", {"mesh.reorder=none\n---\nx"}); },
                     {"--set mesh.reorder=none", "VALUE holds a second YAML document"});
  // a syntax error in the second document is no longer unseen
  expect_input_error([] { parse("mesh:\n  generate: {cells: [4, 4, 4]}\n---\n[1, 2\n"); },
                     {"case.yaml:", "YAML syntax error"});
  // A list or mapping as a key.
  expect_input_error([] { parse("mesh:\n  generate: {cells: [4, 4, 4]}\n? [a, b]\n: 1\n"); },
                     {"case.yaml:3:3:", "a key of the top level is not a plain name"});
  // An alias to a scalar as a key counts as that key.
  expect_input_error([] { parse("mesh:\n  generate: {cells: [4, 4, 4]}\n  &k reorder: none\n  *k : hilbert\n"); },
                     {"key 'mesh.reorder' given twice"});
}

TEST(Config, PartitionMethod) {
  // Unset: ptscotch for a generated box (built in parts on several ranks), metis for a file.
  EXPECT_EQ(parse("mesh:\n  generate: {cells: [4, 4, 4]}\n").mesh.partition, PartitionMethod::ptscotch);
  EXPECT_EQ(parse("mesh:\n  file: " + test::source_path("mesh/hybrid_channel.msh") + "\n").mesh.partition,
            PartitionMethod::metis);
  const CaseConfig c = parse("mesh:\n  generate: {cells: [4, 4, 4]}\n  partition: blocks\n");
  EXPECT_EQ(c.mesh.partition, PartitionMethod::blocks);
  EXPECT_EQ(c.mesh.partition_where, "case.yaml:3:14");
  YAML::Emitter out;
  out << c.resolved();
  EXPECT_EQ(parse(out.c_str()).mesh.partition, PartitionMethod::blocks);
  EXPECT_EQ(parse("mesh:\n  generate: {cells: [4, 4, 4]}\n", {"mesh.partition=hilbert"}).mesh.partition,
            PartitionMethod::hilbert);
  expect_input_error([] { parse("mesh:\n  generate: {cells: [4, 4, 4]}\n  partition: zordr\n"); },
                     {"case.yaml:3:14:", "mesh.partition: invalid value 'zordr'; did you mean 'zorder'?",
                      "metis | hilbert | zorder | blocks"});
  expect_input_error(
      [] { parse("mesh:\n  file: " + test::source_path("mesh/hybrid_channel.msh") + "\n  partition: blocks\n"); },
      {"case.yaml:3:14:", "mesh.partition: 'blocks' divides a generated box", "use metis, hilbert or zorder"});
}

TEST(Config, ClosestKey) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("mehs", "mesh"), 1u); // one transposition
  EXPECT_EQ(closest_key("genrate", {"generate", "file", "reorder"}), "generate");
  EXPECT_EQ(closest_key("gen", {"generate", "file"}), "generate");
  EXPECT_EQ(closest_key("qqqqqq", {"generate", "file"}), "");
}

} // namespace
} // namespace fvproxy
