#!/usr/bin/env python3
"""Independent oracle for TrainIO's jpeg, png and hdf5 files: opens them with PIL and h5py as DLIO's
readers do and with DLIO's generators' own calls writes the file DLIO would write, for comparison.

  check_image_hdf5.py image FILE d1 d2 PIXELS
      FILE is a JPEG or PNG (by extension). Checks: PIL opens it in DLIO's mode ("L"),
      np.asarray(Image.open(FILE)) has shape (d1, d2) and dtype uint8; PIXELS (raw d1*d2 bytes, the
      generator's pixels) are in 0..254 as np.random.randint(255) draws; PNG: the decoded pixels are
      exactly PIXELS (lossless); JPEG: they are close to PIXELS (mean absolute error reported).
      Prints "ok <nbytes> <dlio_size> <mae>": the decoded nbytes (DLIO's image_size), the size of
      the file DLIO's generator writes for the same pixels (Image.fromarray(...).save(format=..., bits=8))
      and the JPEG mean absolute error.
  check_image_hdf5.py hdf5 FILE n d1 d2
      Checks the h5py view: exactly the datasets records_0 (n, d1, d2) uint8, contiguous, no filter
      and labels (n,) int64 zeros, the superblock version h5py writes with libver='latest'; every
      records_0[k] slice reads (DLIO's get_sample).
      Prints "ok <slice_nbytes> <dlio_size>": the bytes of one slice and the size of the file DLIO's
      HDF5Generator.create_file writes for the same shape (h5py.File(..., 'w', libver='latest')).
  check_image_hdf5.py make FILE kind w h
      Writes an image made by PIL (kind: rgb-jpeg, gray-jpeg, rgb-png, rgba-png, palette-png,
      gray16-png) of w x h pixels and prints np.asarray(Image.open(FILE)).nbytes.
Exit 0 on success, else prints the mismatch and exits 1."""
import io
import os
import sys
import tempfile

import h5py
import numpy as np
from PIL import Image


def fail(msg):
    print(msg)
    sys.exit(1)


def check_image(path, d1, d2, pixels_path):
    fmt = "JPEG" if path.endswith((".jpeg", ".jpg")) else "PNG"
    with Image.open(path) as im:
        if im.format != fmt:
            fail(f"PIL reads {im.format}, expected {fmt}")
        if im.mode != "L":
            fail(f"PIL mode {im.mode}, expected L (DLIO's Image.fromarray of a 2-D uint8 array)")
        arr = np.asarray(im)  # what DLIO's ImageReader.open does: a full decode
    if arr.shape != (d1, d2) or arr.dtype != np.uint8:
        fail(f"decoded {arr.shape} {arr.dtype}, expected {(d1, d2)} uint8")
    raw = np.fromfile(pixels_path, dtype=np.uint8)
    if raw.size != d1 * d2:
        fail(f"pixels file holds {raw.size} bytes, expected {d1 * d2}")
    raw = raw.reshape(d1, d2)
    if raw.max() > 254:
        fail(f"pixel value {raw.max()} > 254 (np.random.randint(255) never draws 255)")
    mae = float(np.abs(arr.astype(np.int16) - raw.astype(np.int16)).mean())
    if fmt == "PNG" and not np.array_equal(arr, raw):
        fail("PNG pixels differ from the generator's pixels (PNG is lossless)")
    out = io.BytesIO()
    Image.fromarray(raw).save(out, format=fmt, bits=8)  # DLIO's jpeg_generator.py / png_generator.py
    print(f"ok {arr.nbytes} {len(out.getvalue())} {mae:.3f}")


def check_hdf5(path, n, d1, d2):
    with h5py.File(path, "r") as f:
        if sorted(f.keys()) != ["labels", "records_0"]:
            fail(f"datasets {sorted(f.keys())}, expected ['labels', 'records_0']")
        r, lab = f["records_0"], f["labels"]
        if r.shape != (n, d1, d2) or r.dtype != np.uint8:
            fail(f"records_0 {r.shape} {r.dtype}, expected {(n, d1, d2)} uint8")
        if r.chunks is not None or r.compression is not None:
            fail(f"records_0 chunks {r.chunks} compression {r.compression}, expected contiguous, no filter")
        if lab.shape != (n,) or lab.dtype != np.int64 or lab[:].any():
            fail(f"labels {lab.shape} {lab.dtype} {lab[:]}, expected {n} int64 zeros")
        nbytes = 0
        for k in range(n):
            nbytes = f["records_0"][k].nbytes  # DLIO's HDF5Reader.get_sample
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "dlio.hdf5")
        data = np.random.default_rng(1).integers(0, 256, size=(n, d1, d2), dtype=np.uint8)
        with h5py.File(ref, "w", libver="latest") as hf:  # DLIO's HDF5Generator.create_file
            hf.create_dataset("records_0", (n, d1, d2), compression=None, compression_opts=None, dtype=np.uint8, data=data)
            hf.create_dataset("labels", data=[0] * n)
        # libver='latest' shows in the superblock version (byte 8): compare with h5py's own file.
        ours_sb, ref_sb = open(path, "rb").read(9)[8], open(ref, "rb").read(9)[8]
        if ours_sb != ref_sb:
            fail(f"superblock version {ours_sb}, h5py with libver='latest' writes {ref_sb}")
        print(f"ok {nbytes} {os.path.getsize(ref)}")


def make(path, kind, w, h):
    rng = np.random.default_rng(7)
    if kind == "rgb-jpeg":
        Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), "RGB").save(path, format="JPEG")
    elif kind == "gray-jpeg":
        Image.fromarray(rng.integers(0, 256, (h, w), dtype=np.uint8), "L").save(path, format="JPEG")
    elif kind == "rgb-png":
        Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), "RGB").save(path, format="PNG")
    elif kind == "rgba-png":
        Image.fromarray(rng.integers(0, 256, (h, w, 4), dtype=np.uint8), "RGBA").save(path, format="PNG")
    elif kind == "palette-png":
        Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), "RGB").quantize(16).save(path, format="PNG")
    elif kind == "gray16-png":
        Image.fromarray(rng.integers(0, 65536, (h, w), dtype=np.uint16)).save(path, format="PNG")
    else:
        fail(f"unknown kind {kind}")
    with Image.open(path) as im:
        print(np.asarray(im).nbytes)


if __name__ == "__main__":
    a = sys.argv
    if len(a) == 6 and a[1] == "image":
        check_image(a[2], int(a[3]), int(a[4]), a[5])
    elif len(a) == 6 and a[1] == "hdf5":
        check_hdf5(a[2], int(a[3]), int(a[4]), int(a[5]))
    elif len(a) == 6 and a[1] == "make":
        make(a[2], a[3], int(a[4]), int(a[5]))
    else:
        fail(__doc__)
