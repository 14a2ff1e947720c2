#!/usr/bin/env python3
"""Independent reference of TrainIO's specified shuffle (docs/engine.md), used by tst_engine to show
that a sample order is reproducible from the spec alone, outside C++.

Usage: shuffle_reference.py SEED EPOCH RANK FIRST COUNT SEED_CHANGE_EPOCH(0|1)
Prints the sample-shuffled order of the shard [FIRST, FIRST+COUNT) (sample_shuffle=seed, file_shuffle=off).
"""
import sys

M = (1 << 64) - 1


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & M
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return state, z ^ (z >> 31)


class Gen:
    def __init__(self, seed):
        self.state = seed & M

    def next(self):
        self.state, out = splitmix64(self.state)
        return out

    def below(self, bound):  # Lemire's multiply-shift with rejection
        m = self.next() * bound
        low = m & M
        if low < bound:
            threshold = ((1 << 64) - bound) % bound
            while low < threshold:
                m = self.next() * bound
                low = m & M
        return m >> 64


def mix_seed(seed, a, b):
    g = Gen((seed ^ ((a * 0xD1B54A32D192ED03) & M) ^ ((b * 0x8CB92BA72F3D8DD7) & M)) & M)
    g.next()
    return g.next()


def main():
    seed, epoch, rank, first, count, change = (int(x) for x in sys.argv[1:7])
    eseed = (seed + epoch) & M if change else seed
    order = list(range(first, first + count))
    g = Gen(mix_seed(eseed, 0x5A3B, rank))
    for i in range(len(order), 1, -1):
        j = g.below(i)
        order[i - 1], order[j] = order[j], order[i - 1]
    print(" ".join(str(x) for x in order))


if __name__ == "__main__":
    main()
