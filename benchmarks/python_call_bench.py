#!/usr/bin/python3
"""Per-call cost of CompiledPartition.execute from Python.

Two partitions: an alias (StaticReshape [256,768] -> [2,128,12,64] f32, 768
KiB: the attention example's split-heads) and a 4 KiB kernel move
(StaticTranspose of a [32,32] f32). Each is timed
  - through reshaper.CompiledPartition.execute with numpy and with torch inputs,
  - against what PyTorch and numpy do on the same tensors (view / reshape for
    the alias; .t().contiguous() / np.ascontiguousarray(x.T) for the move),
  - against the C API's execute on the same compiled partition, called through
    ctypes with prebuilt argument arrays (the alias in place, as a C caller
    runs it); ctypes' own cost is shown apart (a C call that only reads the
    lowering), so "C API" minus it is what the library spends.
Prints one line per measurement: the median over repeats of the mean per call.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_call_bench.py [--repeat N] [--json OUT]

--json writes the rows to OUT (scripts/bench_report.py reads it).
"""
import argparse
import ctypes
import json
import statistics
import sys
import timeit

import numpy as np
import torch

import reshaper


REPEAT = [15]


def us_per_call(fn, number=2000, repeat=None):
    repeat = repeat or REPEAT[0]
    fn()
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(times) / number * 1e6


def compiled(op):
    (p,) = reshaper.Graph().add_op(op).partitions()
    return p.compile()


def c_api():
    lib = ctypes.CDLL("libreshaper.so.0")  # the library the module already loaded
    lib.reshaper_compiled_partition_execute.argtypes = [
        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    lib.reshaper_compiled_partition_get_lowering.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    return lib


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=REPEAT[0], help="repeats of 2000 calls (medians over them)")
    ap.add_argument("--json", metavar="OUT", help="write the rows to OUT")
    args = ap.parse_args()
    REPEAT[0] = args.repeat
    T = reshaper.LogicalTensor
    alias = compiled(reshaper.Op(0, "StaticReshape", "split_heads").add_input(T(0, "f32", [256, 768]))
                     .add_output(T(1, "f32", [-1, -1, -1, -1])).set_attr("shape", [2, 128, 12, 64])
                     .set_attr("special_zero", False))
    move = compiled(reshaper.Op(0, "StaticTranspose", "t").add_input(T(0, "f32", [32, 32]))
                    .add_output(T(1, "f32", [-1, -1])).set_attr("order", [1, 0]))
    assert alias.lowering == "alias" and move.lowering in ("kernel", "reorder")
    lib = c_api()
    rows = []

    xa = np.random.rand(256, 768).astype(np.float32)
    ta = torch.from_numpy(xa)
    xm = np.random.rand(32, 32).astype(np.float32)
    tm = torch.from_numpy(xm)
    moved = np.empty((32, 32), np.float32)

    def c_call(cp, src, dst):
        ins = (ctypes.c_void_p * 1)(src)
        outs = (ctypes.c_void_p * 1)(dst)
        handle = ctypes.c_void_p(cp._cp.c_handle)
        fn = lib.reshaper_compiled_partition_execute
        return lambda: fn(handle, 1, ins, 1, outs)

    lowering = ctypes.c_int()
    handle = ctypes.c_void_p(alias._cp.c_handle)
    rows.append(("ctypes floor (a C call reading the lowering)",
                 us_per_call(lambda: lib.reshaper_compiled_partition_get_lowering(handle, ctypes.byref(lowering)))))

    rows.append(("alias 768 KiB: C API execute in place (ctypes)", us_per_call(c_call(alias, xa.ctypes.data, xa.ctypes.data))))
    rows.append(("alias 768 KiB: reshaper execute, numpy", us_per_call(lambda: alias.execute([xa]))))
    rows.append(("alias 768 KiB: reshaper execute, torch", us_per_call(lambda: alias.execute([ta]))))
    rows.append(("alias 768 KiB: torch x.view(2,128,12,64)", us_per_call(lambda: ta.view(2, 128, 12, 64))))
    rows.append(("alias 768 KiB: numpy x.reshape(2,128,12,64)", us_per_call(lambda: xa.reshape(2, 128, 12, 64))))

    rows.append(("move 4 KiB: C API execute (ctypes)", us_per_call(c_call(move, xm.ctypes.data, moved.ctypes.data))))
    rows.append(("move 4 KiB: reshaper execute, numpy", us_per_call(lambda: move.execute([xm]))))
    rows.append(("move 4 KiB: reshaper execute, torch", us_per_call(lambda: move.execute([tm]))))
    rows.append(("move 4 KiB: reshaper execute, numpy, outputs=", us_per_call(lambda: move.execute([xm], outputs=[moved]))))
    rows.append(("move 4 KiB: torch x.t().contiguous()", us_per_call(lambda: tm.t().contiguous())))
    rows.append(("move 4 KiB: numpy np.ascontiguousarray(x.T)", us_per_call(lambda: np.ascontiguousarray(xm.T))))

    np.testing.assert_array_equal(move.execute([xm])[0], xm.T)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, torch {torch.__version__}, "
          f"threads {torch.get_num_threads()}")
    for name, us in rows:
        print(f"{name:52s} {us:8.2f} us")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"repeat": args.repeat, "torch_threads": torch.get_num_threads(),
                       "us_per_call": dict(rows)}, f, indent=1)


if __name__ == "__main__":
    main()
