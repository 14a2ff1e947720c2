#!/usr/bin/env python3
"""Loads an npz with numpy as DLIO's NPZReader does and checks x/y shapes and dtypes.
Usage: check_npz.py FILE d1 d2 n   -> exit 0 and prints 'ok', else prints the mismatch, exit 1."""
import sys
import numpy as np

path, d1, d2, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with np.load(path) as f:
    x, y = f["x"], f["y"]  # reading the arrays makes zipfile verify the entries' CRC-32
    problems = []
    if x.shape != (d1, d2, n):
        problems.append(f"x.shape {x.shape} != {(d1, d2, n)}")
    if x.dtype != np.uint8:
        problems.append(f"x.dtype {x.dtype} != uint8")
    if y.shape != (n,):
        problems.append(f"y.shape {y.shape} != {(n,)}")
    if y.dtype != np.int64:
        problems.append(f"y.dtype {y.dtype} != int64")
    if y.any():
        problems.append("y labels are not all zero")
    sample = x[..., n - 1]  # what DLIO's reader returns for the last sample
    if sample.shape != (d1, d2):
        problems.append(f"sample shape {sample.shape}")
print("; ".join(problems) if problems else "ok")
sys.exit(1 if problems else 0)
