#!/usr/bin/env python3
"""Independent reference of TrainIO's specified record sizes (docs/formats.md, "Record sizes"), written
from the documentation alone, used by tst_dataset to show that each file's d1 x d2 follows from the spec.

Usage: record_shape_reference.py SEED SPLIT(train|valid) RECORD_LENGTH RECORD_LENGTH_STDEV FIRST COUNT
Prints one line "i d1 d2" per file index i in [FIRST, FIRST+COUNT).
"""
import math
import sys

M = (1 << 64) - 1


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & M

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & M
        return mix64(self.state)

    def open_unit(self):  # in (0, 1]
        return ((self.next() >> 11) + 1) * 2.0 ** -53


def shape(seed, valid, record_length, stdev, i):
    d = max(1, int(math.sqrt(record_length)))
    if stdev <= 0:
        return d, d
    sigma = stdev / 2 / math.sqrt(record_length)
    g = SplitMix64(mix64(mix64(seed & M) ^ (2 * i + (1 if valid else 0))))
    u1 = g.open_unit()
    u2 = g.open_unit()
    r = math.sqrt(-2 * math.log(u1))
    z0 = r * math.cos(2 * math.pi * u2)
    z1 = r * math.sin(2 * math.pi * u2)
    return max(1, int(d + sigma * z0)), max(1, int(d + sigma * z1))


def main():
    seed = int(sys.argv[1])
    valid = {"train": False, "valid": True}[sys.argv[2]]
    record_length, stdev = float(sys.argv[3]), float(sys.argv[4])
    first, count = int(sys.argv[5]), int(sys.argv[6])
    for i in range(first, first + count):
        d1, d2 = shape(seed, valid, record_length, stdev, i)
        print(i, d1, d2)


if __name__ == "__main__":
    main()
