#!/usr/bin/env python3
"""A small real training job for tst_capture (trainio-cli capture, docs/capture.md).

--loader torch: a torch.utils.data.DataLoader with --workers worker processes over the .npz files of
  --data (np.load in __getitem__, as DLIO's npz reader does), batch --batch, --epochs epochs;
--loader python: the training loop reads the files itself, one sample a file, with plain
  open()/read() (--read plain, no numpy) or mmap (--read mmap), --batch samples a step.
Each sample costs --preprocess-ms in the reader (time.sleep: a decode), each step --compute-ms
(time.sleep: the accelerator). With --marker the loop is wrapped in trainio_capture.steps(...).
Prints one JSON line: the job's own figures (steps, epochs, wall and CPU time of the loop).
"""
import argparse
import json
import mmap
import os
import sys
import time


def files_of(folder):
    out = []
    for root, _, names in os.walk(folder):
        out += [os.path.join(root, n) for n in names if not n.startswith(".")]
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--loader", choices=["torch", "python"], default="torch")
    ap.add_argument("--read", choices=["numpy", "plain", "mmap"], default="numpy")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--compute-ms", type=float, default=10.0)
    ap.add_argument("--preprocess-ms", type=float, default=0.0)
    ap.add_argument("--shuffle", action="store_true")
    ap.add_argument("--marker", action="store_true")
    a = ap.parse_args()

    files = files_of(a.data)
    if not files:
        sys.exit("capture_job: no files under " + a.data)
    pre = a.preprocess_ms / 1000.0

    def load(path):
        if a.read == "numpy":
            import numpy as np
            with np.load(path) as z:
                x = z["x"]
            out = x.sum(dtype="uint64")
        elif a.read == "plain":
            with open(path, "rb") as f:
                out = len(f.read())
        else:
            with open(path, "rb") as f:
                with mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as m:
                    out = sum(m[i] for i in range(0, len(m), 4096))
        if pre > 0:
            time.sleep(pre)
        return out

    if a.loader == "torch":
        import torch
        from torch.utils.data import DataLoader, Dataset

        class Files(Dataset):
            def __len__(self):
                return len(files)

            def __getitem__(self, i):
                return torch.tensor(int(load(files[i])))

        loader = DataLoader(Files(), batch_size=a.batch, num_workers=a.workers, shuffle=a.shuffle)
    else:
        class Batches:
            def __iter__(self):
                order = list(range(len(files)))
                if a.shuffle:
                    import random
                    random.shuffle(order)
                for b in range(0, len(order) - a.batch + 1, a.batch):
                    yield [load(files[i]) for i in order[b:b + a.batch]]

        loader = Batches()

    if a.marker:
        import trainio_capture
        wrap = trainio_capture.steps
    else:
        def wrap(x):
            return x

    steps = 0
    t0 = time.monotonic()
    c0 = time.process_time()
    for _ in range(a.epochs):
        for batch in wrap(loader):
            time.sleep(a.compute_ms / 1000.0)
            steps += 1
    # cpu: the process's CPU time over the loop, all its threads (the interposer's writer included).
    print(json.dumps({"steps": steps, "epochs": a.epochs, "seconds": time.monotonic() - t0,
                      "cpu": time.process_time() - c0, "files": len(files)}))


if __name__ == "__main__":
    main()
