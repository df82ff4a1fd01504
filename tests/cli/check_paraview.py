"""Opens fvproxy's XDMF output in ParaView (run by pvbatch; tests/cli/check_paraview.sh) with both
of its XDMF readers and checks the time steps, the cell count, that every cell has a positive
volume (ParaView's Cell Size filter: the node order of every cell type, the wedge included), the
total volume, and the final field weighted by those volumes against summary.json's conserved
total. usage: pvbatch check_paraview.py OUT_DIR CASE"""
import json
import os
import sys

import numpy as np
from paraview import servermanager as sm
from paraview.simple import CellSize, XDMFReader, Xdmf3ReaderT
from vtkmodules.numpy_interface import dataset_adapter as dsa

out, case = sys.argv[1], sys.argv[2]
summary = json.load(open(os.path.join(out, "summary.json")))
xdmf = os.path.join(out, case + ".xdmf")


def cells(d, name):
    a = d.CellData[name]
    return np.concatenate([np.asarray(x) for x in a.Arrays]) if hasattr(a, "Arrays") else np.asarray(a)


for name, reader in (("XDMFReader", XDMFReader(FileNames=[xdmf])), ("Xdmf3ReaderT", Xdmf3ReaderT(FileName=[xdmf]))):
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues)
    assert len(times) == len(summary["files"]["fields"]), (name, times)
    assert abs(times[-1] - summary["time"]) <= 1e-12 * max(1.0, summary["time"]), (name, times[-1])
    size = CellSize(Input=reader)
    size.UpdatePipeline(times[-1])
    d = dsa.WrapDataObject(sm.Fetch(size))
    vol, u = cells(d, "Volume"), cells(d, "u0")
    assert len(vol) == summary["cells"], (name, len(vol))
    assert vol.min() > 0, (name, "a cell with non-positive volume", vol.min())
    rtol = 1e-10 if summary["build"]["real"] == "double" else 1e-5
    want = summary["conservation"]["u0"]["final"]
    got = float(np.sum(u.astype(np.float64) * vol))
    assert abs(got - want) <= rtol * abs(want), (name, got, want)
    print(name, ": %d steps, %d cells, volumes > 0, sum u V = %.15g (summary %.15g)" % (len(times), len(vol), got, want))
print("OK")
