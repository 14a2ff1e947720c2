"""Step marks for `trainio-cli capture` (docs/capture.md).

One line in the training loop::

    import trainio_capture
    for batch in trainio_capture.steps(loader):
        ...

`steps(iterable)` yields the iterable's items unchanged and records, in the capture's trace folder
(TRAINIO_CAPTURE_DIR, set by `trainio-cli capture`), when each step asked for its batch and when the batch
arrived: the wait between the two is the data wait, the time from an arrival to the next request is the
step's compute. Each call of `steps` is one epoch. Outside a capture (no TRAINIO_CAPTURE_DIR) it only
yields the items.

Marks go to marks.<pid>.jsonl, one JSON object a line, with CLOCK_MONOTONIC nanoseconds
(time.monotonic_ns), the clock the interposer's events use. They are kept in memory and written when an
epoch ends, every 256 marks, and at exit.
"""

import atexit
import json
import os
import threading
import time

__all__ = ["steps"]

_lock = threading.Lock()
_pending = []
_epoch = 0
_FLUSH_EVERY = 256


def _trace_dir():
    return os.environ.get("TRAINIO_CAPTURE_DIR") or None


def _flush():
    d = _trace_dir()
    with _lock:
        lines, _pending[:] = list(_pending), []
    if not d or not lines:
        return
    path = os.path.join(d, "marks.%d.jsonl" % os.getpid())
    with open(path, "a", encoding="utf-8") as f:
        f.write("".join(json.dumps(m, separators=(",", ":")) + "\n" for m in lines))


def _mark(op, **fields):
    m = {"op": op, "t": time.monotonic_ns(), "pid": os.getpid()}
    m.update(fields)
    with _lock:
        _pending.append(m)
        full = len(_pending) >= _FLUSH_EVERY
    if full:
        _flush()


def _batch_size(item):
    """The number of samples in a batch when it can be told without copying: a tensor's or array's first
    dimension, else the length of a list/tuple/dict's first member, else None."""
    try:
        x = item
        if isinstance(x, dict) and x:
            x = next(iter(x.values()))
        elif isinstance(x, (list, tuple)) and x and hasattr(x[0], "shape"):
            x = x[0]
        shape = getattr(x, "shape", None)
        if shape is not None and len(shape) > 0:
            return int(shape[0])
        if isinstance(x, (list, tuple)):
            return len(x)
    except Exception:  # a batch we cannot size: the trace derives it from the files read instead
        return None
    return None


def steps(iterable):
    """Yields the items of `iterable`, marking each step's request ("ask") and arrival ("batch")."""
    global _epoch
    if not _trace_dir():
        yield from iterable
        return
    _epoch += 1
    epoch = _epoch
    _mark("epoch_begin", epoch=epoch)
    it = iter(iterable)
    step = 0
    try:
        while True:
            _mark("ask", epoch=epoch, step=step)
            try:
                item = next(it)
            except StopIteration:
                break
            size = _batch_size(item)
            if size is None:
                _mark("batch", epoch=epoch, step=step)
            else:
                _mark("batch", epoch=epoch, step=step, size=size)
            yield item
            step += 1
    finally:
        _mark("epoch_end", epoch=epoch, steps=step)
        _flush()


atexit.register(_flush)
