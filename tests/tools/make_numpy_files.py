#!/usr/bin/env python3
"""Writes files with numpy itself, for TrainIO's readers to load.
Usage: make_numpy_files.py OUTDIR
  small.npz       numpy.savez(x=uint8 (4, 5, 2), y=[0, 0])
  big.npz         numpy.savez(x=uint8 (300, 300, 1), y=[0])       (> 64 KiB)
  multi.npz       numpy.savez(x=uint8 (64, 40, 3), y=[0, 0, 0])
  compressed.npz  numpy.savez_compressed(x=uint8 (4, 5, 2), y=[0, 0])
  late_x.npz      numpy.savez(a=uint8 (1000, 1000), x=uint8 (50, 60, 2), z=uint8 (1000, 1000))  (x.npy mid-file)
  arr.npy         numpy.save(uint8 (7, 9, 3))
  f32.npy         numpy.save(float32 (6, 6, 2))"""
import os
import sys
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(1)
def rec(*shape):
    return rng.integers(0, 255, size=shape, dtype=np.uint8)
np.savez(os.path.join(out, "small.npz"), x=rec(4, 5, 2), y=[0, 0])
np.savez(os.path.join(out, "big.npz"), x=rec(300, 300, 1), y=[0])
np.savez(os.path.join(out, "multi.npz"), x=rec(64, 40, 3), y=[0, 0, 0])
np.savez_compressed(os.path.join(out, "compressed.npz"), x=rec(4, 5, 2), y=[0, 0])
np.savez(os.path.join(out, "late_x.npz"), a=rec(1000, 1000), x=rec(50, 60, 2), z=rec(1000, 1000))
np.save(os.path.join(out, "arr.npy"), rec(7, 9, 3))
np.save(os.path.join(out, "f32.npy"), np.zeros((6, 6, 2), dtype=np.float32))
print("ok")
