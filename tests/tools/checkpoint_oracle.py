#!/usr/bin/env python3
"""Oracle for tst_checkpoint: the files and sizes MLCommons' DLIO fork (mlcommons/DLIO_local_changes
f6796ed, dlio_benchmark/checkpointing/base_checkpointing.py) writes for a transformer model, written
from that Python code independently of TrainIO's C++ planner (core/checkpoint/checkpoint_plan.cpp).

Usage: checkpoint_oracle.py layers vocab hidden ffn heads kv_heads tp pp zero ranks model_dtype opt_dtype
Prints JSON: {"checkpoint_size_gib": float, "ranks": [[[file, bytes], ...], ...]}
"""
import json
import sys

DTYPE = {"int8": 1, "uint8": 1, "fp16": 2, "bf16": 2, "fp32": 4, "fp64": 8}


def main():
    (layers, vocab, hidden, ffn, heads, kv, tp, pp, zero, ranks) = (int(a) for a in sys.argv[1:11])
    mdt, odt = DTYPE[sys.argv[11]], DTYPE[sys.argv[12]]
    mp = tp * pp
    dp = ranks // mp

    head = hidden // heads
    dim_kv = head * kv
    emb = vocab * hidden
    params = 2 * emb + hidden + layers * (
        2 * hidden + hidden * (hidden + 2 * dim_kv) + hidden * hidden + 3 * ffn * hidden)

    def layer_elems(i):
        shard = dp if zero >= 3 else 1
        if i in (0, layers + 1):
            return [hidden * vocab // tp // shard]
        if i == layers + 2:
            return [hidden // shard]
        return [hidden // shard, hidden * (hidden + 2 * dim_kv) // tp // shard, hidden * hidden // tp // shard,
                hidden // shard, hidden * 2 * ffn // tp // shard, hidden * ffn // tp // shard]

    total_model = 0.0
    total_opt = 0.0
    out = []
    for rank in range(ranks):
        files = []
        pr = (rank // tp) % pp
        dr = rank // mp
        mr = rank % mp
        if zero == 0 and rank >= mp:
            out.append(files)
            continue
        per, rem = layers // pp, layers % pp
        if pr < rem:
            first = pr * (per + 1) + 1
            last = first + per
        else:
            first = rem * (per + 1) + (pr - rem) * per + 1
            last = first + per - 1
        if pr == pp - 1:
            last = layers + 2
        if pr == 0:
            first = 0
        sizes = {}
        if not (zero == 1 and dr != 0):
            for i in range(first, last + 1):
                sizes[i] = sum(e * mdt for e in layer_elems(i) if e > 0)
                total_model += sizes[i]
        n = params // (dp * mp) if zero > 0 else params // mp
        opt = 3 * (n + 5 * hidden) * odt if n > 0 else 0
        total_opt += opt
        zname = f"zero_pp_rank_{dr}_mp_rank_{mr}"
        if sum(sizes.values()) > 0:
            if 0 < zero < 3:
                if dr == 0:
                    if pp > 1:
                        files += [[f"layer_{i}-model_{mr}_model_states.pt", b] for i, b in sizes.items() if b > 0]
                    else:
                        files.append([f"model_{mr}_model_states.pt", sum(sizes.values())])
            else:
                files.append([f"{zname}_model_states.pt", sum(sizes.values())])
        if opt > 0:
            files.append([f"{zname}_optim_states.pt", opt])
        out.append(files)
    print(json.dumps({"checkpoint_size_gib": (total_model + total_opt) / 1024.0 ** 3, "ranks": out}))


if __name__ == "__main__":
    main()
