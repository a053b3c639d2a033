#!/usr/bin/python3
"""High-rank permutations: reshaper's kernel against a streaming copy, memcpy,
numpy and PyTorch, one thread, in one run.

Random permutations (seeded) of rank 12-24 tensors of dims 2-4 (f32, c64,
bf16, and u8 and c128 for the other element sizes; 16-64 MiB), moved as numpy's np.ascontiguousarray(a.transpose(p)). Each
round runs, in turn, build/bin/high_rank_bench (our kernel through
strided_copy, the mover of `kernel` lowerings, then a streaming-store copy and
glibc memcpy of the same bytes on the same buffers, 3 times each, medians),
numpy's transpose + ascontiguousarray and PyTorch's .permute(p).contiguous()
(torch.set_num_threads(1)) on the same shape and data; the figures are medians
over the rounds. Our output is compared with numpy's bit for bit (a weighted
checksum of every 8-byte word). bf16 goes to numpy as uint16 and to PyTorch as
int16 (the same bytes moved).

    /usr/bin/python3 benchmarks/high_rank_bench.py [--rounds N] [--bench PATH] [--cpu-time]
                                                   [--quick] [--json OUT]

--quick runs QUICK_CASES only (one of each of f32, c64 and bf16; scripts/bench.sh
with QUICK=1); --json writes every row to OUT (scripts/bench_report.py reads it).

--cpu-time times every mover by the calling thread's CPU time instead of the
wall clock (RESHAPER_BENCH_CPU_TIME for the C++ side, time.thread_time here):
on a machine others load, time spent descheduled is then not counted (memory
contention still is). Every mover runs on one thread either way.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import time

import numpy as np
import torch

CASES = [  # (name, element bytes, dims)
    ("f32 rank 22 of 2s", 4, [2] * 22),
    ("f32 rank 12 of 4s", 4, [4] * 12),
    ("f32 rank 14 of 3s", 4, [3] * 14),
    ("f32 rank 24 of 2s", 4, [2] * 24),
    ("c64 rank 21 of 2s", 8, [2] * 21),
    ("c64 rank 12 of 4s,2", 8, [4] * 11 + [2]),
    ("bf16 rank 23 of 2s", 2, [2] * 23),
    ("bf16 rank 12 of 4s", 2, [4] * 12),
    ("bf16 rank 15 of 3s", 2, [3] * 15),
    ("u8 rank 24 of 2s", 1, [2] * 24),
    ("c128 rank 20 of 2s", 16, [2] * 20),
]
# A smoke run's subset: the element types, one each.
QUICK_CASES = ["f32 rank 22 of 2s", "c64 rank 12 of 4s,2", "bf16 rank 12 of 4s"]
NUMPY_TYPE = {1: np.uint8, 2: np.uint16, 4: np.float32, 8: np.complex64, 16: np.complex128}
TORCH_TYPE = {1: np.uint8, 2: np.int16, 4: np.float32, 8: np.complex64, 16: np.complex128}


def source(nbytes, dtype):
    i = np.arange(nbytes, dtype=np.uint64)
    return (((i * np.uint64(2654435761)) >> np.uint64(13)) & np.uint64(0xFF)).astype(np.uint8).view(dtype)


def checksum(a):
    raw = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
    words = raw[: raw.size // 8 * 8].view(np.uint64)
    with np.errstate(over="ignore"):
        return int((words * np.arange(1, words.size + 1, dtype=np.uint64)).sum(dtype=np.uint64))


CLOCK = [time.perf_counter]


def timed(fn):
    t0 = CLOCK[0]()
    fn()
    return CLOCK[0]() - t0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bench", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin", "high_rank_bench"))
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--cpu-time", action="store_true")
    parser.add_argument("--quick", action="store_true", help="QUICK_CASES only")
    parser.add_argument("--json", metavar="OUT", help="write every row to OUT")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.cpu_time:
        CLOCK[0] = time.thread_time
        env["RESHAPER_BENCH_CPU_TIME"] = "1"
    torch.set_num_threads(1)
    rng = random.Random(args.seed)
    print(f"{'case':22} {'MiB':>4} {'path':18} {'ours':>7} {'stream':>7} {'memcpy':>7} {'numpy':>7} {'torch':>7}"
          f" {'x stream':>8} {'x memcpy':>8} {'x numpy':>8} {'x torch':>8}  exact")
    rows = []
    for name, e, dims in CASES:
        if args.quick and name not in QUICK_CASES:
            continue
        perm = list(range(len(dims)))
        rng.shuffle(perm)
        volume = int(np.prod(dims))
        a = source(volume * e, NUMPY_TYPE[e]).reshape(dims)
        t = torch.from_numpy(a.view(TORCH_TYPE[e]))
        expected = checksum(np.ascontiguousarray(a.transpose(perm)))
        ours, numpy_s, torch_s = [], [], []
        for _ in range(args.rounds):
            out = subprocess.run([args.bench, str(e), "3", ",".join(map(str, dims)), ",".join(map(str, perm))],
                                 check=True, capture_output=True, text=True, env=env).stdout
            ours.append(json.loads(out))
            numpy_s.append(timed(lambda: np.ascontiguousarray(a.transpose(perm))))
            torch_s.append(timed(lambda: t.permute(perm).contiguous()))
        med = lambda key: statistics.median(r[key] for r in ours)
        k, s, m = med("kernel_s"), med("stream_copy_s"), med("memcpy_s")
        n, p = statistics.median(numpy_s), statistics.median(torch_s)
        exact = all(r["checksum"] == expected for r in ours)
        gbps = lambda sec: 2 * volume * e / sec / 1e9  # read + written
        print(f"{name:22} {volume * e >> 20:4} {ours[0]['path']:18} {gbps(k):7.2f} {gbps(s):7.2f} {gbps(m):7.2f}"
              f" {gbps(n):7.2f} {gbps(p):7.2f} {s / k:8.2f} {m / k:8.2f} {n / k:8.2f} {p / k:8.2f}  {exact}")
        rows.append({"case": name, "element_bytes": e, "dims": dims, "perm": perm, "bytes": volume * e,
                     "path": ours[0]["path"], "ours_gbps": gbps(k), "stream_gbps": gbps(s), "memcpy_gbps": gbps(m),
                     "numpy_gbps": gbps(n), "torch_gbps": gbps(p), "exact": exact})
    print("GB/s read + written, one thread; 'x Y': Y's time over ours (above 1: we are faster).")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rounds": args.rounds, "cpu_time": args.cpu_time, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
