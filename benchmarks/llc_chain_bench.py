"""Data-movement chains of torchvision models (window partitions, head
merges, channel shuffles, an NHWC permute) as reshaper compiles them and as
PyTorch's .contiguous() moves them, each timed alone and followed by a sum
over its output (the read the next op does at once). Medians of
interleaved repeats in one process; ratios reshaper / torch.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/llc_chain_bench.py [repeats]

docs/performance.md, "Streaming stores and the last-level cache".
"""
import statistics
import sys
import time

import torch

import reshaper

T = reshaper.LogicalTensor

# name, source shape, view before the permute, permutation, output shape.
CASES = [
    ("maxvit_t window partition", [8, 256, 14, 14], [8, 256, 2, 7, 2, 7], [0, 2, 4, 3, 5, 1], [8, 4, 49, 256]),
    ("swin_t windows", [8, 28, 28, 192], [8, 4, 7, 4, 7, 192], [0, 1, 3, 2, 4, 5], [128, 49, 192]),
    ("NHWC -> NCHW [1,56,56,128]", [1, 56, 56, 128], [1, 56, 56, 128], [0, 3, 1, 2], [1, 128, 56, 56]),
    ("vit merge heads [8,12,197,64]", [8, 12, 197, 64], [8, 12, 197, 64], [0, 2, 1, 3], [8, 197, 768]),
    ("channel shuffle [8,116,28,28] g2", [8, 116, 28, 28], [8, 2, 58, 28, 28], [0, 2, 1, 3, 4], [8, 116, 28, 28]),
    ("NCHW -> NHWC 64 MiB f32", [64, 256, 32, 32], [64, 256, 32, 32], [0, 2, 3, 1], [64, 32, 32, 256]),
]
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}


def compile_chain(dtype, src, view, perm, out):
    """StaticReshape -> StaticTranspose -> StaticReshape as one partition."""
    g = reshaper.Graph("cpu")
    g.add_op(reshaper.Op(1, "StaticReshape", "view").add_input(T(1, dtype, src))
             .add_output(T(2, dtype, [-1] * len(view))).set_attr("shape", view).set_attr("special_zero", False))
    g.add_op(reshaper.Op(2, "StaticTranspose", "permute").add_input(T(2, dtype, [-1] * len(view)))
             .add_output(T(3, dtype, [-1] * len(view))).set_attr("order", perm))
    g.add_op(reshaper.Op(3, "StaticReshape", "merge").add_input(T(3, dtype, [-1] * len(view)))
             .add_output(T(4, dtype, [-1] * len(out))).set_attr("shape", out).set_attr("special_zero", False))
    g.finalize()
    (part,) = [p for p in g.partitions() if p.supported]
    return part.compile("cpu")


def median_us(samples):
    return statistics.median(samples) / 1e3


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    # torch keeps its default threads: given both cores it contends with
    # oneTBB's workers (each move then took ~8 ms on 2 loaded cores).
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; medians of {repeats} interleaved repeats")
    print(f"{'case':36} {'type':5} {'MB':>6} | {'move us':>15} {'ratio':>6} | {'move+read us':>15} {'ratio':>6}")
    for index, (name, src, view, perm, out) in enumerate([CASES[0]] + CASES):
        for tname, tdtype in DTYPES.items():
            x = torch.randn(src).to(tdtype)
            cp = compile_chain(tname, src, view, perm, out)
            y = torch.empty(out, dtype=tdtype)
            assert cp._cp.output_mem_size(0) == y.numel() * y.element_size()

            # The native execute into a buffer made once, as a framework
            # would hand one: execute() allocates and copies per call, and
            # numpy has no bf16.
            def ours():
                cp._cp.execute_addresses([x.data_ptr()], [y.data_ptr()])
                return y

            def theirs():
                return x.view(view).permute(perm).contiguous().view(out)

            assert torch.equal(ours(), theirs())
            for _ in range(3):  # warm: pages of y and torch's allocator
                ours(), theirs()
            t = {k: [] for k in ("ours", "theirs", "ours+read", "theirs+read")}
            for _ in range(repeats):
                for key, fn, read in (("ours", ours, False), ("theirs", theirs, False),
                                      ("ours+read", ours, True), ("theirs+read", theirs, True)):
                    start = time.perf_counter_ns()
                    r = fn()
                    if read:
                        r.sum()
                    t[key].append(time.perf_counter_ns() - start)
            m = {k: median_us(v) for k, v in t.items()}
            if index == 0:
                continue  # the first case once more, untimed: oneTBB's workers start, pages settle
            mb = y.numel() * y.element_size() / 1e6
            print(f"{name:36} {tname:5} {mb:6.1f} | {m['ours']:7.0f} {m['theirs']:7.0f} {m['ours'] / m['theirs']:6.2f} | "
                  f"{m['ours+read']:7.0f} {m['theirs+read']:7.0f} {m['ours+read'] / m['theirs+read']:6.2f}")


if __name__ == "__main__":
    main()
