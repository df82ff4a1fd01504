// Flow past a circular cylinder: diameter 1 at the origin, in the box x in [-40, 80], y in [-40, 40]
// (blockage 1.25 %), one layer of prisms thick (t = 0.5) in z: a curved, truly unstructured 2-D
// mesh of triangles extruded to prisms. Patches: cylinder, inlet (x = -40), outlet (x = 80),
// sides (y = -40 and 40), front (z = 0) and back (z = t).
// Edge size h on the cylinder, growing linearly with the distance d to it, h (1 + 1.5 d), up to hf:
//   gmsh -3 cylinder.geo -setnumber h 0.05 -format msh41 -bin -o cylinder_0.05.msh
// (mesh/regenerate.sh makes the committed coarse one; perf/cylinder_meshes.sh the three of the
// drag study, docs/flow-cases.md#flow-past-a-cylinder).
DefineConstant[ h = 0.1, hf = 4, t = 0.5 ];
SetFactory("OpenCASCADE");
Rectangle(1) = {-40, -40, 0, 120, 80};
Disk(2) = {0, 0, 0, 0.5, 0.5};
BooleanDifference(3) = { Surface{1}; Delete; }{ Surface{2}; Delete; };
cyl() = Curve In BoundingBox{-0.5 - 1e-6, -0.5 - 1e-6, -1e-6, 0.5 + 1e-6, 0.5 + 1e-6, 1e-6};
Field[1] = Distance;
Field[1].CurvesList = {cyl()};
Field[1].NumPointsPerCurve = 400;
Field[2] = MathEval;
Field[2].F = Sprintf("min(%g * (1 + 1.5 * F1), %g)", h, hf);
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.ElementOrder = 1;
out[] = Extrude {0, 0, t} { Surface{3}; Layers{1}; Recombine; };
eps = 1e-6;
Physical Surface("inlet") = Surface In BoundingBox{-40 - eps, -40 - eps, -eps, -40 + eps, 40 + eps, t + eps};
Physical Surface("outlet") = Surface In BoundingBox{80 - eps, -40 - eps, -eps, 80 + eps, 40 + eps, t + eps};
Physical Surface("sides") = {Surface In BoundingBox{-40 - eps, -40 - eps, -eps, 80 + eps, -40 + eps, t + eps},
                             Surface In BoundingBox{-40 - eps, 40 - eps, -eps, 80 + eps, 40 + eps, t + eps}};
Physical Surface("cylinder") = Surface In BoundingBox{-0.5 - eps, -0.5 - eps, -eps, 0.5 + eps, 0.5 + eps, t + eps};
Physical Surface("front") = {3};
Physical Surface("back") = {out[0]};
Physical Volume("fluid") = {out[1]};
