// Unit box with a spherical hole (radius 0.25, centre (0.5, 0.5, 0.5)): a curved boundary meshed
// with tetrahedra. Patches: xmin xmax ymin ymax zmin zmax (box sides) and sphere.
// Regenerate: see mesh/regenerate.sh.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Sphere(2) = {0.5, 0.5, 0.5, 0.25};
BooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
lc = 0.12;
MeshSize{ PointsOf{ Volume{3}; } } = lc;
Mesh.MeshSizeFromCurvature = 12;
Mesh.ElementOrder = 1;
eps = 1e-6;
Physical Surface("xmin") = Surface In BoundingBox{-eps, -eps, -eps, eps, 1+eps, 1+eps};
Physical Surface("xmax") = Surface In BoundingBox{1-eps, -eps, -eps, 1+eps, 1+eps, 1+eps};
Physical Surface("ymin") = Surface In BoundingBox{-eps, -eps, -eps, 1+eps, eps, 1+eps};
Physical Surface("ymax") = Surface In BoundingBox{-eps, 1-eps, -eps, 1+eps, 1+eps, 1+eps};
Physical Surface("zmin") = Surface In BoundingBox{-eps, -eps, -eps, 1+eps, 1+eps, eps};
Physical Surface("zmax") = Surface In BoundingBox{-eps, -eps, 1-eps, 1+eps, 1+eps, 1+eps};
Physical Surface("sphere") = Surface In BoundingBox{0.25-eps, 0.25-eps, 0.25-eps, 0.75+eps, 0.75+eps, 0.75+eps};
Physical Volume("fluid") = {3};
