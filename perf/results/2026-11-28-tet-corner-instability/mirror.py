import h5py, sys, numpy as np
# mirror a tet box mesh.h5 across y=0 and z=1 -> 4 copies; write MSH 2.2 with patch "walls"
d, out, mode = sys.argv[1], sys.argv[2], sys.argv[3]   # mode: "2x2" or "orig"
m = h5py.File(d + "/mesh.h5", "r")
X = m["mesh/nodes"][...].reshape(-1, 3); topo = m["mesh/topology"][...]
tets = topo.reshape(-1, 5)[:, 1:]
faces = []; tags = []
for name in m["patches"]:
    t = m["patches/" + name + "/topology"][...].reshape(-1, 4)[:, 1:]
    if mode == "2x2" and name in ("ymin", "zmax"): continue
    faces.append(t); tags += [1 if name in ("ymin", "zmax") else 2] * len(t)
faces = np.vstack(faces)
copies = [(1, 1)] if mode == "orig" else [(1, 1), (-1, 1), (1, -1), (-1, -1)]
key = {}; nodes = []
def nid(x):
    k = tuple(np.round(x, 12))
    if k not in key: key[k] = len(nodes) + 1; nodes.append(x)
    return key[k]
E = []
for sy, sz in copies:
    Y = X.copy(); Y[:, 1] *= sy; Y[:, 2] = 1 + (Y[:, 2] - 1) * sz
    ids = [nid(x) for x in Y]
    flip = (sy * sz) < 0
    for t in tets:
        q = [ids[i] for i in t]
        if flip: q[1], q[2] = q[2], q[1]
        E.append("4 2 3 3 %d %d %d %d" % tuple(q))
    for f, tg in zip(faces, tags):
        E.append("2 2 %d %d %d %d %d" % ((tg, tg) + tuple(ids[i] for i in f)))
with open(out, "w") as o:
    o.write('$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n3\n2 1 "walls"\n2 2 "far"\n3 3 "fluid"\n$EndPhysicalNames\n$Nodes\n%d\n' % len(nodes))
    for i, x in enumerate(nodes): o.write("%d %.17g %.17g %.17g\n" % (i + 1, x[0], x[1], x[2]))
    o.write("$EndNodes\n$Elements\n%d\n" % len(E))
    for i, e in enumerate(E): o.write("%d %s\n" % (i + 1, e))
    o.write("$EndElements\n")
print(len(nodes), len(E))
