"""The data-movement chains of real torchvision models at their real input
size (3x224x224, weights=None, batch 1 and 8), as reshaper.torch claims them,
timed from Python against PyTorch and numpy (issue 27, "Real shapes, in the
pipeline").

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/model_chains_bench.py \
        [--models swin_t,maxvit_t] [--batches 1,8] [--rounds 15] [--json OUT] [--quick]

--quick is a smoke run's subset (scripts/bench.sh with QUICK=1): QUICK_MODELS
at batch 1 and 8, QUICK_ROUNDS rounds, unless --models / --rounds say otherwise.

Recording. Each model is traced as reshaper.torch traces it (make_fx, ATen
level) and its chains found, planned and compiled by reshaper.torch's own
functions (_Recorder, _chains, _plan_chain, _build_runtime). One shortcut
keeps this to seconds a model, where Debian's torch (reference BLAS) takes
minutes a forward at batch 8: the trace decomposes convolutions, matrix
products and the fused attention of nn.MultiheadAttention's inference path
into uninitialised tensors of the shape and layout PyTorch's CPU kernels give
them (dense; channels-last after channels-last input). Nothing a chain sees
depends on their values (a traced graph has no data-dependent branches);
`--exact-record` records with the real ops (at batch 1 both ways gave the
same chains: swin_t 276, maxvit_t 476, convnext_tiny 155, vit_b_16 74,
shufflenet_v2_x1_0 17). vit_b_16 runs its attention fused
(_native_multi_head_attention: under no_grad in eval mode, as
reshaper.torch traces), so its head splits and merges are no chains. The recorded chains are cached in
build/model_chains_cache.json (keyed by model, batch, the torch and
torchvision versions and the text of reshaper/torch.py and this
script), so reruns start timing
at once.

Timing. For every chain reshaper runs as a kernel (aliases are views and move
nothing), one row per distinct chain (dtype, input shape and strides, steps,
output strides), with how often it occurs. Each mover runs into or returns a
full output:
  - reshaper: the compiled partition's native execute (what torch.py's
    _run_chain calls) into an output allocated once, outside the timing;
  - PyTorch: the chain's own ATen calls (the pass's fallback) + .contiguous(),
    at 1 and at 2 threads (torch.set_num_threads); the faster one counts;
  - numpy: np.ascontiguousarray of the chain's last view of its input, then the
    remaining reshapes; "n/a" where that is not reshaper's output bit for bit
    (an output PyTorch leaves strided, which a C-order copy does not give).
"+ read" columns follow each move with a sum over its output (numpy's sum,
one thread, the same read for every mover), as the next op reads it.
A sample runs the mover once untimed (its output and input then sit in the
caches, as in the model's pipeline) and then k times timed, k chosen so a
sample lasts at least --sample-us; medians over interleaved rounds in one
process: every mover of every chain runs once per round, in a new random
order within the chain's group each round. Fairness: PyTorch's OpenMP
workers busy-wait for a few milliseconds after each 2-thread move (libgomp's
default GOMP_SPINCOUNT), and a mover timed meanwhile, whichever, shares its
core with them (docs/performance.md, the chains3 and chains4 bullets). The
bench used to run the 2-thread movers last in each chain's group, so the
next chain's first mover paid for them.
Now every sample waits first until no other thread of the process runs
(wait_until_quiet; PyTorch's threading itself unchanged), and the random
order lets each mover follow every other alike.
"""
import argparse
import hashlib
import json
import os
import platform
import random
import statistics
import sys
import time
import warnings

import numpy as np
import torch
import torchvision
from torch.fx.experimental.proxy_tensor import make_fx

import reshaper
import reshaper.torch as rtorch

MODELS = ["swin_t", "convnext_tiny", "vit_b_16", "maxvit_t", "shufflenet_v2_x1_0"]
# --quick: a model with window partitions and head slices, and one with
# channel shuffles (about a minute with the recording cached).
QUICK_MODELS = ["swin_t", "shufflenet_v2_x1_0"]
QUICK_ROUNDS = 5
IMAGE = (3, 224, 224)
CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "model_chains_cache.json")
_aten = torch.ops.aten


# ---- recording ---------------------------------------------------------------

def _conv_stand_in(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    if transposed:
        raise NotImplementedError("a transposed convolution: record with --exact-record")
    spatial = [(n + 2 * p - d * (k - 1) - 1) // s + 1
               for n, k, s, p, d in zip(x.shape[2:], weight.shape[2:], stride, padding, dilation)]
    channels_last = x.dim() == 4 and not x.is_contiguous() and x.is_contiguous(memory_format=torch.channels_last)
    return torch.empty([x.shape[0], weight.shape[0]] + spatial, dtype=x.dtype,
                       memory_format=torch.channels_last if channels_last else torch.contiguous_format)


def _attention_stand_in(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias, proj_weight, proj_bias,
                        mask=None, need_weights=True, average_attn_weights=True, mask_type=None):
    # The fused attention of nn.MultiheadAttention's inference fast path
    # (vit_b_16): its head splits and merges happen inside, no chain sees them.
    if need_weights:
        raise NotImplementedError("attention weights wanted: record with --exact-record")
    return torch.empty(query.shape, dtype=query.dtype), torch.empty([0], dtype=query.dtype)


# The arithmetic a recording may skip: a tensor of the shape and layout
# PyTorch's CPU kernels give (dense, or channels-last for channels-last input
# to a convolution), uninitialised. Chains depend on shapes and strides only.
STAND_INS = {
    _aten.convolution.default: _conv_stand_in,
    _aten.mm.default: lambda a, b: torch.empty([a.shape[0], b.shape[1]], dtype=a.dtype),
    _aten.addmm.default: lambda c, a, b, beta=1, alpha=1: torch.empty([a.shape[0], b.shape[1]], dtype=a.dtype),
    _aten.bmm.default: lambda a, b: torch.empty([a.shape[0], a.shape[1], b.shape[2]], dtype=a.dtype),
    _aten._native_multi_head_attention.default: _attention_stand_in,
}


def _encode(value):
    if isinstance(value, torch.memory_format):
        return {"memory_format": str(value).split(".")[-1]}
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).split(".")[-1]}
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {"kwargs": {k: _encode(v) for k, v in value.items()}}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot record argument {value!r} of a movement call")


def _decode(value):
    if isinstance(value, dict):
        ((kind, name),) = value.items()
        return {k: _decode(v) for k, v in name.items()} if kind == "kwargs" else getattr(torch, name)
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def record(name, batch, exact):
    """Every chain of the model's trace: a dict per chain, in graph order."""
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.randn((batch,) + IMAGE)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if exact:
            gm = make_fx(model)(x)
            recorder = rtorch._Recorder(gm)
            recorder.run(x)
        else:
            gm = make_fx(model, decomposition_table=STAND_INS)(x)
            recorder = rtorch._Recorder(gm)
            recorder.run(x)
    info = recorder.info
    at_risk = rtorch._storages_at_risk(gm, info)
    chains = []
    for chain in rtorch._chains(gm):
        steps, reason = rtorch._plan_chain(chain, info)
        entry = {"calls": [[n.target.overloadpacket.__name__, n.target._overloadname,
                            _encode(list(n.args[1:])), _encode(dict(n.kwargs))] for n in chain]}
        if steps is not None:
            runtime, reason = rtorch._build_runtime(chain, steps, info, at_risk)
        if steps is None or runtime is None:
            entry["unclaimed"] = reason
            chains.append(entry)
            continue
        a, z = info[chain[0].args[0]], info[chain[-1]]
        entry.update(dtype=str(a.dtype).split(".")[-1], in_shape=list(a.shape), in_stride=list(a.stride),
                     steps=[[kind, list(arg)] for kind, arg in steps], out_shape=list(z.shape),
                     out_stride=list(z.stride), alias=runtime.alias, lowering=runtime.lowering)
        chains.append(entry)
    return chains


def recorded(models, batches, exact, refresh):
    """{(model, batch): chains}, from the cache where it has them."""
    digest = hashlib.sha256()
    for source in (rtorch.__file__, __file__):  # the pass, and this recording
        with open(source, "rb") as f:
            digest.update(f.read())
    version = f"torch {torch.__version__}, torchvision {torchvision.__version__}, sources {digest.hexdigest()[:16]}"
    cache = {}
    if os.path.exists(CACHE) and not refresh:
        with open(CACHE) as f:
            cache = json.load(f)
        if cache.get("version") != version:
            cache = {}
    cache["version"] = version
    entries = cache.setdefault("models", {})
    result = {}
    for name in models:
        for batch in batches:
            key = f"{name}/{batch}" + ("/exact" if exact else "")
            if key not in entries:
                start = time.time()
                entries[key] = record(name, batch, exact)
                print(f"recorded {name} at batch {batch} in {time.time() - start:.1f} s", file=sys.stderr)
                os.makedirs(os.path.dirname(CACHE), exist_ok=True)
                with open(CACHE, "w") as f:
                    json.dump(cache, f)
            result[(name, batch)] = entries[key]
    return result


# ---- one chain, ready to time ------------------------------------------------

def _dense(shape):
    return list(reshaper._dense_strides(shape))


def _dims(shape, stride=None):
    text = "[" + ",".join(map(str, shape)) + "]"
    if stride is not None and [s for s, d in zip(stride, shape) if d != 1] != \
            [s for s, d in zip(_dense(shape), shape) if d != 1]:
        text += " strides (" + ",".join(map(str, stride)) + ")"
    return text


def _describe(c):
    """Input (strides where not dense) -> output, short."""
    return f"{_dims(c['in_shape'], c['in_stride'])} -> {_dims(c['out_shape'], c['out_stride'])}"


def _steps(c):
    """The partition's steps: views (v[...]) and transposes (T(...))."""
    return " ".join(("v" + _dims(arg)) if kind == "reshape" else "T(" + ",".join(map(str, arg)) + ")"
                    for kind, arg in c["steps"])


class Bench:
    """The movers of one distinct chain, on one input, checked against each other."""

    def __init__(self, c):
        self.c = c
        dtype = getattr(torch, c["dtype"])
        shape, stride = c["in_shape"], c["in_stride"]
        extent = 1 + sum((d - 1) * s for d, s in zip(shape, stride))
        base = torch.randn(extent).to(dtype) if dtype.is_floating_point else torch.randint(-100, 100, (extent,)).to(dtype)
        self.x = base.as_strided(shape, stride)
        steps = tuple((kind, tuple(arg)) for kind, arg in c["steps"])
        cp, constants = rtorch._compile_chain(rtorch._DTYPES[dtype], tuple(shape), tuple(stride), steps,
                                              tuple(c["out_stride"]))
        self.keep = (cp, constants)
        self.plan = cp.plan
        self.execute = cp._cp.execute_raw
        ids = [t.id for t in cp.inputs]
        self.addresses = [self.x.data_ptr() if i == 0 else int(constants[i].ctypes.data) for i in ids]
        self.out = torch.empty_strided(c["out_shape"], c["out_stride"], dtype=dtype)
        self.out_addresses = [self.out.data_ptr()]
        self.out_np = self.out.numpy()
        self.calls = [(getattr(getattr(_aten, op), overload), tuple(_decode(args)), _decode(kwargs))
                      for op, overload, args, kwargs in c["calls"]]
        self.bytes = self.out.numel() * self.out.element_size()

        expected = self.torch_move()
        self.reshaper_move()
        same_bits = np.array_equal(np.ascontiguousarray(self.out_np).view(np.uint8),
                                   np.ascontiguousarray(expected.numpy()).view(np.uint8))
        if expected.shape != self.out.shape or not same_bits:
            raise AssertionError(f"reshaper's output differs from PyTorch's for {_describe(c)}")
        self.numpy_view = self._numpy_view()
        self.reshaped = tuple(c["out_shape"])
        self.numpy_ok = False
        if self.out.is_contiguous():  # else numpy's C-order copy is another layout
            got = self.numpy_move()
            self.numpy_ok = got.shape == self.reshaped and got.flags.c_contiguous and \
                np.array_equal(got.view(np.uint8), self.out_np.view(np.uint8))

    def _numpy_view(self):
        """numpy's view of the last call result that is still a view of the input."""
        y, last_view = self.x, self.x
        for target, args, kwargs in self.calls:
            y = target(y, *args, **kwargs)
            if y.storage().data_ptr() == self.x.storage().data_ptr():
                last_view = y
        return last_view.numpy()

    def reshaper_move(self):
        self.execute(self.addresses, self.out_addresses)
        return self.out_np

    def torch_move(self):
        y = self.x
        for target, args, kwargs in self.calls:
            y = target(y, *args, **kwargs)
        return y.contiguous()

    def numpy_move(self):
        return np.ascontiguousarray(self.numpy_view).reshape(self.reshaped)


def _read_np(a):
    return a.sum()


def _read_torch(t):
    return t.numpy().sum()


# ---- timing ------------------------------------------------------------------

def movers(b):
    """name -> (function, threads); "+read" variants follow each move with the read."""
    table = {
        "reshaper": (b.reshaper_move, 1),
        "reshaper+read": (lambda: _read_np(b.reshaper_move()), 1),
        "torch1": (b.torch_move, 1),
        "torch1+read": (lambda: _read_torch(b.torch_move()), 1),
        "torch2": (b.torch_move, 2),
        "torch2+read": (lambda: _read_torch(b.torch_move()), 2),
    }
    if b.numpy_ok:
        table["numpy"] = (b.numpy_move, 1)
        table["numpy+read"] = (lambda: _read_np(b.numpy_move()), 1)
    return table


def _other_threads_running():
    """How many of this process's other threads are running or runnable."""
    me = os.getpid()
    running = 0
    for tid in os.listdir(f"/proc/{me}/task"):
        if int(tid) == me:
            continue
        try:
            with open(f"/proc/{me}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:  # the thread ended meanwhile
            continue
        running += stat[stat.rindex(")") + 2] == "R"  # the state follows the name in parentheses
    return running


# A thread that stays runnable longer (another of the process's, or a worker
# the load keeps off its core) must not stall the bench.
QUIET_TIMEOUT_S = 0.05


def wait_until_quiet():
    """Wait until no other thread of this process runs (at most QUIET_TIMEOUT_S); the seconds waited.

    PyTorch's OpenMP workers (libgomp) busy-wait after each parallel region:
    GOMP_SPINCOUNT's default (OMP_WAIT_POLICY unset) keeps them spinning for
    milliseconds, then they sleep on a futex. On 2 cores the spinning worker
    takes the core that the next mover's second thread (or the next 1-thread
    mover's memory traffic) wants, so whichever mover came next was timed
    slower (docs/performance.md, the chains3 and chains4 bullets). Setting
    OMP_WAIT_POLICY would change how PyTorch itself runs; waiting here
    leaves every mover as it is and starts each sample on an idle process
    (oneTBB's workers, which also spin a little after reshaper's parallel
    moves, are waited for the same way).
    """
    start = time.perf_counter()
    while _other_threads_running() and time.perf_counter() - start < QUIET_TIMEOUT_S:
        time.sleep(0.0001)
    return time.perf_counter() - start


def calibrate(fn, sample_ns):
    fn()
    start = time.perf_counter_ns()
    fn()
    one = max(time.perf_counter_ns() - start, 1)
    return max(1, min(1000, sample_ns // one))


def time_all(benches, rounds, sample_us):
    sample_ns = int(sample_us * 1000)
    plans = []
    for b in benches:
        table = movers(b)
        reps = {}
        for name, (fn, threads) in table.items():
            torch.set_num_threads(threads)
            reps[name] = calibrate(fn, sample_ns)
        plans.append((b, table, reps))
    torch.set_num_threads(1)
    samples = [{name: [] for name in table} for _, table, _ in plans]
    rng = random.Random(0)
    waits = []
    for r in range(rounds):
        for i, (b, table, reps) in enumerate(plans):
            # A new random order within a chain's group every round, so each
            # mover follows every other as often (in expectation) and every
            # sample starts on a quiet process (wait_until_quiet).
            names = list(table)
            rng.shuffle(names)
            for name in names:
                waits.append(wait_until_quiet())
                fn, threads = table[name]
                if threads != torch.get_num_threads():
                    torch.set_num_threads(threads)
                k = reps[name]
                fn()  # untimed: the caches hold the input and output, as in the pipeline
                start = time.perf_counter_ns()
                for _ in range(k):
                    fn()
                samples[i][name].append((time.perf_counter_ns() - start) / k / 1000)
            torch.set_num_threads(1)
        print(f"round {r + 1}/{rounds} done", file=sys.stderr)
    waits.sort()
    print(f"waits for a quiet process before a sample: median {waits[len(waits) // 2] * 1e3:.2f} ms, "
          f"longest {waits[-1] * 1e3:.2f} ms, {sum(w >= QUIET_TIMEOUT_S for w in waits)} timed out", file=sys.stderr)
    return [{name: statistics.median(v) for name, v in s.items()} for s in samples]


# ---- report --------------------------------------------------------------------

def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", help=f"comma-separated torchvision model names (default {','.join(MODELS)})")
    p.add_argument("--batches", default="1,8", help="comma-separated batch sizes")
    p.add_argument("--rounds", type=int, help="interleaved rounds, medians over them (default 15)")
    p.add_argument("--sample-us", type=float, default=200, help="least time of one timed sample")
    p.add_argument("--json", metavar="OUT", help="write every row and the summary to OUT")
    p.add_argument("--exact-record", action="store_true", help="record with a real forward (slow), not shapes only")
    p.add_argument("--refresh", action="store_true", help="record again, ignoring the cache")
    p.add_argument("--worst", type=int, default=8, help="how many worst chains the summary names")
    p.add_argument("--quick", action="store_true", help="QUICK_MODELS and QUICK_ROUNDS (a smoke run)")
    args = p.parse_args()
    if args.models is None:
        args.models = ",".join(QUICK_MODELS if args.quick else MODELS)
    if args.rounds is None:
        args.rounds = QUICK_ROUNDS if args.quick else 15
    models = [m for m in args.models.split(",") if m]
    batches = [int(b) for b in args.batches.split(",") if b]

    torch.set_num_threads(1)
    chains = recorded(models, batches, args.exact_record, args.refresh)

    distinct, order = {}, []
    totals = {"chains": 0, "unclaimed": 0, "alias": 0, "moving": 0}
    for (name, batch), entries in chains.items():
        for c in entries:
            totals["chains"] += 1
            if "unclaimed" in c:
                totals["unclaimed"] += 1
                continue
            if c["alias"]:
                totals["alias"] += 1
                continue
            totals["moving"] += 1
            key = json.dumps([c["dtype"], c["in_shape"], c["in_stride"], c["steps"], c["out_stride"]])
            if key not in distinct:
                distinct[key] = {"chain": c, "where": {}}
                order.append(key)
            where = distinct[key]["where"]
            where[f"{name}/{batch}"] = where.get(f"{name}/{batch}", 0) + 1

    # Chains whose steps differ but whose compiled movement is the same (the
    # same input, output and plan: maxvit_t's two transposes that cancel,
    # either pair) are one row.
    benches, by_movement = [], {}
    for key in list(order):
        b = Bench(distinct[key]["chain"])
        c = b.c
        movement = json.dumps([c["dtype"], c["in_shape"], c["in_stride"], c["out_shape"], c["out_stride"], b.plan])
        if movement in by_movement:
            first = distinct[by_movement[movement]]["where"]
            for k, v in distinct[key]["where"].items():
                first[k] = first.get(k, 0) + v
            order.remove(key)
            continue
        by_movement[movement] = key
        benches.append(b)
    medians = time_all(benches, args.rounds, args.sample_us)

    rows = []
    for key, b, m in zip(order, benches, medians):
        t_threads = 1 if m["torch1"] <= m["torch2"] else 2
        tr_threads = 1 if m["torch1+read"] <= m["torch2+read"] else 2
        row = {"chain": _describe(b.c), "chain_steps": _steps(b.c), "dtype": b.c["dtype"], "lowering": b.c["lowering"], "plan": b.plan,
               "in_shape": b.c["in_shape"], "in_stride": b.c["in_stride"], "steps": b.c["steps"],
               "out_shape": b.c["out_shape"], "out_stride": b.c["out_stride"], "bytes": b.bytes,
               "where": distinct[key]["where"], "occurrences": sum(distinct[key]["where"].values()),
               "reshaper_us": m["reshaper"], "torch_us": m[f"torch{t_threads}"], "torch_threads": t_threads,
               "torch1_us": m["torch1"], "torch2_us": m["torch2"],
               "numpy_us": m.get("numpy"),
               "reshaper_read_us": m["reshaper+read"], "torch_read_us": m[f"torch{tr_threads}+read"],
               "torch_read_threads": tr_threads, "numpy_read_us": m.get("numpy+read")}
        row["vs_torch"] = row["reshaper_us"] / row["torch_us"]
        row["vs_numpy"] = row["reshaper_us"] / row["numpy_us"] if row["numpy_us"] else None
        row["read_vs_torch"] = row["reshaper_read_us"] / row["torch_read_us"]
        row["read_vs_numpy"] = row["reshaper_read_us"] / row["numpy_read_us"] if row["numpy_read_us"] else None
        rows.append(row)

    def r(v):
        return f"{v:5.2f}" if v is not None else "  n/a"

    def us(v):
        return f"{v:7.1f}" if v is not None else "    n/a"

    print(f"torch {torch.__version__} (threads 1 and 2, the faster counts), numpy {np.__version__}, "
          f"reshaper {reshaper.version()}; {platform.machine()}, {os.cpu_count()} CPUs; "
          f"medians of {args.rounds} interleaved rounds; times in us per call")
    print(f"{totals['chains']} chains in {len(chains)} model/batch traces: {totals['unclaimed']} left to PyTorch, "
          f"{totals['alias']} aliases (views, nothing moved), {totals['moving']} moving data, "
          f"{len(rows)} distinct")
    head = (f"{'chain':58} {'type':7} {'MB':>6} {'where':24} | {'reshaper':>8} {'torch':>8} {'numpy':>8} "
            f"{'r/t':>5} {'r/n':>5} | {'+read: r':>8} {'t':>8} {'n':>8} {'r/t':>5} {'r/n':>5}")
    print(head)
    for row in rows:
        where = ", ".join(f"{k} x{v}" for k, v in row["where"].items())
        t_mark = f"{row['torch_us']:7.1f}" + ("*" if row["torch_threads"] == 2 else " ")
        tr_mark = f"{row['torch_read_us']:7.1f}" + ("*" if row["torch_read_threads"] == 2 else " ")
        print(f"{row['chain'][:58]:58} {row['dtype']:7} {row['bytes'] / 1e6:6.2f} {where[:24]:24} | "
              f"{us(row['reshaper_us']):>8} {t_mark:>8} {us(row['numpy_us']):>8} {r(row['vs_torch'])} "
              f"{r(row['vs_numpy'])} | {us(row['reshaper_read_us']):>8} {tr_mark:>8} {us(row['numpy_read_us']):>8} "
              f"{r(row['read_vs_torch'])} {r(row['read_vs_numpy'])}")
        print(f"    {row['chain'] if len(row['chain']) > 58 else ''} steps {row['chain_steps']}"
              + (f"; where: {where}" if len(where) > 24 else ""))
    print("(* PyTorch at 2 threads was the faster; r/t = reshaper / PyTorch, r/n = reshaper / numpy)")

    def count(key, limit=1.0):
        return sum(1 for row in rows if row[key] is not None and row[key] < limit)

    def median(key):
        v = [row[key] for row in rows if row[key] is not None]
        return statistics.median(v) if v else None

    numpy_rows = sum(1 for row in rows if row["vs_numpy"] is not None)
    summary = {
        "distinct_chains": len(rows), "occurrences": totals["moving"], "aliases": totals["alias"],
        "unclaimed": totals["unclaimed"],
        "faster_than_torch": count("vs_torch"), "faster_than_torch_with_read": count("read_vs_torch"),
        "faster_than_numpy": count("vs_numpy"), "numpy_compared": numpy_rows,
        "faster_than_numpy_with_read": count("read_vs_numpy"),
        "slower_than_torch_by_1_2x": sum(1 for row in rows if row["vs_torch"] > 1.2),
        "median_vs_torch": median("vs_torch"), "median_read_vs_torch": median("read_vs_torch"),
        "median_vs_numpy": median("vs_numpy"), "median_read_vs_numpy": median("read_vs_numpy"),
        "occurrences_faster_than_torch": sum(row["occurrences"] for row in rows if row["vs_torch"] < 1),
    }
    print()
    print(f"reshaper faster than PyTorch on {summary['faster_than_torch']} of {len(rows)} distinct chains "
          f"({summary['occurrences_faster_than_torch']} of {totals['moving']} occurrences), "
          f"with the read {summary['faster_than_torch_with_read']}; more than 1.2x slower on "
          f"{summary['slower_than_torch_by_1_2x']}; median reshaper/PyTorch {r(summary['median_vs_torch'])}, "
          f"with the read {r(summary['median_read_vs_torch'])}")
    print(f"reshaper faster than numpy on {summary['faster_than_numpy']} of {numpy_rows} chains numpy matches "
          f"bit for bit, with the read {summary['faster_than_numpy_with_read']}; median reshaper/numpy "
          f"{r(summary['median_vs_numpy'])}, with the read {r(summary['median_read_vs_numpy'])}")
    worst = sorted(rows, key=lambda row: -row["vs_torch"])[:args.worst]
    print(f"worst {len(worst)} against PyTorch (move alone):")
    for row in worst:
        where = ", ".join(f"{k} x{v}" for k, v in row["where"].items())
        print(f"  {row['chain']} ({row['chain_steps']}) {row['dtype']} {row['bytes'] / 1e6:.2f} MB "
              f"({where}; {row['lowering']}): "
              f"reshaper {row['reshaper_us']:.1f} us, PyTorch {row['torch_us']:.1f} us "
              f"({row['torch_threads']} thread{'s' if row['torch_threads'] == 2 else ''}), "
              f"numpy {us(row['numpy_us']).strip()} us; {row['vs_torch']:.2f}x, with the read "
              f"{row['reshaper_read_us']:.1f} / {row['torch_read_us']:.1f} us = {row['read_vs_torch']:.2f}x")
        print(f"    plan: {row['plan']}")
    summary["worst"] = [f"{row['chain']} ({row['chain_steps']}) {row['dtype']}" for row in worst]
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"models": models, "batches": batches, "rounds": args.rounds, "torch": torch.__version__, "numpy": np.__version__,
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "totals": totals,
                       "summary": summary, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
