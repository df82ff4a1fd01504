import h5py, sys, numpy as np
d, f = sys.argv[1], sys.argv[2]
m = h5py.File(d + "/mesh.h5", "r")
X = m["mesh/nodes"][...].reshape(-1, 3); topo = m["mesh/topology"][...]
gid = m["cells/global_id"][...]
cent = []; i = 0
while i < len(topo):
    n = 4; cent.append(X[topo[i+1:i+1+n]].mean(0)); i += 1 + n
cent = np.array(cent)
h = h5py.File(d + "/" + f, "r")
p = h["fields/pressure"][...]; g2 = h["cells/global_id"][...]
pos = {g: k for k, g in enumerate(gid)}
dev = abs(p - p.mean())
order = np.argsort(-dev)[:12]
for k in order: print("%.3e" % dev[k], np.round(cent[pos[g2[k]]], 3))
