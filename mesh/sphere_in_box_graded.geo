// Unit box with a spherical hole (radius 0.25, centre (0.5, 0.5, 0.5)) meshed with tetrahedra
// graded towards the sphere: edge size h / 3 on the sphere, growing linearly to h at 0.3 from it.
// Patches as mesh/sphere_in_box.geo: xmin xmax ymin ymax zmin zmax (box sides) and sphere.
// The size is set on gmsh's command line, for example
//   gmsh -3 sphere_in_box_graded.geo -setnumber h 0.03 -format msh41 -bin -o out.msh
// Too large to commit at benchmark sizes: perf/gmsh_mesh.sh generates it (h per size there).
// Gmsh's 3D Delaunay (the default algorithm) numbers the tetrahedra: that is the "native"
// numbering fvproxy keeps with mesh.reorder: none.
SetFactory("OpenCASCADE");
DefineConstant[ h = {0.1, Name "Parameters/far edge size"} ];
Box(1) = {0, 0, 0, 1, 1, 1};
Sphere(2) = {0.5, 0.5, 0.5, 0.25};
BooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
eps = 1e-6;
sphere() = Surface In BoundingBox{0.25-eps, 0.25-eps, 0.25-eps, 0.75+eps, 0.75+eps, 0.75+eps};
Field[1] = Distance;
Field[1].SurfacesList = {sphere()};
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = h / 3;
Field[2].SizeMax = h;
Field[2].DistMin = 0;
Field[2].DistMax = 0.3;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.ElementOrder = 1;
Physical Surface("xmin") = Surface In BoundingBox{-eps, -eps, -eps, eps, 1+eps, 1+eps};
Physical Surface("xmax") = Surface In BoundingBox{1-eps, -eps, -eps, 1+eps, 1+eps, 1+eps};
Physical Surface("ymin") = Surface In BoundingBox{-eps, -eps, -eps, 1+eps, eps, 1+eps};
Physical Surface("ymax") = Surface In BoundingBox{-eps, 1-eps, -eps, 1+eps, 1+eps, 1+eps};
Physical Surface("zmin") = Surface In BoundingBox{-eps, -eps, -eps, 1+eps, 1+eps, eps};
Physical Surface("zmax") = Surface In BoundingBox{-eps, -eps, 1-eps, 1+eps, 1+eps, 1+eps};
Physical Surface("sphere") = {sphere()};
Physical Volume("fluid") = {3};
