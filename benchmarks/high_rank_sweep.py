#!/usr/bin/python3
"""A seeded sweep of random high-rank permutations through graph files and the
driver, as issue 27's high-rank goal is judged: rank 12-24 tensors of dims 2-4
(mixed, and all 2s, all 3s, all 4s), f32, c64 and bf16, 16-64 MiB, each one
StaticTranspose (c64: ONNX Transpose) in a oneDNN Graph JSON file, timed by
`reshaper-run --mode=perf --threads=1` against the streaming copy it prints
(goal: 0.6 of it).

    /usr/bin/python3 benchmarks/high_rank_sweep.py [--count 90] [--seed 27]
        [--bin build/bin/reshaper-run ...] [--rounds 3] [--reps 7] [--isa avx2|scalar]
        [--only CASE,...] [--numpy HIGH_RANK_BENCH] [--json OUT] [--dir DIR]

Several --bin binaries are timed interleaved (each round runs every case
through each binary in turn, under `chrt -f 10` where allowed), so an old and
a new build compare in one run; the figures are medians over the rounds of
each run's ratio (the kernel's GB/s over the streaming copy's in the same
process). The report gives per case the ratio for each binary and the plan
(the kernel steps of the driver's `plan`, of the last binary), then per dtype
the count below 0.6, the median and the worst.

--numpy HIGH_RANK_BENCH checks every case bit for bit against numpy's
ascontiguousarray(a.transpose(p)) through that build of
benchmarks/high_rank_bench (the same strided copy the driver's `kernel`
lowering runs; the Python module's C API stops at rank 12), and through the
last binary's --mode=check (the graph file executed against the driver's
reference); --isa caps the SIMD level (RESHAPER_MAX_CPU_ISA) for the
timings and the checks.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys

import numpy as np

DTYPES = {"f32": 4, "c64": 8, "bf16": 2}
MIN_BYTES, MAX_BYTES = 16 << 20, 64 << 20


def dense_strides(shape):
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return strides


def graph_json(dtype, dims, perm):
    out = [dims[p] for p in perm]
    tensor = lambda i, shape: {"id": i, "dtype": dtype, "shape": shape, "stride": dense_strides(shape),
                               "layout_type": "strided", "property_type": "undef"}
    # StaticTranspose takes f32, bf16 and f16; other dtypes go as ONNX's Transpose.
    op = ({"kind": "StaticTranspose", "attrs": {"order": {"type": "s64[]", "value": perm}}}
          if dtype in ("f32", "bf16") else
          {"kind": "Transpose", "domain": "ai.onnx", "version": 21, "attrs": {"perm": {"type": "s64[]", "value": perm}}})
    return {"version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict",
            "graph": [dict({"id": 0, "name": "permute"}, **op, inputs=[tensor(0, dims)], outputs=[tensor(1, out)])]}


def uniform_dims(rng, e, size):
    """Dims all `size` (rank 12-24, 16-64 MiB); where no rank fits (c64 4s),
    one dim of 2 brings the bytes into range."""
    fits = [r for r in range(12, 25) if MIN_BYTES <= size ** r * e <= MAX_BYTES]
    if fits:
        return [size] * rng.choice(fits)
    for r in range(11, 24):
        if MIN_BYTES <= size ** r * 2 * e <= MAX_BYTES:
            dims = [size] * r + [2]
            rng.shuffle(dims)
            return dims
    raise ValueError(f"no rank fits dims of {size} at {e} bytes")


def mixed_dims(rng, e):
    while True:
        dims = [rng.choice((2, 3, 4)) for _ in range(rng.randint(12, 24))]
        if len(set(dims)) > 1 and MIN_BYTES <= int(np.prod(dims)) * e <= MAX_BYTES:
            return dims


def make_cases(count, seed):
    """count cases, a third per dtype; within each, kinds in turn: mixed,
    2s, mixed, 3s, mixed, 4s (half mixed)."""
    rng = random.Random(seed)
    kinds = ["mixed", "2s", "mixed", "3s", "mixed", "4s"]
    cases = []
    for i in range(count):
        dtype = list(DTYPES)[i % 3]
        kind = kinds[(i // 3) % len(kinds)]
        e = DTYPES[dtype]
        dims = mixed_dims(rng, e) if kind == "mixed" else uniform_dims(rng, e, int(kind[0]))
        perm = list(range(len(dims)))
        while perm == sorted(perm):
            rng.shuffle(perm)
        cases.append({"name": f"{i:03d} {dtype} {kind} rank {len(dims)}", "dtype": dtype, "kind": kind,
                      "dims": dims, "perm": perm, "bytes": int(np.prod(dims)) * e})
    return cases


def kernel_steps(plan):
    at = plan.find("kernel steps: ")
    return plan[at + len("kernel steps: "):] if at >= 0 else plan


def run_driver(binary, path, reps, env):
    cmd = [binary, "--mode=perf", "--threads=1", f"--reps={reps}", "--report=json", path]
    try:
        out = subprocess.run(["chrt", "-f", "10"] + cmd, check=True, capture_output=True, text=True, env=env).stdout
    except (subprocess.CalledProcessError, FileNotFoundError, PermissionError):
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    report = json.loads(out.splitlines()[-1])
    perf = report["perf"][0]
    return {"ratio": perf["gbps"] / perf["stream_gbps"], "ms": perf["ms"], "lowering": perf["lowering"],
            "plan": kernel_steps(report["partitions"][0].get("plan", ""))}


def numpy_check(bench, case, env):
    """The case through high_rank_bench (the kernel the driver's `kernel`
    lowering runs, strided_copy, at the same level) against numpy's
    ascontiguousarray(a.transpose(p)): their checksums of every byte."""
    from high_rank_bench import NUMPY_TYPE, checksum, source
    e = DTYPES[case["dtype"]]
    out = subprocess.run([bench, str(e), "1", ",".join(map(str, case["dims"])), ",".join(map(str, case["perm"]))],
                         check=True, capture_output=True, text=True, env=env).stdout
    a = source(case["bytes"], NUMPY_TYPE[e]).reshape(case["dims"])
    return json.loads(out)["checksum"] == checksum(np.ascontiguousarray(a.transpose(case["perm"])))


def driver_check(binary, path, env):
    """The driver's own check (the execute against its reference, bit for bit)."""
    return subprocess.run([binary, "--mode=check", path], capture_output=True, env=env).returncode == 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=90)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--bin", action="append", help="reshaper-run binaries, timed interleaved (default: build's)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--isa", help="RESHAPER_MAX_CPU_ISA for every run")
    parser.add_argument("--only", help="comma-separated case numbers")
    parser.add_argument("--numpy", metavar="HIGH_RANK_BENCH",
                        help="check every case against numpy through this high_rank_bench, and the driver's check")
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--dir", default="/tmp/high_rank_sweep", help="where the graph files go")
    args = parser.parse_args()
    binaries = args.bin or [os.path.join(here, "..", "build", "bin", "reshaper-run")]
    env = dict(os.environ)
    if args.isa:
        env["RESHAPER_MAX_CPU_ISA"] = args.isa
    cases = make_cases(args.count, args.seed)
    if args.only:
        wanted = {int(x) for x in args.only.split(",")}
        cases = [c for i, c in enumerate(cases) if i in wanted]
    os.makedirs(args.dir, exist_ok=True)
    paths = []
    for c in cases:
        path = os.path.join(args.dir, c["name"].split()[0] + ".json")
        with open(path, "w") as f:
            json.dump(graph_json(c["dtype"], c["dims"], c["perm"]), f)
        paths.append(path)
    runs = {(i, b): [] for i in range(len(cases)) for b in range(len(binaries))}
    for _ in range(args.rounds):
        for i, path in enumerate(paths):
            for b, binary in enumerate(binaries):
                runs[(i, b)].append(run_driver(binary, path, args.reps, env))
    exact = {}
    if args.numpy:
        sys.path.insert(0, here)
        for c, path in zip(cases, paths):
            exact[c["name"]] = numpy_check(args.numpy, c, env) and driver_check(binaries[-1], path, env)
    rows = []
    for i, c in enumerate(cases):
        ratios = [statistics.median(r["ratio"] for r in runs[(i, b)]) for b in range(len(binaries))]
        last = runs[(i, len(binaries) - 1)][-1]
        row = dict(c, ratios=ratios, lowering=last["lowering"], plan=last["plan"])
        if exact:
            row["exact"] = exact[c["name"]]
        rows.append(row)
        flag = "" if not exact else ("  exact" if exact[c["name"]] else "  MISMATCH")
        print(f"{c['name']:24} {c['bytes'] / (1 << 20):5.1f} MiB  "
              + " ".join(f"{x:5.2f}" for x in ratios) + f"  {last['lowering']}: {last['plan']}{flag}")
        print(f"{'':24} dims {c['dims']} perm {c['perm']}")
    print(f"\nratio to the one-thread streaming copy, medians of {args.rounds} rounds"
          + (f", RESHAPER_MAX_CPU_ISA={args.isa}" if args.isa else "") + "; per binary:")
    for b, binary in enumerate(binaries):
        print(f"  {binary}")
        for dtype in list(DTYPES) + ["all"]:
            xs = [r["ratios"][b] for r in rows if dtype in ("all", r["dtype"])]
            if xs:
                print(f"    {dtype:5} {len(xs):3} cases: {sum(x < 0.6 for x in xs):3} below 0.6, "
                      f"median {statistics.median(xs):.2f}, worst {min(xs):.2f}")
    if exact:
        print(f"numpy: {sum(exact.values())} of {len(exact)} bit for bit")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"binaries": binaries, "rounds": args.rounds, "reps": args.reps, "isa": args.isa,
                       "seed": args.seed, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
