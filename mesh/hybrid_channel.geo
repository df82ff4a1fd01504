// A channel [0,2]x[0,1]x[0,0.5] extruded from a 2D mesh whose left half is triangles and right
// half quadrangles: prisms and hexahedra in one mesh, with a tilted (non-orthogonal) interface.
// Patches: inlet outlet walls bottom top. Regenerate: see mesh/regenerate.sh.
lc = 0.2;
Point(1) = {0, 0, 0, lc};
Point(2) = {1.1, 0, 0, lc};
Point(3) = {2, 0, 0, lc};
Point(4) = {2, 1, 0, lc};
Point(5) = {0.9, 1, 0, lc};
Point(6) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 6};
Line(6) = {6, 1};
Line(7) = {2, 5};
Curve Loop(1) = {1, 7, 5, 6};
Plane Surface(1) = {1};
Curve Loop(2) = {2, 3, 4, -7};
Plane Surface(2) = {2};
Transfinite Curve{2, 4} = 6;
Transfinite Curve{3, 7} = 6;
Transfinite Surface{2};
Recombine Surface{2};
out1[] = Extrude {0, 0, 0.5} { Surface{1}; Layers{3}; Recombine; };
out2[] = Extrude {0, 0, 0.5} { Surface{2}; Layers{3}; Recombine; };
Physical Surface("bottom") = {1, 2};
Physical Surface("top") = {out1[0], out2[0]};
Physical Surface("inlet") = {out1[5]};
Physical Surface("outlet") = {out2[3]};
Physical Surface("walls") = {out1[2], out1[4], out2[2], out2[4]};
Physical Volume("fluid") = {out1[1], out2[1]};
Mesh.ElementOrder = 1;
