#!/usr/bin/python3
"""Data-movement time per torchvision model, eager PyTorch against
reshaper.torch (docs/python.md, "PyTorch: reshaper.torch").

For each model (weights=None, eval, no grad, batch 1):
- movement: the summed time of the data-movement calls alone, timed call by
  call inside one run of the traced graph: eager runs the ATen calls of the
  make_fx graph (view, permute, clone, ...), reshaper runs its partitions (one
  per maximal chain: an as_strided view for an alias, a kernel into an
  empty_strided output otherwise). Median over --repeats runs.
- model: the whole forward: eager `model(x)`, the make_fx graph as traced
  (what the pass starts from) and the compiled module's call (median over
  --repeats runs).
- micro: the per-call cost of one alias chain and one 4 KiB move against
  PyTorch's own view / permute().contiguous() on the same tensors.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/torch_pass_bench.py [--repeats N] [MODEL ...]
"""
import argparse
import statistics
import time

import torch
import torchvision
from torch.fx.experimental.proxy_tensor import make_fx

import reshaper.torch as rtorch

# name: (constructor kwargs, input side)
MODELS = {
    "shufflenet_v2_x1_0": ({}, 224),
    "swin_t": ({}, 224),
    "convnext_tiny": ({}, 224),
    "vit_b_16": ({"image_size": 112}, 112),  # 50 tokens: the reference BLAS makes 224 a minute a run
    "maxvit_t": ({}, 224),
    "mobilenet_v3_small": ({}, 224),
}


class CallTimer(torch.fx.Interpreter):
    """Runs a graph, summing the time of the calls `selected(node)` picks."""

    def __init__(self, gm, selected):
        super().__init__(gm)
        self.selected = selected
        self.total = 0.0
        self.calls = 0

    def run_node(self, n):
        if not self.selected(n):
            return super().run_node(n)
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        start = time.perf_counter()
        out = n.target(*args, **kwargs)
        self.total += time.perf_counter() - start
        self.calls += 1
        return out


def movement_time(gm, selected, x, repeats):
    totals, calls = [], 0
    with torch.no_grad():
        for _ in range(repeats):
            timer = CallTimer(gm, selected)
            timer.run(x)
            totals.append(timer.total)
            calls = timer.calls
    return statistics.median(totals), calls


def forward_time(fn, x, repeats):
    times = []
    with torch.no_grad():
        fn(x)
        for _ in range(repeats):
            start = time.perf_counter()
            fn(x)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def is_eager_movement(n):
    return rtorch._is_movement(n)


def is_partition(n):
    return n.op == "call_function" and n.target is rtorch._run_chain


def bench_model(name, repeats):
    kwargs, side = MODELS[name]
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None, **kwargs).eval()
    x = torch.randn(1, 3, side, side)
    start = time.perf_counter()
    compiled = rtorch.compile(model, (x,))
    compile_s = time.perf_counter() - start
    with torch.no_grad():
        eager_graph = make_fx(model)(x)
        assert torch.equal(compiled(x), model(x)), name
    s = rtorch.summary(compiled)
    eager_mv, eager_calls = movement_time(eager_graph, is_eager_movement, x, repeats)
    ours_mv, ours_calls = movement_time(compiled.graph_modules[0], is_partition, x, repeats)
    eager_fw = forward_time(model, x, repeats)
    traced_fw = forward_time(eager_graph, x, repeats)
    ours_fw = forward_time(compiled, x, repeats)
    print(f"{name:20s} {side:4d} {eager_calls:5d} {eager_mv * 1e3:9.3f} {ours_calls:5d} {ours_mv * 1e3:9.3f} "
          f"{eager_mv / ours_mv:6.2f}x {eager_fw * 1e3:10.1f} {traced_fw * 1e3:10.1f} {ours_fw * 1e3:10.1f} "
          f"{compile_s:8.1f}   "
          f"claimed {s['claimed']}/{s['movement_calls']}, alias {s['alias']}, kernel {s['kernel']}, "
          f"reorder {s['reorder']}", flush=True)


def per_call(fn, n=20000):
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - start) / n)
    return best


def micro():
    """One chain's call against PyTorch's own calls on the same tensor."""
    class Heads(torch.nn.Module):
        def __init__(self, move):
            super().__init__()
            self.move = move

        def forward(self, x):
            h = (x + 0).view(2, 4, 8, 16)
            if self.move:
                h = h.permute(0, 2, 1, 3).contiguous()
            return h * 1

    x = torch.randn(2, 4, 128)  # 4 KiB of f32
    for move, label, eager in ((False, "alias (view)", lambda h: h.view(2, 4, 8, 16)),
                               (True, "4 KiB move (view+permute+contiguous)",
                                lambda h: h.view(2, 4, 8, 16).permute(0, 2, 1, 3).contiguous())):
        compiled = rtorch.compile(Heads(move).eval(), (x,))
        gm = compiled.graph_modules[0]
        (node,) = [n for n in gm.graph.nodes if is_partition(n)]
        chain = getattr(gm, node.args[0].target)
        h = x + 0
        ours = per_call(lambda: rtorch._run_chain(chain, h))
        theirs = per_call(lambda: eager(h))
        print(f"{label:40s} reshaper {ours * 1e6:6.2f} us   PyTorch {theirs * 1e6:6.2f} us")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", default=list(MODELS))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}; times in ms, median of {args.repeats}")
    print(f"{'model':20s} {'side':>4s} {'eager':>5s} {'mv ms':>9s} {'parts':>5s} {'mv ms':>9s} {'gain':>7s} "
          f"{'eager fwd':>10s} {'traced fwd':>10s} {'ours fwd':>10s} {'compile s':>9s}")
    for name in args.models:
        bench_model(name, args.repeats)
    micro()


if __name__ == "__main__":
    main()
