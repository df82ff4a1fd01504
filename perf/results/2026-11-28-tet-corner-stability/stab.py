"""Linear stability of second-order MUSCL on a closed tet box with mirror (slip) walls: the
eigenvalues of the semi-discrete operator of linear acoustics at rest (rho = c = 1, state p, u, v,
w; the exact acoustic Riemann flux, which HLLC and Roe reduce to at rest), with fvproxy's
reconstruction: unlimited, unweighted least-squares gradients, u_f = u_c + grad_c . (x_f - x_c),
slip walls as mirror ghosts at the mirrored centroid.

usage: stab.py DIR [STENCIL] [ORDER] [BOUND]
  DIR      an fvproxy output folder (its mesh.h5: a tet box on [0,1]^3, every side a wall)
  STENCIL  face (fvproxy's: the face neighbours and the cell's own mirror images), vertex (every
           cell sharing a vertex, with their mirror images across the walls through that vertex),
           faceimg1 (face neighbours, and across each wall the cell has a face on, the images of the
           cell and of its face neighbours), faceimg (the same across every combination of those
           walls) or faceimgv (the same across every wall through one of the cell's vertices)
  ORDER    2 (MUSCL) or 1
  BOUND    > 0: scale each cell's gradient by min(1, BOUND / L_c), L_c = max over its faces of
           sum_j |d(u_f)/d(u_j)| (the reconstruction's Lebesgue constant): damping at bad cells
Prints the largest real parts (> 0: a mode grows from round-off) and the cells the most unstable
mode lives in. Needs numpy, scipy, h5py (Debian: python3-scipy python3-h5py)."""
import sys, itertools
import h5py, numpy as np, scipy.sparse as sp, scipy.linalg as la

d = sys.argv[1]
stencil = sys.argv[2] if len(sys.argv) > 2 else "face"
order = int(sys.argv[3]) if len(sys.argv) > 3 else 2
m = h5py.File(d + "/mesh.h5", "r")
X = m["mesh/nodes"][...].reshape(-1, 3)
T = m["mesh/topology"][...].reshape(-1, 5)[:, 1:]
nc = len(T)
C = X[T].mean(axis=1)
V = np.abs(np.einsum("ij,ij->i", X[T[:, 1]] - X[T[:, 0]],
                     np.cross(X[T[:, 2]] - X[T[:, 0]], X[T[:, 3]] - X[T[:, 0]]))) / 6
# faces
fmap = {}
for c, t in enumerate(T):
    for skip in range(4):
        tri = tuple(sorted(np.delete(t, skip)))
        fmap.setdefault(tri, []).append(c)
IF, BF = [], []
for tri, cs in fmap.items():
    xf = X[list(tri)].mean(axis=0)
    S = 0.5 * np.cross(X[tri[1]] - X[tri[0]], X[tri[2]] - X[tri[0]])
    o = cs[0]
    if np.dot(S, xf - C[o]) < 0: S = -S
    if len(cs) == 2: IF.append((o, cs[1], xf, S))
    else: BF.append((o, xf, S))
lo, hi = X.min(axis=0), X.max(axis=0)
def reflect_point(x, ax, val):
    y = x.copy(); y[..., ax] = 2 * val - y[..., ax]; return y
# boundary faces: plane (axis, value)
def plane_of(xf, S):
    ax = int(np.argmax(np.abs(S)))
    val = lo[ax] if S[ax] < 0 else hi[ax]
    return ax, val
BP = [plane_of(xf, S) for (_, xf, S) in BF]

# gradient stencil: list per cell of (neighbour cell, reflection list [(ax,val),...])
stencils = [[] for _ in range(nc)]
if stencil == "face":
    for (o, n, xf, S) in IF:
        stencils[o].append((n, ())); stencils[n].append((o, ()))
    for (o, xf, S), pl in zip(BF, BP):
        stencils[o].append((o, (pl,)))
elif stencil in ("faceimg", "faceimg1", "faceimgv"):
    nbrs = [[] for _ in range(nc)]
    planes_of = [[] for _ in range(nc)]
    for (o, n, xf, S) in IF:
        nbrs[o].append(n); nbrs[n].append(o)
    for (o, xf, S), pl in zip(BF, BP):
        planes_of[o].append(pl)
    for c in range(nc):
        P = sorted(set(planes_of[c]))
        if stencil == "faceimgv":
            P = sorted(set([(ax, lo[ax]) for v in T[c] for ax in range(3) if abs(X[v, ax] - lo[ax]) < 1e-12] +
                           [(ax, hi[ax]) for v in T[c] for ax in range(3) if abs(X[v, ax] - hi[ax]) < 1e-12]))
        if stencil == "faceimg1":
            subsets = [(p,) for p in P]
        else:
            subsets = [s for r in range(1, len(P) + 1) for s in itertools.combinations(P, r)]
        for q in nbrs[c]: stencils[c].append((q, ()))
        for s in subsets:
            stencils[c].append((c, s))
            for q in nbrs[c]: stencils[c].append((q, s))
else:
    node_cells = [[] for _ in range(len(X))]
    for c, t in enumerate(T):
        for v in t: node_cells[v].append(c)
    for c, t in enumerate(T):
        seen = set()
        for v in t:
            planes = [(ax, lo[ax]) for ax in range(3) if abs(X[v, ax] - lo[ax]) < 1e-12] + \
                     [(ax, hi[ax]) for ax in range(3) if abs(X[v, ax] - hi[ax]) < 1e-12]
            subsets = [s for r in range(len(planes) + 1) for s in itertools.combinations(planes, r)]
            for q in node_cells[v]:
                for s in subsets:
                    if q == c and len(s) == 0: continue
                    key = (q, s)
                    if key in seen: continue
                    seen.add(key)
                    stencils[c].append((q, s))

def image_pos(q, s):
    x = C[q].copy()
    for ax, val in s: x = reflect_point(x, ax, val)
    return x
# LSQ gradient operator: grad[c] = sum_j W_cj (u_j' - u_c), u_j' the image's state
# state per cell: (p, u, v, w); a reflection about axis ax flips component 1 + ax
nv = 4
def refl_sign(s):
    sg = np.ones(nv)
    for ax, _ in s: sg[1 + ax] *= -1
    return sg
rows, cols, vals = [], [], []  # gradient matrix: (3*nv*nc) x (nv*nc)
def gi(c, k, dim): return (c * nv + k) * 3 + dim
for c in range(nc):
    D = np.array([image_pos(q, s) - C[c] for q, s in stencils[c]])
    M = D.T @ D
    W = la.solve(M, D.T)  # 3 x n
    for j, (q, s) in enumerate(stencils[c]):
        sg = refl_sign(s)
        for k in range(nv):
            for dim in range(3):
                rows += [gi(c, k, dim), gi(c, k, dim)]
                cols += [q * nv + k, c * nv + k]
                vals += [W[dim, j] * sg[k], -W[dim, j]]
G = sp.csr_matrix((vals, (rows, cols)), shape=(3 * nv * nc, nv * nc))
bound = float(sys.argv[4]) if len(sys.argv) > 4 else 0
leb = np.zeros(nc)
faces_of = [[] for _ in range(nc)]
for (o, nb, xf, S) in IF: faces_of[o].append(xf); faces_of[nb].append(xf)
for (o, xf, S) in BF: faces_of[o].append(xf)
for c in range(nc):
    D = np.array([image_pos(q, s) - C[c] for q, s in stencils[c]])
    W = la.solve(D.T @ D, D.T)
    E = np.array([ (xf - C[c]) @ W for xf in faces_of[c]])
    leb[c] = np.abs(E).sum(axis=1).max()
print("lebesgue: median %.3f 90%% %.3f max %.3f" % (np.median(leb), np.percentile(leb, 90), leb.max()))
if bound > 0:
    beta = np.minimum(1, bound / leb)
    print("cells with beta<1:", (beta < 1).sum(), "min beta", beta.min())
    sc = np.repeat(beta, 3 * nv)
    G = sp.diags(sc) @ G
    G = G.tocsr()
if order == 1: G = G * 0
# face state operator: q_L = q_c + grad_c . (xf - xc): matrices R_f (nv x nv*nc)
def recon(c, r):
    # returns sparse row block (nv x nv*nc) as list of (k, col, val)
    out = [(k, c * nv + k, 1.0) for k in range(nv)]
    for k in range(nv):
        for dim in range(3):
            row = G.getrow(gi(c, k, dim))
            for col, v in zip(row.indices, row.data):
                out.append((k, col, v * r[dim]))
    return out
Ar, Ac, Av = [], [], []
def add_flux(c_out, sign, lin, scale):
    # d q_c/dt -= sign * F / V: lin is list of (k_out, col, val)
    for k, col, v in lin:
        Ar.append(c_out * nv + k); Ac.append(col); Av.append(-sign * v * scale / V[c_out])
def flux_terms(L, R, n, area):
    # L, R: lists (k, col, val) giving states; acoustic Godunov flux
    # un = u.n ; p* = (pL+pR)/2 - (unR-unL)/2 ; un* = (unL+unR)/2 - (pR-pL)/2
    # F_p = un*, F_u = p* n
    def comp(lst, w):  # w: weights per state component -> linear form
        return [(col, w[k] * v) for k, col, v in lst]
    wp = np.array([1, 0, 0, 0.]); wn = np.array([0, n[0], n[1], n[2]])
    pL, pR, unL, unR = comp(L, wp), comp(R, wp), comp(L, wn), comp(R, wn)
    pstar = [(c, .5 * v) for c, v in pL + pR] + [(c, -.5 * v) for c, v in unR] + [(c, .5 * v) for c, v in unL]
    unstar = [(c, .5 * v) for c, v in unL + unR] + [(c, -.5 * v) for c, v in pR] + [(c, .5 * v) for c, v in pL]
    F = [(0, c, v * area) for c, v in unstar]
    for dim in range(3):
        F += [(1 + dim, c, v * n[dim] * area) for c, v in pstar]
    return F
for (o, nb, xf, S) in IF:
    area = np.linalg.norm(S); n = S / area
    L = recon(o, xf - C[o]); R = recon(nb, xf - C[nb])
    F = flux_terms(L, R, n, area)
    add_flux(o, 1, F, 1.0); add_flux(nb, -1, F, 1.0)
for (o, xf, S), (ax, val) in zip(BF, BP):
    area = np.linalg.norm(S); n = S / area
    L = recon(o, xf - C[o])
    sg = refl_sign(((ax, val),))
    R = [(k, col, v * sg[k]) for k, col, v in L]
    F = flux_terms(L, R, n, area)
    add_flux(o, 1, F, 1.0)
A = sp.csr_matrix((Av, (Ar, Ac)), shape=(nv * nc, nv * nc))
print("cells", nc, "dofs", nv * nc, "stencil", stencil, "mean size", np.mean([len(s) for s in stencils]))
if nv * nc <= 6000:
    ev, evec = la.eig(A.toarray())
else:
    import scipy.sparse.linalg as sla
    ev, evec = sla.eigs(A, k=6, which="LR")
i = np.argsort(-ev.real)[:6]
print("largest real parts:", ev.real[i])
print("spectral radius:", np.abs(ev).max() if nv * nc <= 6000 else "n/a")
v = evec[:, i[0]]
amp = np.abs(v).reshape(nc, nv).max(axis=1)
top = np.argsort(-amp)[:5]
for c in top:
    print("cell", c, "centroid", np.round(C[c], 3), "amp", round(amp[c] / amp.max(), 3), "leb", round(leb[c],3))
