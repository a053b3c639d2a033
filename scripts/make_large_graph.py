#!/usr/bin/env python3
"""Writes a graph file of N ops for scaling runs of reshaper-run (issue 9):
N / 4 independent chains, each StaticTranspose, StaticReshape, StaticReshape,
StaticTranspose over a small f32 tensor, so every chain is one partition
(its transposes compose into one movement). Usage:

    scripts/make_large_graph.py OPS OUT.json

Then, for example:
    /usr/bin/time -v build/bin/reshaper-run --mode=infer OUT.json
"""
import sys

# One chain: (kind, attribute, output shape), from an input of [4, 8].
CHAIN = [
    ("StaticTranspose", '"order":{"type":"s64[]","value":[1,0]}', [8, 4]),
    ("StaticReshape", '"shape":{"type":"s64[]","value":[32]},"special_zero":{"type":"bool","value":0}', [32]),
    ("StaticReshape", '"shape":{"type":"s64[]","value":[2,16]},"special_zero":{"type":"bool","value":0}', [2, 16]),
    ("StaticTranspose", '"order":{"type":"s64[]","value":[1,0]}', [16, 2]),
]
INPUT_SHAPE = [4, 8]


def tensor(tid, shape):
    dims = ",".join(str(d) for d in shape)
    return f'{{"id":{tid},"dtype":"f32","shape":[{dims}],"layout_type":"strided","property_type":"undef"}}'


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ops = int(sys.argv[1])
    with open(sys.argv[2], "w") as out:
        out.write('{"version":"3.3.0","engine_kind":"cpu","fpmath_mode":"strict","graph":[\n')
        next_tensor = 0
        shape = INPUT_SHAPE
        current = None
        for i in range(ops):
            kind, attrs, out_shape = CHAIN[i % len(CHAIN)]
            if i % len(CHAIN) == 0:  # a new chain on a new input
                current, shape = next_tensor, INPUT_SHAPE
                next_tensor += 1
            produced = next_tensor
            next_tensor += 1
            out.write(("," if i else "") +
                      f'{{"id":{i},"name":"op{i}","kind":"{kind}","attrs":{{{attrs}}},'
                      f'"inputs":[{tensor(current, shape)}],"outputs":[{tensor(produced, out_shape)}]}}\n')
            current, shape = produced, out_shape
        out.write("]}\n")


if __name__ == "__main__":
    main()
