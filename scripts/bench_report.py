#!/usr/bin/env python3
"""Turns the benchmark results of scripts/bench.sh into docs/performance.md,
its plot and README.md's headline table, measuring on the way what the
issue's goals are judged by: reshaper-run's perf mode on DRAM-sized moves of
every dtype class, blocked layouts and in-cache transposes, on one thread and
on all; the large graphs' load and check; benchmarks/high_rank_bench.py,
python_call_bench.py and model_chains_bench.py; and numpy and PyTorch across
sizes. Every speed is a ratio to a streaming-store copy and to glibc's memcpy
(the driver's yardstick_copy, src/driver/yardstick.cpp) of the same bytes on
the same buffers and threads, measured in the same program run (medians of
interleaved repeats). Each run's figures are kept in RESULTS/run.pickle;
--rewrite writes the report from them again without measuring."""
import argparse
import datetime
import json
import os
import pickle
import platform
import random
import statistics
import subprocess
import sys
import time

MIB = 1 << 20


def load_medians(path):
    """{(case, dtype, size, mover): GB/s} from Google Benchmark's JSON."""
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median" or "bytes_per_second" not in b:
            continue
        parts = b["run_name"].split("/")
        if len(parts) < 4:
            continue
        out[tuple(parts[:4])] = b["bytes_per_second"] / 1e9
    return out


def load_backend(path):
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            out[b["run_name"]] = b
    return out


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"


# ---- peers -----------------------------------------------------------------

def interleaved(fns, reps):
    """Median seconds of each fn, the fns run in a new random order each round."""
    times = {name: [] for name in fns}
    names = list(fns)
    for _ in range(reps):
        random.shuffle(names)
        for name in names:
            start = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def measure_peers(reps, sizes):
    """GB/s (read + written) of numpy and PyTorch doing the NHWC -> NCHW
    transpose, and of memcpy (numpy's copyto of a dense array) in the same
    run, for f32 at each size."""
    import numpy as np
    try:
        import torch
        torch.set_num_threads(os.cpu_count() or 1)
    except ImportError:
        torch = None
    results = []
    for size in sizes:
        elements = size // 4
        hw = max(1, min(4096, elements // 64))
        n = max(1, elements // (64 * hw))
        nhwc = np.random.rand(n, hw, 64).astype(np.float32)
        seen = nhwc.transpose(0, 2, 1)  # NCHW view of NHWC data
        dense_src = np.random.rand(n * 64 * hw).astype(np.float32)
        dense_dst = np.empty_like(dense_src)
        # Every mover writes into a buffer allocated once, as memcpy does
        # (a fresh output per call would time its page faults too).
        out = np.empty(seen.shape, dtype=np.float32)
        fns = {
            "memcpy": lambda: np.copyto(dense_dst, dense_src),
            "numpy": lambda: np.copyto(out, seen),
        }
        if torch is not None:
            t = torch.from_numpy(nhwc).permute(0, 2, 1)
            t_out = torch.empty(t.shape, dtype=torch.float32)
            fns["pytorch"] = lambda: t_out.copy_(t)
        inner_reps = max(3, min(50, (64 * MIB) // max(size, 1)))
        med = interleaved(fns, reps * inner_reps if size < MIB else reps)
        moved = 2 * n * 64 * hw * 4
        results.append({"size": size, **{k: moved / v / 1e9 for k, v in med.items()}})
    return results


# ---- reshaper-run perf mode --------------------------------------------------
#
# Every move the driver times is a graph of one ONNX Reshape whose input is a
# strided view (the source's dense strides, permuted) and whose output is
# dense: a permutation of the source's physical dims, which is what a
# transpose, a layout change to or from a blocked format and a head split
# all are. The driver's perf mode times the execute in turn with glibc's
# memcpy and the streaming-store copy of the same bytes on the same buffers
# and threads (src/driver/partition_perf.cpp, yardstick.cpp); moves whose
# bytes fit the last-level cache start each sample warm, yardsticks too
# (perf_timing.hpp's sample_start::in_cache).

def dense_strides(dims):
    strides, step = [], 1
    for d in reversed(dims):
        strides.append(step)
        step *= d
    return strides[::-1]


def permute_graph(dtype, src_dims, perm):
    """A graph moving a dense tensor of `src_dims` into the dense layout of
    its dims in the order `perm`."""
    src_strides = dense_strides(src_dims)
    shape = [src_dims[p] for p in perm]
    stride = [src_strides[p] for p in perm]
    return {"version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [{
        "id": 0, "name": "permute", "kind": "Reshape", "domain": "ai.onnx", "version": 21,
        "attrs": {"allowzero": {"type": "s64", "value": 0}},
        "inputs": [
            {"id": 0, "dtype": dtype, "shape": shape, "stride": stride,
             "layout_type": "strided", "property_type": "undef"},
            {"id": 2, "dtype": "s64", "shape": [len(shape)], "stride": [1], "layout_type": "strided",
             "property_type": "constant", "values": shape}],
        "outputs": [{"id": 1, "dtype": dtype, "shape": shape, "stride": dense_strides(shape),
                     "layout_type": "strided", "property_type": "undef"}]}]}


ELEMENT_BITS = {"f32": 32, "s32": 32, "f16": 16, "bf16": 16, "s8": 8, "u8": 8, "s64": 64,
                "f64": 64, "c64": 64, "boolean": 8, "s4": 4, "c128": 128}


def class_goal(dtype):
    """The issue's DRAM goal against the one-thread streaming copy."""
    bits = ELEMENT_BITS[dtype]
    if bits == 4:
        return 0.7
    return 0.8 if bits == 8 else 0.9


def elements_of(dtype, nbytes):
    return nbytes * 8 // ELEMENT_BITS[dtype]


def padded_blocked_graph(dtype, shape, fmt, to_blocked):
    """A graph moving `shape` between the dense strided layout and the
    opaque blocked layout `fmt` (padded where the blocked dim is no
    multiple of its block), to the blocked one or from it."""
    plain = {"dtype": dtype, "shape": shape, "stride": dense_strides(shape), "layout_type": "strided",
             "property_type": "undef"}
    blocked = {"dtype": dtype, "shape": shape, "layout_type": "opaque", "format": fmt, "property_type": "undef"}
    src, dst = (plain, blocked) if to_blocked else (blocked, plain)
    return {"version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [{
        "id": 0, "name": "relayout", "kind": "Reshape", "domain": "ai.onnx", "version": 21,
        "attrs": {"allowzero": {"type": "s64", "value": 0}},
        "inputs": [dict(src, id=0),
                   {"id": 2, "dtype": "s64", "shape": [len(shape)], "stride": [1], "layout_type": "strided",
                    "property_type": "constant", "values": shape}],
        "outputs": [dict(dst, id=1)]}]}


def case_graph(dtype, dims, perm):
    """The graph of a case: a permutation of dense `dims` (permute_graph),
    or where `perm` is a (format, to_blocked) pair, `dims` between nchw and
    that padded blocked format (padded_blocked_graph)."""
    if isinstance(perm, tuple):
        return padded_blocked_graph(dtype, dims, perm[0], perm[1])
    return permute_graph(dtype, dims, perm)


def driver_machine(driver, workdir):
    """What reshaper-run's kernels count on of this machine (its perf report's
    perf_machine: the caches as listed and as counted, the thresholds): one
    reading of the machine, the kernels' own (kernels/cpu_isa.hpp)."""
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(workdir, "machine.json")
    with open(path, "w") as f:
        json.dump(permute_graph("f32", [64, 64], [1, 0]), f)
    run = subprocess.run([driver, "--mode=perf", "--report=json", "--reps=1", "--threads=1", path],
                         capture_output=True, text=True, check=True)
    return json.loads(run.stdout.splitlines()[0])["perf_machine"]


def dram_bytes(llc_bytes):
    """DRAM-sized input (issue 27): at least twice the last-level cache the
    machine lists (`llc_bytes`), a power of two, and never below 64 MiB."""
    nbytes = 64 * MIB
    while nbytes < 2 * llc_bytes:
        nbytes *= 2
    return nbytes


def dram_samples(samples, size):
    """Fewer samples for inputs past 64 MiB (each sample moves the input three
    times: the execute and the two yardstick copies), at least 5."""
    return max(5, samples * 64 * MIB // size)


def dram_cases(quick, size):
    """(group, label, dtype, source dims, perm): `size` bytes of input, NHWC
    data as NCHW per dtype class, and blocked layouts both ways (padded ones:
    the logical dims and (format, to_blocked) for perm, see case_graph)."""
    cases = []
    dtypes = (["f32", "bf16", "s8", "s64", "boolean", "c128", "s4"] if quick else
              ["f32", "s32", "f16", "bf16", "s8", "u8", "s64", "f64", "c64", "c128", "boolean", "s4"])
    for dtype in dtypes:
        n = elements_of(dtype, size) // (256 * 4096)
        cases.append(("dram", f"[{n},256,64,64] NHWC as NCHW", dtype, [n, 64, 64, 256], [0, 3, 1, 2]))
    for dtype in ["f32", "bf16"]:
        n = elements_of(dtype, size) // (256 * 4096)
        for b in (16, 8):
            if dtype == "bf16" and b == 8:
                continue
            cases.append(("blocked", f"[{n},256,64,64] nChw{b}c -> nchw", dtype, [n, 256 // b, 64, 64, b],
                          [0, 1, 4, 2, 3]))
            cases.append(("blocked", f"[{n},256,64,64] nchw -> nChw{b}c", dtype, [n, 256 // b, b, 4096],
                          [0, 1, 3, 2]))
    # [A,256,16,16] weights: ABcd16a16b's physical dims are
    # (A/16, B/16, c, d, 16a, 16b); abcd's (A/16, 16a, B/16, 16b, c, d).
    blocks = elements_of("f32", size) // (16 ** 5)
    a = 16 * blocks
    cases.append(("blocked", f"[{a},256,16,16] ABcd16a16b -> abcd", "f32", [blocks] + [16] * 5, [0, 4, 1, 5, 2, 3]))
    cases.append(("blocked", f"[{a},256,16,16] abcd -> ABcd16a16b", "f32", [blocks] + [16] * 5, [0, 2, 4, 5, 1, 3]))
    # 250 channels: 15 whole blocks and 10 of a 16th, padded to 256 (as
    # backend_bench's bm_padded, there against oneDNN's reorder).
    n = elements_of("f32", size) // (256 * 4096)
    cases.append(("blocked", f"[{n},250,64,64] padded nChw16c -> nchw", "f32", [n, 250, 64, 64], ("nChw16c", False)))
    cases.append(("blocked", f"[{n},250,64,64] nchw -> padded nChw16c", "f32", [n, 250, 64, 64], ("nChw16c", True)))
    return cases


IN_CACHE_SIZES = [32 << 10, 256 << 10, 2 * MIB]


def in_cache_cases(quick):
    """The issue's in-cache transposes, 32 KiB - 2 MiB of input: NHWC as
    NCHW ([1,HW,64] -> [1,64,HW]), attention split heads ([1,S,8,64] ->
    [1,8,S,64]) and merge heads (the inverse), channel shuffle of 2 groups
    ([1,2,64,HW] -> [1,64,2,HW])."""
    cases = []
    for size in IN_CACHE_SIZES:
        for dtype in ["f32", "bf16", "s8"]:
            e = elements_of(dtype, size)
            label = size_label(size)
            cases.append(("in_cache", f"NHWC as NCHW [1,{e // 64},64] {label}", dtype, [1, e // 64, 64], [0, 2, 1]))
            if quick and size != 256 << 10:
                continue
            s = e // 512
            cases.append(("in_cache", f"split heads [1,{s},8,64] {label}", dtype, [1, s, 8, 64], [0, 2, 1, 3]))
            cases.append(("in_cache", f"merge heads [1,8,{s},64] {label}", dtype, [1, 8, s, 64], [0, 2, 1, 3]))
            cases.append(("in_cache", f"channel shuffle [1,2,64,{e // 128}] {label}", dtype, [1, 2, 64, e // 128],
                          [0, 2, 1, 3]))
    return cases


def size_label(nbytes):
    return f"{nbytes // MIB} MiB" if nbytes >= MIB else f"{nbytes >> 10} KiB"


def driver_perf(driver, workdir, cases, thread_counts, samples):
    """{(group, label, dtype, threads): perf entry of reshaper-run --mode=perf
    --report=json, plus "cores": the cores its threads got (threads >= 2)}."""
    os.makedirs(workdir, exist_ok=True)
    out = {}
    for k, (group, label, dtype, dims, perm) in enumerate(cases):
        path = os.path.join(workdir, f"case_{k}.json")
        with open(path, "w") as f:
            json.dump(case_graph(dtype, dims, perm), f)
        for threads in thread_counts:
            run = subprocess.run([driver, "--mode=perf", "--report=json", f"--reps={samples}",
                                  f"--threads={threads}", path], capture_output=True, text=True)
            entry = {"lowering": "error", "error": run.stderr.strip()[-200:]}
            if run.returncode == 0:
                report = json.loads(run.stdout.splitlines()[0])
                entry = dict(report["perf"][0])
                entry["cores"] = report.get("perf_threads", {}).get("cores")
            out[(group, label, dtype, threads)] = entry
    return out


# ---- large graphs: load and check ---------------------------------------------

LARGE_GRAPH_OPS = 100_000
# (chain length, what the file holds): benchmarks/large_graph.hpp's forms.
LARGE_GRAPHS = [(4, "chains of 4 ops (transpose, reshape, reshape, transpose), a partition each"),
                (1, "transposes, a partition each")]


def run_measured(cmd, workdir):
    """Wall seconds and peak RSS (bytes) of one run of `cmd`, output dropped.
    The peak comes from GNU time, the command's parent: a child forked from
    this process (which holds PyTorch) would count this process's pages."""
    peak_file = os.path.join(workdir, "peak_kib")
    start = time.perf_counter()
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak_file] + cmd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    with open(peak_file) as f:
        return seconds, int(f.read().split()[-1]) * 1024


def large_graphs(driver, maker, workdir, reps, million):
    """[(ops, what, file bytes, report, threads, median s, median peak RSS)]
    of reshaper-run --mode=check on 100,000-op files, text and JSON report,
    threads 1 and all, interleaved rounds; with `million`, a 1,000,000-op
    file of transposes too (all threads, both reports)."""
    os.makedirs(workdir, exist_ok=True)
    cases = []
    for ops, length, what in [(LARGE_GRAPH_OPS, l, w) for l, w in LARGE_GRAPHS] + (
            [(10 * LARGE_GRAPH_OPS, 1, LARGE_GRAPHS[1][1])] if million else []):
        path = os.path.join(workdir, f"large_{ops}_{length}.json")
        subprocess.run([maker, str(ops), path, str(length)], check=True)
        for report in ("text", "json"):
            for threads in ((os.cpu_count(), 1) if ops == LARGE_GRAPH_OPS else (os.cpu_count(),)):
                cases.append((ops, what, path, report, threads))
    times = {c: [] for c in cases}
    rss = {c: [] for c in cases}
    for _ in range(max(reps, 3)):
        for c in random.sample(cases, len(cases)):
            seconds, peak = run_measured([driver, "--mode=check", f"--report={c[3]}", f"--threads={c[4]}", c[2]],
                                         workdir)
            times[c].append(seconds)
            rss[c].append(peak)
    return [(ops, what, os.path.getsize(path), report, threads, statistics.median(times[c]),
             statistics.median(rss[c])) for c in cases for ops, what, path, report, threads in [c]]


# ---- the Python benchmarks ------------------------------------------------------

def run_python_bench(script, args, out_json, log):
    """Runs benchmarks/`script` with this interpreter, its rows to
    `out_json`; returns them (None if it failed: the log says why)."""
    here = os.path.dirname(os.path.abspath(__file__))
    cmd = [sys.executable, os.path.join(here, "..", "benchmarks", script), "--json", out_json] + args
    start = time.perf_counter()
    with open(log, "w") as f:
        run = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if run.returncode != 0 or not os.path.exists(out_json):
        print(f"bench_report: {script} failed, see {log}", file=sys.stderr)
        return None
    with open(out_json) as f:
        data = json.load(f)
    data["seconds"] = time.perf_counter() - start
    return data


# ---- the report ---------------------------------------------------------------

# Measured by hand while tuning the kernels (moved here from their comments), kept as written.
KERNEL_TUNING_SECTION = """## Why the kernels are tuned as they are

Measured by hand in tuning runs from 2026-11-22 to 2026-11-27, not by `scripts/bench.sh`: earlier runs' figures, kept as written (a bullet gives its run's date where it has one; the commit that made the change it describes dates the rest); each figure names its machine. The code keeps a sentence of why at each decision and points here; `plan_movement` (`kernels/movement_planner.cpp`) makes every decision named below once, at compile time.

- **Threads** (`parallel_task_bytes`, `parallel_threshold_bytes` in `kernels/movement_program.hpp`). Each oneTBB task moves at least 256 KiB, and moves under two tasks' worth stay on the calling thread: at one task's worth, f32 [1, 64, 1024] NHWC as NCHW (256 KiB), 2 cores, took 24-30 us cut and run as one task against 12-18 us whole on one thread; at 512 KiB two threads took 21 us against 28-32 on one. A transpose's strips are cut along the columns only when there are too few to share: cut on one thread, a strip lost its wide steps to pieces narrower than one (64 KiB f32, [1,16,1024]: 8.6-8.9 -> 3.9-4.4 us).
- **The AVX2 level's walk** (`avx2_ops::walk`). Tuned on an AMD EPYC (Zen 3, no AVX-512), NHWC as NCHW, medians of interleaved runs at real-time priority. First (64 MiB, against memcpy): the AVX-512 walk (strips a tile high along all columns: each source line read from memory out of order, 64 bytes per destination row at a time) ran f32 at 1.0x memcpy, bf16 1.0x, f64 1.3x; column blocks of 64 KiB read in order and transposed from the cache, 8 tiles side by side: f32 1.5x, bf16 1.2x, f64 1.6x. Then against a 2-thread streaming copy of the same bytes ([N,256,32,32], 32 MiB): reading the source alone in the tiles' order took 1.5-1.8x the time of reading it in order, writing alone in their order no longer than writing in order, and the transpose about the sum of the two. Prefetching the next column step's lines into L1 in memory order, a few per register block (`line_prefetch`), over column blocks that span whole source rows, took bf16 0.62 -> 0.86-0.89 of that copy (4 tiles side by side, 64 KiB: 8 tiles and 32 or 128 KiB blocks 0.71-0.77), f32 0.68 -> 0.84 (8 tiles, 128 KiB), f64 0.72 -> 0.89-0.93 (8 tiles, 128 KiB), s8 0.43 -> 0.66-0.70 (2 tiles, 64 KiB; 1, 4 and 8 tiles 0.52-0.60). 16-byte elements kept the strip walk (column blocks measured no gain for them) and their own prefetch, until measured against a one-thread streaming copy on the Zen 3 EPYC (2026-11-27, reshaper-run --mode=perf --threads=1 at real-time priority, c128 NHWC as NCHW, 64 MiB of input, medians of 3 interleaved rounds, ratio to the streaming copy, [N,256,32,32] / [N,256,64,64]): strips of 4 tiles 0.53 / 0.53; column blocks with the next step's lines prefetched, 8 tiles side by side in 128 KiB 0.44 / 0.43, 2 tiles in 64 KiB 0.65 / 0.62, 4 tiles in 128 KiB 0.65 / 0.66, 4 tiles in 64 KiB 0.63-0.64 / 0.66-0.67; the last without the 16-byte tiles' own non-temporal prefetch 4 tiles ahead 0.77 / 0.81, the walk they now take at both reaches. Rows under a page apart ([N,256,32,32]; [N,128,32,32]; [N,512,16,16]), 1- and 2-byte elements: 2 and 4 tiles side by side 0.61 and 0.67-0.89 of the copy, 8 tiles 0.47 and 0.60-0.69. Rows a page or more apart ([N,256,64,64], [N,64,64,64], [N,128,64,64]): 8 tiles 0.55 and 0.72-0.76, 2 and 4 tiles 0.34 and 0.50-0.68. Moves that stay in the caches (`in_cache`), measured on an AMD EPYC with AVX-512 at this level (reshaper-run --mode=perf, 512 KiB NHWC as NCHW, 3 interleaved rounds, GB/s read+written), against the near and far walks: s8 (rows 1 KiB apart) 45 -> 53, bf16 56 -> 60, f32 52 -> 56, f64 42-44 -> 52; 8 tiles side by side against 4 and 2: 1- and 2-byte elements 8 (bf16 36 / 57 / 60), 4- and 8-byte ones 4 (f32 29 / 56 / 52, f64 rows 8 KiB apart 49 / 52 / 50).
- **One thread against a one-thread streaming copy, 64 MiB of input** (issue 27). Measured on the Zen 3 EPYC (2026-11-27, reshaper-run --mode=perf --threads=1 at real-time priority, NHWC as NCHW, [N,256,32,32] / [N,256,64,64], medians of 3 interleaved rounds, ratio to the streaming copy of the same bytes in the same run) before this round's changes: bf16 0.76 / 0.74, f32 0.71 / 0.70, f64 0.75 / 0.73, c128 0.49 / 0.44, s8 0.64 / 0.55, boolean 0.70 / 0.63, s4 0.38 / 0.40. `perf record` (cpu-clock) put the kernels' samples on the tiles' source loads (c128: the 16-byte tile's loads and lane permutes, which wait on them, 80% of the kernel's samples). The next step's line prefetches into L2 (`__builtin_prefetch` locality 2) or as non-temporal ones (0) instead of into L1 (3) measured no better on bf16, f32, f64 and s8 (within the rounds' spread, 0.59-0.78 alike), and neither did 1-byte elements with 4 tiles side by side at both reaches (s8 0.53 / 0.55, boolean 0.63 / 0.58) or 2 tiles in 128 KiB blocks near and 64 KiB far (s8 0.67 / 0.48, boolean 0.66 / 0.49) against the walk kept (s8 0.60 / 0.61, boolean 0.65 / 0.66 in that run). In the caches (one thread, against an in-cache memcpy of the same bytes in the same run; [1,256,16,32] f32, [1,256,32,32] bf16, [1,256,32,64] s8, 512 KiB / 256 KiB / 512 KiB) the transposes ran at 0.21, 0.24 and 0.25x memcpy, at 32 KiB 0.36, 0.25 and 0.21x; after this round's changes against before (3 rounds, ratio to the streaming copy, 32x32 / 64x64): c128 0.46 / 0.44 -> 0.68 / 0.69, the others within the rounds' spread (bf16 0.74 / 0.71 -> 0.73 / 0.68, f32 0.75 / 0.73 -> 0.68 / 0.70, f64 0.73 / 0.73 -> 0.77 / 0.76, s8 0.67 / 0.58 -> 0.60 / 0.59, boolean 0.68 / 0.56 -> 0.65 / 0.59, s4 0.41 / 0.39 -> 0.40 / 0.39): every class remains short of the goals (0.9, 0.8 for 1-byte, 0.7 for 4-bit); `perf record` of the f32 512 KiB case put half the samples in the single-tile kernel (transpose_tiles with one tile) called from strip::all_steps, not in the in-cache walk's wide tiles: a move of two tasks' worth or more with a single strip was cut along the columns into pieces for the threads (16 for 2 threads' 8 units each), 2 tiles wide, narrower than one wide step of 4-8 tiles, so every piece fell to single tiles, on one thread as on two. Pieces now keep at least one wide step (`plan_transpose`); one thread, 512 KiB, medians of 5 interleaved rounds, GB/s read+written (x in-cache memcpy): f32 7.9 -> 9.2 (0.29 -> 0.35), bf16 7.7 -> 10.9 (0.25 -> 0.26), s8 7.2 -> 9.5 (0.23 -> 0.30). Still far from 0.8x; where the rest of the time goes at 512 KiB (150 us per execute of f32, about 7 GB/s where the 32 KiB case moves 20) is not yet found; the next step's line prefetches in the in-cache walks too (3 interleaved rounds, GB/s) measured no gain: 512 KiB f32 8.8 -> 8.3, bf16 9.4 -> 9.1, s8 8.4 -> 8.2; 32 KiB f32 22.3 -> 20.6, bf16 17.9 -> 18.5, s8 16.1 -> 13.6.
- **What limits the one-thread DRAM transposes** (issue 27, second round; `line_prefetch` in `kernels/isa_kernels.hpp`). Measured on the Zen 3 EPYC (2026-11-27, machine at load average 11-18 from other builds, reshaper-run --mode=perf --threads=1 at real-time priority, 64 MiB of input, ratio to the one-thread streaming copy in the same run; rounds spread about +-0.1, so only differences beyond that count). A stand-alone loop over 64 MiB in the same minutes: reading alone (vector loads) 5.6-7.7 ms, writing alone with streaming stores 3.2-4.4 ms, the streaming copy 7.3-9.9 ms: the copy takes about the sum of the two, its reads and writes barely overlap, and one core reads at about 10 GB/s. `perf annotate` of f32 [64,256,32,32] NHWC as NCHW put 14% of the wide tile's samples on the instruction after `prefetcht0` (the prefetch waiting for a free miss buffer) and most of the rest on the tiles' source loads, which hit L2 (a 128 KiB column block does not stay in L1): the reads are bound by the misses one core keeps in flight, which the next step's prefetches and the current step's L2 hits share. Tried against the walk kept (3 interleaved rounds; f32 32x32, bf16 32x32, s8 32x32, f64 64x64): a prefetch of every second or fourth line only, leaving the rest to the hardware prefetchers, 0.76 / 0.78 / 0.68 / 0.77 -> 0.56 / 0.57 / 0.53 / 0.49 and 0.56 / 0.54 / 0.51 / 0.47 (the hardware does not fill in); prefetching two steps ahead 0.65 / 0.73 / 0.62 / 0.69; non-temporal prefetches 0.61 / 0.76 / 0.68 / 0.65, into L2 (locality 2) 0.61 / 0.75 / 0.68 / 0.76 against 0.71 / 0.75 / 0.67 / 0.81; a demand load of each line instead of its prefetch 0.66 / 0.61 / 0.51 / 0.64, of every fourth 0.51 / 0.47 / 0.46 / 0.43; column blocks of 16 and 32 KiB instead of 64-128 (strips of fewer channels, so partial source rows) 0.50 / 0.56 / 0.50 / 0.40 and 0.48 / 0.52 / 0.67 / 0.43, of 256 KiB 0.81 / 0.79 / 0.62 / 0.70 against 0.81 / 0.79 / 0.72 / 0.71. Walking a transpose's outer dims so that consecutive strips read (from ABcd16a16b) or write (into it) neighbouring lines: ABcd16a16b -> abcd 0.50 -> 0.48, abcd -> ABcd16a16b 0.47 -> 0.45, nChw8c -> nchw 0.70 -> 0.71, so the walk keeps its order. The prefetch walk now keeps its position in registers while it issues (the store and reload of the struct per line had sat beside the stalled prefetch): 5 interleaved rounds, before -> after, within the spread: f32 0.71 / 0.66 -> 0.69 / 0.68 (32x32 / 64x64), bf16 0.72 / 0.68 -> 0.71 / 0.65, f64 0.73 / 0.76 -> 0.74 / 0.69, c128 0.69 / 0.70 -> 0.70 / 0.70, s8 0.63 / 0.59 -> 0.61 / 0.59, boolean 0.59 / 0.61 -> 0.68 / 0.54, s4 0.45 / 0.45 -> 0.37 / 0.46, nChw16c -> nchw 0.71 -> 0.77, nchw -> nChw16c 0.89 -> 0.89, ABcd16a16b -> abcd 0.43 -> 0.46, nchw -> padded nChw16c ([133,40,56,56]) 0.47 -> 0.43. Where the rest goes, by `perf record`: s4 [N,256,64,64] spends 27% of the samples in the byte tiles (into a 32 KiB buffer), 11% in the nibble split (vectorised already) and 7% in the streamed row pairs against the streaming copy's 18%; nchw -> padded nChw16c (C = 40, 8 channels in the last block) sends the last block through partial tiles and `memcpy` (10% of the samples), then writes its padding zeros into the same lines with ordinary stores in a second pass (`copy_boxes` in `src/backend/kernel_movement.cpp`, 7%): a block-row kernel that writes the 8 channels and their 8 zeros as one streamed line would write each line once. Every class remains short of the goals.
- **Where the one-thread DRAM transposes' time goes, and walks that did not beat them** (issue 27, third round). Measured on the Zen 3 EPYC (2026-11-27, load average 3-14 from other builds) with stand-alone loops over 64 MiB built on `isa_kernels_simd.hpp` (f32 [16,4096,256] as [16,256,4096], the walk's 8 tiles side by side and 128 KiB steps; chrt -f 10, medians of 7-9 runs, ms), then with reshaper-run --mode=perf --threads=1 at real-time priority ([N,256,64,64] NHWC as NCHW, ratio to the one-thread streaming copy in the same run, medians of 3-5 interleaved rounds). The walk as it is 12.4 ms against the streaming copy's 8.9; the same walk with its source fixed in the cache (compute and streamed writes only) 6.8; the same lines moved in the walk's order without the transpose (each source line streamed to its destination line) 11.7: the memory order alone costs what the transpose does. Reading alone: in order 7.5-9.0, in the tiles' order with the next step prefetched 11.5-12.6, without the prefetch 14.9-15.8, and in order with the next step prefetched as well 10.9 (the prefetches slow even an in-order read). Writing alone with streaming stores into 256 rows 16 KiB apart: runs of 64 bytes per row 10.8, 128 bytes 6.3, 256 bytes 4.2, 512 bytes 3.8-3.9, in order 3.8-4.1: the wide steps' 512-byte runs write as fast as a copy. Compute alone (destination rows in L1): a 128 KiB step read from L2 with rows 1 KiB apart 3.2 (a tile row's lines fall on 4 of L1's 64 sets), the same with rows 1088 bytes apart 1.8, from L1 with rows a line apart 1.4; by element size, from L1: 1-byte elements 4.6, 2-byte 2.5, 4-byte 1.2. Tried, not kept: a staged walk (each wide step's source lines first copied in memory order, which the hardware prefetchers follow, into a buffer with each tile row's lines back to back, then transposed from there without prefetches): stand-alone, 61 pairs against the copy, 0.61 -> 0.72 in one run and 0.75 -> 0.69-0.71 in the next (the next step's copy interleaved a slice per tile call: 0.69 / 0.67); in the driver (against a build of the code before the morning's merges, whose streamed tiles are the same code) f32 0.71 / 0.74 -> 0.68 / 0.73, s32 0.69 -> 0.70, f16 0.69 -> 0.65, bf16 0.68 / 0.67 -> 0.68 / 0.66, s8 0.54 / 0.59 -> 0.58 / 0.59, u8 0.56 -> 0.56, boolean 0.55 / 0.57 -> 0.56 / 0.57, s64 0.75 -> 0.64, f64 0.75 / 0.73 -> 0.64 / 0.67, c64 0.72 -> 0.73, c128 0.70 -> 0.60. Column-order prefetches (the lines of the tile call 2 or 4 ahead instead of the next step's in memory order): 13.4-14.3 -> 16.5-18.5 ms (no prefetch: 16.5). A 1-byte wide tile whose register blocks load the same 16 bytes of rows r and r + 16 into one vector (no cross-lane permutes, 16 vectors live; bit for bit as the tiles): compute alone 4.6 -> 4.4 ms, s8 streamed 0.58 -> 0.61 (31 pairs, within the spread). So the DRAM transposes stay bound by their reads (the misses one core keeps in flight), and no walk tried here read faster than the tiles' order with the next step prefetched; boolean already takes s8's kernel (the same plan), and differs from s8 by the spread only.
- **The one-thread DRAM transposes, fourth round: walk and prefetch parameters re-measured** (issue 27; nothing kept). Measured on the Zen 3 EPYC (2026-11-27, 12:57-13:12, load average 7-16 from other lanes' builds, so only differences beyond about +-0.05 count; reshaper-run --mode=perf --threads=1 --reps=10 under `chrt -f 10`, [N,256,H,W] NHWC as NCHW of 64 MiB with H = W = 32 and 64, ratio to the one-thread streaming copy in the same run, medians of 3 interleaved rounds unless said, old -> new). Profile first (`perf record` of s8 32x32, the driver's process): the wide tile (2 byte tiles side by side) held 30% of the samples against the yardstick copy's 20%; in `perf annotate` 16% of the tile's samples sat on the instruction after `prefetcht0` (the next step's prefetch waiting for a miss buffer), 13% on the first reload of the spilled register blocks in the streamed-store loop (the instruction after the previous line's `vmovntdq`), about 30% on the unpacks' memory operands (the source loads, from L2): the read side and the stores' queue, not the byte shuffles. Tried: destination rows below a page walked as those a page or more apart (8 tiles side by side, 128 KiB column blocks, so 1-byte rows get 512-byte runs, 2-byte 1 KiB) s8 32x32 0.66 -> 0.54, bf16 0.77 -> 0.62, boolean 0.70 -> 0.54, s4 0.49 -> 0.48 (its walk is its own: the same within the spread; the 64x64 cases, whose s8, bf16 and boolean rows are already a page apart, so the same walk both sides: 0.65 / 0.70 / 0.65 / 0.59 -> 0.62 / 0.70 / 0.60 / 0.56, the spread between identical walks); 4 byte tiles side by side below a page (256-byte runs) s8 0.65 -> 0.57, with 128 KiB column blocks 0.69 -> 0.56 (bf16, whose walk below a page already has 4: 0.69 -> 0.71 and, with 128 KiB blocks, 0.73 -> 0.76); 128 KiB column blocks below a page instead of 64, s8 0.66 -> 0.66, bf16 0.74 -> 0.75; the 1-byte walk below a page without the next step's prefetches (their stall above), s8 0.64 -> 0.52 (15.1 -> 19.7 ms), boolean 0.67 -> 0.49; the next step's prefetches with locality 1 (`prefetcht2`) instead of 3, f32 0.62 / 0.65 -> 0.69 / 0.68, bf16 0.73 / 0.64 -> 0.69 / 0.62, s8 0.70 / 0.58 -> 0.65 / 0.55, f64 0.67 / 0.66 -> 0.75 / 0.68 (32x32 / 64x64), then 5 rounds of the wider ones: f32 0.61 / 0.65 -> 0.61 / 0.72, f64 0.73 / 0.76 -> 0.74 / 0.77, c128 0.79 / 0.75 -> 0.78 / 0.79: within the spread, and lower for 1- and 2-byte elements. Transparent huge pages for the driver's buffers (the same binary run with `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, so malloc advises MADV_HUGEPAGE; this machine's THP setting is `madvise`, and /proc/meminfo showed 126 MiB of AnonHugePages during the run) made the copy faster and most transposes too, but not the ratio: 3 rounds, 4 KiB pages -> 2 MiB pages, transpose ms / streaming copy ms: f32 32x32 14.8 / 10.1 -> 14.9 / 9.1 (ratio 0.68 -> 0.61), f32 64x64 15.2 / 10.4 -> 13.4 / 6.7 (0.63 -> 0.50), s8 32x32 14.8 / 9.9 -> 10.7 / 7.3 (0.67 -> 0.65), s8 64x64 15.3 / 9.2 -> 12.9 / 7.2 (0.60 -> 0.56), f64 32x32 13.6 / 9.7 -> 10.2 / 7.4 (0.76 -> 0.74), f64 64x64 12.5 / 10.0 -> 8.9 / 7.7 (0.80 -> 0.83); an earlier run of 3 rounds alike (bf16 and s4 11-26% less time, their ratios within the spread). The page size is the caller's, so the kernels take the buffers as they come. So the walks stay as they were (below a page: 2 byte tiles, 4 two-byte tiles, 64 KiB blocks; locality 3), and every class remains short of the goals.
- **The one-thread DRAM transposes, fifth round: where the prefetches and the streamed stores sit in a wide tile** (issue 27, dram5 lane; `transpose_tiles` in `kernels/isa_kernels_simd.hpp`; nothing kept). Measured on the Zen 3 EPYC (2026-11-27, 16:48-17:04, load average 7-15 from other lanes' builds), reshaper-run --mode=perf --threads=1 --reps=10 under `chrt -f 10`, NHWC as NCHW, ratio to the one-thread streaming copy in the same run, the variants switched by an environment variable in one binary and interleaved with its default walk, medians of 5-11 rounds unless said (old -> new); bf16 [64,256,32,32] (32 MiB, the outside harness's case), f32 [64,256,32,32], s8 [256,256,32,32]. The same binary against itself, 3 rounds: 0.80 / 0.70 / 0.80 against 0.67 / 0.72 / 0.67, so only differences beyond about 0.07 count. Profile first (`perf record` of the bf16 case, the driver's process): `transpose_tiles<avx2_ops, 2, 4, true>` 31% of the samples, the streaming-copy yardstick 24%, the driver's memcpy yardstick and fill 35%; in `perf annotate` of the tile 23% of its samples sit on the two instructions after the prefetch loop's `prefetcht0` (the next step's prefetches waiting for miss buffers), 12% on the first reload of the spilled register blocks after a `vmovntdq` (the streamed stores' queue), most of the rest on the unpacks' memory operands (the source loads from L2): as in the rounds before. Tried: the next step's prefetches a share per destination row among the streamed stores instead of a share per register block among the unpacks, bf16 0.71 -> 0.80 in 5 rounds and 0.69 -> 0.70 in 11, bf16 [128,256,64,64] 0.67 -> 0.66, f32 0.72 -> 0.68 (within the spread); both 32-byte halves of each source line transposed back to back (the column halves innermost, so a line's second half is read while in L1 where 4 tiles' 128 lines share 8 of L1's sets; the whole call's blocks then spilled and stored) bf16 0.69 -> 0.67, f32 0.71 -> 0.63 (7 rounds), and with its prefetches among the stores as above bf16 0.69 -> 0.49, f32 0.72 -> 0.47; each destination line streamed whole as it is made (two lane blocks, `transpose_lane_lines_into` with streaming stores: no spilled runs, but a row's W lines apart in time) tile by tile bf16 0.75 -> 0.52, s8 0.65 -> 0.55, and a row's W lines within 32 lines (the 16-byte column groups outermost) bf16 0.72 -> 0.51, s8 0.64 -> 0.63; a call's prefetches all in the blocks of its first half of destination rows bf16 0.71 -> 0.62, f32 0.76 -> 0.62, all in its second half bf16 0.69 -> 0.60, f32 0.71 -> 0.59; a block's share spread over its row loads (one prefetch every second row) bf16 0.74 -> 0.63, f32 0.71 -> 0.61 (7 rounds). So the walk as it is (a share of the next step's prefetches before each register block, each destination row's W lines streamed back to back after half a call's blocks) is where every move of the prefetches (toward the streamed stores, into bursts, or finer) and every shorter run in time lost; the stores' queue paces everything behind it, so a prefetch issued after a burst of streamed stores waits for the burst to drain. Then the next unit's first step prefetched by the last wide step where the next unit's source follows on (`strip` told so by `run_transpose` when a unit is a whole outer position whose successor's source starts where its own ends: NHWC as NCHW, the next image, whose first step had been read unprefetched in the tiles' order, 1 step in 8 at [N,256,32,32]), against the build of the round's starting commit, paired rounds (new / old ratio per round): bf16 [64,256,32,32] 0.73 -> 0.77 (7 rounds), then 0.75 -> 0.74 (9) and 0.71 -> 0.73 (15 rounds, paired median 0.99, 7 of 15 higher); bf16 [128,256,32,32] 0.74 -> 0.76; f32 0.66 -> 0.70 (5) and 0.63 -> 0.68 (11, paired median 1.07, 9 of 11 higher); s8 0.72 -> 0.72 and 0.68 -> 0.69 (paired 1.03, 9 of 11); boolean 0.70 -> 0.70; c128 0.80 -> 0.81; f64 [32,256,32,32] 0.75 -> 0.68 and 0.72 -> 0.68 (2 of 9 higher); f64 [8,256,64,64] 0.78 -> 0.73 and 0.71 -> 0.68 (4 of 18 higher) though its plan (strips in 2 pieces) does not take the change: the paired rounds at this load move by 5% between two builds of the same walk, so none of it is measurable, and it is not kept. Every class remains short of the goals (bf16 0.67-0.80 in this round's default runs, goal 0.9).
- **The streamed 4-bit nibble split** (`split_nibbles_streamed`, `byte_tiles_split_streamed`, `kernels/isa_nibble_stream.hpp`; AVX2 level). Each pair of destination row parts is split straight into the destination with streaming stores (two 16-bit packs and a 64-bit permute per 32 bytes of each row) where both rows are 32-byte aligned and the step's parts a multiple of 32 bytes, where it had been split into an L1 pair buffer and written by the streaming run copy; then a whole step's byte tiles (8 side by side) are split as they come out of the tiles' registers, where they had been stored into a 32 KiB byte-row buffer and read back by the split. Measured on the Zen 3 EPYC (2026-11-27, load average 12-16, reshaper-run --mode=perf --threads=1 at real-time priority, s4 [128,256,64,64] NHWC as NCHW, ratio to the one-thread streaming copy, medians of 3-7 interleaved rounds). The split into the destination, against the build before: 0.50 -> 0.57, 0.48 -> 0.54, 0.52 -> 0.55, 0.49 -> 0.53 in four runs (s8 and f32, unchanged code, in the third: 0.60 -> 0.62, 0.68 -> 0.67). The split in registers, against the split into the destination: 0.50 -> 0.54 (7 rounds); against the build before both: 0.47 -> 0.58 (7 rounds). Those "before" builds were of the code before the morning's merges (2026-11-27 06:05-06:18: the tiles' ordinary-store blocks, the window transpose), whose 4-bit and streamed tile paths are the same code; against a build of the round's starting commit (3dd3701, the same minutes, 3 rounds): s4 0.51 -> 0.62, the other classes unchanged within the spread (f32 0.59 -> 0.76, s32 0.69 -> 0.67, f16 0.72 -> 0.69, bf16 0.68 -> 0.71, s8 0.59 -> 0.60, u8 0.60 -> 0.64, c64 0.76 -> 0.73, c128 0.72 -> 0.74, boolean 0.62 -> 0.64; f64 and s64 over 7 rounds 0.71 -> 0.75 and 0.75 -> 0.73). `perf record` after: the fused kernel 26% of the samples, the driver's streaming copy 16%. Fused, 4 byte tiles a step instead of 8 (packed_wide 4): 0.63 -> 0.57 (7 rounds), so 8 stay. The AVX-512 level keeps the buffers (not measured there). Still short of the 0.7 goal.
- **In-cache moves and the 4 KiB execute** (issue 27; `copy_runs`, `plan_run_copy`, `transpose_block_into`). Measured on the Zen 3 EPYC (2026-11-27, 2 cores under a load average of 10-17 from other builds), with a microbenchmark of `run_movement` on one thread against glibc memcpy of the same bytes in the same process (the faster of 200 interleaved batches each, medians of 5-9 such runs; ratio x memcpy). `perf record` of the attention head moves put their time in a memcpy call per 64-256-byte run; short runs in the caches (up to 1 KiB, not streamed) are now copied inline a vector pair at a time: merge heads s8 32 KiB 0.29 -> 0.81, bf16 256 KiB 0.57 -> 0.96; split heads s8 32 KiB 0.26 -> 0.53, s8 256 KiB 0.31 -> 0.60, bf16 32 KiB 0.43 -> 0.70. A split ([B,S,H,D] -> [B,H,S,D]) went 8 runs (the heads) a call in the source's order; in the caches the calls now go along the longer outer dim (S) when the source's innermost one has under 32 runs: s8 32 KiB 0.53 -> 0.80, s8 256 KiB 0.60 -> 0.85, bf16 32 KiB 0.70 -> 0.86. Channel shuffle (runs of H*W) was already at 0.86-0.98. `perf record` of the [32,32] f32 execute (4 KiB) put 71% of the samples in the single-tile kernel, whose annotation showed the 16 x 16 tile's 32 output vectors spilled to the stack and reloaded through store forwarding between the unpacks; with ordinary stores the AVX2 level now stores each 8 x 8 register block of 4- and 8-byte elements as soon as it is made, its rows loaded a half from each of rows r and r + 4 into one vector, so no cross-lane permute is needed: 220 -> 157-166 ns (0.31 -> 0.40-0.41x memcpy). Through the C API (api_bench, CPU time) the same pair measured 212-306 ns against 225-327 ns in three interleaved runs while tests ran on the other core: within the spread, so not claimed. Blocks of 16 or 32 rows (2- and 1-byte elements) stored as made measured slower where destination rows lie a multiple of 4 KiB apart (s8 [1,64,128,256] 0.39 -> 0.16-0.24, bf16 0.38 -> 0.34: a destination line's first half left L1's 8-way set before its second half came), and storing whole tiles or whole source lines first (the tile's blocks in source order) measured 0.10-0.24 against 0.30-0.40 at 2 MiB; they keep the wide tiles' runs. The NHWC-as-NCHW transposes in the caches remain at 0.35-0.68x memcpy (f32 0.42-0.68, bf16 0.38-0.55, s8 0.35-0.44 from 32 KiB to 2 MiB): each variant above moved them within the runs' spread, and a 16 x 16 byte transpose needs 4 rounds of unpacks per vector, twice the stores' cycles.
- **The AVX-512 level's walk** (`avx512_ops::walk`). Measured on an AMD EPYC with AVX-512 (2 cores; the CI machine), reshaper-run --mode=perf, NHWC as NCHW, 64-256 MiB, 3-4 rounds of interleaved runs at real-time priority, GB/s read+written (the machine's speed drifts by up to 1.5x between minutes: only figures of one round compare). Against `strip_walk` (this level's walk until then, tuned on an Intel machine), the AVX2 level's column blocks with prefetch: rows a page or more apart ([64,256,64,64]), 8 tiles side by side: s8 43 -> 60-65, f64 and c64 49-59 -> 73-82, f32, s32, bf16 and f16 even (57-62); then 2 tiles side by side against 8: f32 and s32 41 -> 54 (1 tile 41, 4 tiles 49; 64 KiB blocks as 128, 256 KiB as 128), bf16 42 -> 48, s8 40 -> 46, f64 and c64 48 -> 55 (4 tiles: between). Rows under a page apart ([N,256,32,32], [N,256,14,14]): s8 32-42 -> 34-60, bf16 29-56 -> 32-67, f64 62-71 -> 73; f32 kept single tiles' speed only with 4 tiles side by side (14x14: 40 -> 45; 8 tiles 34, 2 tiles 31-33), bf16 was 5-10% faster with 2 tiles than with 4, s8 5-10% slower with 4 than with 2. Later, bf16 [64,256,32,32] (rows line-aligned, 2 KiB apart): 4 tiles and 128 KiB blocks 53 -> 64 GB/s against 2 tiles and 64 KiB, at a cost to 14x14 (rows staged, `line_staging`): 32 -> 28.5; the first is the common shape. Moves that stay in the caches (512 KiB NHWC as NCHW), against those walks: f32 (rows 4 KiB apart) 32 -> 64, bf16 43 -> 67, s8 35 -> 59 (rows 1 KiB apart: 57 -> 67), f64 41 -> 63; 8 tiles side by side beat 4 and 2 at every element size (f32 65 / 48 / 31); backend_bench's [1,16,64,64] f32 transpose (64 KiB, rows 4 KiB apart): 2.15 -> 1.39 us.
- **The scalar level's walk** (`strip_walk`: strips along all columns, no column blocks, no prefetch). It was the AVX-512 level's until that level was measured on an AMD EPYC with AVX-512; on the Intel AVX-512 machine it was tuned on (NHWC as NCHW, 64 MiB, paired runs in one process on a shared machine): runs of 4 lines lift 1-byte elements by 15-60% (their tiles write 64 rows a line each, 4 KiB apart); 2-byte elements gained 10-15% with runs of 2 lines and nothing with 4; 4-byte elements lose 25-30% with runs of 2 lines and 8- and 16-byte ones gain nothing, so they keep single tiles. Strips one tile high for 2- and 4-byte elements (2, 4 and 8 tiles measured 5-40% slower); 4 tiles for 8- and 16-byte elements, whose tiles have only 8 and 4 rows (c128 rows a page apart: 10-13 -> 18-37 GB/s), and for 1-byte wide tiles (3-10% faster).
- **One tile's rows tile by tile** (`isa_kernels::one_tile_rows_tile_by_tile`). Measured with reshaper-run --mode=perf, 64 MiB, 4-5 interleaved rounds, GB/s read+written: on an AMD EPYC with AVX-512, ABcd16a16b -> abcd 35 -> 43 at AVX-512 (35 -> 37 with the AVX2 level forced), nChw16c -> nchw 55 -> 58 (52 -> 56); on an AMD EPYC without AVX-512 (Zen 3), the AVX2 level's own machines, the opposite (movement_bench, 2 rounds of 3 interleaved repeats): nChw16c -> nchw 37 / 30 with the far-rows walk against 20 / 20 tile by tile (oneDNN's reorder 20-23), ABcd16a16b -> abcd 24 / 17 against 13 / 13 (oneDNN 12-14). So the AVX2 level keeps its walk.
- **Destination rows off a line boundary** (`line_staging`). A row pitch that is no multiple of 64 bytes ([N,C,41,100] or [N,C,14,14] f32 as NCHW) cannot take the tiles' streaming stores, and ordinary stores read every destination line before writing it: 0.70-0.84x memcpy there, against 1.06-1.24x for [N,C,64,64] (reshaper-run --mode=perf, 256 MiB). Measured (medians of 5 interleaved rounds, GB/s), unstaged -> whole steps of all rows staged in L2 first: f32 [640,256,14,14] (staged whole) 15.1 -> 18.5, bf16 [160,256,28,28] 16.4 -> 20.3, f64 14x14 13.8 -> 18.6, s8 14x14 11.4 -> 13.4, f32 [64,256,41,100] 17.9 -> 19.3, f32 [1280,512,7,7] (staged whole) 15.3 -> 16.0; then row groups in L1 against that: bf16 28x28 19.9 -> 24.0, f64 14x14 21.2 -> 24.9, f32 41x100 21.4 -> 22.5.
- **Composed split and joined rows** (`composed_inner_rows`). Measured against the tiles (reshaper-run --mode=perf, 64 MiB of [N,C,224,224], AVX-512, GB/s): splits of 12 channels s8 15 -> 35, bf16 17 -> 35, f32 20 -> 34; of 24 s8 19 -> 34, bf16 22 -> 32; joins of 12 s8 19 -> 32, bf16 35 -> 36, f32 29 -> 35. Groups of more than 48 bytes stay with the tiles (f32 24 channels: 57 -> 31 split, 38 -> 31 joined), and so do joins of more than 16 rows (s8 24 channels: 26 -> 21), and so do powers of two, whose groups are whole fractions of a tile row (f32 8 channels: half tiles). The row-group kernels themselves: 1-byte elements, one thread, 16-17 GB/s at 8 and 16 rows, 3.9 at 12 and 4.8 at 24 uncomposed. Streamed joined rows staged 4 KiB at a time in L1: f32 [64,224,224,3] from NCHW 26.4 -> 31.4 GB/s, 6 channels 24.0 -> 27.6; split rows write R runs, which lost 10-20% that way.
- **4-bit transposes** (`isa_kernels::packed_wide`, `packed_strip<4>`). 8 byte tiles side by side at AVX2: s4 NHWC as NCHW, 64 MiB, 8.6-9.0 GB/s with the 2 tiles of the near-rows walk against 10.1-11.4 with 8; with one tile a step wrote half lines, 128 rows apart in time (perf: half the time on those stores; with 4 tiles, 9-10 -> 10-17 GB/s in alternating runs). Streamed pairs of destination row parts: s4 [64,256,64,64] (32 MiB) on an AMD EPYC with AVX-512 30 -> 34 GB/s read+written (AVX2 level: 25 -> 32-34). Strips two byte tiles high: 3-5% faster in one process. The next step's source lines prefetched in memory order, a share per byte-tile call (as the tiles' wide steps do; AVX2 level), measured on the Zen 3 EPYC (2026-11-27, reshaper-run --mode=perf --threads=1 at real-time priority, s4 NHWC as NCHW, 64 MiB of input, medians of 3 interleaved rounds, ratio to a one-thread streaming copy): [N,256,32,32] 0.33 -> 0.39, [N,256,64,64] 0.38 -> 0.49 (`perf record` before: the byte tiles 24% of the samples, on their source loads, the streamed row pairs 9%, the nibble split 5%, the rest the driver's yardsticks). A second run of the same pair, 5 rounds: 0.33 -> 0.38 and 0.37 -> 0.43; a third, against the build before this round's changes (3 rounds, all dtypes in turn): 0.41 -> 0.40 and 0.39 -> 0.39, so the gain is small against the spread of rounds (0.30-0.52). 2-bit tiles keep ordinary stores (s2 [64,256,64,64], 16 MiB, AVX2 on a Zen 3 EPYC, 3 rounds: 10-20% slower streamed).
- **Blocked formats' inner blocks** (`block_rows_fn`). Strips of one tile spent a fifth of the time (perf, nchw -> nChw16c f32, 64 MiB) on the per-strip set-up around 1 KiB tiles; strips of 64 KiB of destination amortise it. Rows of 16 or 32 bytes (nChw8c f32, nChw16c bf16) as partial tiles through buffers ran at 0.33x memcpy (0.47x oneDNN's reorder for nChw8c f32); at AVX2, two register blocks per step for 64-byte rows of f32 took 1.17 -> 1.52x memcpy against tile calls. Groups of 16, 32 or 64 bytes stay with the transpose rather than joined rows (f32 [48,224,224,4] from NCHW: 2.1x memcpy, joined rows 1.7x).
- **The grouped transpose's prefetch** (`run_grouped_transpose`, `kernels/fast_path_grouped_transpose.cpp`). The next tile's source lines are prefetched while this tile's destination runs are written, a share per slice of units, so that its reads come from the cache: 64 runs of 4 lines each from as many pages, read on demand, took as long as the whole streaming copy. Measured with micro blocks (high_rank_bench, f32, one thread, thread CPU time, 2 interleaved rounds against the streaming copy, Zen 3 EPYC at avx2): rank 22 of 2s 0.28-0.35x without the prefetch, 0.52-0.53x into L1, 0.52-0.54x into L2; rank 12 of 4s 0.35-0.37x without, 0.50-0.52x into either. Tiles of 8 or 32 KiB instead of 16 measured within those rounds' spread (0.43-0.57x).
- **The grouped transpose's wider elements and micro blocks** (`widen_shared_inner_dim`, `kernels/grouped_transpose_planner.cpp`; `avx2_grouped_micro_kernel`, `kernels/grouped_transpose_avx2.cpp`). Where a dim is innermost in both tensors, every tile's first elements on both sides share it, so no micro block applied and each tile went through the buffer and the gathers (perf, bf16 rank 12 of 4s: `gather_runs_avx2<2>` 31% of the samples, rank 15 of 3s 52%; vpgatherdd is slow on Zen 3). Folding that dim into the element (bf16 with a shared 4 as 8-byte elements) gives micro blocks again. 16-byte elements take 2 x 2 blocks (a 128-bit lane permute each), 1-byte ones 16 x 16 (four stages of unpacks). Measured on the Zen 3 EPYC (2 cores, avx2, loaded by other builds: load average 6), high_rank_bench, one thread, thread CPU time, 3 interleaved rounds, ratio of the streaming copy's fastest run to the kernel's: bf16 rank 12 of 4s (shared dim) 0.30 -> 0.64, c128 rank 20 of 2s 0.53 -> 0.59; u8 rank 24 of 2s reversed 0.09-0.14 -> 0.16-0.20, perm (1, 0, 23 ... 2) 0.14-0.15 -> 0.24-0.36. Not changed by them: dims of 3 (f32 rank 14 0.32, bf16 rank 15 0.12: no micro blocks, every tile gathered) and permutations whose first 16 (8) elements share a dim without it being the innermost (the seeded u8 rank 24 case, 0.20). Gathers of 1- and 2-byte elements by plain loads packed into 8-byte words instead of vpgatherdd and packs (`gather32_loads`; 4-byte elements keep vpgatherdd: plain loads measured 8.1 -> 9.0 ms on f32 rank 14 of 3s), same run, fastest of 4 rounds of the kernel's CPU time: bf16 rank 15 of 3s 27.2-29.0 -> 21.8-25.3 ms (0.12 -> 0.13-0.14x), u8 rank 24 of 2s 10.2-10.4 -> 8.2-8.5 ms (0.18-0.19 -> 0.23x).
- **The grouped transpose's micro blocks over longer axes** (dims of 3; `micro_along_steps`, `kernels/grouped_transpose_planner.cpp`; `write_staged_avx2`, `kernels/grouped_transpose_avx2.cpp`). Profile first (perf record, high_rank_bench): `gather_runs_avx2<4>` took 41% of the samples on f32 rank 14 of 3s, `gather_runs_avx2<2>` 53% on bf16 rank 15 of 3s (the rest mostly the yardsticks' copies). No dims of 3 make exactly 8 elements, so the micro blocks now run over longer axes: one block whole and the other's inner dims up to the first dim it holds (the pair with the fewest 8 x 8 blocks per element: a dim both blocks hold goes to the longer axis), 9 to 81 elements each, a block at every 8th index and the last one overlapping the one before (elements written twice get the same value), so there is no remainder loop. Their staged runs (324 bytes for f32, never starting on a line) went out through the engine's run copy, two calls of memcpy per run: half the kernel's samples; the level's own writer streams the whole lines and writes the partial first and last lines with two overlapping ordinary stores that stay off the streamed lines (overlapping them, a line cached and then streamed, measured 5x slower). Streaming those partial lines too (4-byte streaming stores), or longer runs and tiles (source runs to 512 bytes, destination runs to 1 KiB, tiles to 64 KiB) measured within the rounds' spread. Measured on the Zen 3 EPYC (2 cores, avx2, shared: load average up to 20), high_rank_bench, `chrt -f 10`, wall clock, before and after binaries interleaved, 3 rounds of 3 runs each, median ratio of the streaming copy's time to the kernel's: f32 rank 14 of 3s 0.26 -> 0.35, bf16 rank 15 of 3s 0.14 -> 0.23, then the shared dim in the longer axis 0.24 -> 0.26 (f32 rank 14 unchanged: its blocks share no dim); f32 rank 12 of 4s 0.51 -> 0.50 (the writer in place of the run copy, within the spread). The micro kernel's loop over across steps cost the 2 x 2 blocks of 16-byte elements (c64 rank 12 of 4s,2 0.74 -> 0.48, c128 rank 20 of 2s 0.50 -> 0.45 in one run), so a single step takes the plain block loop (another run: 0.59 -> 0.60 and 0.52 -> 0.53 against the binary before these changes). Outputs bit for bit as numpy's (the benchmark's checksum).
- **The grouped transpose's shared lanes** (issue 27; `plan_shared_lanes`, `kernels/grouped_transpose_planner.cpp`; `kernels/grouped_shared_lanes_avx2.cpp`). Profile first (perf record, high_rank_bench, f32 rank 22 of 2s): `gather_runs_avx2<4>` 26% of the samples, the run loop around it and its buffer copies 11%, the yardsticks' copies most of the rest: the source's first 8 elements and the destination's shared a dim of 2 (not the innermost, so no wider element), the 8 x 8 and 4 x 4 transposes did not apply and every tile went through the buffer and vpgatherdd. Random permutations of 2s mostly share such a dim. Blocks of 2^K vectors of the widest lanes now: K the source's lane dims outside the destination's lanes (1 to log2(L) - 1), loaded straight from the source, the lanes permuted so that the shared dims come first (vpermd for 256-bit vectors, pshufb for 128-bit ones; skipped where the order fits), K stages each swapping one lane bit with one register bit (vperm2i128, unpacks of 64-bit units, or a shift and a blend for narrower units), permuted into the destination's order and stored; taken after the full and half-width transposes. Measured on the Zen 3 EPYC (2 cores, avx2, shared: load average 4-11), high_rank_bench, `chrt -f 10`, wall clock, before and after binaries interleaved, 2 rounds of 5 runs each, ratio of the streaming copy's time to the kernel's: f32 rank 22 of 2s 0.41 / 0.50 -> 0.61 / 0.62 (another run 0.52 / 0.40 -> 0.60 / 0.68), f32 rank 24 of 2s 0.43 / 0.34 -> 0.56 / 0.60 (0.36 / 0.42 -> 0.65 / 0.58), u8 rank 24 of 2s (16 lanes, K = 3) 0.22 / 0.19 -> 0.47 / 0.52 (0.17 / 0.16 -> 0.44 / 0.45); the other cases take other blocks and stayed within the rounds' spread. Outputs bit for bit as numpy's (the benchmark's checksum).
- **The grouped transpose's tile floor** (issue 27; `min_grouped_tile_bytes`, `large_grouped_move_bytes`, `kernels/grouped_transpose_planner.cpp`). Profile (perf record, high_rank_bench, f32 rank 12 of 4s): `write_staged_avx2` 23% of the samples and the tile loop around the micro kernel 13% against the micro kernel's 5%: 65536 tiles of 1 KiB (both runs stop at 256 bytes, the next destination dim makes 1 KiB), each paying its walk, prefetch and calls, its four 256-byte destination runs far apart. In moves of 1 MiB or more, tiles under 8 KiB now grow the destination's runs past their 512-byte cap (up to the 16 KiB tile). Measured on the Zen 3 EPYC (2 cores, avx2, shared: load average 11-12, the streaming copy at 10-19 GB/s where it makes 27 unloaded), high_rank_bench, `chrt -f 10`, wall clock, before and after binaries interleaved, 2 rounds of 7 runs, ratio of the streaming copy's time to the kernel's: f32 rank 12 of 4s 0.40 / 0.40 -> 0.52 / 0.50 (runs of 4 KiB, tiles of 16 KiB), c64 rank 12 of 4s,2 0.56 / 0.68 -> 0.73 / 0.73 (runs of 1 KiB, 16 KiB tiles), c64 rank 21 of 2s 0.56 / 0.52 -> 0.49 / 0.48 (4 -> 8 KiB tiles: kept for the other two; why a longer run costs it is not found); other cases' plans unchanged. Rejected in the same runs: a 2 KiB destination-run cap for every move (f32 rank 22 of 2s 0.63 / 0.61 -> 0.57 / 0.53, c64 rank 21 0.60 / 0.56 -> 0.46 / 0.56, bf16 rank 23 and c128 within the spread; f32 rank 12 0.42 / 0.37 -> 0.53 / 0.54, c64 rank 12 0.45 / 0.56 -> 0.58 / 0.58) and a 1 KiB cap (f32 rank 22 0.66 / 0.65 -> 0.53 / 0.55).
- **The grouped transpose's runs that end inside lines** (issue 27; `kernels/grouped_transpose_planner.cpp`, after the tile floor). Profile (perf record, high_rank_bench, bf16 rank 15 of 3s): `write_staged_avx2` 32% of the samples against the micro kernel's 11%: destination runs of 81 elements (162 bytes) never start or end on a line, so two of every three or four lines were written in parts with ordinary stores, each line read from memory first, and its neighbour runs were in other tiles. In moves of 1 MiB or more, destination runs whose bytes are not whole lines now grow by their neighbouring dims while the tile stays within the 64 KiB buffer (bf16 rank 15: runs of 2187 elements, tiles of 38 KiB, staged in L1 and L2). Measured on the Zen 3 EPYC (load average 11-13), high_rank_bench, `chrt -f 10`, wall clock, before and after binaries interleaved, 2 rounds of 7 runs, ratio of the streaming copy's time to the kernel's: bf16 rank 15 of 3s 0.25 / 0.21 -> 0.33 / 0.36 (another run 0.27 / 0.23 -> 0.33 / 0.32); f32 rank 14 of 3s unchanged (its next destination dim makes a 78 KiB tile: 0.35 / 0.39 -> 0.36 / 0.39). Rejected in the same runs: letting the 8 KiB floor grow tiles to 64 KiB too (bf16 rank 12 of 4s, 32 KiB tiles: 0.49 / 0.59 -> 0.47 / 0.52).
- **Rejected: a 128 KiB tile for runs that end inside lines** (issue 27, same session). f32 rank 14 of 3s needs it (its next destination dim of 9 makes runs of 729 elements, a 77 KiB tile). With the buffer at 128 KiB and runs grown while under 2 KiB (f32 rank 14: runs of 2.9 KiB; bf16 rank 15 kept at 2187 elements) the Zen 3 EPYC (load average 15-16, high_rank_bench, `chrt -f 10`, 2 rounds of 7 runs, interleaved) gave f32 rank 14 of 3s 0.41 / 0.38 -> 0.45 / 0.43 in one run and 0.40 / 0.34 -> 0.41 / 0.34 in the next, within the spread; without the 2 KiB stop bf16 rank 15 of 3s grew to 118 KiB tiles and lost (0.35 / 0.35 -> 0.32 / 0.32). Not kept: no gain shown above the noise, and a 128 KiB buffer on each worker's stack.
- **The grouped transpose's prefetch beside its writes** (issue 27; `run_grouped_transpose`, `kernels/fast_path_grouped_transpose.cpp`; the walk order in `plan_grouped_transpose`, `kernels/grouped_transpose_planner.cpp`). Profile (perf record, high_rank_bench, f32 rank 14 of 3s): `write_staged_avx2` 19-23% of the samples, the micro kernel 11-15% with most of its samples just after its source loads (misses), against the streaming copy's 12-14%. Three changes: every run of the next tile is prefetched (the share per slice assumed 8 slices where fewer were made: 11 micro units make 6 slices of 2, so 66 of f32 rank 14's 81 runs were prefetched); staged tiles of 8 or more destination runs are written out in up to 8 slices with half of the next tile's prefetches among them, so that reads overlap the streamed writes too (tiles of fewer runs write in one call: bf16 rank 12 of 4s, 4 runs of 512 bytes a 2 KiB tile, lost with a slice per run, 0.59 -> 0.49 in one run); destination runs that end inside a line walk the dim that continues them innermost (f32 rank 14 of 3s: the dim of 9 at destination stride 81, which the source's order walked outermost but one), so that the next tile completes their partial lines while those are in the cache. Measured on the Zen 3 EPYC (2 cores, avx2, shared: load average 12-15), high_rank_bench, `chrt -f 10`, thread CPU time, before and after binaries interleaved, 3 rounds of 5 runs, median ratio of the streaming copy's time to the kernel's: f32 rank 22 of 2s 0.66 -> 0.73, f32 rank 14 of 3s 0.37 -> 0.39, f32 rank 24 of 2s 0.58 -> 0.64, c64 rank 12 of 4s,2 0.68 -> 0.70, bf16 rank 12 of 4s 0.50 -> 0.53, bf16 rank 15 of 3s 0.30 -> 0.33, u8 rank 24 of 2s 0.45 -> 0.50, c128 rank 20 of 2s 0.49 -> 0.54; f32 rank 12 of 4s 0.49 -> 0.48, c64 rank 21 0.53 -> 0.53, bf16 rank 23 0.49 -> 0.49 (within the rounds' spread, 0.03-0.1). Prefetching into L2 only (instead of every level) measured within the spread (f32 rank 14 of 3s 0.37 -> 0.39, bf16 rank 15 of 3s 0.33 -> 0.32, medians of 4 rounds); not growing bf16 rank 15's runs to 2187 elements (with the new walk) lost (0.30 -> 0.23). Outputs bit for bit as numpy's (the benchmark's checksum).
- **The grouped transpose's prefetch bursts** (issue 27; `grouped_tile_slices`, now `schedule_grouped_tiles`, `kernels/fast_path_grouped_transpose.cpp`; `max_prefetch_burst_lines`, `kernels/grouped_transpose.hpp`). A tile is worked through in 8 slices of its micro units and 8 of its staged runs, the next tile's source lines prefetched a share after each; bf16 rank 15 of 3s prefetches 243 runs of 4 lines a tile, bursts of 64 lines after each unit slice and of 100 after each staged one (36 units, 9 staged runs). Tiles now take enough slices for bursts of at most 24 lines (about the misses an L1 keeps in flight: reasoned; 16, 24 and 32 measured alike, 0.36 / 0.35 / 0.36 against 0.31, 6 rounds), as far as their units and runs allow: bf16 rank 15 of 3s wants 21 and makes 18 of its 36 units and 9 of its 9 runs (bursts of 28 and 56 lines; sharing the prefetches out in proportion to the slices instead of half and half measured alike, 0.37 against 0.39); every other high-rank case prefetches at most 320 lines a tile and keeps 8. Measured on the Zen 3 EPYC (2 cores, avx2, shared: load average 7-9), high_rank_bench, `chrt -f 10`, one thread, before and after binaries interleaved, median ratio of the streaming copy's time to the kernel's (range): bf16 rank 15 of 3s 0.31 (0.29-0.35) -> 0.35 (0.29-0.39) in thread CPU time, 10 rounds of 5 runs, and 0.30 (0.27-0.37) -> 0.33 (0.28-0.39) in wall clock, 15 rounds; the plans it leaves alone within the spread (f32 rank 14 of 3s 0.39 -> 0.38, 10 rounds; all 11 cases, 5 rounds during a build: 0.51-0.74 -> 0.49-0.74). Rejected in the same session (3-5 interleaved rounds, medians, same yardstick): source runs up to 512 bytes instead of 256 (f32 rank 22 of 2s 0.64 -> 0.67, f32 rank 12 of 4s 0.49 -> 0.47, bf16 rank 23 of 2s 0.48 -> 0.46, u8 rank 24 of 2s 0.45 -> 0.48, c128 rank 20 of 2s 0.58 -> 0.49); prefetching into L2 only again, for the 2s (f32 rank 24 0.60 -> 0.59, u8 rank 24 0.43 -> 0.41, c128 rank 20 0.57 -> 0.51, 5 rounds) or non-temporally (u8 rank 24 0.49 -> 0.45, bf16 rank 23 0.49 -> 0.47); tiles of 8 or 32 KiB instead of 16 for the 2s (u8 rank 24 0.49 -> 0.46 / 0.46, bf16 rank 23 0.49 -> 0.44 / 0.46); 32 or 128 slices for every tile (c128 rank 20 0.58 -> 0.38 / 0.24, f32 rank 24 0.57 -> 0.50 / 0.32: short bursts pay only where the default's are long); bf16 rank 15's 9 staged runs written in 3 pieces each (cut at destination lines, 27 staged slices, bursts of 20 lines) against the kept version (0.34 -> 0.34 in thread CPU time, 10 rounds; 0.35 -> 0.36 wall clock, 12 rounds). Its profile after the change (perf record): the micro kernel 22% of the samples, mostly just after its source loads, and the prefetch loops 5% (their samples on the instruction after each prefetch: the L1's misses in flight are used up), so its reads, not the order of its prefetches, now hold it back. 2 MiB pages on the benchmark's buffers (`madvise(MADV_HUGEPAGE)`, kernel and streaming copy alike) did not lift the ratios either way (bf16 rank 23 0.48 -> 0.55, c128 0.54 -> 0.62, but f32 rank 12 of 4s 0.52 -> 0.45, bf16 rank 15 0.33 -> 0.27, u8 rank 24 0.49 -> 0.43), so the scattered runs' TLB misses are not what holds these cases back. Open lead: in the caches the kernel is far from a copy too (bf16 rank 17 of 2s, 256 KiB, 1 KiB tiles: 75 us against memcpy's 29 us, the tile loop around the micro kernel 22% of the samples). Outputs bit for bit as numpy's (the benchmark's checksum, unchanged).
- **The grouped transpose's joined tiles** (issue 27; `joined_tiles`, `kernels/grouped_transpose_planner.cpp`; `write_staged_avx2`, `kernels/grouped_transpose_avx2.cpp`). Profile first (perf record, high_rank_bench, f32 rank 14 of 3s): `write_staged_avx2` 19.5% of the samples against the micro kernel's 9%, most of them on the instructions after the ordinary stores of the partial first and last lines of its 324-byte destination runs (each such line read from memory before the store completes). The walk already takes the dim that continues those runs innermost, so consecutive tiles' run r meet inside a line: that line's first part (the tile's last bytes of run r) is now kept in a 64-byte carry per run and completed by the next tile's first bytes, then streamed whole; only each range of joined tiles' ends (the dim's first and last tile, and a task's) keep the ordinary stores. Measured on the Zen 3 EPYC (2 cores, avx2, shared: load average 8-15), high_rank_bench, `chrt -f 10`, one thread, before and after binaries interleaved, 5 inner runs each, ratio of the streaming copy's time to the kernel's: f32 rank 14 of 3s 0.34 / 0.36 / 0.37 / 0.41 / 0.45 -> 0.43 / 0.45 / 0.48 / 0.49 / 0.53 in thread CPU time (median 0.37 -> 0.48, kernel 9.0 -> 7.4 ms), 0.39 / 0.37 / 0.39 -> 0.48 / 0.45 / 0.48 in wall clock; bf16 rank 15 of 3s (runs of 4374 bytes: few partial lines) 0.36 -> 0.34 median of 5 (within the spread); the cases of 2s and 4s (runs of whole lines) have no joins (f32 rank 12 of 4s 0.58 -> 0.57, c64 rank 21 of 2s 0.56 -> 0.59, medians of 3). Outputs bit for bit as numpy's (the benchmark's checksum).
- **The window transpose** (issue 27; `fast_path_window_transpose.cpp`, `window_transpose.hpp`; chosen in `choose_fast_path` after the grouped transpose and before the tiled one, for moves of at least 4 KiB whose source (or, for merges, destination) runs are under 64 bytes and continue into another dim, never a blocked format's inner block). Profile first (perf, 2026-11-27): maxvit_t's window partitions took the tiled transpose, whose tiles read source runs of 7 floats (28 bytes), a tenth of each tile. The window transpose's tile rows span every source dim contiguous together (window width, windows across, image rows: up to 196 elements), transposed into a 24 KiB L1 buffer and copied out through a table of row offsets made at plan time; merges mirror it. Single-thread CPU time before -> after, bit-exact, at load average 10-18: [8,256,14,14] -> [8,4,49,256] 444-731 -> 200-263 us, [1,64,56,56] partition 365 -> 83 us, [8,128,28,28] partition 1953 -> 479 us, [8,64,56,56] partition 3972 -> 2131 us, merges 1736 -> 429 us and 4254 -> 1984 us. The 24 KiB buffer and block sizes are reasoned (L1 is 32 KiB), not measured. In the same round, short runs in the caches take the order with the most runs a call (`short_run_order`): maxvit_t's head split (128-byte runs, 4 a call in the source's order, 49 in the destination's) 297 -> 162 us; streamed moves keep the source's order, which measured faster there (15.3 against 21.7 ms, the 67 MB attention case).
- **The in-cache tiles' register blocks** (issue 27, tiles round; `transpose_block_into`, `transpose_blocks_into`, `transpose_lane_lines_into` in `kernels/isa_kernels_simd.hpp`). Measured on the Zen 3 EPYC (2026-11-27, load average 4-12 from other builds), reshaper-run --mode=perf --threads=1 at `chrt -f 10`, main's binary and the new one interleaved, NHWC as NCHW [1,HW,64] (a [HW,64] -> [64,HW] transpose), ratio to the in-cache memcpy of the same run, medians of 3-7 rounds; and a microbenchmark of the kernel table's wide tile alone (the same walk, best of 200 rounds, against memcpy in the same process). Profile first: `perf record` put the 4 KiB execute's samples 56-62% in `transpose_tiles<avx2_ops, 4, 1, false>`, whose objdump showed its 16 row pointers strength-reduced out of the block loop, spilled and reloaded before each load; and the in-cache 1- and 2-byte tiles (`transpose_tiles<avx2_ops, 1, 8, false>`, `<avx2_ops, 2, 8, false>`) held a whole wide tile's register blocks on the stack (512 vectors for s8) before storing them. Kept: row addresses from two opaque bases plus 0-3 pitches (x86 addressing modes; driver, 3-5 rounds: 4 KiB f32 [32,32] 257 -> 234 ns, f32 32 KiB 2154 -> 1613 ns); 1- and 2-byte elements in lane blocks of 16 / E vectors (rows r and r + G in one vector's halves: the block fits the 16 registers), two blocks making G whole destination lines, the first waiting in a 512-byte L1 buffer so each line is stored as two back-to-back stores, a tile's lines before the next tile's, but every tile's G lines side by side first where destination rows lie a multiple of 4 KiB apart (microbenchmark, x memcpy: s8 32K 0.42 -> 0.60, 256K 0.24 -> 0.36, 2M 0.29 -> 0.39; bf16 32K 0.59 -> 0.69, 256K 0.38 -> 0.41, 2M 0.47 -> 0.52; driver, 7 rounds: s8 32K 0.30 -> 0.48, 256K 0.31 -> 0.34, 2M 0.32 -> 0.36, time 0.64 / 0.91 / 0.87; 5 rounds at load average 12: f32 32K 0.48 -> 0.52, 256K 0.43 -> 0.43, 2M 0.46 -> 0.51, bf16 32K 0.39 -> 0.56, 256K 0.48 -> 0.53, 2M 0.49 -> 0.50); single tiles of 4- and 8-byte elements in quarters whose loads are issued before the previous quarter's stores (the [32,32] f32 tiles alone, by destination's distance from the source mod 4 KiB: 0 B 73 -> 66 ns, 256 B 89 -> 67 ns, 16 B 107 -> 102 ns); `run_transpose` walking units as an odometer instead of three 64-bit divisions per unit (a third of its samples); 4- and 8-byte blocks in pairs that make whole lines (`transpose_block_lines_into`: the first block waiting in an L1 buffer) where destination rows lie a multiple of 4 KiB apart (microbenchmark, 3 interleaved pairs: f32 256K 15.9 / 13.7 / 13.8 -> 13.3 / 13.5 / 11.4 us, 2M 112 / 110 / 119 -> 95 / 105 / 103 us; the driver at load average 13 could not tell: 7 rounds, 256K 0.78x and 1.13x the time in two runs, 2M 1.21x). Rejected: the lane blocks stored as made, without the buffer (s8 256K 0.18, bf16 256K 0.24 where the kept order gives 0.33-0.36 and 0.49-0.52); every tile's G lines side by side first everywhere (s8 32K 0.37, bf16 32K 0.49 against 0.57-0.60 and 0.66-0.69); a tile's lines first everywhere (s8 256K 0.32 against 0.33, bf16 256K 0.43 against 0.49, 2M 0.41 against 0.58); the pipelined quarters for wide tiles (f32 in the caches 32K 0.78 -> 0.80, 256K 0.48 -> 0.45, 2M 0.53 -> 0.47); 4 instead of 8 tiles side by side for in-cache 1- and 2-byte elements (s8 0.59 / 0.34 / 0.38 -> 0.51 / 0.35 / 0.38, bf16 0.67 / 0.52 / 0.54 -> 0.76 / 0.55 / 0.63; bf16 alone in the driver, 5 interleaved rounds at load average 13, time 0.92 / 0.91 / 1.02: within the spread, not taken); for 1- and 2-byte elements with destination rows a multiple of 4 KiB apart, every tile's G lines staged into an L1 buffer whose rows lie 9 lines apart, then each row's W lines out in order (microbenchmark: s8 256K 17.2 -> 15.5 us, 2M 144 -> 137 us, but bf16 256K 11.6 -> 16.8 us, 2M 125 -> 123 us). What remains: the tiles run 2-3x slower than their shuffles' bound (a 16 x 16 byte lane block is 64 unpacks for 512 bytes) where destination rows lie a multiple of 4 KiB apart (256 KiB and 2 MiB here: every tile's 64 lines in one L1 set; the microbenchmark with destination rows padded by one line runs s8, bf16 and f32 256K at 0.58, 0.75 and 0.83 x memcpy against 0.33, 0.50 and 0.40 unpadded, so the sets, not the shuffles, cost the difference) and where the buffers lie 8-96 bytes past a multiple of 4 KiB apart (4K aliasing: the [32,32] f32 tiles 71 ns at 0, 64, 128, 1024 or 2048 bytes, 95-123 ns at 8-96 and 4032-4088; api_bench's two std::vector buffers lie 16 bytes apart). The 4 KiB execute through the C API stays at 183-229 ns against 195-252 before (api_bench, CPU time, 3 interleaved pairs at load average 11), short of 120 ns: the kernel is half of it, the rest spread over six layers of 2-9% each (run_transpose, strip, kernel_movement::run, chain_partition::run, the C API's guard, check_buffers).
- **The blocked transpose** (issue 27, blocked lane; `fast_path_blocked_transpose.cpp`, `blocked_transpose.hpp`; chosen in `plan_movement` for streamed tiled transposes with whole tiles both ways, one side a single tile, whose tiled walk is out of the source's order). Profile first (perf, 2026-11-27, reshaper-run --mode=perf --threads=1 at real-time priority, 64 MiB, load average 8-13 from other builds, ratios to the one-thread streaming copy in the same run): ABcd16a16b -> abcd took the tiled transpose with strips of 16 rows (`b`) of 256 columns (`c,d`), two wide steps a strip, so it read one line of every KiB of the source, the second step alone prefetched: 37% of the samples in the wide tile against the streaming copy's 18%; abcd -> ABcd16a16b took strips of one tile's columns (no wide steps, no prefetch) reading 16 KiB runs 256 KiB apart. The blocked transpose walks the outer dims and column steps in the source's order (ABcd16a16b's `a`, inside each `c,d` column of the source, within a unit), prefetches the next unit's source a share per tile, and writes whole lines with streaming stores. Old -> new, 4 interleaved rounds: ABcd16a16b -> abcd 0.47 -> 0.58 (18.2 -> 13.5 ms), abcd -> ABcd16a16b 0.41 -> 0.49 (19.7 -> 15.8 ms). Tried (3 rounds each, ABcd16a16b -> abcd): without the prefetch 0.39-0.45 against 0.57-0.62 (the hardware prefetchers do not keep up with the tiles' order within a 16 KiB unit); prefetching 2 or 4 units ahead 0.54-0.63, no better; 2 column tiles a unit (each destination row gets 128 bytes at once) 0.64-0.71, kept; 4 0.61-0.65, 8 0.51-0.59; a whole 256 KiB `A,B` block a unit, staged per `a` in L1 and streamed out as one 16 KiB run, 0.42-0.48. What is left is the writes: with the tiles' stores into an L1 buffer instead (reads alone) the move ran at 0.92-1.01 of the copy, with the loads from an L1 buffer instead (writes alone) at 0.58-0.74: streaming stores of single lines a KiB apart run at about 5 GB/s here, so longer destination runs, not the reads, are the next step. Then abcd -> ABcd16a16b's `a`, which continues each destination row after `b`, became the column tiles (two a unit, so each destination row gets 128 bytes at once, each tile's 16 KiB source prefetched): 0.62 -> 0.66 (15.96 -> 15.19 ms, 4 interleaved rounds, load average 13-15), ABcd16a16b -> abcd unchanged (0.71 / 0.68, within the spread).
- **A padded blocked destination's last block** (issue 27, blocked lane; `src/backend/padded_edge.cpp`, planned in `plan_kernel_step` for steps that stream). nchw -> padded nChw16c (f32 [16,250,64,64]: 15 whole blocks, then 10 valid channels and 6 zeros per line) ran as boxes: the last block's 10 channels through partial tiles (AVX2 has no masked stores: through buffers and `memcpy`), streamed, then its padding zeros into the same lines with ordinary stores in a second pass, which read every such line back from memory (`perf record` of [133,40,56,56] in the round before: 10% and 7% of the samples). Now the valid source rows of 16 KiB of positions are copied into an L1 buffer whose other rows are zeros, and the whole block is transposed from there by the block-row kernel, each line streamed once. Old -> new, interleaved, ratio to the one-thread streaming copy (chrt -f 10, load average 11-13): 0.88 -> 0.97 (8.56 -> 8.03 ms, 5 rounds) and 0.85 -> 0.89 (8.77 -> 8.39 ms, 3 rounds). The edge runs on the calling thread (a sixteenth of the move).
- **Half tiles' prefetch, and a staged walk out of blocks that lost** (issue 27, blocked2 lane; `strip::wide_group` in `kernels/fast_path_transpose.cpp`, `transpose_half_tiles` in `kernels/isa_kernels_simd.hpp`). Profile first (`perf record`, 2026-11-27, reshaper-run --mode=perf --threads=1 at real-time priority, 64 MiB): nChw8c -> nchw f32 spent 31% of the samples in `transpose_half_tiles` against the streaming copy's 21%, and `perf annotate` put 41% of the half tiles' samples on the first store after the source rows' permutes (waiting on the loads): the half tiles (nChw8c f32, nChw16c bf16) took none of the next wide step's prefetches that whole tiles issue. They got the next step's source lines first all at once before each call, each line once where positions lie back to back; now a share before each register block, as whole tiles do (`transpose_half_tiles` takes the `line_prefetch`). Old (no prefetch) -> all at once -> a share per block, 5 interleaved rounds (load average 10-12): nChw8c -> nchw f32 0.72 -> 0.76 -> 0.85 (medians 13.0 / 11.3 / 13.2 ms, the machine's speed drifting between rounds), bf16 nChw16c -> nchw 0.68 -> 0.75 -> 0.84 (16.1 / 15.1 / 13.6 ms); every round in that order. Before that, old -> all at once, interleaved, ratio to the one-thread streaming copy (load average 13-16 from other builds): nChw8c -> nchw f32 0.72 -> 0.79 (6 rounds; 5 more the next minutes: 0.72 -> 0.79, 15.5 -> 13.0 ms medians), and in 4 more 0.72 -> 0.79 against 0.75 with each position's line issued (two per line); bf16 nChw16c -> nchw 0.75 -> 0.76 in 4 rounds, then 0.69 -> 0.76 and 0.68 -> 0.74 in 5 and 6 (13.7 -> 12.5 and 13.8 -> 12.6 ms medians); nChw16c -> nchw f32 (whole tiles, unchanged code) 0.84 -> 0.88 in the same runs, which is the spread. Whole tiles (nChw16c f32) with the same burst before each call instead of their share per register block: 0.88 -> 0.72, padded nChw16c 0.79 -> 0.68 (4 rounds), so they keep the shares. Tried, not kept: a staged walk out of blocks of a line or half a line (units of 1 KiB of each destination row: a channel block's positions transposed into an L1 buffer with ordinary stores, each row then streamed out as one 1 KiB run), 2 interleaved rounds: nChw16c -> nchw f32 0.82-0.86 -> 0.58-0.64, nChw8c 0.66 -> 0.55, bf16 nChw16c 0.65-0.69 -> 0.59-0.60, padded nChw16c 0.78-0.81 -> 0.57-0.59: the extra pass through L1 cost more than longer destination runs gained, so the tiles' 512-byte runs from registers are not what limits the moves into nchw. ABcd16a16b -> abcd: `perf annotate` of the blocked transpose's own loop (14% of the move's samples) put 47% of them on the instruction after a `prefetcht0` (the prefetch waiting for a free miss buffer), as in the NHWC transposes: its reads are bound by the misses one core keeps in flight.
- **A padded blocked source's last block, and walks of the ABcd16a16b moves that did not gain** (issue 27, blocked3 lane; `src/backend/padded_edge.cpp`, `kernels/fast_path_blocked_transpose.cpp`). Measured on the Zen 3 EPYC (2026-11-27, 13:52-14:05, load average 7-10 from other lanes' builds, so rounds spread about +-0.08), reshaper-run --mode=perf --threads=1 --reps=10 under `chrt -f 10`, the starting binary and the new one (or one binary with a temporary knob per variant) interleaved, ratio to the one-thread streaming copy in the same run, medians of 3-8 rounds. Profile first (`perf record`, padded nChw16c -> nchw f32 [16,250,64,64] against nChw16c -> nchw [16,256,64,64]): the same symbols in the same shares (glibc's memmove, the yardstick's memcpy, 33% against 31%; the wide tiles 21% against 24%; the streaming copy 20% against 21%), so no slow path shows by name; timed alone, though, the last block's 10 valid channels (a [256,10,64,64] padded nChw16c, only that block) ran at 0.35-0.37 of the copy, against the whole blocks' 0.89: as boxes they took partial tiles (through buffers and `memcpy`). Kept: out of a padded blocked source, 16 KiB of the last block's positions are transposed whole (the padding lanes too, which lie in the padded buffer) into an L1 buffer with ordinary stores, the valid rows then streamed out as 1 KiB runs, and the next chunk prefetched into L2 while they are; the edge alone 0.35-0.36 -> 0.45-0.48 (3 and 5 rounds), [16,250,64,64] 0.83 -> 0.85 (3 rounds), 0.81 -> 0.80 (8 rounds, 10.85 -> 10.48 ms), 0.77 -> 0.84 (4 rounds, 11.67 -> 10.63 ms), nchw -> padded nChw16c (unchanged code) 0.99 -> 1.04 beside them. By valid rows, the edge alone (3 rounds): f32 4 of 16 0.16 -> 0.20 (11.6 / 11.7 ms), 12 of 16 0.37 -> 0.52, 14 of 16 0.39 -> 0.55, bf16 4 / 8 / 10 of 16 0.12 / 0.21 / 0.20 -> 0.20 / 0.32 / 0.41, nChw8c f32 5 of 8 0.21 -> 0.42, but f32 8 of 16 (half a line: the tiled transpose's half tiles, with the next step prefetched) 0.50 -> 0.37, so valid rows of half a line keep the boxes (f32 [128,40,64,64] 0.77 -> 0.68 staged, 0.75 -> 0.75 with the rule). Tried for the edge: chunks of 4, 8, 24 and 64 KiB 0.44 / 0.46 / 0.46 / 0.40 against 16 KiB's 0.46; the next chunk not prefetched 0.42-0.43, prefetched into L1 0.44, two chunks ahead 0.43, into L2 (kept) 0.47-0.48. Tried for ABcd16a16b -> abcd, not kept: the next unit's prefetches into L2 (locality 2) 0.71 -> 0.65 (3 rounds) and 0.59 -> 0.60 (6 rounds), locality 1 0.60, non-temporal 0.59 against 0.71; 4 column tiles a unit with locality 2 (each destination row 256 bytes at once, the next 64 KiB into L2) 0.76 against 0.71 in 3 rounds, 0.60 against 0.59 in 6, with locality 1 0.58, 8 tiles with locality 2 0.53, 4 tiles into L1 0.67; the next unit's lines prefetched in the order its tiles read them (each `a` across the unit's 32 positions, rather than memory order) 0.70 -> 0.61, with 4 tiles 0.57 (6 rounds). abcd -> ABcd16a16b (4 rounds): locality 2 0.69 -> 0.71, 4 tiles 0.62, 4 tiles with locality 2 0.63, 1 tile 0.65; the column steps (`a`) walked outside `B`, so consecutive units continue the same two 16 KiB source runs (the source's order), 0.74 -> 0.66, with 4 tiles 0.66 (5 rounds; ABcd16a16b -> abcd, whose order it leaves as it was, 0.65 -> 0.69 / 0.64 beside it). Both ABcd16a16b moves stay short of 0.9 (0.59-0.74 in these runs).
- **Run grids and the in-cache timing** (issue 27, heads round; `kernels/run_grid.hpp`, `plan_run_copy`, `fast_path_run_copy.cpp`; `in_cache_settling_runs` in `src/driver/perf_timing.hpp`). Measured on the Zen 3 EPYC (2026-11-27, reshaper-run --mode=perf --threads=1 at real-time priority, load average 9-15 from other builds, medians of 3-4 interleaved rounds, execute / in-cache memcpy of the same bytes; attention split heads [1,S,8,64] -> [1,8,S,64], merge heads the inverse, channel shuffle [1,2,64,HW] -> [1,64,2,HW]). Profile first: `perf record` put the head moves' samples on the stores of `copy_runs`' inline copy, compiled as a chain of compare-and-branch per vector pair (about 18 instructions and 5 branches per 64-byte run), the calls going along S so that one side moved in 8 streams 512 B - 2 KiB apart. The driver's own timing first: one untimed run after the streaming-copy yardstick did not settle the caches: the same execute timed twice a round measured 0.50 right after the streaming copy against 1.03 after memcpy (merge heads bf16 256 KiB), 0.52 against 0.84 (2 MiB); after two untimed runs both positions measured alike, so in-cache samples now follow two (memcpy's figure unchanged): split heads 2 MiB f32 0.53 -> 0.81, bf16 0.69 -> 0.81, s8 0.63 -> 0.77, merge heads 2 MiB 0.43-0.61 -> 0.81-0.83, merge heads 256 KiB 0.45-0.47 -> 0.74-0.83, channel shuffle 2 MiB 0.66-0.73 -> 0.85-0.87 with the same kernels. Then the kernels: short runs in the caches take a grid, along S and across the heads (the other tensor's innermost outer dim, 2-31 runs, where that tensor is walked through whole rows of runs), so a split reads its source and a merge writes its destination in order while a call still covers S x 8 runs; runs of whole vector pairs copy as a plain loop of pairs; a task's units of one row go in one call, without a division or a walk allocation per unit. Against the same driver with the starting kernels (4 rounds): 32 KiB split f32 0.78 -> 0.87, bf16 0.69 -> 0.74, s8 0.52 -> 0.65, merge 0.67 -> 0.72, 0.66 -> 0.74, 0.51 -> 0.65, shuffle 0.71 -> 0.81, 0.65 -> 0.74, 0.64 -> 0.77; 256 KiB split 0.91 -> 0.89, 0.82 -> 0.88, 0.73 -> 0.81, merge 0.88 -> 0.96, 0.90 -> 0.93, 0.92 -> 0.92, shuffle 0.94 -> 0.91, 0.87 -> 1.02, 0.86 -> 0.93; 2 MiB split 0.89 -> 0.92, 0.85 -> 0.89, 0.72 -> 0.86, merge 0.88 -> 0.87, 0.87 -> 0.91, 0.69 -> 0.89 (the shuffle's 16-32 KiB runs take no grid: 0.71-0.83 either way). End to end, the round's starting binary (one untimed run, the starting kernels) against its last (3 interleaved rounds, one thread; 32 KiB from 7 rounds): 32 KiB split f32 0.67 -> 0.68, bf16 0.60 -> 0.64, s8 0.49 -> 0.59, merge 0.72 -> 0.68, 0.60 -> 0.65, 0.49 -> 0.58, shuffle 0.63 -> 0.73, 0.65 -> 0.73, 0.66 -> 0.73; 256 KiB split 0.79 -> 0.96, 0.78 -> 0.85, 0.70 -> 0.81, merge 0.73 -> 0.94, 0.59 -> 0.84, 0.42 -> 0.89, shuffle 0.72 -> 0.94, 0.72 -> 0.85, 0.68 -> 0.91; 2 MiB split 0.61 -> 0.95, 0.60 -> 0.96, 0.66 -> 0.83, merge 0.60 -> 0.92, 0.52 -> 0.94, 0.58 -> 0.88, shuffle 0.72 -> 0.85, 0.71 -> 0.88, 0.77 -> 0.92. Two threads at 2 MiB (cores got 1.98-2.02), the starting kernels with two untimed runs -> the grids: split 0.85 -> 0.96, 0.79 -> 0.91, 0.61 -> 0.89, merge 0.69 -> 0.86, 0.55 -> 0.93, 0.79 -> 0.94, shuffle 0.93 -> 0.92, 0.89 -> 0.94, 0.91 -> 0.90. The 32 KiB moves stay short of 0.8: a 4 KiB split heads execute measured 80-190 ns more than its memcpy in the driver (the call path), an eighth to a fifth of a 32 KiB memcpy (800-950 ns). The grid alone against calls along S with the new loop: +0.05-0.09 at 32 KiB, +0.03-0.17 at 256 KiB, +0.06-0.24 at 2 MiB. Rejected (a harness timing run_movement in the driver's turn, one thread): software prefetch of source or destination lines 2-8 runs ahead (s8 32 KiB 0.47-0.50 -> 0.35-0.39, f32 256 KiB merge 0.88 -> 0.66-0.80); grids 2 or 4 heads across (below both 8 across and calls along S: s8 split 2 MiB 0.59 / 0.72 against 0.83); calls of 8 runs in the source's order (0.40-0.70: the per-call cost); run lengths fixed at compile time (within 0.02 of the loop); loops aligned to 64 bytes (`-falign-loops=64`, within the spread); a grid for heads split from a q/k/v slice (swin_t's [32,12,49,32] from [32,49,1152]: source rows of heads three rows apart), 123 -> 132 us, so such moves keep calls along the tokens. swin_t at batch 8, [384,49,32] -> [1568,384] (merge heads, runs of 32 floats, 2.4 MB) from Python (`benchmarks/model_chains_bench.py --models swin_t --batches 8`, 9 rounds): 0.60x PyTorch's time (198 against 330 us; 1.03x in the report's previous run); in the same run three other swin_t chains measured slower than PyTorch, two window partitions and merges of 10.7 KiB runs ([1568,384] -> [8,14,14,384] 1.19x, [6272,192] -> [8,28,28,192] 1.13x; no grid: long runs) and the q/k/v head split above (1.10x, before it lost its grid). A later run with the last build (swin_t, maxvit_t and shufflenet_v2_x1_0 at batch 8, 9 rounds): faster than PyTorch on 59 of 60 chains, the window chains 0.80-0.87x, the q/k/v split 1.00x, the merge above 0.60-0.61x; the one slower, maxvit_t's window partition [8,256,14,14] -> [8,4,49,256] (1.76x: 755 against 428 us), takes the window transpose, which this round did not touch, and measured no slower in the driver (one thread 413 -> 355 us, two 182 -> 135 us, the round's starting binary against its last, 5 rounds): Python's rounds under this load spread that far.
- **The 4 KiB execute's call path** (issue 27, exec round; `compiled_partition::execute_prepared`, `src/backend/compile.cpp`; `data_mover::direct_program`, `src/backend/kernel_movement.cpp`; the C API's `reshaper_compiled_partition_execute`). Profile first (`perf record -g`, api_bench `transpose_4KiB`, Zen 3 EPYC, 2026-11-27; `perf stat` has no hardware counters on this VM, so no instruction counts): `transpose_tiles<avx2_ops, 4, 1, false>` 52% of the samples, the rest in seven layers of 2-10% each (`run_transpose`'s unit walk 10%, `strip::all_steps` 8%, the C API's guard 7%, `kernel_movement::run` 5%, `chain_partition::run` 5%, `check_buffers` 3%, the C entry point 2%). Kept: at compile time a partition of one input and one output with nothing to resolve at execute keeps the one movement program its kernel lowering amounts to (no temporaries, one step, not possibly in place), and the C API runs it straight away when both buffers are given, do not overlap and verbose is off (an alias in place: nothing to run); anything else takes the checked path as before, so every error and verbose line is unchanged. `kernel_movement::run` goes to its one program without setting up temporaries, and `run_transpose` runs a single unit's strip without the unit walk. After: the tile kernel 69% of the samples, `strip::all_steps` 9%, the guard 6%, the rest under 4% each. api_bench now gives the execute line-aligned, pre-faulted buffers, each a 4 KiB-aligned block (0 bytes apart mod 4 KiB), and keeps the std::vector pair (16 bytes apart: 4K aliasing) as `transpose_4KiB_vectors`. api_bench CPU time, the new benchmark binary with the old and the new libreshaper.so interleaved at `chrt -f 10`, medians of 7 rounds at load average 4-8: `transpose_4KiB` 193 -> 136 ns (rounds 139-236 -> 101-149), `transpose_4KiB_vectors` 208 -> 145 ns, `alias_in_place` 35 -> 15 ns. The 120 ns goal is met in some rounds only: the kernel's four tiles alone are about 70 ns of it. Second round (exec2): a one-unit, not streamed transpose of whole tiles with no wide step is planned as one call of the level's `whole_tiles` kernel (`kernels/isa_whole_tiles.hpp`, AVX2; the tile kernel inlined into the tile loop, the tiles in the strip's order), which `run_transpose` takes first: no strip, no indirect call per tile. Profile after (`perf record -g`, api_bench `transpose_4KiB`): `transpose_blocks_into<avx2_ops, 4, 1>` 74% of the samples, the C API's guard 8% (its samples on the dependent loads handle -> compiled partition -> vtable; it writes no thread-local state on success), `whole_tiles` 6%, `run_transpose` 5%, the rest under 3% each. The old and the new libreshaper.so under the same api_bench binary, interleaved at `chrt -f 10`, medians of 7 rounds at load average 8 (a CI run and a benchmark run beside): `transpose_4KiB` 144 -> 139 ns (rounds 102-205 -> 87-159), `transpose_4KiB_vectors` 152 -> 130 ns, `alias_in_place` 13 -> 17 ns (its path unchanged: rounds 9-16 and 12-18); per call by rdtsc in the same rounds (a probe of 30 x 1000 executes, the timer's ~10 ns included) minimum 120 -> 110 ns, median 150 -> 130 ns. The two groups of rounds are not in the code: by rdtsc every call's minimum stays at 120-130 ns (old library) in every batch of 1000 on the same core (cpu0), while within a batch the 90th percentile is 20-40% above the median, and the steal column of /proc/stat did not move; a dependent-multiply loop timed between the batches swung from 0.49 to 0.90 ns per step within minutes, tracking the execute in one run (execute/loop ratio 200-260) and not in another (correlation 0.02 over 150 batches). So the spread is the shared machine's load, not the buffers (the 4 KiB-aligned pair) or the core. Rejected (a kernel bench of the 4 tiles, rdtsc, 200 interleaved rounds): `load_halves` as a 128-bit load, a broadcast and a blend instead of the insert, minimum 68.9 against 66.7 ns; the in-lane transpose's second round as one `shufps` and two blends per two rows, 71 against 68 ns. The kernel itself is now the execute's floor: the 120 ns goal is met in the rounds the machine gives the core to itself. Then `guarded` always inlined into each C entry point (it had been a call of its own, GCC's clone per entry point, with a 144-byte frame), the execute's body capturing its arguments by value, and `whole_tiles` taking rows and columns in elements, divided by its constant tile side (two 64-bit divisions by `t.t` a call gone from `run_transpose`). The main branch's and this library under the same api_bench, interleaved at `chrt -f 10`, medians of 15 rounds at load average 4-7: `transpose_4KiB` 123 -> 110 ns (rounds 102-176 -> 81-147), `transpose_4KiB_vectors` 120 -> 111 ns, `alias_in_place` 13 -> 10 ns; per call by rdtsc minimum 120 -> 80 ns, median 160 -> 110 ns. An 11-round run before it: `transpose_4KiB` 153 -> 135 ns, per-call median 150 -> 90 ns. The goal is met in the median of the quieter run and in most rounds of both. Third round (exec3): `perf record -g` of api_bench `transpose_4KiB` put the tile kernel at 77% of the samples, `whole_tiles` 7%, the C entry 4%, `execute_prepared` 3%, `run_transpose` 3%, `guarded_move` 2%, `run_movement` 1%. What a partition prepares is now one description, `prepared_execute` (`src/backend/compiled_partition.hpp`): an alias, or a `kernel_call` (`kernels/isa_kernels.hpp`) with its arguments fixed at compile time, the level's `whole_tiles` kernel itself where the program is one call of it (`whole_kernel_call`), else the partition's own entry running the program; `execute_prepared` and the C API both run it through `prepared_execute::run` (the same checks), the C handle from a copy of its own, so the execute is one indirect call from the handle into the kernel; `whole_tiles` is flattened (no call per tile). After: `whole_tiles` 92% of the samples (the kernel inlined), the C entry 6%. callgrind, a loop of C API executes, instructions per call: 1250 -> 1182. api_bench CPU time, the same binary with main's and the new libreshaper.so interleaved at `chrt -f 10`, medians of 11 rounds at load average 4.5-4.9: `transpose_4KiB` 125 -> 83 ns (minima 84 -> 74), `transpose_4KiB_vectors` 132 -> 90 ns, `alias_in_place` 8.6 -> 6.9 ns; at load average 12-13 (9 rounds) 126 -> 118 ns, minima 84 -> 81: under load the spread is the machine's, as in the rounds before.
- **In-cache NHWC as NCHW with destination rows a multiple of 4 KiB apart: orders that did not beat the tiles' own** (issue 27, nhwc round; `benchmarks/in_cache_tile_bench.cpp`). Measured on the Zen 3 EPYC (2026-11-27, load average 8-14 from other builds, so single figures spread 20-40%), with `in_cache_tile_bench` (the AVX2 in-cache walk alone on [HW,64] -> [64,HW], medians and fastest of 201 rounds against memcpy of the same bytes in the same process; the variants below in a scratch copy of it) and reshaper-run --mode=perf --threads=1 at real-time priority (3-7 interleaved rounds, ratio to the in-cache memcpy). Profile first: `perf record` of s8 256 KiB put the kernel's samples on the destination stores (`transpose_tiles<avx2_ops, 1, 8, false>`); of 32 KiB split heads and channel shuffle on `copy_run_grid_avx2`, the call path (`kernel_movement::run`, `chain_partition::run`, the row walk) under a tenth of the execute's samples. Rows padded (the bench's ROW_PAD; s8 / bf16 / f32 at 256 KiB, fastest of 201 in two runs): 0 B 20.9-21.7 / 11.5-13.5 / 11.8-12.6 us, 64 B (a tile's 64 lines in 64 sets) 13.6-14.1 / 10.2-11.1 / 7.3-10.0, 512 B 14.0-17.4 / 10.2-10.4 / 7.3-9.6, 1024 B 11.8-15.1 / 10.5-11.0 / 7.2-9.7, memcpy 5.7-7.8: the sets cost up to a third, and even padded rows stay under 0.8 for s8 and bf16. Tried for 1- and 2-byte elements at 4 KiB-multiple rows (bench, 256 KiB, s8 / bf16 x memcpy, the kept order 0.34 / 0.50 in the same runs): K tiles' lane blocks staged in an L1 buffer and each destination row's K lines then stored back to back (K = 2, 4, 8: 0.35-0.38 / 0.40-0.45; in the driver s8 0.32-0.37 and bf16 0.36-0.44 against 0.30-0.34 and 0.48-0.52); the same with each group of K tiles' four lane-line groups in a row, so each tile's source is read while in L1 (K = 2, 4: 0.33-0.39 / 0.44-0.47); whole tiles staged (64 rows x K lines, K = 1, 2, 4) and copied out row by row (0.27-0.40 / 0.36-0.38; s8 2 MiB 0.52 with K = 4 in one run, 0.37-0.39 against the kept order's 0.39 interleaved in the next); a tile's lines first (0.31 / 0.39); each destination row walked whole, the four lane-line groups outermost over all of HW (0.27-0.34 / 0.34-0.40 against 0.34 / 0.54: the source is then read four times from L2); `prefetchw` of the next call's destination lines 1-4 calls ahead (0.30-0.31 / 0.41-0.47 against 0.31 / 0.51). Why staging cannot pay here: copying 256 KiB from an L1 buffer into 64 rows 4 KiB apart, 256-512 bytes a row at a time, takes 6.5 us with vector stores (`rep movsb` 9.6-11.8 us, `memcpy` per run 6.2-7.3), about a whole memcpy of the move, while the transpose into padded rows alone takes 9.9-14.1 us (s8) and 8.0-11.1 (bf16). 4 instead of 8 tiles side by side for in-cache bf16 (`avx2_ops::walk`), in the driver, 7 interleaved rounds twice, time new / old: 1.05 / 0.94 / 0.97 and 0.94 / 0.98 / 0.95 at 32 KiB / 256 KiB / 2 MiB, s8 (unchanged code) 1.08 beside it: within the spread, not taken. At 32 KiB the kernels are not what is short: in the bench's loop (buffers 0 or 256 bytes past a page apart, 256 as in the driver) f32 runs at 0.76-0.85 of memcpy and bf16 at 0.70-0.79, and a channel shuffle's 256-byte runs copied by a plain vector loop at 1.00 (`rep movsb` per run 0.40, `memcpy` per run 0.69), where the driver measured f32 0.52-0.53, bf16 0.56-0.59 and the shuffles 0.65-0.76. Timed as the driver times them (a streaming copy into the destination, two untimed runs, then a batch of 6), the scratch bench measured f32 32 KiB at 0.68, 0.75 and 0.70 of memcpy against 0.82, 0.79 and 0.79 in batches of 100 (three runs), while single runs timed after the streaming copy were steady from the second on (0.88 and 1.05 us against memcpy's 0.70 and 0.82): far above the driver's 0.52-0.53 either way, and the call path is under a tenth of the execute, so where the driver's 32 KiB figures lose the rest is not found. They also move with the sample count (`--reps`; the report takes 40 for in-cache cases), two processes each, old binary: f32 NHWC as NCHW 0.54-0.55 at 40 samples against 0.62-0.66 at 400 and 0.67 at 1000, bf16 0.57-0.60 against 0.61-0.73, split heads bf16 0.60-0.61 against 0.75-0.78, channel shuffle s8 0.65-0.93 against 0.81-0.83; per-sample times of three 40-sample f32 runs (medians of 10 samples) showed the first 20 samples of the execute and of memcpy alike 30-40% slower than the last 20 in two runs, and none in the third, while a 200-sample run stayed at 0.59-0.68 a chunk from its first: more samples, or a longer warm-up, would be the driver's change to try (perf_timing.cpp, not changed here).
- **The driver's warm-up, and where its 32 KiB figures had gone** (issue 27, perfpath round; `warm_up_alone_ns` in `src/driver/perf_timing.hpp`). Measured on the Zen 3 EPYC VM (2026-11-27, load average 8-9.5 from other builds and a CI run), reshaper-run --mode=perf --threads=1 at `chrt -f 10`, 32 KiB f32 NHWC as NCHW where no case is named, ratios to the in-cache memcpy of the same run. The call path first: `perf record` of the driver (3000 samples) put 93% of the execute's samples in the tile kernel (`transpose_tiles<avx2_ops, 4, 4, false>`) and 7% in the call path (`run_transpose`, `strip::all_steps`, `chain_partition::run`, `kernel_movement::run`); split heads bf16: `copy_run_grid_avx2` 27% of all samples, `run_copy_runs` 1.6%, the rest of the call path under 0.4% each. These graphs' partitions take a shape input beside the data, so they have no prepared execute (`prepared_execute` is for one input) and run the checked one; loops of it and of `execute_prepared` (which falls back to it) measured alike. `steady_clock::now` costs 33 ns here (a million calls, clocksource tsc): one per sample of about 10 us, 0.3%. Where the difference went: the driver's first `time_in_turn` in a process measured the execute at 1.6-2.0 us a run (batches of 4-7) and memcpy at 0.96-1.08 us, while plain loops of the same execute and memcpy (2000 runs each, the same buffers) right after it in the same process took 1.0-1.4 and 0.7-0.9 us (3 processes), and `time_in_turn` called again after those loops agreed with them (0.67-0.69 of memcpy against 0.56-0.59 the first time, 2 processes). Traced (the execute and memcpy in turn, 8 runs each, medians per 0.2 ms): the execute took 1.6-2.2 us a run for the first 0.6-1.8 ms of the process's vector work, then 0.9-1.35 (10 traces); 20 ms of an integer loop before did not change that, 20 ms of 256-bit register work, of executes or of memcpy before did (one process each), and 20-30 ms of integer work after warm executes brought it back (8 of 9 processes; 0.5, 2 and 5 ms did not). 40 samples of a 32 KiB move last about 1.5 ms, so they all fell there. A warm-up of the runs in turn for 5 or 20 ms did not end it (0.49-0.56, 4 processes each): with the streaming copy in the rotation the execute stayed at 1.6-1.9 us, without it 1.1-1.2 (0.66-0.68); each run alone for 0.5, 1, 2 or 4 ms did (0.66-0.67 against 0.57 without, 8 interleaved processes each), and the streaming copy in turn after that no longer slowed it. Why (the vector units' power state, the prefetchers) is not known: this VM has no hardware counters. Kept: after its two rounds in turn, the warm-up runs each run alone in a loop for 1 ms (the execute and both yardsticks alike, on the same buffers), then sizes the batches as before; cost, 1 ms per run (3-4 a partition) where one run is shorter. Old -> new binary, 5 interleaved rounds, 40 samples: 32 KiB NHWC / split / merge / shuffle f32 0.57 / 0.81 / 0.76 / 0.84 -> 0.67 / 0.88 / 0.80 / 0.92, bf16 0.56 / 0.77 / 0.79 / 0.82 -> 0.65 / 0.81 / 0.88 / 0.90, s8 0.50 / 0.70 / 0.71 / 0.81 -> 0.46 / 0.70 / 0.82 / 0.83 (s8 NHWC: memcpy gained more than the execute); 256 KiB and 2 MiB within the rounds' spread except NHWC f32 2 MiB 0.50 -> 0.56 and bf16 2 MiB 0.47 -> 0.58. With --threads=2 (at 32 KiB the move and the yardsticks still take one thread), 3 rounds: f32 0.53 / 0.68 / 0.71 / 0.74 -> 0.66 / 0.90 / 0.90 / 0.85, bf16 0.55 / 0.73 / 0.66 / 0.73 -> 0.62 / 0.85 / 0.85 / 0.76, s8 0.49 / 0.64 / 0.66 / 0.76 -> 0.59 / 0.71 / 0.75 / 0.81. 64 MiB NHWC as NCHW, one thread, against the streaming copy (4 rounds): f32 0.65 -> 0.73, bf16 0.72 -> 0.72, s8 0.60 -> 0.65, within the spread (a run there takes over 1 ms: one more of each). The figures no longer move with the sample count (6 interleaved rounds, 40 / 400 samples): f32 NHWC old 0.53 / 0.65, new 0.68 / 0.66; split heads bf16 32 KiB old 0.69 / 0.76, new 0.78 / 0.77; channel shuffle s8 32 KiB old 0.77 / 0.92, new 0.90 / 0.87; and the driver's figure now agrees with plain loops of its own execute and memcpy in the same process (3 processes each: f32 NHWC 0.62-0.68 against loops' 0.68, split heads bf16 0.82-0.86 against 0.83-0.85, channel shuffle s8 0.93-0.98 against 0.93-0.99). What stays below 0.8 at 32 KiB (NHWC as NCHW at every dtype, split heads s8) is the kernels': `in_cache_tile_bench`'s inlined walk and the library's table kernel (the one the driver calls) measured alike in the same minutes (8 pairs, 0.68-0.78 and 0.66-0.78 of the bench's memcpy), below the 0.76-0.85 the nhwc round's bench runs had measured at a quieter hour.
- **In-cache 1-byte lane blocks in halves, lane lines stored as made, and tiles in groups of 4 at 4 KiB-multiple rows** (issue 27, nhwc2 round; `transpose_lane_block`, `transpose_lane_lines_into` and the lane-lines orders of `transpose_tiles` in `kernels/isa_kernels_simd.hpp`). Measured on the Zen 3 EPYC (2026-11-27, 16:50-17:20, load average 8-14 from other lanes' builds and a CI run), reshaper-run --mode=perf at `chrt -f 10`, `/work/tools/incache_cmp.py` (old and new binaries interleaved, 40 samples, medians of 5-15 rounds, x the in-cache memcpy of the same run). Profile first (`perf record` of s8 NHWC as NCHW [1,512,64] 32 KiB, 400 samples): the execute's samples all in `transpose_tiles<avx2_ops, 1, 8, false>` (the call path under 1%); its lane-lines loop (2 lane blocks, 1 KiB) held 351 instructions, 128 unpacks, 32 inserts and 55 vector loads and stores on the stack, 32 of them the line buffer, the rest spills of the 16-vector block. Kept: (1) the 1-byte lane block finishes and stores the first unpack round's low and high halves one at a time (the later rounds never mix them; each half is a perfect shuffle of 8 vectors): stack traffic 55 -> 40 a loop, s8 32 KiB 0.46 -> 0.52 (9 rounds); (2) where destination rows are not a multiple of 2 KiB apart, both lane blocks stored as made, without the L1 line buffer (the G lines spread over several sets and stay in L1 between the halves): s8 32 KiB 0.50 -> 0.57 over (1) alone, bf16 0.64 -> 0.67; both against main, 9 rounds twice: s8 0.45 -> 0.59 and 0.45 -> 0.57, bf16 0.65 -> 0.67 and 0.64 -> 0.65, f32 (unchanged code) 0.65 -> 0.69 and 0.66 -> 0.67; (3) where destination rows lie a multiple of 4 KiB apart, the G lines of 4 tiles side by side before the next G, group after group, instead of all 8 tiles' (which read all 8 tiles' 32 KiB of source, all of L1, from L2 once per G): 9 rounds, three runs, s8 [1,4096,64] 256 KiB 0.34 / 0.32 / 0.35 -> 0.39 / 0.38 / 0.39, [1,32768,64] 2 MiB 0.32 / 0.35 / 0.37 -> 0.40 / 0.40 / 0.41, bf16 256 KiB 0.55 / 0.51 / 0.52 -> 0.59 / 0.55 / 0.55 (15 rounds: 0.49 -> 0.57), 2 MiB (15 rounds) 0.57 -> 0.61; groups of 2 tiles: s8 256 KiB 0.34 -> 0.38, 2 MiB 0.33 -> 0.28, bf16 2 MiB 0.56 -> 0.41 (one run), not taken. All in-cache cases against main after the three, 5 rounds, one thread: s8 NHWC as NCHW 32 KiB / 256 KiB / 2 MiB 0.46 / 0.31 / 0.33 -> 0.59 / 0.37 / 0.37, bf16 0.65 / 0.53 / 0.61 -> 0.66 / 0.52 / 0.54 (the 15-round runs above for bf16's larger sizes), f32 (unchanged) 0.69 / 0.51 / 0.57 -> 0.69 / 0.53 / 0.51; head moves and channel shuffles (unchanged code) within the spread (0.71-1.08 both sides). The DRAM moves take the streamed tiles, which this round did not touch (`/work/tools/compare_perf.py`, 64 MiB NHWC as NCHW, one thread, 3 rounds, time new / old): f32 1.00, bf16 0.97, s8 0.97, f64 1.13 and c128 1.05 (the spread). Two threads, 5 rounds: s8 0.45 / 0.39 / 0.46 -> 0.61 / 0.40 / 0.49, bf16 0.68 / 0.53 / 0.69 -> 0.65 / 0.57 / 0.80, f32 0.68 / 0.57 / 0.81 -> 0.66 / 0.57 / 0.79. Tried, not kept (against (1)+(2), 9 rounds, 32 KiB): the lane blocks' row pairs loaded as a 16-byte load, a broadcast load and `vpblendd` instead of `vinserti128` (no shuffle uop: 32 fewer a KiB, 128 unpacks left), s8 0.58 / 0.60 -> 0.57 / 0.58, bf16 0.66 / 0.65 -> 0.63 / 0.64, 256 KiB and 2 MiB within the spread: the shuffle pipes are not what limits the block (160 shuffle uops a KiB are about 80 cycles, the move takes about twice that); prefetching the next lane-lines call's 16 destination lines (`__builtin_prefetch` for write, which compiles to `prefetcht0` without -mprfchw) 1 or 4 calls ahead, s8 0.58 / 0.60 -> 0.45 / 0.46, bf16 0.67 / 0.66 -> 0.58 / 0.59; the next tile's 64 source lines, a quarter before each of this tile's calls, s8 0.58 / 0.66 -> 0.50 / 0.55, bf16 0.67 / 0.68 -> 0.64 / 0.66. Every NHWC as NCHW case in the caches remains short of 0.8 on one thread; with two, bf16 at 2 MiB reaches it in these runs (0.80) and f32 nears it (0.79).
- **Shape inputs and renamed partitions prepared too** (issue 27, prep round; `prepared_execute` in `src/backend/compiled_partition.hpp`, `shape_values_as_compiled` in `src/backend/compile.cpp`, `src/backend/renamed_partition.cpp`; `benchmarks/constant_shape_graphs.hpp`). The prepared execute had been for one-input partitions only, so every graph whose reshape takes its target shape as a tensor (every Reshape graph of the driver's perf cases: a constant input with its values) took the checked execute at each call, and so did a renamed partition (the driver's shared compile under other ids). Kept: the prepared execute takes the partition's inputs (their count, where the data input stands); a constant shape input with values is not read (the checked execute does not read it either: the compile resolved its values), one whose values arrive at execute is compared byte for byte with the compiled output dims in its dtype (s32/s64, dense, up to 64 bytes and two such inputs; prepared only where those values pass the op's own check), and any other values take the checked execute as before (a -1 resolved, a mismatch invalid_shape). `compiled_partition::execute` tries it first (the driver's perf and check modes), `execute_checked` is the checked one; the C API runs the handle's copy for any input count; a renamed partition copies the shared partition's, wrapping that partition's own entry so that a failure is said in its own words. Measured on the Zen 3 EPYC (2026-11-27, 17:14-17:32, load average 7.6-12.5 from other lanes' builds), old and new interleaved at `chrt -f 10`. Instructions per C API execute (callgrind, 20,000 calls, the same loop program with the starting and the new libreshaper.so): the driver's NHWC-as-NCHW Reshape at 4 KiB (f32 [1,16,8,8] -> [1,1024], constant shape input) 1474 -> 1329, StaticTranspose [32,32] + DynamicReshape to [1024] (constant shape) 1449 -> 1211, the one-input 4 KiB transpose 1168 -> 1174 (the input count compared). api_bench CPU time, the same binary with the starting and the new libreshaper.so: medians of 7 rounds at load average 12-12.5, `nhwc_reshape_4KiB` 168 -> 128 ns, `transpose_reshape_4KiB` 172 -> 107 ns, `transpose_4KiB` 112 -> 115 ns, `alias_in_place` 10.7 -> 10.1 ns; of 15 rounds at load average 7.9-8.3, 165 -> 160, 145 -> 137, 110 -> 112 and 9.6 -> 12.8 ns (the alias +2-3 ns in both later runs: the input count and data position read before the alias check). backend_bench (the compiled partition's execute, the driver's path), old and new binary, 15 rounds: 160 -> 156 and 134 -> 118 ns. reshaper-run --mode=perf --threads=1 --reps=40, 31 interleaved rounds at load average 7.6: f32 4 KiB NHWC as NCHW 154 -> 160 ns (rounds 108-205 and 102-223), s8 4 KiB 397 -> 402, f32 32 KiB 1231 -> 1278, the transpose + reshape chain 132 -> 121: within the rounds' spread, the checked execute of a constant shape input reads no values and runs the same program, so what is saved is its buffer checks, small beside the driver's timing spread at this load. Where a 4 KiB move is not one whole-tiles kernel call (the NHWC case: `transpose_tiles<avx2_ops, 4, 4>`), the prepared call still runs the program through the partition's entry; making that one call is the kernels' (tile code), not this round's.
- **Real-model chains of 1-16 MB from Python: where the slow ones' time goes** (issue 27, chains3 round; `benchmarks/model_chains_bench.py`; no code changed). Measured on the Zen 3 EPYC VM (2026-11-27, 2 cores, L3 32 MiB, at `chrt -f 10` while other lanes built: load average 5-15, so a chain's ratio moved by up to 2x between runs). The bench (`--models swin_t,maxvit_t --batches 8 --rounds 9`, load 5.4-8.1): faster than PyTorch on 56 of 57 chains, median 0.50; slower only the window merge [1568,384] -> [8,14,14,384] (run copy of 10.5 KiB runs, 2.4 MB; 261 against 197 us, 1.32x); in a swin_t run right after (load 7.5-8.6) that chain was faster and [6272,192] -> [8,28,28,192] (5.3 KiB runs, 4.8 MB) 1.14x, [512,3,32,49] strides (14112,32,1,288) -> [1536,32,49] (9.6 MB tiled transpose) 1.06x. Two runs of maxvit_t at batch 8 alone (load 14-15): 25 of 25 and 24 of 25 faster. All five models at batch 1 and 8 (9 rounds, load 7-9, the same build): faster on 101 of 104, none more than 1.2x slower, median 0.41 (with the read 103, 0.54; against numpy 93 of 98, 0.59); the three slower, [768,49,32] -> [6272,192] (swin_t/8, 4.8 MB) 1.15x, [8,64,49,64] strides (602112,9408,192,1) -> [1024,49,32] (maxvit_t/8, 6.4 MB) 1.14x and [8,4,49,256] strides (150528,37632,768,1) -> [256,49,32] (maxvit_t/8, 1.6 MB) 1.13x, were each faster in an earlier run of the hour (at most 0.98x): which chains lose changes from run to run. The window merge in a loop of its own (15 samples of 10 calls, 5 rounds, one process): reshaper 62-78 us, PyTorch 115-171 (1 thread) and 77-148 (2 threads); on one core (`taskset -c 0`) 97-116 against 125-190; [8,28,28,192] -> [128,49,192] on one core 241-380 against 307-622. `perf record` of that loop (one core): 48% of the samples in glibc's `__memmove_avx_unaligned_erms`, 96% of those on `rep movsb` (glibc 2.36 takes it from 4 KiB). A stand-alone loop of the same run copies (runs of 1.5 KiB-1 MiB, 1-12 MiB in all, one core, medians of 60, warm and after 16 MiB of other reads): a loop of four 32-byte loads and stores measured 0.95-1.05 of `memcpy` for runs of 4 KiB and more, 0.80-0.93 for 1.5 KiB runs only, so the long-run copy keeps `memcpy`. What the bench adds is the position of a call: per call after three PyTorch moves and numpy's (medians of 21), the window merge took 168, 83, 77, 66, 68, 64 us on two threads and 138, 103, 100, 91, 97, 98 on one core; after PyTorch's 2-thread move (the bench runs it last in each chain's group) 451-633, 237-508, 159-451, 150-410, 140-368 and 128-329 (four processes), with `OMP_WAIT_POLICY=passive` 148-164, 81-85, 80-81, 72-78, 72-74 and 72-74 (two), and with `for_units` forced onto the calling thread (an experiment, not kept) still 444, 229-295, 177-188, 149-156, 139-144 and 131-133 (two; tasks dealt from an atomic counter instead of oneTBB's ranges, another, 493-582, 291-449, 171-415): libgomp's workers, spinning on the other core after PyTorch's parallel region, slow any move that follows for about a millisecond, one-thread or two. Tried, not kept: window transposes streaming from the run copies' threshold (a third of the L3) instead of the tiles' (a sixth); in one process, interleaved, [8,64,56,56] -> [8,64,49,64] (6.4 MB) measured 2015 / 2061 us streamed against 910 / 973 not (two runs), but old and new builds in alternating processes did not confirm it: loops 417-945 against 419-573 us, each call after a read of the output 2331-4179 against 1787-4455, and the bench (maxvit_t, batch 8, 9 rounds, two alternations) 0.45 / 0.43 -> 0.47 / 0.52 of PyTorch. The steadiest loss is to numpy, on maxvit_t's window partition [8,256,14,14] -> [8,4,49,256] (window transpose, a whole 14x14 plane as the span, 1.6 MB): in a loop reshaper (2 threads) 285-366 us, numpy 228-256, PyTorch 441-471 (4 processes, load 13-15); in the bench 0.61-1.00x PyTorch and 1.45-1.70x numpy. `perf record` of it in a loop on one core: 30% of the samples in the window executor's copy-out (64-byte runs, 16 channels, from the staging into destination rows 1 KiB apart, 16 passes over each image's rows), 13% in the tile kernel (`transpose_blocks_into`). Tried, not kept: such a partition (its `across` in several blocks, a tile of span elements with all of `across` within the staging) staging 16 span elements of all 256 channels at a time, so each destination run is written whole in one pass; one core, old and new builds in 4 alternating processes, medians of 41 samples of 5 calls, us: [8,256,14,14] -> [8,4,49,256] 149-177 -> 119-221, [8,128,28,28] -> [8,16,49,128] 278-433 (one process 2158) -> 421-485 (2476), [1,256,14,14] -> [1,4,49,256] 15.0-23.7 -> 14.2-24.4, [1,128,28,28] -> [1,16,49,128] 32-54 -> 45-52: no gain. numpy copies it as a gather along the channels (256 elements 784 bytes apart per destination row); that walk, against the staged transpose for spans this long, is the next thing to try.
- **Checking a large graph after it is loaded** (issue 27; `line_aligned_allocator` in `src/core/line_aligned.hpp`, `json_writer::array_appended` in `src/driver/report_json.cpp`). Measured on the Zen 3 EPYC (2026-11-27, 16:50-17:25, load average 11-16 from other lanes' builds and measurements, so only differences beyond about +-0.1 s count), `reshaper-run --mode=check` on `make_large_graph`'s 100,000 single transposes (29.2 MiB) and chains of 4 (31.1 MiB), at `chrt -f 10`, peak RSS from GNU time. `perf record` (cpu-clock, DWARF stacks) of the transposes at `--threads=1`: reading 36%, shape inference and validation 8-10%, partitioning 5%, compiling and checking the partitions 45% (each partition's form key 10%, its input, output and pristine host tensors 15%, the reference 7%), the report 5% (text) or 12% (JSON). Why the transposes took 1.4-1.6 s on one thread against the chains' 1.1-1.2 s but about the same on two: they are 100,000 partitions against 25,000, and the check's cost is mostly per partition (a few microseconds each: form key, host tensors, reference, the report's entry), not per op; `--threads` bounds the oneTBB arena (and OpenMP's threads for oneDNN), over which the reader and `run_in_levels` run side by side, so that per-partition part halves on two threads while inference, partitioning and the report stayed serial. A tenth of the one-thread run was glibc's memalign behind the aligned operator new (`_int_memalign` splitting blocks and freeing the leftovers) for the host tensors' line-aligned buffers; carving them from an ordinary block a line larger took the transposes' text report from 1.52 to 1.27 s wall (CPU 1.51 -> 1.21 s, 5 interleaved rounds, load average 13), within noise on two threads and for the chains. The JSON report's partitions and tensors are made in strips side by side and written in order: from its first write to its last (strace -ttt, two threads) 0.48-0.58 s before, 0.39-0.51 s after. Both together, 5 interleaved rounds at load average 14-16, transposes text 1 / 2 threads 1.59 / 1.14 -> 1.38 / 1.09 s, JSON 1.46 / 1.26 -> 1.35 / 1.23 s; chains within noise (text 1.27 / 0.90 -> 1.26 / 0.87 s); peaks unchanged (117-124 MiB, 93 MiB). Later, at load average 6 (17:40), 7 interleaved rounds on one thread: transposes 1.34 -> 1.25 s, but chains 1.06 -> 1.19 s, while single pairs of runs of the chains went either way by up to 0.3 s; 10 rounds with the order of old and new alternated (load average 4): chains 0.96 -> 1.01 s, runs spread 0.77-1.24 s, so whether the chains lose on one thread is not settled. Tried and not kept: looking each partition's form up by hashing its fields and matching a stored key in place, as the compiled-partition cache's lookup does, instead of writing its key (`partition_form_key`): the lookup still took 9.1% of the one-thread samples against the written key's 10.6% (reading the ops' and tensors' fields is most of it, not writing them), within the run-to-run noise, so the driver keeps the written key. Not done: the text report, inference and partitioning still run on one thread.
- **What a graph file's op costs in memory** (issue 27, scale5 lane; `attribute_map`, `tensor_ids` in `src/core/op.hpp`). The peak of `reshaper-run --mode=check` on 100,000 single transposes came in the check, with the loaded graph still held (RSS sampled every 10 ms: 98 MiB at the end of reading, 88 MiB once the text was released, 116-124 MiB in the check), so what each op keeps counts through the whole run. An op was 216 bytes plus a std::map node of 112 bytes per attribute and a 32-byte heap block for each of its input and output id lists (424 bytes for a transpose with its `order` list); the attributes are now a sorted array (`boost::container::flat_map`, one heap block, reserved exactly by the reader) and up to two ids a side live in the op (`absl::InlinedVector`, 24 bytes as a std::vector): 192 bytes plus 112 of heap, 304 in all. Measured on the Zen 3 EPYC (2026-11-27, load average 8-10 from other builds), old and new binaries interleaved at `chrt -f 10`, medians of 3 rounds (2 for the chains), GNU time's peak: transposes (29.2 MiB) 118 -> 106 MiB at 1 thread (4.03x -> 3.64x) and 124 -> 113 MiB at 2 (4.24x -> 3.85x), both reports; chains of 4 (31.1 MiB) 93 -> 80 MiB (3.00x -> 2.58x). Time: 1.56 s both at 1 thread (text), 1.23 -> 1.07 s (text) and 1.26 -> 1.27 s (json) at 2 for the transposes, 1.01 -> 0.86 s at 2 for the chains; the load made single figures spread 10-20%, so the goal of 0.5 s stays far off. Not done: the logical tensors (176 bytes each with their id, two per op) are the larger part now.
- **Where a 100,000-op check's time goes on two threads; the text report in strips** (issue 27, scale6 lane; `piece_writer::append_in_strips` in `src/driver/report.hpp`, `compiled_forms` in `src/driver/partition_check.cpp`). Zen 3 EPYC, 2026-11-27, 20:42-21:20. At load average 3 and `chrt -f 10` the starting build met 0.5 s: transposes 0.45 / 0.37 s at 1 / 2 threads (text), 0.46 / 0.41 s (JSON); chains 0.42 / 0.30 and 0.39 / 0.31 s (without `chrt`, 0.63-0.91 s). `perf record` of the transposes on two threads, by time: reading 175 ms (the parsing thread busy throughout, RapidJSON 46% of it; the op-building thread 75%), then on one thread inference 45 ms and partitioning 30 ms, the check 125 ms on both, the text report 25 ms on one. In that profile the form table's mutex was 12% of the check's samples (every look-up took it; futex sleeps): look-ups now share the lock, and a partition of a shared form skips `RESHAPER_GRAPH_DUMP`'s `getenv` (1%), which shared forms already rule out; at load average 22, samples with a lock or futex in their stack, 2.5-2.7% -> 1.5-2.8% of the run (3 pairs). The text report's rows are made in strips side by side, as the JSON report's were (one helper). Old and new interleaved, 5, 7 and 9 rounds at load average 17-36: all within the spread (medians 0.76-1.14x, runs 0.4-1.6 s), CPU and peaks unchanged (106 / 112, 80 MiB). Not done: parsing is the two-thread critical path; inference and partitioning stay serial.
- **CI's sanitizer stage** (ci-trim lane; `scripts/sanitize.sh`; 2026-11-27, load average 22-31 from other lanes' builds). `sanitize_address` (2227 s in the last CI run under load, against its 2400 s timeout) ran each unit-test binary whole, one after another, on one of CI's two cores. gtest's times of the release binaries: a few tests make up most of a binary (layout_tests' exhaustive view-rule test 80%, ops_tests' three largest 98%, all three in gtest's even shard, core_tests' two largest 58%), so one shard per core gains only 1.02-1.28x a binary. Kept: 8 shards a binary, every binary's shards from one queue, one per core at a time: CPU time per shard (release; core, ops, layout tests) 5.5 s whole one after another -> 3.1 s on two cores (1.8x); on gtest's times of six binaries 1.8x, bound by kernels_tests' `every_level_and_element_size_matches_the_element_copy` (60% of that binary; split by level it would balance). Not measured: the instrumented run itself. Its build (181 translation units at -O1 -g) did not finish within the hour here, and the release runs are seconds of CPU, so the stage's time is likely mostly that build, which the queue does not shorten. The timeout is now 3600 s. The instrumented builds (sanitizers and fuzzers) now take -g1 (line tables) instead of -g: one test file (`tests/unit/driver_run_test.cpp`, ASan+UBSan, -O1) compiled in 76.2 and 76.7 s of CPU with -g against 49.0 s with -g1 (runs in turn, load average 25; the Intel Xeon VM of 2026-11-27's evening).
- **Real-model chains from Python: a fair bench** (issue 27, chains4 round; `benchmarks/model_chains_bench.py`; no kernel changed). PyTorch's OpenMP workers (libgomp: `GOMP_SPINCOUNT`'s default, 300,000 spins with `OMP_WAIT_POLICY` unset) stay runnable 3.2-3.9 ms after each 2-thread move, and the bench ran the 2-thread movers last in each chain's group, so the next chain's first mover shared its core with them. Each sample now first waits until no other thread of the process is runnable (median 0.1 ms, at most 50 ms), and the movers take a new random order every round. Measured 2026-11-27 on this session's VM (2 vCPUs of an Intel Xeon with AVX-512, L3 480 MiB per sysfs), `chrt -f 10`, load average 20-33, the base build's module, old and new bench alternated (three pairs, all five models, batch 1 and 8, 15 rounds): faster than PyTorch on 98 / 100 / 91 of 104 -> 104 / 104 / 104, median 0.39-0.51 -> 0.29-0.33, worst 1.29-1.54x -> 0.73-0.87x; with the read 94-98 -> 97-98. The two named losers: maxvit_t/8's [8,64,49,64] strides (602112,9408,192,1) -> [1024,49,32] 0.62-0.72x, swin_t/8's q/k/v split 0.50-0.59x; in a loop the former takes 468 us against PyTorch's 908 (1 thread), 72% of its samples in `copy_runs` on the source loads.
- **A last-level cache listed for few CPUs, and staged ABcd16a16b positions that lost** (issue 27, blocked4 lane; `cache_share_bytes` in `kernels/cpu_isa.cpp`). The machine had become an Intel Xeon VM (2 CPUs, AVX-512, 2 MiB L2) whose sysfs lists a 480 MiB L3 shared by its 2 CPUs, so transposes streamed only from 80 MiB: the 64 MiB blocked moves took ordinary stores, ABcd16a16b the tiled transpose (the blocked one needs streaming), at 0.29-0.38 of the streaming copy. With a sum over the output after each move (`llc_stream_bench`, 2026-11-27, load average 26-29), transposes ordinary -> streamed: 16 MiB 1.87 -> 3.09 ms, 32 MiB 4.84 -> 6.74, 64 MiB 18.7 -> 14.2; copies 32 MiB 3.68 -> 5.85, 64 MiB 13.6 -> 14.2. The cache now counts at most 128 MiB per CPU sharing it (here 256: transposes stream from 43 MiB, copies from 85; the Zen 3's 32 MiB as before). Old -> new, reshaper-run --mode=perf --threads=1 at chrt -f 10, 64 MiB, medians of 3 interleaved rounds, ratio to the one-thread streaming copy: nChw16c -> nchw f32 0.56 -> 0.89, back 0.65 -> 1.08; nChw8c 0.66 -> 0.73, back 0.66 -> 1.12; bf16 nChw16c 0.57 -> 0.63, back 0.57 -> 0.88; ABcd16a16b -> abcd 0.35 -> 0.72 (41.0 -> 16.6 ms), back 0.38 -> 0.85; padded nChw16c 0.53 -> 0.79, back 0.61 -> 1.01; NHWC as NCHW (2 rounds) f32 0.41 -> 0.72, s8 0.33 -> 0.72. Tried, not kept: whole 256 KiB ABcd16a16b positions through an L2 buffer (tiles in, 16 KiB destination runs streamed out; 16 KiB source runs copied in, tiles streamed out), 128 MiB, 3 rounds: out of blocks 0.73-0.86 -> 0.63-0.71, into 0.76-0.88 -> 0.62-0.70 (AVX2 level alike).
- **AVX-512 in-cache tiles stored as made, 1- and 2-byte tiles by quarters** (issue 27, incache4 lane; `transpose_tiles`, `transpose_block_by_quarters` (since `transpose_quarter_into`) in `kernels/isa_kernels_simd.hpp`, `avx512_ops::load_quarters`). Measured on the session's VM, now an Intel Xeon with AVX-512 (KVM, 2 cores, L1d 48 KiB, L2 2 MiB; no hardware counters), where the driver takes the AVX-512 level (2026-11-27, 20:45-21:10, load average 3-30 from other lanes), reshaper-run --mode=perf --threads=1 at `chrt -f 10`, main's binary and the new one interleaved, 5 rounds, x in-cache memcpy. A scratch bench of the in-cache walk (compute alone into an L1 buffer; lines moved in the walk's order without shuffles) put 32 KiB behind the compute (W tiles held on the stack: W * T vectors) and 256 KiB behind the stores: 64 destination rows 4 KiB apart written 64 / 512 / 2048 bytes a row at a time took 9.4 / 5.6 / 4.1 us against memcpy's 4.9 (rows 4224 bytes apart: 4.0-5.1 at any run). Kept, where rows are no multiple of 4 KiB apart: each tile's lines stored as made, and 1- and 2-byte tiles loaded in 16-byte quarters of four rows (inserts instead of cross-lane shuffles): 32 KiB f32 0.68 -> 0.86, bf16 0.52 -> 0.76, s8 0.41 -> 0.71; 256 KiB and 2 MiB (rows 4 KiB multiples, unchanged) within the spread, 64 MiB against the streaming copy too (3 rounds, 0.33-0.40 both). Dropped: quarters for the 4 KiB-multiple rows (bf16 2 MiB 0.81 -> 0.69) and for f32 (no faster). Next for 256 KiB: runs of 2 KiB per destination row.
- **Python per call with torch tensors: where the time goes** (issue 27, pycall lane; `fast_path` in `src/python/reshaper_module.cpp`). Measured on the 2-core VM (2026-11-27, 20:50-21:35, load average 15-26, thread CPU time, `chrt -f 10`): `benchmarks/python_call_bench.py --timer cpu`, 3 processes each of before and after alternately, medians: 4 KiB move C API 0.53-0.59 us, numpy 0.43-0.44, torch 1.45-1.52 (0.9 above the C API), torch into `outputs=` 0.89-0.91; alias C API 0.45, torch 1.34-1.40. The last report's 3.03 us above the C API was wall time that read every row about 3x higher (numpy 1.18 there). Of what torch adds over numpy, about 0.85 us is torch's own Python API, each timed from C (5000 calls, least of 15 rounds): `empty_like` of the kept template 0.57 us (`np.empty` 0.13), `view_as` 0.56-0.58, the 8 reads of an input 0.28 (`dtype` 30, `layout` 29, `is_cpu` 28, `requires_grad` 28, `is_neg()` 44, `shape` 58, `is_contiguous()` 33, `data_ptr()` 28 ns). None cheaper: `torch.empty(Size)` 0.86, `FloatTensor(32, 32)` 0.73, `new_empty` 0.80, `view(tuple)` 1.03, `reshape_as` 0.90; all at once, `Tensor.numpy()` 0.69, `_to_dlpack` 0.39. Dropping `layout` (every non-strided layout's `data_ptr()` raises in 1.13) would save 29 ns on torch's behaviour: not done. The prepared execute now tests form, count and pointers before shape inputs: `api_bench` alias in place 3.0 -> 3.0 ns, 4 KiB transpose 82.7 -> 81.0 (5 rounds each, alternately).
- **The grouped transpose's 16-along blocks for 2-byte elements, and what this machine streams** (issue 27, hr7 lane; `micro_along_lanes`, `kernels/grouped_transpose_planner.cpp`; `micro_wide_along_avx2_16`, `kernels/grouped_transpose_avx2.cpp`). This session's machine is an Intel Xeon (AVX-512, L1d 48 KiB, L2 2 MiB, L3 480 MiB): its streaming threshold is 80 MiB, so the bench's moves store directly, unstaged. Profile (perf record, bf16 rank 15 of 3s): the 128-bit 8 x 8 micro kernel 38% of the samples, on its loads and stores, its unpacks nearly idle. Along axes of 16 or more now take 8 x 16 blocks (two 8 x 8 in the halves of 256-bit vectors, one 256-bit store per across element: half the stores): bf16 rank 15 of 3s 0.36 -> 0.41, 0.33 -> 0.36, 0.36 -> 0.39 wall clock, 0.36 -> 0.37, 0.37 -> 0.38 thread CPU time (medians of 10-12 interleaved rounds, `chrt -f 10`; every run up, each within its spread). Not kept: pairing across steps (0.36 -> 0.33); prefetching into L2 only (lower or alike); streaming every size (f32 rank 24 0.67 -> 0.79, c64 rank 12 of 4s,2 0.58 -> 0.80, but f32 rank 22 0.93 -> 0.68, bf16 rank 12 1.04 -> 0.61: a threshold for this L3 is machine policy). The joined tiles' carry now lives in the task's buffer. 2026-11-27, load average 15-25.
- **16-byte elements at the AVX-512 level** (`avx512_ops::walk`, 2026-11-27 evening, on this session's machine: an Intel Xeon VM, 2 CPUs, AVX-512, L2 2 MiB, L3 listed as 480 MiB; load average 5-6 from a CI run's sanitizer stage). The AVX-512 level had kept the strips of 4 tiles for 16-byte elements in streamed moves, which the AVX2 level left on the Zen 3 EPYC for column blocks of 4 tiles with the next step prefetched (the bullet on the AVX2 level's walk). The bench on this machine put c128 [64,256,64,64] NHWC as NCHW (1 GiB of input) at 0.37 of the one-thread streaming copy. With the AVX2 level's walk, reshaper-run --mode=perf --reps=5 at `chrt -f 10`, old and new binaries interleaved, 3 rounds: 1 thread 371-419 -> 152-167 ms, 0.36-0.37 -> 0.95-0.96 of the streaming copy; 2 threads 193-197 -> 73-78 ms, 0.37-0.38 -> 0.94-0.96; destination rows 1 KiB apart ([4096,256,8,8], the near-rows walk) 0.69 -> 0.93-0.94 (2 rounds); a 4 MiB move (the in-cache walk, unchanged) 0.54 -> 0.55 of memcpy. Not measured on an AMD EPYC with AVX-512, where the level's other walks were tuned.
- **Transposes the last-level cache holds** (issue 27; `row_reach::in_last_level`, `line_prefetch::writes`, `last_level_walk_threshold_bytes` in `kernels/cpu_isa.hpp`). Measured on an Intel Xeon VM (2 CPUs, AVX-512, L2 2 MiB, L3 listed as 480 MiB; 2026-11-28, load average 10-13 from other lanes), reshaper-run --mode=perf --threads=1 at `chrt -f 10`, medians of 3-5 interleaved rounds, ratio to the one-thread streaming copy. Transposes below the streaming threshold (here 43 MiB) took the in-cache walk without prefetches whatever their size: bf16 [64,256,32,32] NHWC as NCHW (32 MiB) 0.34-0.39, `perf annotate` on the tiles' source loads and stores. A scratch loop of the same lines in the same order without the transpose ran at 0.47 of memcpy, 0.72 with the next step's source lines prefetched and each next tile's destination lines prefetched for writing. Moves of at least 8 times the core's own cache (the level below the last that sysfs lists: 16 MiB here, 4 MiB on a Zen 3) now walk so, old -> new: bf16 32 MiB 0.34 -> 0.49, f32 16 MiB 0.55 -> 0.72, f64 16 MiB 0.62 -> 0.73, s8 32 MiB 0.38 -> 0.46, c128 16 MiB (column blocks of 4 tiles instead of strips) 0.30 -> 0.79; at the AVX2 level alike (0.40 -> 0.54, 0.68 -> 0.79, 0.72 -> 0.74, 0.41 -> 0.48, 0.21 -> 0.55). Below, the prefetches cost (f64 4 MiB 0.82 -> 0.68, 8 MiB 0.78 -> 0.73; bf16 12 MiB and s8 24 MiB within the spread). With a sum over the output after each move (llc_stream_bench, one thread) the walk kept against streaming: 32 MiB 5.5 against 7.0 ms, 64 MiB 19.5 against 17.5, so the streaming threshold stays. Prefetching the destination lines into L2 instead, the source lines into L2, or a call's share in one burst: within the spread. Not measured on an AMD EPYC.
- **The grouped transpose's destination prefetch, and 8 x 16 blocks over dims of 2** (issue 27, hr8 lane; `prefetch_destination`, `run_grouped_transpose`; `choose_grouped_blocks`; `micro_along_lanes`). Profile (perf, bf16 rank 15 of 3s and rank 23 of 2s, stored directly here): the micro kernels 36%, their transposes called out of line (registers through the stack) 10%. Now inlined; 2-byte elements over dims of 2 take 8 x 16 blocks where the destination's first 16 elements miss the source's first 8. Moves of 1 MiB or more stored directly prefetch the next tile's destination lines (stores waited on each line's read) and keep runs ending inside lines short (bf16 rank 15's grown 39 KiB tiles did not stay in L1 beside the next one's lines: 0.38 -> 0.80). high_rank_bench, `chrt -f 10`, interleaved, 5 rounds, load 11-12, ratio to the streaming copy: bf16 rank 23 0.38 -> 0.74, bf16 rank 15 0.26 -> 0.68, f32 rank 22 0.71 -> 0.89, f32 rank 14 0.71 -> 0.95, u8 rank 24 0.53 -> 0.63, c128 rank 20 0.63 -> 0.77, the rest alike. In the caches the destination prefetch cost 4-8% (hence the 1 MiB floor). Dropped: staging such moves in L1 (bf16 rank 15 0.51, f32 rank 22 0.84 -> 0.65), the destination into L2 only (alike). Intel Xeon VM only (the EPYCs stream these moves). 2026-11-28.
- **AVX-512 in-cache tiles at 4 KiB-multiple rows a quarter at a time in groups of 4, and split heads in 256-byte runs** (issue 27, incache5 lane; `transpose_tiles_by_quarters`, `transpose_quarter_into` in `kernels/isa_kernels_simd.hpp`, `copy_run_grid_avx512`). Intel Xeon VM, 2026-11-28 00:00-00:40, load average 5-12, reshaper-run --mode=perf --threads=1 at `chrt -f 10`, main's binary and the new one interleaved, 3-5 rounds, x in-cache memcpy. Scratch bench, 256 KiB: stores alone into rows exactly 4 KiB apart 6.1 us (rows 4160 bytes apart 4.0, memcpy 4.7; `prefetchw` no faster), the s8 transpose into an L1 sink 5.8. Kept: (1) at 4 KiB-multiple rows, 4 tiles a quarter at a time instead of W tiles held on the stack, 2-byte and wider quarters pipelined (loads before the previous quarter's stores: 4K aliasing), and (Intel-only) 4 tiles side by side in the caches for 4- and 8-byte elements: NHWC as NCHW 256 KiB f32 / bf16 / s8 0.55 / 0.46 / 0.39 -> 0.73 / 0.62 / 0.56, 2 MiB 0.78 / 0.77 / 0.84 -> 0.89 / 0.85 / 0.88; (2) quarters' row addresses along opaque pointers (GCC had reloaded one per row from the stack): 32 KiB bf16 0.74 -> 0.90, s8 0.70 -> 0.88; (3) s8 split heads 4 steps at a time: 32 KiB 0.75 -> 0.96, 256 KiB 0.79 -> 0.90. Dropped: quarters for wider elements elsewhere (f32 0.86 -> 0.82), next-group source prefetch, s8 quarters pipelined by halves, 2 KiB runs staged for `rep movsb` (0.39), blocks for merged heads.
- **One-thread DRAM transposes at the AVX-512 level on the Intel Xeon VM** (issue 27, dram8 lane; `tile_walk::prefetch_locality`, `prefetch_by_row`, `avx512_ops::walk`, `packed_tile`; 2026-11-28 00:00-00:50, load average 9-12). `perf annotate` (bf16, s8 [N,256,64,64] NHWC as NCHW): 42% / 53% of the wide tile's samples after `prefetcht0`, the next step's prefetch waiting for a fill buffer. reshaper-run --mode=perf --threads=1 --reps=3 at `chrt -f 10`, 1 GiB of input, main's binary and the new one interleaved, 3 rounds, ratio to the one-thread streaming copy. Kept (Intel-only tuning): for 2- to 8-byte elements the next step's prefetches into L2 (locality 1), a share per source row loaded, not a register block's at once: bf16 64x64 0.72 -> 0.92, 32x32 0.68 -> 0.84, f32 0.88 -> 0.92, f16 0.72 -> 0.89, s32 0.85 -> 0.91, c64 (512 MiB) 0.81 -> 0.85, f64 and s64 (512 MiB) 0.93 -> 0.92 (locality alone: bf16 0.69 -> 0.76); the 4-bit packed tile prefetching the next step into L2: s4 64x64 0.57 -> 0.72-0.74, 32x32 0.49 -> 0.57-0.62 (into L1 0.66 / 0.55; 8 byte tiles 0.69 / 0.53). 256 MiB: s4 0.57 -> 0.75, f32 0.90 -> 0.92. Not kept: for s8 locality 1 or a share per row (within the spread); non-temporal prefetches or none (bf16 0.40 / 0.50); streamed 1- and 2-byte tiles by quarters (s8 0.76 -> 0.66); s4 split in registers as at AVX2 (0.55 -> 0.47).
- **Half tiles at the AVX-512 level, and one tile's rows walked wide** (issue 27, blocked5 lane; `half_wide_tile` and `one_tile_rows_tile_by_tile` in `kernels/isa_kernels_avx512.cpp`, `transpose_tiles`' alignment). Profile first (`perf record`, bf16 nChw16c -> nchw, 128 MiB, the Intel Xeon VM): 31% of the samples in `tile_partial<2>`: the AVX-512 level had no half tiles (32 bytes a position: nChw16c bf16, nChw8c f32), so these streamed moves took partial tiles one by one, which issue none of the next wide step's prefetches. Its streamed walks now take the AVX2 level's half tiles (32-byte register blocks, a share of the prefetches per block); in the caches the partial tiles stay. Old -> new, reshaper-run --mode=perf --threads=1 under `chrt -f 10`, interleaved, ratio to the one-thread streaming copy (2026-11-28, load average 10-14): 1 GiB (3 rounds) bf16 0.53-0.65 -> 0.86-0.89, nChw8c f32 0.76-0.77 -> 0.91-0.92; 128 MiB (4 rounds) 0.64 -> 0.86 and 0.76 -> 0.89; the other blocked moves unchanged. Then nChw16c f32 (whole tiles) with the far-rows walk instead of tile by tile (`one_tile_rows_tile_by_tile` false at AVX-512: Intel-only tuning, the AMD EPYC had measured tile by tile faster): 0.83 -> 0.94 in one build but 0.82 in another, the same instructions 48 bytes further (half the wide tile's samples after a `prefetcht0` in both), so `transpose_tiles` is now aligned to a line: 4-5 rounds, 1 GiB 0.84-0.86 -> 0.94-0.96, 128 MiB 0.85 -> 0.93, padded nChw16c 0.83 -> 0.90-0.93; tile by tile aligned 0.85 (no gain); NHWC f32 0.85 -> 0.87.
- **The AVX-512 level's table per vendor** (`kernel_tuning` in `kernels/cpu_isa.hpp`, `intel_tuned` in `kernels/isa_kernels_avx512.cpp`; 2026-11-28). The level's walks were tuned on an AMD EPYC with AVX-512; this round's lanes measured on an Intel Xeon VM only, where some of the AMD choices lost (one tile's rows tile by tile: nChw16c f32 into nchw 0.85 against 0.97 of the one-thread streaming copy with the far-rows walk, both with transpose_tiles aligned to a line) and some new ones won that the AMD machines had measured as losses on their own level (prefetches into L2 instead of L1: the AVX2 level's round on the Zen 3 found them lower for 1- and 2-byte elements). So the level keeps the AMD table as it was measured and an Intel table with the Intel Xeon's differences (the streamed 2- to 8-byte tiles' prefetches into L2, a share per source row; 4-bit tiles prefetching into L2; one tile's rows by the far-rows walk), chosen by the CPU's vendor; `RESHAPER_KERNEL_TUNING=amd|intel` picks either, and the kernel and backend tests run with both. Changes that only do less work (the in-cache quarters, the half tiles' prefetches, the last-level walk) are in both, and so is the in-cache walk's 4 tiles side by side for 4- and 8-byte elements, which the AVX2 level had measured best on the AMD machines.
- **Two destination prefetchers, two thresholds, measured** (issue 27, the lead; `prefetch_destination` in `kernels/grouped_transpose_planner.cpp`, `line_prefetch::writes` in `kernels/isa_kernels.hpp`). Both prefetch the next step's destination lines for writing in moves stored directly: the grouped transposes from 1 MiB, the tiled ones from 8 times the core's cache (`last_level_walk_threshold_bytes`, 16 MiB here). Whether one threshold could serve both: the grouped transposes with theirs at 16 MiB, against main, on the Intel Xeon VM (2026-11-28 02:48, load average 0.4-0.6, reshaper-run --mode=perf --threads=1 at `chrt -f 10`, 5-7 interleaved rounds, ratio to the in-cache memcpy), random permutations of 2-8 MiB: dims of 2 gained within the spread (bf16 rank 21 0.70 -> 0.73, f32 rank 20 0.76 -> 0.78, rank 21 0.70 -> 0.72), dims of 3 lost (bf16 rank 13, three permutations: 0.69 / 0.53 / 0.66 -> 0.66 / 0.63 / 0.43, f32 rank 13 0.64 -> 0.57); dims of 4 alike (0.54). The tiled walks measured theirs a loss below 8x L2 (f64 4 MiB 0.82 -> 0.68, "Transposes the last-level cache holds" above) and the grouped ones a gain from 1 MiB, so each keeps its own threshold.
- **In-cache NHWC as NCHW: register blocks always inlined** (issue 27, incache6 lane; `kernels/isa_kernels_simd.hpp`; Intel Xeon VM, 2026-11-28 02:50-03:20, load average 2-10, one thread, 3-7 interleaved rounds, x in-cache memcpy). 32 KiB f32 / f64 had fallen 0.85 -> 0.72 / 0.69 (535cc96 -> 8affa54, same kernel): not code placement but inlining. `perf record`: the slow binary ran `transpose_rows<avx512_intel_ops, 4>` out of line, its blocks through the stack; GCC stopped inlining it once the AVX-512 half tiles added callers. Always inlined: f32 0.72 -> 0.85, f64 0.69 -> 0.87, both tables; the other 34 in-cache cases within the spread. At the AVX2 level that inlined `transpose_block_lines_into` into the 4-tile walk (f32 256 KiB 0.51 -> 0.45; no hardware counters here to say why), so it stays out of line. 256 KiB at 4 KiB-multiple rows, tried and dropped: 8 tiles side by side (f32 0.73 -> 0.61, by quarters of 8: bf16 0.63 -> 0.57), stores row by row across the 4 tiles (f32 0.58), tile by tile by quarters (f32 0.58, bf16 0.50); `page-rows`' 8 tiles at other rows: 32 KiB f32 0.85 -> 0.85, f64 0.88 -> 0.86. A scratch copy of the f32 quarters kernel took 6.2 us, 4.4 without its stores, 6.0 into rows 4160 bytes apart: its loads and shuffles alone take about the driver's memcpy time (4.5 us), so the stores' sets are not the cap; in it the next group's lines prefetched (source, or destination for writing) took 7.0-8.4 us, strips along the destination rows 7.7.
- **The last-level walk's prefetches one wide call ahead for 2-byte tiles** (issue 27, llc9 lane; `tile_walk::prefetch_next_group`, `strip::next_wide_group`; Intel-only tuning). Profile (bf16 [64,256,32,32] NHWC as NCHW, 32 MiB): 62% of the kernel's samples on the prefetches. A scratch bench put the tiles' compute at 57 ns a 32 x 32 tile from L1 (0.93 ms of the move) and the move at the core's L1 misses in flight: the next step's lines, prefetched a step (256 KiB) ahead, had left L1 when read, so each line took two misses. Prefetching the next wide call's lines instead (32 KiB ahead): reshaper-run --mode=perf --threads=1, `chrt -f 10`, interleaved, 3-4 rounds, ratio to the streaming copy: bf16 32 MiB 0.53-0.60 -> 0.66-0.67, 16 MiB 0.72 -> 0.74; the hook's check 0.59-0.72 -> 0.70-0.84; s8, f32, f64, c128 so measured slower (L1 sets or capacity: f32 rows 4 KiB apart, s8 calls of 64 KiB) and keep the next step. Not kept: prefetch locality, distance (2-3 steps), every other line, no prefetch (0.54), staging whole strips for `memcpy`/`rep movsb` (0.45-0.60), strips of one row group. The base's own figure moved 0.54-0.72 with the machine's load. 2026-11-28, load average 1-9.
- **One-thread DRAM transposes at the AVX-512 level on the Intel Xeon VM, second round** (issue 27, dram9 lane; `intel_walks`, `half_wide_tiles` in `kernels/isa_kernels_avx512.cpp`; 2026-11-28 02:50-03:35, load average 2.5-6). `perf record` of s8 NHWC as NCHW: `line_prefetch::issue<3>` 16% of the samples, 95% of them after its `prefetcht0` (64 at once before each tile), the tile 13%, the yardstick copy 23%. reshaper-run --mode=perf --threads=1 --reps=3 under `chrt -f 10`, main and new interleaved, 3 rounds, ratio to the one-thread streaming copy, 1 GiB. u8 and s8 from one binary: 0.81 / 0.81 (their bench gap was noise). Kept (Intel-only tuning): 1-byte tiles' prefetches into L2 a share per source row, as 2-8-byte ones: s8 0.82 -> 0.93, u8 0.83 -> 0.93, boolean 0.82 -> 0.92, s8 [1024,256,32,32] 0.78 -> 0.81; 4-byte elements with rows a page or more apart 4 tiles side by side, not 2: f32 0.88 -> 0.92, s32 0.89 -> 0.93, nChw8c f32 -> nchw 0.86 -> 0.93, nChw16c 0.86 -> 0.92 (half tiles now take each table's own widths). Unchanged: f64 0.93, c64 0.92, s4 0.73. Not kept (512 MiB): far rows 4 tiles for s8 0.80 -> 0.75, f64 0.92 -> 0.85; 1 tile s8 0.78 -> 0.56, f64 0.91 -> 0.89; f32 8 tiles 0.87 -> 0.86; s4's prefetches a share per quarter or row 0.74 -> 0.69-0.74.
- **In-cache NHWC as NCHW at rows off a line boundary** (issue 27, incache7 lane; `kernels/isa_kernels_simd.hpp` `transpose_quarters_in_lines`, `tile_walk::line_stores`; Intel Xeon VM, 2026-11-28 03:30-04:10, load average 4-8, one thread, x in-cache memcpy, 3 interleaved rounds). Destination rows a line multiple apart run far faster than their neighbours: f32 [1,992,64] 0.75, [1,1000,64] 0.57, [1,1016,64] 0.53; s8 [1,960,64] 0.83, [1,1000,64] 0.46: each tile row stored across two lines. Now each wide step's rows are stored as whole aligned lines joined from two tiles side by side (a dword permute), masked at the run's ends, where rows start a whole number of dwords into a line; measured here only, so on the Intel table alone, for 4- and 8-byte elements: f32 [1,1000,64] 0.57 -> 0.65-0.72, [1,1000,128] 0.52 -> 0.63, [1,196,256] 0.41 -> 0.50. bf16 dropped: [1,1000,64] 0.48 -> 0.56, [1,784,64] 0.59 -> 0.70, but [1,1000,128] 0.46 -> 0.36, [1,784,128] 0.52 -> 0.33 (cause not found; a quarter holds 8 rows, 24 of the 32 registers); power-of-two rows (f32 [1,1024,64] 0.73, bf16 [1,2048,64] 0.62, s8 [1,4096,64] 0.56-0.59, 32 KiB) unchanged. Next quarter's loads before the joins' stores (f32): 0.66 -> 0.66, dropped. Not reached: s8 (16 rows a quarter leave no registers for the join: 0.44), moves with no wide step (bf16 [1,196,256] 0.41, f32 [1,49,768] 0.34: single tiles and a 1-column partial tile per strip).
- **The last-level walk of 2-byte tiles: 4 side by side on the Intel Xeon** (issue 27, llc10 lane; `intel_walks`; Intel-only tuning; Intel Xeon VM, 2026-11-28 06:00-06:30, load average 0.1-3; `/work/tools/cmp.py`, interleaved, 5-7 rounds, one thread). 4 tiles side by side instead of 8, still prefetching the next wide call's lines: bf16 [64,256,32,32] NHWC as NCHW 3.91 -> 3.63 ms (before-stop hook ratio, medians of 7-9 rounds: 0.74-0.79 -> 0.82-0.86), [16,256,64,64] 5.17 -> 5.02, NCHW as NHWC [64,256,32,32] 5.50 -> 5.37, [64,256,28,28] 2.85 -> 2.52; 2 side by side 3.98 (8: 4.07). Dropped: a share of the next call's prefetches before each vector's loads (15-20% faster in a scratch bench of back-to-back runs, 0-18% slower in `reshaper-run`, whose timed run follows the streaming-copy yardstick that evicts the destination), source prefetches into L2 (within the spread), `prefetchw`, zeroing or staging the destination with `rep stosb` / `rep movsb` (1.5-2x slower). Why 0.9 is out of reach with ordinary stores: the hook's dense copy is glibc's memcpy (`rep movsb`, whose full-line writes read no destination line); a plain AVX-512 copy under the same timing runs 0.82-0.89 of it, and the 4-wide walk runs as fast as that copy. Scratch benches need -O3, as the library: at -O2 the 8-wide kernel ran 25% slower.
- **In-cache line joins in groups whose source stays in L1, narrow moves row tile by row tile, last columns element by element** (issue 27, incache8 lane; `line_store_tiles` in `kernels/isa_kernels_simd.hpp`, `intel_walks`, `tile_partial`, `strip::all_steps`; Intel Xeon VM, 2026-11-28 06:00-06:55, load average 1-2, one thread, 3-5 interleaved rounds, x in-cache memcpy). (1) Intel-only tuning: `transpose_quarters_in_lines` reads a quarter of all W tiles before the next, so their source four times; bf16 rows 256 bytes apart put 256 source rows in 16 of L1's 64 sets (12 ways). The joins now take the largest power-of-two group of tiles with at most 8 source lines a set (f32 at least 2), bf16 too: bf16 [1,1000,64] 0.50 -> 0.55, [1,1000,128] 0.45 -> 0.54 (8 at once 0.36), [1,784,64] 0.58 -> 0.65; f32 [1,196,256] 0.50 -> 0.56. (2) Every level: in-cache columns narrower than a wide step go row tile by row tile, each destination line finished while in L1 (column by column it was rewritten a strip later, from L2): f32 [1,49,768] 0.34 -> 0.45, bf16 [1,196,1024] 0.34 -> 0.43; AMD table 0.34 -> 0.44, AVX2 0.27 -> 0.34; wide steps so lost (f32 [1,1024,64] 0.73 -> 0.60). (3) AVX-512 partial tiles of up to 4 source rows (AMD table: 2, fewer instructions) copied element by element: f32 [1,49,768] 0.45 -> 0.50, [1,49,512] 0.47 -> 0.56, bf16 [1,196,256] 0.45 -> 0.48. Bench cases within the spread. Dropped: s8 joins by half quarters (0.44 -> 0.39), single tiles as two masked stores, AVX2 partial tiles element by element (both within the spread).
- **Figures moved here from the code's comments** (review mend, 2026-11-28; recorded by earlier rounds, mostly on the Zen 3 EPYC, not re-measured): the element walk ran high-rank permutations of small dims at 0.02-0.04x a streaming copy (`kernels/grouped_transpose.hpp`); the grouped transpose's micro blocks streamed straight to memory measured 1.7-2x slower than ordinary stores, a line cached by an ordinary store and then streamed 5x slower, and gathers from the source itself 20-40% slower than copying the runs into a buffer first; shared-lane tiles through the buffer ran f32 rank 22 of 2s at 0.42 of a streaming copy with 26% of the profile in `vpgatherdd`; compiled row-group loops of 12 and 24 rows measured 4x slower than two composed kernels, and without `#pragma GCC ivdep` 1-byte groups of 8 rows ran a scalar copy at 8.5 GB/s; GCC's strength-reduced row pointers cost 27 cycles per 8 x 8 f32 block (objdump); the 4 KiB f32 transpose took 71 ns at a source-destination distance of 0, 64 or 2048 bytes past a 4 KiB multiple, 98-123 ns at 8-96 and 4032-4088; the 16-byte tiles' prefetch check compiled into the other walks cost them 10-20%, and c128's prefetch 4 tiles ahead gained 7-20% (64 MiB, one process); pipelined single tiles beat wide ones by 0-10% in the caches (f32, 4 side by side); `block_rows_2` took nchw -> nChw16c f32 (64 MiB) from 1.17 to 1.52x memcpy, 1.00x with each block's halves stored as made; the 4 KiB execute spent 9% in `strip::all_steps` before `whole_tiles`; each 4-bit layout ran 20-50% slower at the other's width (NHWC as NCHW, 64 MiB, one core); `line_prefetch` in bursts measured 20-25% slower, in the tiles' order 5-15% (NHWC as NCHW, 2 threads); compiling was 31% of checking 100,000 single transposes before alike partitions shared a plan. The review also weighed taking the row-tile-by-row-tile in-cache walk (`strip::all_steps`) away from walks without wide steps (16-byte elements), which incache8 had given it unmeasured: on the Intel Xeon VM (2026-11-28 09:45, load average 7, one thread, 5 interleaved rounds, x in-cache memcpy) c128 [1,1024,16] NHWC as NCHW 0.67 with it against 0.45 without, [1,49,768] 0.36 against 0.32, so they keep it.
- **In-cache NHWC as NCHW with destination rows 4 KiB apart: what bounds it** (issue 27, incache9 lane; nothing kept; Intel Xeon VM, 2026-11-28 09:40-10:10, load average 4-8, `/work/tools/cmp.py`, one thread, interleaved, x in-cache memcpy). f32 [1,1024,64] 0.72, bf16 [1,2048,64] 0.60, s8 [1,4096,64] 0.55; rows 4160 bytes apart: bf16 0.77, s8 0.84, f32 alike. The quarters' stores redirected (results discarded) to rows 4032 bytes apart: s8 59 -> 73 GB/s, bf16 67 -> 80, f32 80 -> 78; to rows 64 bytes apart (L1 hits): s8 93, bf16 90, f32 105. So stores missing L1 bound all three, and a quarter's 16 (s8) or 8 (bf16) rows in one L1 set cost a fifth more. A plain 64-byte copy into 64 rows 4 KiB apart, in every order of R rows x K lines (R 1-64, K 1-16), peaked at 74-76 GB/s against 96-104 for glibc's memcpy: no walk order reaches 0.8 here. Not kept: quarters staged in L1 and copied out (4 rows at a time, row runs, rep movsb: s8 57-60 -> 39-57); prefetchw a quarter ahead (s8 58 -> 49-53, f32 75 -> 67); bf16 by 8 tiles, s8 quarters by halves with the next loads between (both alike); f32 2 or 8 tiles wide (0.72 -> 0.44, 0.62); s8 [1,49,768] (0.33) partial tiles by quarters or overlapping whole stores (within the spread).
- **The blocked transpose's prefetches into L2 and 4 column tiles out of blocks on the Intel Xeon** (issue 27, blocked7 lane; `isa_kernels::blocked_columns`, `blocked_transpose_program::prefetch_locality`; Intel-only tuning). Profile (`perf record`, ABcd16a16b -> abcd f32, 1 GiB): the blocked transpose's loop 22% of the samples, its tiles 10%, the streaming copy 28%; 64% of the loop's samples after its `prefetcht0` (waiting for an L1 fill buffer). The unit's prefetches now take the level's streamed walk's locality (Intel: L2; elsewhere L1 as before), the column tiles a unit the table's (2 both ways; Intel 4 out of blocks). reshaper-run --mode=perf --threads=1, `chrt -f 10`, 1 GiB, interleaved, ratio to the one-thread streaming copy (2026-11-28, load average 5-9): ABcd16a16b -> abcd 0.88-0.91 -> 0.95-0.99 (2 tiles into L2 0.91; 4 tiles at locality 2 or 8 tiles 0.99; non-temporal 0.46), abcd -> ABcd16a16b 0.90-0.93 -> 0.93-0.98 (the last 5 rounds 0.91 -> 0.94 at equal medians of ms; 4 tiles 0.93, 8 0.92). Not kept: a unit's 4 tiles as one wide call prefetching a share per source row, 0.83. Padded nChw16c -> nchw (0.88-0.90, nChw16c -> nchw 0.90-0.91 beside it): the last block 2% of the samples for 4% of the data; its next chunk's prefetch (the last block alone, [1600,10,64,64]) into L2 0.58, none 0.59, L1 0.55: unchanged.
- **4-bit DRAM transposes: nibbles regrouped before the byte tiles** (issue 27, small7 lane; `nibble_pair_tiles` in `kernels/isa_nibble_pairs.hpp`, the AVX-512 level's `byte_tiles_split_streamed`; 2026-11-28 09:30-10:20, load average 4.5-9). `perf record` of s4 [512,256,64,64] NHWC as NCHW at AVX-512: the byte tiles into a buffer 21-22% of the samples, the nibble split 4.5-6%, the streaming run copy 4.6-5.7%, against the yardstick copy's 23-24%. Each pair of source rows now swaps a's high nibbles with b's low ones (five vector ops) into an even and an odd L1 buffer, then plain byte tiles, streamed (both AVX-512 tables: less work; AVX2 keeps its in-register split). reshaper-run --mode=perf --threads=1 --reps=5, `chrt -f 10`, main and new interleaved, 5 rounds, median ratio to the one-thread streaming copy: 256 MiB 0.67-0.71 -> 0.71-0.75, and with both 64-byte parts of each 128-byte source row in one call (the step's source in memory order) 0.76; 1 GiB 0.72 -> 0.79 (one run 0.75 -> 0.81); the AMD table run here 0.54 -> 0.65 (1 GiB: 0.57 -> 0.79); AVX2 0.64 / 0.63 (unchanged). Not kept (256 MiB): the step's prefetches into L1 0.69 or none 0.72 against 0.76 (into L2); 8 byte tiles a step (256-byte runs, 32 KiB buffers) 0.73 against 0.75; one tile a parity (64-byte runs) slower than main. s8 and boolean at 1 GiB: 0.92 and 0.89 (unchanged).
- **High-rank sweep: long kept dims split for the grouped transpose** (issue 27, sweephr lane; `split_long_dims`, `kernels/grouped_transpose_planner.cpp`). Swept with `reshaper-run --mode=perf --threads=1`: 236 permutations (random, reversed, cyclic, first-last swapped, innermost kept or first) of rank 12-24 tensors of 2s, 3s, 4s and mixes, six dtypes, 16-64 MiB, at the Intel, AMD and AVX2 tables (load 13-20). Worst: every first-last swap (0.01-0.49): coalesced to [s, M, t], its middle too long for a block, so oneDNN's reorder (0.12-0.83 from run to run), 4 x 4 tiles (bf16 4s 0.04) or the element walk (u8 0.01) took it. Where no blocks exist, the planner now peels M's small prime factors into dims. Interleaved (`cmp.py`, 3 rounds, load 12), Intel / AMD / AVX2 tables: f32 rank 22 of 2s 0.83 / 0.72 / 0.12 -> 0.85 / 0.88 / 0.90, bf16 rank 12 of 4s 0.16 / 0.04 / 0.04 -> 0.60 / 0.63 / 0.65, f32 rank 14 of 3s 0.49 / 0.13 / 0.13 -> 0.66 / 0.58 / 0.63; Intel: c64 rank 23 of 2s 0.29 -> 0.82, u8 rank 12 of 4s 0.08 -> 0.77, bf16 rank 15 of 3s 0.13 -> 0.31. Still low: swaps of 3s (table gathers), reversals (median 0.46), bf16 and u8 permutations of 3s (0.26-0.45). Outputs as numpy's (checksum). 2026-11-28.
- **In-cache sweep: vector-long runs leave the grouped transpose, narrow partial tiles store whole rows** (issue 27, sweepcache lane; `vector_runs_in_long_calls` in `kernels/movement_planner.cpp`, `tile_partial` in `kernels/isa_kernels_avx512.cpp`; Intel Xeon VM, 2026-11-28 12:45-13:40, load average 10-19, one thread, x in-cache memcpy, 3 interleaved rounds). 8,567 moves of 32 KiB - 2 MiB (NHWC as NCHW, heads split and merged, shuffles; f32, bf16, s8) at the three tables: lowest were s8 heads of D 32 and 49 and s8 shuffles of 7 x 7 planes, 0.02-0.07 (the grouped transpose's table gathers). Runs of 32 bytes or more, 8 or more along a dim the run copy walks, now take the run copy: s8 split [1,256,3,32] 0.02 -> 0.38, merge [4,4,256,32] 0.07 -> 0.88, shuffle [56,3,8,7,7] 0.06 -> 0.56; dims of 2 keep the grouped transpose (3x the run copy there). AVX-512 partial tiles with destination rows back to back store each row whole, the next overwriting its tail (fewer byte-masked stores): s8 [5,196,256] NHWC as NCHW 0.34 -> 0.42, f32 [20,49,64] 0.54 -> 0.63 at load 10, no different at load 5 (0.41 -> 0.42, 0.55 -> 0.54). Moves under 0.3, 2 interleaved sweeps: 904 to 39 (Intel table), 912 to 52 (AMD), 1010 to 157 (AVX2). Left: s8 shuffles of 4 groups of 6 channels at 7 x 7 (0.06, grouped), s8 NHWC as NCHW at 7 x 7 (0.15-0.3, line-splitting stores), s8 heads split to rows 8 KiB apart (0.2-0.29); executes up to 4 KiB with a side of 2 or 3 (no fast path: oneDNN's reorder, 0.7-7 us; partial tiles took 0.2-1.4 us, not kept: backend tests rely on them for the reorder lowering).
- **DRAM sweep of held-out shapes; rows of 6 composed** (issue 27, sweepdram lane; Intel Xeon VM, 2026-11-28 12:40-13:55, load average 5-20: the sweep's ratios read low). One round of 751 DRAM transposes and blocked moves (256 MiB, one thread, / streaming copy; 182 of them at the AMD table and AVX2 too). Worst and why: s4 with 3-17 channels falls to the element walk (0.02-0.05); s8 nChw4c/8c/16c -> nchw at C = 3 goes to oneDNN's reorder (0.07-0.09); s8 oihw -> ABcd16a16b/ABcd8a8b at I = 17 or 100 to the strided copy (0.10-0.14); (3,2,1,0) of [A,100,17,13] to the window transpose (0.17-0.26); NCHW -> NHWC f32 [N,256,64,64] 0.51-0.58 (`perf`: half the kernel's samples wait on source loads, 1 KiB runs from rows 16 KiB apart; strips of 2-4 KiB runs or other blocks gave 0.52 -> 0.61 at most, not kept). `perf` of s8 NHWC -> NCHW C = 6 (0.27) put half its samples in `row_groups<6>`, a byte at a time: GCC vectorises loops of 2, 3, 4, 8 and 16 rows, not 5-7. Rows of 6 now compose 3 x 2 (1 GiB, 3 interleaved rounds, old -> new): C = 6 NCHW -> NHWC s8 0.45 -> 0.88, bf16 0.70 -> 0.97, f32 0.83 -> 0.98; NHWC -> NCHW s8 0.28 -> 0.51 (bf16/f32 split unchanged at 256 MiB: ordinary stores bound them). 5 and 7 rows stay scalar.
- **Small transposes with a side of 2 or 3 take partial tiles** (issue 27, small4k lane; `small_transpose_bytes` and `narrow_tiles_pay` in `kernels/movement_planner.cpp`). Moves of at most 4 KiB with a side under 4 had no fast path and went to oneDNN's reorder (the walk for dtypes it does not take), which costs 1-3 us per execute there. Measured on the Intel Xeon VM (2026-11-28, `reshaper-run --mode=perf --threads=1` at `chrt -f 10`, old and new interleaved, medians of 3 rounds, load average 2.3-3.6, ns per execute, old -> new): default table bf16 [2,16,32] (2,1,0) 2809 -> 524, f32 [8,16,2] (0,2,1) 2444 -> 458, f16 [3,32,16] (2,1,0) 2628 -> 657, f64 [3,16,8] (2,1,0) (the walk) 512 -> 262; AMD table 2527 -> 485, 2395 -> 459, 2433 -> 2072, 508 -> 377. Kept only at AVX-512 for 2-byte and wider elements: at AVX2 the partial tiles measured slower (s8 [2,16,32] 998 -> 2602, u8 [3,32,40] 2506 -> 5872, f64 495 -> 679, bf16 2552 -> 2052), and 1-byte ones on the AMD table too (u8 2619 -> 4534), so those keep their old choice. The element walk (2.0 us for bf16 [2,16,32], 0.2 us for f32 [8,16,2]) beat the tiles only for the 2 x 16 tiles of f32 [8,16,2]; not taken (the mover choice would have to prefer it to the reorder, and s8 walks measured slower than the reorder). Larger moves' choices are unchanged (f32 [64,64] 260 -> 260 ns). The backend tests that exercised the reorder lowering with such moves now use gathers with no contiguous source dim.
- **NCHW -> NHWC from DRAM: single tiles where source rows lie a page apart** (issue 27, nchw2nhwc lane; `tile_walk::far_source_block_kib`; Intel-only tuning). Intel Xeon VM, 2026-11-28 14:20-14:35, load average 0.7-3.6, one thread, 64 MiB, 3 interleaved rounds, / streaming copy. `perf` of bf16 [32,256,64,64]:0,2,3,1 (near-rows walk, 4 wide, 128 KiB blocks): two thirds of the wide tile's samples on its source loads, 1 KiB runs from 128 rows 8 KiB apart per step: more concurrent streams than the prefetchers follow. Column blocks of 32-2048 KiB at 4 wide: 0.40 -> 0.43-0.48; 8 wide: worse (0.45 -> 0.41, f32 0.56 -> 0.45); THP (glibc hugetlb tunable): no change. Single tiles (32 or 16 rows per step, whole 4-8 KiB runs per row, no software prefetch) in 256 KiB blocks, kept for 2- and 4-byte elements where source rows are >= 4 KiB apart: bf16 [32,256,64,64] 0.38 -> 0.75, f32 [16,256,64,64] 0.54 -> 0.85, f32 [64,256,32,32] 0.54 -> 0.80. Not for nearer sources: f32 NHWC -> NCHW [64,32,32,256] (rows 1 KiB apart) fell 0.80 -> 0.72 with it, and bf16 [16,1024,32,32]:0,2,3,1 (2 KiB) stays 0.42 either way. NHWC -> NCHW unchanged (0.80-0.83). Not measured on the AMD table or at AVX2 (unchanged there); worth trying on the EPYCs.
- **Far sources in single tiles at every level, from 2 KiB on the Intel table** (issue 27, far2k lane; `with_far_sources_in_single_tiles`, `tile_walk::far_source_row_bytes`; Intel Xeon VM, 2026-11-28 16:20-16:55, load average 2-10, one thread, 256 MiB, 2 interleaved rounds against main, / streaming copy). At 32 MiB, bf16 [16,1024,32,32]:0,2,3,1 stays in the last-level cache (not streamed) here. Source rows a page apart, single tiles at the AMD table and AVX2 (fewer streams per step; not measured on an EPYC): bf16 [128,256,64,64] 0.45 -> 0.70 (AMD), 0.46 -> 0.78 (AVX2); f32 [256,256,32,32] 0.62 -> 0.90, 0.46 -> 0.86; NCDHW -> NDHWC bf16 [32,256,16,32,32] 0.47 -> 0.82, 0.45 -> 0.73. Intel, from 2 KiB (Intel-only tuning): bf16 [512,256,32,32] 0.48 -> 0.70, f32 [512,512,16,32] 0.75 -> 0.87, NHWC -> NCHW f32 [256,16,16,512] 0.61 -> 0.87. The walk now needs a wide step's columns: NHWC -> NCHW f32 [640,7,7,2048] had fallen to 0.41 (Intel; 0.40 at AMD/AVX2 with it), now 0.71. Dropped: 2 KiB at AVX2 (bf16 0.60 -> 0.55), 1 KiB (s8 0.70 -> 0.59), f64 (0.87 -> 0.92, too few cases measured).
- **Tiny transposes in a few full tiles through L1** (issue 27, tiny lane; `choose_small_transpose`, `plan_tiny_transpose` in `kernels/movement_planner.cpp`, `kernels/isa_tiny_tiles.hpp`). A sweep of 600 transposes of at most 4 KiB (1- to 8-byte elements, rank 2-5) put 337-368 over 120 ns per execute at the three tables; the worst took a partial tile per outer position (s8 [4,4,4,4,4] 7.5 us) or oneDNN's reorder (0.7-2.5 us). Dims continuing a side's run now join that side while it fits a tile; each tile is gathered into L1, transposed whole and scattered (whole tiles with runs at one pitch in place). Taken where that needs at most 4 tiles and the plain tiles twice as many, or where they did not take the move (this choice and the old `narrow_tiles_pay` now one function). Intel Xeon VM, 2026-11-28, `--mode=perf --threads=1`, interleaved, medians of 3-5, load 4-7, ns, Intel / AMD table / AVX2: bf16 [2,16,32] (2,1,0) 539/504/2501 -> 70/70/77, s8 [2,16,32] (2,1,0) 926/933/973 -> 189/186/147, s8 [4,4,4,4,4] (3,2,4,1,0) 980/7500/7038 -> 145/192/141; f32 [32,32] 73 -> 73. Of 80-93 changed moves per table 74-93 got faster; slower at AVX-512: f16 [2,2,2,2,2] 109 -> 214, s8 [2,3,4,5] 108 -> 291. Not solved: batches whose sides do not merge (f32 [8,16,2] (0,2,1) 460 ns), split/joined rows, short-run copies.
- **Split rows of 5 and 7 bytes padded to 8** (issue 27, dramout lane; Intel Xeon VM, 2026-11-28 17:08, load average 6-8, 3 interleaved rounds, 32-44 MiB streamed, one thread, / streaming copy). `row_groups<5>`/`<7>` stay scalar under GCC; s8 split rows (NHWC -> NCHW) now widen each group to 8 bytes in an L1 buffer, split 8 rows with the vectorised loop and copy the real rows: C = 5 0.22 -> 0.28, C = 7 0.23 -> 0.36. Tried and dropped: the same for joined rows (s8 C = 5 0.36 -> 0.27) and for bf16 (split C = 7 0.42 -> 0.36): slower, so they keep the plain loop. At AVX2 (2 rounds, load 3.6): C = 5 0.24 -> 0.37, C = 7 0.25 -> 0.43; the AMD table not measured (the same kernel at every level).
- cache3 (2026-11-28, load 3.4-6): s8 channel shuffles of 4 x 6 channels of 7 x 7 planes ([N,4,6,49] -> [N,6,4,49]) fell to the grouped transpose's byte gathers because their 49-byte runs come 4 and 6 to a call (the run copy wanted 8); from 4 runs a call they take the run copy: 0.06-0.14 -> 0.49-0.65 of the in-cache memcpy at every table (Intel, amd, avx2), 11 MiB 6.4 -> 21.3 GB/s. Among the sweep's split/merge/shuffle cases with dims of 4-8 only these changed path. The s8 NHWC-as-NCHW 7 x 7 and 8 KiB-apart head splits were not reached.
- **Graph scale: the JSON report's pieces and a tensor's fields** (issue 27, scale lane; `json_string_text`, `append_tensor`, `append_dims`, `tensor_fields`). Measured on the Intel Xeon VM (2026-11-28, 17:40-18:07, load average 3-4.5 from other lanes) with callgrind and interleaved `reshaper-run --mode=check` runs of `make_large_graph`'s files. A form's plan words are escaped once, not per partition; a tensor's dtype, layout and property names (ours, never escaped) skip the escape scan and their quotes go with the keys' text; `append_dims` fills a buffer; `read_tensor` finds its fields in one pass over the members instead of a look-up each. Instructions, 100,000 ops, one thread (old -> new): single transposes 4.76 -> 4.56 G (text), 5.28 -> 4.81 G (json); chains of 4: 3.80 -> 3.63 G, 4.03 -> 3.75 G. Wall time at that load stayed within the spread (one thread 0.47-0.58 s either way, two 0.38-0.48 s; 1,000,000 ops 4.8 s both), peaks unchanged (3.6x / 2.6x the file at one thread, 3.8x / 2.6x at two). Not done: the peak is the partitions' three heap vectors each and the tensors' map, beside the topology.
- **In-cache partial tiles' rows copied inline; runs joined into aligned lines, tried** (issue 27, cache4 lane; `partial_tile` in `kernels/fast_path_transpose.cpp`; Intel Xeon VM, 2026-11-28 20:05-20:25, load average 6-9, one thread, x in-cache memcpy, 3-5 interleaved rounds, a 137-move sweep of 32 KiB - 2 MiB at the three tables). `perf record`: NHWC as NCHW at 7 x 7 and 14 x 14 spent its time in partial tiles and line-splitting stores. The AVX2 level (no masked kernel) copied each partial tile's source and destination rows by a library call each; now inline as two overlapping fixed-size copies: AVX2 table s8 [20,49,64] 0.17 -> 0.26, [5,49,768] 0.18 -> 0.27, bf16 [42,49,64] 0.25 -> 0.33, [1,49,256] 0.12 -> 0.16, f32 [10,49,256] 0.31 -> 0.38, moves without partial tiles unchanged; AVX-512 unchanged (its own partial kernel). Tried, not kept (AVX-512 run grids): runs of 49-196 bytes joined into aligned destination lines by byte-masked loads (s8 7 x 7 shuffles 0.56 -> 0.21-0.24: `perf annotate` put the time on the masked loads), runs over 64 bytes as whole vectors (80-byte runs 0.79 -> 0.55-0.60), 33-63-byte runs as one vector where the next run follows in both tensors (0.50-0.59 -> 0.53-0.55); in-cache strips of whole destination rows staged in L1 and copied out in order (within the spread).
- **mid: bf16 NHWC -> NCHW at 32 MiB in the last-level cache is bound by the L1 misses in flight; no walk beat it** (issue 27, mid lane; Intel Xeon VM, 2026-11-28 19:57-20:26, load average 0.8-10; interleaved, 4-12 rounds, one thread, / the dense alias copy, 20-24 GB/s). The plan: 4 tiles side by side, strips of all 256 channels, ordinary stores, each wide call prefetching the next one's 128 source and 128 destination lines: 0.78-0.83. `perf record` (this VM has no hardware counters): 72% of `transpose_tiles`' samples on the two `prefetcht0`s of `line_prefetch::issue`, 25% on the tiles. Dropped, base -> variant in the same rounds: no prefetch 0.78 -> 0.51; the next step's lines 0.81 -> 0.71; 2-4 calls ahead 0.77 -> 0.65-0.70, the next tile 0.79 -> 0.60; L2-only or prefetchw destination lines, a share per quarter, the next image's first call prefetched: within the spread; 2 or 8 tiles wide 0.74 / 0.71; single tiles 0.45; strips of 32-128 rows 0.64-0.76; quarters across 4 tiles 0.66; lines of the next image's pages 0.71-0.77. Streaming stores reach 0.92, below the transpose streaming threshold (kept: the output stays cached for its reader).
- **High rank, hr4: 8 x 8 byte blocks, joined lines in registers** (issue 27; `plan_grouped_transpose`, `micro_blocks_avx2_8x8_8`, `write_staged_avx2`). Swept 100 permutations (rank 12-24, dims 2-4, many 3s, s8/u8/bf16/f32/f64/c64, 16-64 MiB, `reshaper-run --mode=perf --threads=1`, three tables, load 3-9): 70 below 0.6 at some table (64 at all three) here, where 16-43 MiB transposes store directly; the EPYCs (32 MiB L3 a CCD) stream them: forced to stream here, 76 (71). Classes: u8/s8 (and bf16) of 3s whose blocks share their inner dims, every byte gathered (0.17-0.25, compute-bound); 3s register blocks (reversals 0.43-0.53); dims of 2 with strides a power of two apart, stored directly (0.30; streamed 0.57: L1/L2 sets); f64 with a shared inner 4 left to the 32-byte run copy (0.2). Kept: 1-byte axes of 9-15 take 8 x 8 blocks (u8 rank 16 of 3s 0.19 / 0.20 / 0.20 -> 0.29 / 0.27 / 0.30 Intel / AMD / AVX2; s8 0.23-0.25 -> 0.29-0.32; streamed 0.17 -> 0.27-0.29); the joined line blended in registers, not stored to the carry and reloaded (perf: 40% of the writer on that store forwarding): streamed bf16 rank 15 of 3s 0.43-0.44 -> 0.45-0.51, s8 reversal 0.31-0.34 -> 0.35-0.37. Dropped: the carry's tail as a whole line (within spread). Checks and tests bit-exact. 2026-11-28.
- **Tiny gather: small moves through a plan-time table of source offsets** (issue 27, tiny2 lane; `choose_small_transpose`, `short_runs_gather`, `plan_tiny_gather` in `kernels/movement_planner.cpp`, `kernels/tiny_gather.cpp`). A tile costs its whole 64 x 64 bytes however few it moves; moves of at most 4 KiB now weigh the tiles' work (tiles x a tile's work in gathered elements, per element size and vector width; block rows half; whole plain tiles kept) against a table gather (an entry per element, 4 unrolled), which also takes what had no tiles (oneDNN's reorder, 1-7 us) and run copies with runs under 32 B (entries of 1-31 B). Sweep of 480 random moves (s8/bf16/f32/f64, rank 2-6, 16 B-4 KiB, `reshaper-run --mode=perf --threads=1`, chrt, interleaved, medians of 3, load 1.3-7), over 120 ns / median ns, old -> new: Intel table 190/77 -> 45/24, AMD table 191/83 -> 45/24, AVX2 181/86 -> 51/24. Examples (ns, Intel; AMD/AVX2 alike): f32 [8,16,2] (0,2,1) 467 -> 62 (AVX2 2613 -> 62), s8 [2,5,12] (0,2,1) 349 -> 32, s8 [2,3,4,5] (1,3,0,2) 292 -> 32, s8 [13,3,7,8] (3,0,2,1) 2437 -> 388, bf16 [5,5,6,3,2] (2,3,0,1,4) 838 -> 96; f32 [32,32] 73 -> 73, s8 [64,64] 101 -> 99. Left over 120: s8 gathers of 1-2.4 K elements (0.17 ns each), partially filled s8/bf16 tiles, split/joined rows. Not tried: in-register permutes (vpermb).
"""

# Measured by hand (benchmarks/model_chains_bench.py), kept as written.
REAL_MODEL_CHAINS_SECTION = """## Real-model chains from Python: an earlier run (2026-11-27)

Measured by hand on 2026-11-27 (not by `scripts/bench.sh`) with `benchmarks/model_chains_bench.py` (under 2 minutes: 30 s to record, cached in build/ for reruns, then the timing), on the Zen 3 EPYC (2 cores, kernels at avx2, L3 32 MiB) at real-time priority (chrt -f 10) while other developers' builds ran (load average 4-10: absolute times are well above an idle machine's, and a chain's ratio moved by up to 0.5 between the four runs of that hour; the counts and medians moved less). The chains are those reshaper.torch finds in torchvision's swin_t, convnext_tiny, vit_b_16, maxvit_t and shufflenet_v2_x1_0 (`weights=None`, 3x224x224, batch 1 and 8): 1996 chains, none left to PyTorch, 1538 of them aliases (views; all of convnext_tiny's, whose permutes feed ops that read strided input, and of vit_b_16's, whose attention runs fused in `_native_multi_head_attention` under no_grad, so its head splits and merges are no chains), 458 that move data, 104 distinct movements (all f32, 784 B to 9.6 MB of output). Per distinct movement, from Python, medians of 15 interleaved rounds in one process: reshaper's native execute into an output allocated once, against the chain's own ATen calls + `.contiguous()` at 1 and 2 threads (the faster counts; 2 threads won on 31) and numpy's `ascontiguousarray` of the chain's last view of its input (98 chains, where that is reshaper's output bit for bit); "with the read" follows each move with a sum over its output.

| model | batch | distinct movements (occurrences) | faster than PyTorch | median reshaper / PyTorch | with the read: faster | median | faster than numpy | median reshaper / numpy |
|---|---|---|---|---|---|---|---|---|
| swin_t | 1 | 29 (79) | 29 | 0.47 | 29 | 0.56 | 20 of 29 | 0.87 |
| swin_t | 8 | 32 (85) | 28 | 0.73 | 28 | 0.76 | 26 of 32 | 0.78 |
| maxvit_t | 1 | 23 (125) | 20 | 0.44 | 21 | 0.46 | 13 of 20 | 0.77 |
| maxvit_t | 8 | 25 (137) | 18 | 0.62 | 20 | 0.66 | 15 of 22 | 0.70 |
| shufflenet_v2_x1_0 | 1 | 3 (16) | 3 | 0.18 | 3 | 0.31 | 3 of 3 | 0.85 |
| shufflenet_v2_x1_0 | 8 | 3 (16) | 3 | 0.68 | 3 | 0.72 | 2 of 3 | 0.88 |

Over all 104: reshaper is faster than PyTorch on 90 (386 of the 458 occurrences), 93 with the read, and more than 1.2x slower on 9; median reshaper / PyTorch 0.58 (with the read 0.65); faster than numpy on 68 of 98, median 0.85 (with the read 0.94). Below 1 MiB of output 49 of 52 are faster (median 0.37); from 1 to 16 MiB 41 of 52 (median 0.75), and 7 of the 9 more than 1.2x slower lie there. The three runs before (the same chains, rows split by steps: 111) had 96, 98 and 96 of 111 faster, median 0.62 each time. The worst of the last run, in us, with the ratio's range over the four runs:

| chain (model, batch, occurrences) | reshaper's plan | MB | reshaper | PyTorch | numpy | reshaper / PyTorch (4 runs) | with the read | reshaper / numpy (4 runs) |
|---|---|---|---|---|---|---|---|---|
| head split, [8,64,49,64] strides (602112,9408,192,1) -> [1024,49,32] (maxvit_t, 8, x8) | run copy, 128-byte runs | 6.4 | 3101 | 1452 (2 threads) | 1759 | 2.14 (0.94-2.14) | 1.14 | 1.76 (1.18-1.76) |
| grid -> window, [8,16,49,128] -> the same, strides (100352,128,2048,1) (maxvit_t, 8, x2) | 2 tiled transposes via a dense temporary | 3.2 | 3933 | 2319 (2 threads) | n/a | 1.70 (1.25-1.70) | 1.43 | n/a |
| window partition, [1,64,56,56] -> [1,64,49,64] (maxvit_t, 1, x2) | tiled transpose [8,8,7,7,64] | 0.8 | 450 | 281 | 179 | 1.60 (1.35-1.60) | 1.19 | 2.51 (2.46-2.89) |
| window partition, [8,128,28,28] -> [8,16,49,128] (maxvit_t, 8, x2) | tiled transpose | 3.2 | 1356 | 953 (2 threads) | 878 | 1.42 (0.90-1.42) | 1.08 | 1.55 (1.32-1.59) |
| window partition, [8,64,56,56] -> [8,64,49,64] (maxvit_t, 8, x2) | tiled transpose | 6.4 | 2734 | 2081 (2 threads) | 2380 | 1.31 (0.76-1.42) | 0.88 | 1.15 (1.09-1.25) |
| window partition, [8,256,14,14] -> [8,4,49,256] (maxvit_t, 8, x5) | tiled transpose [8,2,2,7,7,256] | 1.6 | 749 | 602 | 269 | 1.24 (0.89-1.55) | 1.39 | 2.78 (1.76-2.81) |
| window partition, [1,128,28,28] -> [1,16,49,128] (maxvit_t, 1, x2) | tiled transpose | 0.4 | 228 | 184 | 96 | 1.23 (1.11-1.45) | 1.01 | 2.38 (1.94-2.38) |
| qkv head slice, [32,12,49,32] strides (56448,32,1152,1) -> [384,49,32] (swin_t, 8, x6) | run copy, 128-byte runs | 2.4 | 376 | 306 | 247 | 1.23 (0.95-1.23) | 1.08 | 1.52 (0.79-1.52) |
| window partition, [8,28,28,192] -> [128,49,192] (swin_t, 8, x1) | run copy | 4.8 | 554 | 456 (2 threads) | 489 | 1.21 (0.76-1.21) | 0.88 | 1.13 (0.69-1.13) |

So maxvit_t's window partitions ([N,C,H,W] -> [N,windows,49,C]: tiled transposes whose source runs are 7 floats, 28 bytes, long) are reshaper's steadiest loss, to numpy above all: those of 0.4-1.6 MB took 1.8-2.9x numpy's time in every run, those of 3.2-6.4 MB 1.1-1.6x; then the strided copies of attention heads (runs of 32 floats, 192-1152 floats apart), and the one chain reshaper lowers to two transposes through a temporary.
"""

# Measured by hand (benchmarks/api_bench, callgrind, benchmarks/python_call_bench.py), kept as written.
PER_CALL_SECTION = """## Per-call costs through the public APIs: an earlier run (2026-11-27)

Measured by hand on 2026-11-27 (not by `scripts/bench.sh`), on the Zen 3 EPYC (2 cores) loaded by four developers' builds, so wall time ran 2-5x the CPU time: `benchmarks/api_bench` (medians of 5 interleaved repeats) run three times in turn with the library before and after the changes below, and instruction counts under callgrind, which the load does not move ((Ir of 2200 calls - Ir of 200 calls) / 2000, a program calling the public API in a loop).

| per call | instructions before -> after | api_bench median CPU time before -> after (three runs) | wall time after |
|---|---|---|---|
| C++ API compile, cache hit, tensors given (goal <= 0.5 us) | 4708 -> 1864 | 627-944 -> 162-258 ns | 181-447 ns |
| C++ API compile, cache hit, the graph's tensors | 3391 -> 1331 | 431-596 -> 170-187 ns | 294-362 ns |
| C API compile, cache hit, tensors given (goal <= 0.5 us) | 3703 -> 1241 | 543-638 -> 111-157 ns | 191-261 ns |
| C API compile, cache hit, the graph's tensors | 3193 -> 1126 | 369-528 -> 103-146 ns | 175-275 ns |
| C API execute, 4 KiB f32 transpose (goal <= 120 ns) | 2134 -> 2134 | 250-307 -> 234-306 ns | 437-479 ns |
| C API execute, alias in place (goal <= 70 ns) | 404 -> 405 | 37-42 -> 37-41 ns | 46-64 ns |

What the profiles showed and what changed:
- A cache-hit compile spent half its time reading the key (hashing every field of the partition and its tensors, then comparing them with the stored key: `visit_partition_key`, memcmp), a tenth converting the C tensors, and, through the C++ API, 15% in two 288-byte block moves (`rep stos`, `rep movs`) of `reshaper_logical_tensor_init`'s zeroed temporary. A partition handle now remembers its last compile request and the cache entry that served it; a request equal to it byte for byte (the same C tensors, checked then, and the same engine) goes to that entry (`compiled_partition_cache::find`) without converting or keying. The cache still decides: an entry evicted or cleared meanwhile, capacity 0 and verbose level 2 take the whole way. `reshaper_logical_tensor_init` checks its arguments first and writes the struct field by field; the C++ API fills its C tensors in place.
- The 4 KiB transpose's execute: 71-73% of the samples are in the AVX2 tile kernel itself (`transpose_tiles`, `one_tile`), 11% in `run_transpose` and the strip walk around it (kernels/), and about 15% (some 45 ns of CPU time) in the C API, the compiled partition's checks and the mover dispatch. The goal of 120 ns is not reached: it needs the kernel's own cost for one 32 x 32 tile set cut (the kernels lane).
- From Python (`benchmarks/python_call_bench.py`): the numpy path costs at most 0.6 us above the C API called through ctypes; torch tensors took the general path, 8-23 us per call. A profile of 600k torch calls of the 4 KiB transpose (perf) had 52% of the time in the interpreter running that path, 24% in torch (`empty_strided`, its argument parser), 4.5% in libreshaper. The native fast path now takes torch tensors too, reading their attributes through torch.Tensor's descriptors from C++ (docs/python.md, where the table is): thread CPU time at load 20-24, before -> after, alias 9.16 -> 5.35 us, move 9.28 -> 6.45 us, move into `outputs=` 8.18 -> 3.17 us, against the C API's 1.1-1.7 us. Into `outputs=` that is inside the goal of 3 us above the C API; a call returning new tensors is 3.5-4.7 us above it, of which torch's own `empty_strided` / `view` through its Python argument parser is 3.3-3.9 us. (Reading them through `Tensor.numpy()` and `torch.from_numpy` into the numpy path was tried before and measured no faster.)
"""

# Measured by hand (benchmarks/llc_stream_bench, benchmarks/llc_chain_bench.py), kept as written.
STREAMING_LLC_SECTION = """## Streaming stores and the last-level cache: an earlier run (2026-11-26)

Measured by hand on 2026-11-26 (not by `scripts/bench.sh`), on the Zen 3 EPYC (2 cores, kernels at avx2; L3 32 MiB as sysfs lists it for cpu0, where `sysconf(_SC_LEVEL3_CACHE_SIZE)` says 256 MiB, the whole socket's), loaded by other developers' builds (load average 2.3-3.7). Outputs that fit the last-level cache are read at once by the next op; streaming (non-temporal) stores send them to DRAM instead. Copies streamed from 4 MiB and transposes from 1 MiB, thresholds measured on the move alone. Measured with a sum over the output after each move (`benchmarks/llc_stream_bench`, f32, streaming forced on and off in one run, medians of 5 interleaved repeats, us):

| output | copy, ordinary stores | copy, streamed | transpose, ordinary stores | transpose, streamed |
|---|---|---|---|---|
| 2 MiB | 170 | 307 | 268 | 342 |
| 4 MiB | 353 | 629 | 942 | 1067 |
| 6 MiB | 667 | 1072 | 2851 | 2108 |
| 8 MiB | 1281 | 1767 | 4727 | 3398 |
| 12 MiB | 2997 | 2562 | 7456 | 5007 |
| 16 MiB | 4519 | 3973 | 10038 | 7120 |
| 64 MiB | 19706 | 18900 | 33698 | 26326 |

(An earlier run: transposes tied at 6 MiB, 1448 against 1455 us, and streamed 1.19x faster at 8.) So copies now stream from a third of the last-level cache and transposes (tiles, split and joined rows, packed tiles) from a sixth, the cache size read from the machine (`streaming_threshold_bytes()` in `kernels/cpu_isa.hpp`; 8 MiB when neither sysfs nor sysconf knows it): 10.7 and 5.3 MiB here.

The torchvision chains against PyTorch's `.contiguous()` (`benchmarks/llc_chain_bench.py`: StaticReshape, StaticTranspose, StaticReshape compiled as one partition and executed into a reused buffer; torch 1.13 at its default 1 thread here, reshaper's oneTBB on 2; each move followed by `sum()` of its output; medians of 21 interleaved repeats in one process). Ratio reshaper / torch of move + read, the old thresholds and the new ones, in two pairs of runs one after the other (the runs of a pair share the machine's load; between pairs the same unchanged case moved from 1.6 to 1.0):

| chain | type | MB | old, pair 1 | new, pair 1 | old, pair 2 | new, pair 2 |
|---|---|---|---|---|---|---|
| maxvit_t window partition [8,256,14,14] -> [8,4,49,256] | f32 | 1.6 | 2.01 | 1.52 | 1.13 | 1.10 |
| swin_t windows [8,28,28,192] -> [128,49,192] | f32 | 4.8 | 1.58 | 1.01 | 0.90 | 0.73 |
| swin_t windows | bf16 | 2.4 | 0.93 | 0.98 | 0.69 | 0.81 |
| NHWC -> NCHW [1,56,56,128] | f32 | 1.6 | 0.45 | 0.24 | 0.36 | 0.27 |
| vit merge heads [8,12,197,64] -> [8,197,768] | f32 | 4.8 | 1.32 | 1.07 | 0.78 | 0.72 |
| vit merge heads | bf16 | 2.4 | 1.03 | 0.97 | 0.96 | 0.81 |
| channel shuffle [8,116,28,28], 2 groups | f32 | 2.9 | 1.04 | 0.99 | 0.90 | 0.96 |
| channel shuffle | bf16 | 1.5 | 0.93 | 0.98 | 0.87 | 1.08 |
| NCHW -> NHWC [64,256,32,32] (streamed before and after) | f32 | 67.1 | 0.26 | 0.27 | 0.22 | 0.20 |
| the same | bf16 | 33.6 | 0.31 | 0.34 | 0.29 | 0.28 |

The f32 chains of 1.6-4.8 MB came 3-47% closer to PyTorch's time in these pairs (the channel shuffle 5% closer, then 7% further), the bf16 ones of 1.5-2.4 MB moved both ways (16% closer to 24% further), and the DRAM-sized move did not get slower. In three earlier pairs (thresholds at a quarter of the cache: the same paths for these chains) swin_t and merge heads f32 showed no gain (0.97-1.10 against 0.87-1.08) and maxvit_t 1.72-1.79 against 2.00-2.08: the gain is real where the output is read back from the cache, but of the order of this shared machine's noise for the 4.8 MB ones. maxvit_t's window partition moves alone at 1.7-2.1x PyTorch's time in most runs whichever stores it uses: that gap lies in the kernel's walk of its 6-D permutation, not in the stores.
"""
PROFILE_NOTE = (" What `perf record` (cpu-clock sampling; this VM exposes no hardware counters) showed while tuning (runs of 2026-11-22 to 2026-11-27, by hand, before this report's): short runs (the attention case) spent their time in per-run call overhead, not in memory, until one call copied a whole row of runs (0.3x -> 0.97x memcpy); byte-masked AVX-512 loads stalled the nChw8c partial tiles (7 -> 22 GB/s with plain 256-bit loads). In the NHWC-as-NCHW transposes about 90% of the samples sit on the source-row loads of the tile kernels (the shuffles and the streaming stores are cheap): the 1- and 2-byte tiles, one line per source row and 64 (32) destination rows a line each, gained most from wide tiles (4 and 2 tiles side by side, so each destination row gets 256 and 128 contiguous bytes); 16-byte tiles read one line per page (rows 4 KiB apart) and gained from strips of 4 tiles and a non-temporal prefetch 4 tiles ahead, which cost the smaller elements 5-15%. In cache-sized transposes (256 KiB - 2 MiB) half the samples sat on the ordinary stores to destination rows (a read for ownership per line), so transposes of 2-byte and wider elements streamed from 1 MiB, until measured with the next op's read of the output (below). A transpose of exactly one thread task's worth (256 KiB) had been cut into pieces for two threads and then run as one task, at 0.59x oneDNN's reorder (24-30 us against 12-18 us uncut on one thread): moves below two tasks' worth now stay on the calling thread. The 4-bit transposes spent half their time on half-line stores until a step covered 4 byte tiles. Into blocked formats (nchw -> nChw16c: per channel block, 16 source rows into HW destination rows of 64 bytes back to back) a fifth of the samples sat on the per-strip set-up around 1 KiB tiles, so those moves take strips of 64 KiB of destination and a register block as wide as the destination row (16, 32 or 64 bytes: nChw8c f32 and nChw16c bf16 had been partial tiles at 0.3-0.4x memcpy). The sizes go up to 512 MiB (f32 and bf16: 4 KiB to 128 MiB in steps of 8x, then 512 MiB, where source and destination are 1 GiB together). On an AMD EPYC (Zen 3) without AVX-512 the AVX2 level walked as the AVX-512 one was tuned ran f32 NHWC as NCHW at 1.0x memcpy: a strip a tile high read every source line out of order and wrote 64 bytes per destination row at a time. Column blocks of 64 KiB of the source, read in order and transposed from the cache, with 8 tiles side by side (512-byte destination runs), took it to 1.4-1.8x (`tile_walk` in `kernels/isa_kernels.hpp`: a walk per level); a prefetch of the next column step gained nothing there. nChw8c -> nchw f32 had been partial tiles through buffers at AVX2 (0.38x oneDNN's reorder) until half tiles, one row of register blocks, took it (1.1-1.2x). Measured next against reshaper's own 2-thread streaming copy (about twice glibc's memcpy there): reading the source alone in the tiles' order took 1.5-1.8x the time of reading it in order, writing alone in their order no longer than in order, and the transpose about the sum of the two, so the stalled reads did not overlap the streaming stores. Each wide step now prefetches the next column step's source lines into L1 in memory order, a few per register block, over column blocks spanning whole source rows (`line_prefetch`): bf16 [64,256,32,32] went from 0.62 to 0.81-0.89 of that copy, f32 from 1.5 to 1.8-2.0x oneDNN's reorder. Which width wins depends on how far apart destination rows lie: below a page, 2 (1-byte) and 4 (2-byte) tiles side by side; a page or more apart, 8 (the walk per `row_reach`). On an AMD EPYC with AVX-512 the AVX-512 level had walked as it was tuned on an Intel machine (strips a tile high, no column blocks); the AVX2 level's column blocks with prefetch took s8 NHWC as NCHW from 45 to 62 GB/s and f64 from 57 to 83 there, and rows a page or more apart ran fastest with 2 tiles side by side (f32 41 -> 54 GB/s against 8). Streamed transposes of exactly one tile's rows (the 16 x 16 f32 blocks of nChw16c and ABcd16a16b) walk tile by tile at AVX-512 on AMD CPUs, which measured faster on that machine (on the Intel Xeon VM the far-rows walk with its prefetches measured faster: its table walks them so, `kernel_tuning`); the AVX2 level had walked them so too, and on the Zen 3 EPYC `perf record` put 81% of nChw16c -> nchw's samples in the single-tile kernel and 15% in the strip loop around it, at 0.86x oneDNN's reorder: with the level's own far-rows walk (8 tiles side by side, column blocks with prefetch) it runs at 1.35-1.55x, ABcd16a16b -> abcd at 1.37-1.51x (`isa_kernels::one_tile_rows_tile_by_tile`, per level). 2-bit tiles streamed (each call writes one line into each of 64 destination rows) ran 10-20% slower than with ordinary stores, so they keep them. Transposes the caches hold walk on their own (`in_cache`): with the streaming walks, 512 KiB of f32 whose destination rows lie 4 KiB apart (one L1 set) ran at 32 GB/s, with 8 tiles side by side at 64. The s4 transposes spent a third of their samples in a scalar nibble split (`packed_strip` 33%, the byte tiles 32%); a loop over byte pairs read as 16-bit values, which the compiler vectorises per level, streamed past 4 MiB, took them from 22 to 34 GB/s. With two threads the f32 transpose runs at the 2-thread streaming copy's speed (64 MiB: 2.20 against 2.11 ms); one thread takes 1.41x that time, and the copy itself gains only 1.26x from the second core. glibc 2.36's memcpy runs 15-20x slower on the Zen 3 EPYC when the destination lies 1-31 bytes past a 4 KiB multiple from the source (two equal heap buffers allocated in turn are 16 bytes apart): an alias executed into a new 64 KiB buffer took 34 us through it and 1.7 us through a vector loop, which the SIMD levels now take at those distances. On the Zen 3 EPYC oneDNN 2.6's bf16 reorder runs its reference kernel (0.004x memcpy) and does not move bits (signalling NaNs quieted, denormals flushed, -0 to +0), so 2-byte elements into or out of a blocked layout go through our kernel. Loading a 100,000-op file on one thread, parsing the text took 160 ms and building the ops from it 135 ms; the two now run on two threads (in `partition_bench`, a 100,000-op read 398 -> 281 ms). Transparent huge pages for the driver's heap (tcmalloc's system allocator with MADV_HUGEPAGE) cut its 52,000 page faults to 2,300-6,500 but not its time: with freed memory returned to the system the kernel's time went up, and without, the peak passed 5x the file.")



def cpu_model():
    """The CPU's model name as /proc/cpuinfo gives it (the ratios depend on it)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU model unknown"


def fmt(v, digits=2):
    return f"{v:.{digits}f}" if v is not None else "-"


def met(value, goal, at_most=False):
    if value is None or goal is None:
        return "-"
    return "yes" if (value <= goal if at_most else value >= goal) else "no"


def per_thread(entry):
    """(GB/s, / streaming copy, / memcpy) of one driver perf entry."""
    gbps = entry.get("gbps")
    st, mem = entry.get("stream_gbps"), entry.get("memcpy_gbps")
    return gbps, (gbps / st if gbps and st else None), (gbps / mem if gbps and mem else None)


def cores_summary(driver):
    """(median, least, most) cores the driver's 2+ threads got, over its runs."""
    cores = sorted(e["cores"] for e in driver.values() if e.get("cores"))
    if not cores:
        return None
    return statistics.median(cores), cores[0], cores[-1]


def write_markdown(path, plot, run):
    med, backend, peers, driver = run["movement"], run["backend"], run["peers"], run["driver"]
    many = run["threads"]
    lines = []
    add = lines.append

    def table(head, rows):
        add("| " + " | ".join(head) + " |")
        add("|" + "---|" * len(head))
        for r in rows:
            add("| " + " | ".join(str(c) for c in r) + " |")

    cores = cores_summary(driver)
    add("# Performance")
    add("")
    add(f"Generated by `scripts/bench.sh`{' with QUICK=1 (fewer cases and rounds)' if run['quick'] else ''} on "
        f"{datetime.date.today()} ({platform.machine()}, {os.cpu_count()} cores, {cpu_model()}; {run['version']}); every figure below was "
        f"measured in that run, at {os.environ.get('RESHAPER_BENCH_PRIORITY', 'normal priority')}, and "
        "holds for that CPU and SIMD level only. Speeds are bytes read plus bytes written per second; each "
        "ratio compares two movers measured in the same program run, as medians of interleaved repeats. "
        "The machine is shared, so single figures move by 10-20% between runs; the ratios move less."
        + (f" The run took {run['minutes']:.1f} minutes up to this report." if run.get("minutes") else ""))
    add("")
    dram_size, llc = run.get("dram_bytes", 64 * MIB), run.get("llc_bytes")
    dram_text = (f"{size_label(dram_size)} of input, at least twice the last-level cache the machine lists "
                 f"({size_label(llc)})" if llc else f"{size_label(dram_size)} of input, past the last-level cache")
    add("## The yardstick")
    add("")
    add("Every speed is given per thread count as a ratio to two copies of the same bytes (half read, half "
        "written) on the same number of threads, measured in the same run on the same pre-faulted, "
        "line-aligned buffers: a streaming-store copy (AVX2 non-temporal stores: what a copy that writes "
        "memory reaches) and glibc's memcpy. Both are `yardstick_copy` in `src/driver/yardstick.cpp` (the "
        "`reshaper_yardstick` library), the one implementation `reshaper-run --mode=perf`, "
        "`benchmarks/movement_bench` and `benchmarks/high_rank_bench` link; the driver "
        "times them in turn with the execute (`time_in_turn`, `src/driver/perf_timing.hpp`), a batch of "
        "executes per sample where one takes under 10 us. DRAM-sized moves (" + dram_text + ") are compared to the streaming copy; in-cache ones (32 KiB - 2 MiB) to memcpy "
        "timed warm (after a warm-up of each alone for 1 ms, each sample after two untimed runs of the same, "
        "as in a loop of it alone).")
    add("")
    machine = run.get("machine")
    if machine:
        add(f"What the kernels counted on of this machine (the driver's `perf_machine`): the "
            f"{machine['isa']} level with the {machine['kernel_tuning']} tuning; a last-level cache of "
            f"{size_label(machine['listed_last_level_cache_bytes'])} as listed, "
            f"{size_label(machine['last_level_cache_bytes'])} as counted, and a core cache of "
            f"{size_label(machine['core_cache_bytes'])}; so copies stream from "
            f"{size_label(machine['copy_streaming_bytes'])}, transposes from "
            f"{size_label(machine['transpose_streaming_bytes'])}, and transposes not streamed take the "
            f"last-level walk from {size_label(machine['last_level_walk_bytes'])} (`kernels/cpu_isa.hpp`).")
        add("")
    if cores:
        add(f"**Two threads are not always two cores.** The driver's runs on {many} threads measured how many "
            f"cores {many} CPU-bound threads got against one (an integer loop, no memory; `cores_got`, "
            f"their summed work rate over one thread's): median {cores[0]:.2f}, from {cores[1]:.2f} to "
            f"{cores[2]:.2f} over {sum(1 for e in driver.values() if e.get('cores'))} runs of this report. "
            f"Each {many}-thread figure below gives the cores its own run measured; they have no goal.")
        add("")

    # ---- DRAM ----
    def dram_rows(group, goal_of):
        rows = []
        for (g, label, dtype, threads), e in sorted(driver.items(), key=lambda kv: 0):
            pass
        seen = []
        for (g, label, dtype, threads) in driver:
            if g == group and (label, dtype) not in seen:
                seen.append((label, dtype))
        for label, dtype in seen:
            one = driver.get((group, label, dtype, 1), {})
            two = driver.get((group, label, dtype, many), {})
            g1, s1, m1 = per_thread(one)
            g2, s2, m2 = per_thread(two)
            goal = goal_of(dtype)
            row = [label, dtype, one.get("lowering", "-"), fmt(g1, 1), fmt(s1), fmt(m1), fmt(goal, 1), met(s1, goal)]
            if many > 1:
                row += [fmt(g2, 1), fmt(s2), fmt(m2), fmt(two.get("cores"))]
            rows.append(row)
        head = ["move", "dtype", "lowering", "1 thread GB/s", "/ streaming copy", "/ memcpy", "goal (/ streaming copy)",
                "met"]
        if many > 1:
            head += [f"{many} threads GB/s", "/ streaming copy", "/ memcpy", "cores got"]
        return head, rows

    add(f"## DRAM-sized moves, one thread, every dtype class ({size_label(dram_size)} of input)")
    add("")
    add("`reshaper-run --mode=perf` on graph files of one Reshape over a strided view (`permute_graph` in "
        "`scripts/bench_report.py`), `--threads=1` and `--threads=" + str(many) + "`. Goals (issue 27), one "
        "thread against the one-thread streaming copy: 2-, 4-, 8- and 16-byte elements 0.9, 1-byte and "
        "boolean 0.8, 4-bit 0.7.")
    add("")
    table(*dram_rows("dram", class_goal))
    add("")
    add(f"## Blocked layouts both ways ({size_label(dram_size)})")
    add("")
    add("The same, to and from nChw16c, nChw8c, ABcd16a16b and a padded nChw16c (250 channels in 256; its "
        "graphs: `padded_blocked_graph`, the bytes counted are the logical tensor's) (goal 0.9 of the "
        "one-thread streaming copy). The padded layouts are also in the fixed-costs table (`backend_bench`, "
        "against oneDNN's reorder).")
    add("")
    table(*dram_rows("blocked", lambda dtype: 0.9))
    add("")

    # ---- in cache ----
    add("## In the caches (32 KiB - 2 MiB of input)")
    add("")
    add("The driver as above; each sample starts warm, the execute and the memcpy alike. Goal: 0.8 of an "
        "in-cache memcpy of the same bytes on the same threads for f32, bf16 and s8, on one thread where "
        "a second one costs more than it gives (the better of the two counts). Below 1 MiB the yardsticks "
        "run on one thread whatever the count (`yardstick_threads`: a piece per MiB).")
    add("")
    rows = []
    seen = []
    for (g, label, dtype, threads) in driver:
        if g == "in_cache" and (label, dtype) not in seen:
            seen.append((label, dtype))
    for label, dtype in seen:
        one = driver.get(("in_cache", label, dtype, 1), {})
        two = driver.get(("in_cache", label, dtype, many), {})
        g1, s1, m1 = per_thread(one)
        g2, s2, m2 = per_thread(two)
        best = max([v for v in (m1, m2 if many > 1 else None) if v is not None], default=None)
        row = [label, dtype, fmt(g1, 1), fmt(m1), fmt(s1)]
        if many > 1:
            row += [fmt(g2, 1), fmt(m2), fmt(s2), fmt(two.get("cores"))]
        row += ["0.8", met(best, 0.8)]
        rows.append(row)
    head = ["move", "dtype", "1 thread GB/s", "/ in-cache memcpy", "/ streaming copy"]
    if many > 1:
        head += [f"{many} threads GB/s", "/ in-cache memcpy", "/ streaming copy", "cores got"]
    head += ["goal (/ memcpy)", "met"]
    table(head, rows)
    add("")

    # ---- high rank ----
    hr = run.get("high_rank")
    add("## High-rank permutations")
    add("")
    if hr:
        add(f"`benchmarks/high_rank_bench.py` ({len(hr['rows'])} cases, {hr['rounds']} interleaved rounds, took "
            f"{hr['seconds']:.0f} s): random permutations (seeded) of rank 12-24 tensors of dims 2-4, one "
            "thread: reshaper's kernel (`high_rank_bench`, through `strided_copy`), the streaming copy and "
            "memcpy of the same bytes, numpy's `ascontiguousarray(a.transpose(p))` and PyTorch's "
            "`permute(p).contiguous()` (1 thread). Goal: 0.6 of the streaming copy, numpy's bytes exactly.")
        add("")
        rows = []
        for r in hr["rows"]:
            k = r["ours_gbps"]
            rows.append([r["case"], r["bytes"] >> 20, r["path"], fmt(k, 2), fmt(k / r["stream_gbps"]),
                         fmt(k / r["memcpy_gbps"]), fmt(r["numpy_gbps"], 2), fmt(r["torch_gbps"], 2),
                         fmt(k / r["numpy_gbps"]), fmt(k / r["torch_gbps"]), "yes" if r["exact"] else "NO",
                         "0.6", met(k / r["stream_gbps"], 0.6)])
        table(["case", "MiB", "path", "reshaper GB/s", "/ streaming copy", "/ memcpy", "numpy GB/s", "PyTorch GB/s",
               "reshaper / numpy", "reshaper / PyTorch", "same bytes as numpy", "goal (/ streaming copy)", "met"],
              rows)
    else:
        add("Not measured in this run (`benchmarks/high_rank_bench.py` failed or was skipped; see "
            "`build-bench/results/high_rank.log`).")
    add("")

    # ---- fixed costs ----
    add("## Fixed costs")
    add("")
    add("`benchmarks/api_bench` (the public C and C++ APIs, `libreshaper.so` only) and `benchmarks/backend_bench` "
        "(the backend), medians of interleaved repeats; `benchmarks/python_call_bench.py` (medians of the "
        "mean per call over repeats of 2000 calls, in the calling thread's CPU time: on a shared machine "
        "wall time also counts the time other processes held the core).")
    add("")
    rows = []

    def ns_of(b):
        unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        return b["real_time"] * unit

    for name, label, goal_ns in [
            ("bm_c_execute/transpose_4KiB", "C API execute: 4 KiB f32 transpose", 120),
            ("bm_c_execute/alias_in_place", "C API execute: alias in place", 70),
            ("bm_c_compile_cached/tensors_given", "C API compile, cache hit, tensors given", 500),
            ("bm_c_compile_cached/from_graph", "C API compile, cache hit, the graph's tensors", 500),
            ("bm_cpp_compile_cached/tensors_given", "C++ API compile, cache hit, tensors given", 500),
            ("bm_cpp_compile_cached/from_graph", "C++ API compile, cache hit, the graph's tensors", 500),
            ("bm_compile_first", "backend: compile of a single-op partition", None),
            ("bm_compile_cached", "backend: the same from the compiled-partition cache", None),
            ("bm_execute/transpose/4096", "backend: execute a 4 KiB f32 transpose", None),
            ("bm_execute/alias_copy/4096", "backend: execute a 4 KiB alias into a new buffer", None),
            ("bm_execute/transpose/1048576", "backend: execute a 1 MiB f32 transpose", None)]:
        b = backend.get(name)
        if b:
            v = ns_of(b)
            rows.append([label, f"{v:.0f} ns" if v < 1e4 else f"{v / 1e3:.1f} us",
                         f"<= {goal_ns} ns" if goal_ns else "-", met(v, goal_ns, at_most=True) if goal_ns else "-"])
    py = run.get("python_call")
    if py:
        us = py["us_per_call"]
        for what, c_row in [("move 4 KiB", "move 4 KiB: C API execute (ctypes)"),
                            ("alias 768 KiB", "alias 768 KiB: C API execute in place (ctypes)")]:
            for arrays in ("numpy", "torch"):
                mine = us.get(f"{what}: reshaper execute, {arrays}")
                base = us.get(c_row)
                if mine is not None and base is not None:
                    rows.append([f"Python execute, {what}, {arrays} arrays: above the C API through ctypes "
                                 f"({mine:.2f} - {base:.2f} us)", f"{mine - base:.2f} us", "<= 3 us",
                                 met(mine - base, 3.0, at_most=True)])
    for way, label in [("from_blocked", "padded nChw16c -> nchw"), ("to_blocked", "nchw -> padded nChw16c")]:
        mine = backend.get(f"bm_padded/{way}_reshaper/real_time")
        dnn = backend.get(f"bm_padded/{way}_onednn/real_time")
        if mine and dnn:
            rows.append([f"f32 [16,250,64,64] {label} (250 channels pad to 256): oneDNN reorder's time over "
                         f"reshaper's ({many} threads)", f"{dnn['real_time'] / mine['real_time']:.2f}x", "-", "-"])
    one = backend.get("bm_threads/1/real_time")
    two = backend.get("bm_threads/2/real_time")
    if one and two:
        rows.append(["backend: 64 MiB f32 transpose, 2 threads' speed over 1's", f"{one['real_time'] / two['real_time']:.2f}x",
                     "-", "-"])
    chain = backend.get("bm_merge_heads/chain/real_time")
    single = backend.get("bm_merge_heads/one_movement/real_time")
    if chain and single:
        rows.append(["bf16 merge heads [16,16,2048,64] as StaticTranspose + StaticReshape: time over the one "
                     "movement it composes to", f"{chain['real_time'] / single['real_time']:.2f}x", "-", "-"])
    table(["what", "median", "goal", "met"], rows)
    if py:
        add("")
        add("Python per call (us): " + "; ".join(f"{k} {v:.2f}" for k, v in py["us_per_call"].items()) + ".")
    add("")

    # ---- graph scale ----
    graphs = run.get("graphs") or []
    add("## Graph scale: load and check")
    add("")
    if graphs:
        add("`reshaper-run --mode=check` on files written by `make_large_graph` (`benchmarks/large_graph.hpp`): "
            "read, validate, infer, partition, compile, execute and compare every partition with the reference, "
            "and write the report; medians of interleaved runs, peak RSS as the kernel counts it (GNU time). "
            "Goals: 100,000 ops in 0.5 s with a peak of at most 4x the file, with either report; 1,000,000 "
            "ops linear (time per op as at 100,000).")
        add("")
        per_op = {}
        for ops, what, size, report, threads, seconds, peak in graphs:
            if ops == LARGE_GRAPH_OPS and threads == os.cpu_count():
                per_op[(what, report)] = seconds / ops
        rows = []
        for ops, what, size, report, threads, seconds, peak in graphs:
            small = ops == LARGE_GRAPH_OPS
            base = per_op.get((what, report))
            rows.append([f"{ops:,} ops: {what}", f"{size / MIB:.1f} MiB", report, threads, f"{seconds:.2f} s",
                         f"{peak / MIB:.0f} MiB", f"{peak / size:.1f}x",
                         "<= 0.5 s, <= 4x" if small else "linear",
                         (met(seconds, 0.5, True) + ", " + met(peak / size, 4.0, True)) if small else
                         (f"{seconds / ops / base:.2f}x 100k's time per op" if base else "-")])
        table(["file", "size", "report", "threads", "load + check", "peak RSS", "peak / file", "goal", "met"], rows)
    else:
        add("Not measured in this run.")
    add("")

    # ---- real-model chains ----
    add("## Real-model chains from Python")
    add("")
    ch = run.get("chains")
    if ch:
        s = ch["summary"]
        add(f"`benchmarks/model_chains_bench.py` ({', '.join(ch['models'])} at batch "
            f"{', '.join(map(str, ch['batches']))}; {ch['rounds']} interleaved rounds, each sample after a wait for "
            f"the process's other threads to sleep; took {ch['seconds'] / 60:.1f} "
            "minutes): the data-movement chains reshaper.torch claims in the models (recorded with PyTorch, "
            "`weights=None`), reshaper's execute into a preallocated output against the chain + `contiguous()` "
            "in PyTorch (1 and 2 threads, the faster counts) and numpy's `ascontiguousarray`, from Python. Goal: "
            "reshaper faster on every chain.")
        add("")
        rows = []
        by_where = {}
        for r in ch["rows"]:
            for where in r["where"]:
                by_where.setdefault(where, []).append(r)
        for where, rs in by_where.items():
            model, batch = where.rsplit("/", 1)
            vt = [r["vs_torch"] for r in rs]
            vr = [r["read_vs_torch"] for r in rs]
            vn = [r["vs_numpy"] for r in rs if r["vs_numpy"] is not None]
            rows.append([model, batch, f"{len(rs)} ({sum(r['where'][where] for r in rs)})",
                         sum(1 for v in vt if v < 1), fmt(statistics.median(vt)), sum(1 for v in vr if v < 1),
                         fmt(statistics.median(vr)), f"{sum(1 for v in vn if v < 1)} of {len(vn)}",
                         fmt(statistics.median(vn) if vn else None)])
        table(["model", "batch", "distinct chains (occurrences)", "faster than PyTorch", "median reshaper / PyTorch",
               "with the read: faster", "median", "faster than numpy", "median reshaper / numpy"], rows)
        add("")
        n = s["distinct_chains"]
        add(f"Over all {n} distinct chains: faster than PyTorch on {s['faster_than_torch']} (goal: all {n}; "
            f"{'met' if s['faster_than_torch'] == n else 'not met'}), {s['faster_than_torch_with_read']} with the "
            f"read; more than 1.2x slower on {s['slower_than_torch_by_1_2x']}; median reshaper / PyTorch "
            f"{fmt(s['median_vs_torch'])} (with the read {fmt(s['median_read_vs_torch'])}); faster than numpy on "
            f"{s['faster_than_numpy']} of {s['numpy_compared']}, median {fmt(s['median_vs_numpy'])}. The slowest "
            "against PyTorch:")
        add("")
        worst = sorted(ch["rows"], key=lambda r: -r["vs_torch"])[:8]
        table(["chain", "dtype", "MB", "reshaper us", "PyTorch us", "numpy us", "reshaper / PyTorch", "with the read"],
              [[f"{r['chain']} ({', '.join(f'{w} x{k}' for w, k in r['where'].items())})", r["dtype"], f"{r['bytes'] / 1e6:.1f}", f"{r['reshaper_us']:.1f}",
                f"{r['torch_us']:.1f}" + (" (2 threads)" if r["torch_threads"] == 2 else ""),
                fmt(r["numpy_us"], 1), fmt(r["vs_torch"]), fmt(r["read_vs_torch"])] for r in worst])
    else:
        add("Not measured in this run (see `build-bench/results/model_chains.log`).")
    add("")

    # ---- movement_bench: against oneDNN, across the cache levels ----
    def row(case, dtype, size):
        return tuple(med.get((case, dtype, size, m)) for m in ("reshaper", "memcpy", "onednn", "stream"))

    add(f"## Against oneDNN's reorder ({many} threads, `benchmarks/movement_bench`)")
    add("")
    add("Our kernel (a movement program planned once and run, as `kernel` lowerings execute it), the same two "
        "yardsticks and a direct oneDNN reorder between the same layouts, in one program on the same buffers "
        f"and oneTBB's default {many} threads (Google Benchmark's random interleaving; each mover in a loop of its "
        "own, so the in-cache sizes run warm).")
    add("")
    rows = []
    for case, dtype, size in ([("nhwc_to_nchw", d, "64MiB") for d in
                               ["f32", "s32", "f16", "bf16", "s8", "u8", "s64", "f64", "c128", "boolean", "s4", "s2"]] +
                              [("nhwc_to_nchw", "f32", "256MiB"), ("nhwc_to_nchw", "bf16", "128MiB")] +
                              [(c, d, "64MiB") for c, d in [
                                  ("attention_bhsd", "bf16"), ("nChw16c_to_nchw", "f32"), ("nChw8c_to_nchw", "f32"),
                                  ("nchw_to_nChw16c", "f32"), ("nchw_to_nChw8c", "f32"), ("nchw_to_nChw16c", "bf16"),
                                  ("ABcd16a16b_to_abcd", "f32"), ("nhwc14x14_to_nchw", "f32"),
                                  ("nhwc14x14_to_nchw", "bf16"), ("nhwc_c3_to_nchw", "f32"), ("nchw_c3_to_nhwc", "f32"),
                                  ("sliced", "f32"), ("broadcast_rows", "f32"), ("dense_copy", "f32")]]):
        mine, mem, dnn, st = row(case, dtype, size)
        if mine is None:
            continue
        rows.append([case, dtype, size, fmt(mine, 1), ratio(mine, st), ratio(mine, mem), ratio(mine, dnn),
                     ratio(dnn, st)])
    table(["case", "dtype", "size", "reshaper GB/s", "/ streaming copy", "/ memcpy", "/ oneDNN reorder",
           "oneDNN / streaming copy"], rows)
    add("")
    add("`nhwc_to_nchw`: [N,256,64,64] NHWC as NCHW. `attention_bhsd`: [16,2048,16,64] bf16 seen as "
        "[16,16,2048,64] (merge heads), 128-byte runs. `ABcd16a16b_to_abcd`: [256,256,16,16] weights in 16x16 "
        "blocks to plain. `nhwc14x14_to_nchw`: [N,256,14,14] NHWC as NCHW, whose NCHW rows (784 and 392 bytes) "
        "are no whole number of lines. `nhwc_c3_to_nchw`: [N,3,224,224] images NHWC as NCHW (3 destination rows: "
        "split rows); `nchw_c3_to_nhwc` the inverse (joined rows). `sliced`: every other row of a [4096, 8192] "
        "tensor; `broadcast_rows`: one row read 4096 times (the source stays in cache). `dense_copy`: what an "
        "alias executes into a separate buffer.")
    add("")
    add(f"### Across the cache levels (f32 and bf16 NHWC -> NCHW, [N, 64, HW], {many} threads)")
    add("")
    sizes = sorted({k[2] for k in med if k[0] == "sizes"}, key=size_bytes)
    peer_by_size = {p["size"]: p for p in peers}
    rows = []
    for size in sizes:
        f = row("sizes", "f32", size)
        b = row("sizes", "bf16", size)
        p = peer_by_size.get(size_bytes(size), {})
        rows.append([size, ratio(f[0], f[3]), ratio(f[0], f[1]), ratio(f[0], f[2]), ratio(b[0], b[3]),
                     ratio(b[0], b[1]), ratio(p.get("numpy"), p.get("memcpy")), ratio(p.get("pytorch"), p.get("memcpy"))])
    table(["size", "f32 / streaming copy", "f32 / memcpy", "f32 / oneDNN", "bf16 / streaming copy", "bf16 / memcpy",
           "numpy / memcpy (f32)", "PyTorch / memcpy (f32)"], rows)
    add("")
    add("numpy and PyTorch ratios use their own run's memcpy (numpy `copyto` of a dense array).")
    add("")
    add(f"![bandwidth against size, in-cache and high-rank ratios]({os.path.basename(plot)})")
    add("")
    add("## How the movers work, and what the profile showed")
    add("")
    add("See `kernels/movement_program.hpp` (the plan each kernel step makes at compile time) and "
        "`kernels/movement_planner.cpp` (its decisions): contiguous runs are copied with streaming stores "
        "(short runs in the source's order), transposes go through 64 x 64-byte register tiles "
        "(AVX-512 or AVX2 shuffles, `RESHAPER_MAX_CPU_ISA` caps the level; tiles side by "
        "side and the order of the walk per level: `tile_walk`) so that every cache line is read and written "
        "whole, and destinations too large to stay in the last-level cache for the next op (a third "
        "of it for copies, a sixth for transposes: `kernels/cpu_isa.hpp`) are written with non-temporal stores. "
        "`src/backend/mover_choice.hpp` encodes when the kernel is chosen over oneDNN's reorder." + PROFILE_NOTE)
    add("")
    lines.extend(PER_CALL_SECTION.rstrip("\n").split("\n"))
    lines.append("")
    lines.extend(STREAMING_LLC_SECTION.rstrip("\n").split("\n"))
    lines.append("")
    lines.extend(REAL_MODEL_CHAINS_SECTION.rstrip("\n").split("\n"))
    lines.append("")
    lines.extend(KERNEL_TUNING_SECTION.rstrip("\n").split("\n"))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_headline(readme, run, machine):
    """The README's short table, between its perf-headline markers."""
    driver, many = run["driver"], run["threads"]
    rows = [f"Measured {datetime.date.today()} on {machine} by `scripts/bench.sh`"
            f"{' (QUICK=1)' if run['quick'] else ''}; [docs/performance.md](docs/performance.md) has every case:", "",
            "| move | one thread, / streaming copy | goal | " + (f"{many} threads, / streaming copy |" if many > 1 else ""),
            "|---|---|---|" + ("---|" if many > 1 else "")]

    def add(group, label, dtype, text, goal, against="stream"):
        one, two = driver.get((group, label, dtype, 1)), driver.get((group, label, dtype, many))
        if not one:
            return
        pick = 1 if against == "stream" else 2
        r1 = per_thread(one)[pick]
        r = f"| {text} | {fmt(r1)} | {goal} |"
        if many > 1:
            r2 = per_thread(two or {})[pick]
            r += f" {fmt(r2)} ({fmt((two or {}).get('cores'))} cores) |"
        rows.append(r)

    size = run.get("dram_bytes", 64 * MIB)
    for dtype in ["f32", "bf16", "s8", "s64", "boolean", "c128", "s4"]:
        n = elements_of(dtype, size) // (256 * 4096)
        add("dram", f"[{n},256,64,64] NHWC as NCHW", dtype, f"{dtype} {size_label(size)} NHWC as NCHW",
            class_goal(dtype))
    n = elements_of("f32", size) // (256 * 4096)
    add("blocked", f"[{n},256,64,64] nChw16c -> nchw", "f32", f"f32 {size_label(size)} nChw16c -> nchw", 0.9)
    add("blocked", f"[{n},256,64,64] nchw -> nChw16c", "f32", f"f32 {size_label(size)} nchw -> nChw16c", 0.9)
    e = elements_of("f32", 256 << 10)
    add("in_cache", f"NHWC as NCHW [1,{e // 64},64] 256 KiB", "f32", "f32 256 KiB NHWC as NCHW (/ in-cache memcpy)",
        0.8, against="memcpy")
    hr = run.get("high_rank")
    for r in (hr or {}).get("rows", [])[:1]:
        rows.append(f"| {r['case']} (high_rank_bench) | {fmt(r['ours_gbps'] / r['stream_gbps'])} | 0.6 |"
                    + (" - |" if many > 1 else ""))
    ch = run.get("chains")
    if ch:
        s = ch["summary"]
        rows.append("")
        rows.append(f"Real-model chains from Python ({', '.join(ch['models'])}): faster than PyTorch on "
                    f"{s['faster_than_torch']} of {s['distinct_chains']} (goal: all), median reshaper / PyTorch "
                    f"{fmt(s['median_vs_torch'])}.")
    begin, end = "<!-- perf-headline -->", "<!-- /perf-headline -->"
    with open(readme) as f:
        text = f.read()
    if begin not in text or end not in text:
        return
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(readme, "w") as f:
        f.write(head + begin + "\n" + "\n".join(rows) + "\n" + end + tail)


def size_bytes(label):
    if label.endswith("MiB"):
        return int(label[:-3]) * MIB
    return int(label[:-3]) * 1024


def write_plot(path, run):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    med, peers, driver = run["movement"], run["peers"], run["driver"]
    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    for ax, dtype in zip(axes[0], ["f32", "bf16"]):
        sizes = sorted({k[2] for k in med if k[0] == "sizes" and k[1] == dtype}, key=size_bytes)
        xs = [size_bytes(s) for s in sizes]
        for mover, style in [("reshaper", "o-"), ("onednn", "s--"), ("stream", "k-"), ("memcpy", "k:")]:
            ys = [med.get(("sizes", dtype, s, mover)) for s in sizes]
            if any(ys):
                ax.plot(xs, [y or float("nan") for y in ys], style,
                        label={"stream": "streaming copy"}.get(mover, mover))
        if dtype == "f32" and peers:
            for peer, style in [("numpy", "^-."), ("pytorch", "v-.")]:
                if peer in peers[0]:
                    ax.plot([p["size"] for p in peers], [p[peer] for p in peers], style, label=peer)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{dtype}: NHWC data as NCHW, {run['threads']} threads")
        ax.set_xlabel("tensor bytes")
        ax.set_ylabel("GB/s (read + written)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    # In the caches: one thread, ratio to the in-cache memcpy, per case.
    ax = axes[1][0]
    cases = [(k[1], k[2]) for k in driver if k[0] == "in_cache" and k[3] == 1]
    values = [per_thread(driver[("in_cache", label, dtype, 1)])[2] or 0 for label, dtype in cases]
    colors = {"f32": "tab:blue", "bf16": "tab:orange", "s8": "tab:green"}
    ax.barh(range(len(cases)), values, color=[colors.get(d, "gray") for _, d in cases])
    ax.set_yticks(range(len(cases)))
    ax.set_yticklabels([f"{d} {label}" for label, d in cases], fontsize=6)
    ax.axvline(0.8, color="k", linestyle="--", linewidth=1, label="goal 0.8")
    ax.set_xlabel("reshaper / in-cache memcpy, one thread")
    ax.set_title("In the caches (32 KiB - 2 MiB)")
    ax.invert_yaxis()
    ax.legend(fontsize=8)
    ax.grid(True, axis="x", alpha=0.3)
    # High rank: ratios to the streaming copy of reshaper, numpy and PyTorch.
    ax = axes[1][1]
    hr = run.get("high_rank")
    if hr and hr["rows"]:
        names = [r["case"] for r in hr["rows"]]
        ys = range(len(names))
        for i, (key, label) in enumerate([("ours_gbps", "reshaper"), ("numpy_gbps", "numpy"), ("torch_gbps", "PyTorch")]):
            ax.barh([y + (i - 1) * 0.27 for y in ys], [r[key] / r["stream_gbps"] for r in hr["rows"]], height=0.27,
                    label=label)
        ax.set_yticks(list(ys))
        ax.set_yticklabels(names, fontsize=7)
        ax.axvline(0.6, color="k", linestyle="--", linewidth=1, label="goal 0.6")
        ax.invert_yaxis()
        ax.legend(fontsize=8)
    ax.set_xlabel("/ streaming copy, one thread")
    ax.set_title("High-rank permutations (rank 12-24, dims 2-4)")
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--results", required=True)
    ap.add_argument("--driver", required=True)
    ap.add_argument("--large-graph-maker", help="make_large_graph, for the load-and-check rows")
    ap.add_argument("--high-rank-bench", help="high_rank_bench, for the high-rank rows")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="fewer cases (a smoke run)")
    ap.add_argument("--started", type=float, help="when scripts/bench.sh started (seconds since the epoch)")
    ap.add_argument("--markdown", required=True)
    ap.add_argument("--plot", required=True)
    ap.add_argument("--readme", help="README whose perf-headline table to refresh")
    ap.add_argument("--rewrite", action="store_true",
                    help="measure nothing: write the report again from the last run's RESULTS/run.pickle")
    args = ap.parse_args()
    res = args.results
    saved = os.path.join(res, "run.pickle")
    if args.rewrite:
        with open(saved, "rb") as f:
            write_report(args, pickle.load(f))
        return
    workdir = os.path.join(res, "graphs")
    machine = driver_machine(args.driver, workdir)
    llc = machine["listed_last_level_cache_bytes"]
    run = {"quick": args.quick, "threads": os.cpu_count() or 1, "dram_bytes": dram_bytes(llc), "llc_bytes": llc,
           "machine": machine}
    run["movement"] = load_medians(os.path.join(res, "movement.json"))
    backend = load_backend(os.path.join(res, "backend.json"))
    if os.path.exists(os.path.join(res, "api.json")):
        backend.update(load_backend(os.path.join(res, "api.json")))
    run["backend"] = backend
    sizes = sorted({size_bytes(k[2]) for k in run["movement"] if k[0] == "sizes"})
    run["peers"] = measure_peers(args.reps, sizes)
    thread_counts = sorted({1, run["threads"]})
    run["driver"] = driver_perf(args.driver, workdir, dram_cases(args.quick, run["dram_bytes"]), thread_counts,
                                dram_samples(4 * max(args.reps, 3), run["dram_bytes"]))
    run["driver"].update(driver_perf(args.driver, workdir, in_cache_cases(args.quick), thread_counts,
                                     8 * max(args.reps, 3)))
    if args.large_graph_maker:
        run["graphs"] = large_graphs(args.driver, args.large_graph_maker, workdir, args.reps, not args.quick)
    if args.high_rank_bench:
        run["high_rank"] = run_python_bench(
            "high_rank_bench.py", ["--bench", args.high_rank_bench, "--rounds", str(args.reps)]
            + (["--quick"] if args.quick else []), os.path.join(res, "high_rank.json"), os.path.join(res, "high_rank.log"))
    run["python_call"] = run_python_bench("python_call_bench.py", ["--rounds", str(3 * args.reps), "--timer", "cpu"],
                                          os.path.join(res, "python_call.json"), os.path.join(res, "python_call.log"))
    run["chains"] = run_python_bench("model_chains_bench.py", ["--quick"] if args.quick else [],
                                     os.path.join(res, "model_chains.json"), os.path.join(res, "model_chains.log"))
    # "reshaper 0.1.0, oneDNN 2.6.3 (...), kernels avx2 (CPU: avx2)"
    version = subprocess.run([args.driver, "--version"], capture_output=True, text=True).stdout.strip()
    run["version"] = version.split(": ", 1)[-1]
    if args.started:
        run["minutes"] = (time.time() - args.started) / 60
    with open(saved, "wb") as f:
        pickle.dump(run, f)
    write_report(args, run)


def write_report(args, run):
    write_plot(args.plot, run)
    write_markdown(args.markdown, args.plot, run)
    if args.readme:
        kernels = run["version"].split("kernels ", 1)[-1].split(" ", 1)[0]
        write_headline(args.readme, run, f"{cpu_model()} ({os.cpu_count()} cores, kernels at {kernels})")


if __name__ == "__main__":
    main()
