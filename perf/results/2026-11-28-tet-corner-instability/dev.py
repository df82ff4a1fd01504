import h5py, sys, glob, numpy as np
# max |u - u0| over cells for each fields file in a folder
d = sys.argv[1]
files = sorted(glob.glob(d + "/fields_*.h5"))
for f in files[::max(1, len(files)//8)] + [files[-1]]:
    h = h5py.File(f, "r")
    t = h.attrs["time"]
    flds = h["fields"]
    v = flds["velocity"][...] if "velocity" in flds else None
    rho = flds["density"][...]
    p = flds["pressure"][...]
    print("%s t=%.3f  max|rho-1|=%.3e  max|v-(1,0,0)|=%.3e  max|p-p0|=%.3e" % (f.split('/')[-1], t, abs(rho-1).max(), abs(v - np.array([1,0,0])).max() if v is not None else -1, abs(p-2.857142857142857).max()))
