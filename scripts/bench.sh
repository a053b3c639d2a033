#!/bin/sh
# Measures reshaper's data movement on this machine against a streaming-store
# copy, memcpy, oneDNN's reorder, numpy and PyTorch (DRAM-sized and in-cache
# moves, high-rank permutations, per-call costs, large graphs, real-model
# chains), and writes docs/performance.md, docs/performance.png and README.md's
# headline table. CI does not run it.
#   scripts/bench.sh            everything
#   QUICK=1 scripts/bench.sh    fewer cases and repetitions (a smoke run)
set -eu
cd "$(dirname "$0")/.."
started=$(date +%s)

# The peers and the plot come from Debian's packages; GNU time measures the
# large graphs' peak memory.
missing=""
for p in python3-numpy python3-matplotlib python3-torch time; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "bench: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q && apt-get install -y -q --no-install-recommends $missing
fi

# A build of its own, so the test build's options stay as they are.
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DRESHAPER_BUILD_BENCHMARKS=ON \
      -DRESHAPER_BUILD_TESTS=OFF >/dev/null
cmake --build build-bench --parallel "$(nproc)" --target movement_bench backend_bench api_bench reshaper-run make_large_graph \
      high_rank_bench reshaper_python

# Repeats of each measurement, movement_bench's least time per repeat, and
# the report's subsets (bench_report.py --quick). On this project's 2-core
# EPYC, loaded by other developers' builds (2026-11-27, real-time priority),
# the whole run took 14.7 minutes (movement_bench 4.5, backend_bench and
# api_bench 2, the driver's cases, peers and large graphs 6, the high-rank
# cases 0.7, the model chains 1.6) and 4.2 minutes with QUICK=1.
reps=5
min_time=0.1
quick=""
if [ "${QUICK:-0}" = 1 ]; then
    reps=2
    min_time=0.05
    quick=--quick
fi
# On a shared machine other work takes the cores in turn with the movers
# (on this project's 2-core machine, compiles halved the memory-bound
# figures). As root, the measurements run at real-time priority, so that
# work waits instead; the report says which it was.
RT=""
if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null 2>&1; then
    RT="chrt -f 10"
    export RESHAPER_BENCH_PRIORITY="real-time priority (chrt -f 10)"
fi
out=build-bench/results
mkdir -p "$out"
# Medians of interleaved repeats: every mover of every case runs once per
# round, in random order, so a noisy neighbour hits them all alike.
$RT build-bench/bin/movement_bench --benchmark_repetitions=$reps --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_min_time=$min_time \
    --benchmark_format=json --benchmark_out="$out/movement.json" --benchmark_out_format=json >/dev/null
$RT build-bench/bin/backend_bench --benchmark_repetitions=$reps --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_format=json \
    --benchmark_out="$out/backend.json" --benchmark_out_format=json >/dev/null
$RT build-bench/bin/api_bench --benchmark_repetitions=$reps --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_format=json \
    --benchmark_out="$out/api.json" --benchmark_out_format=json >/dev/null
# Debian's interpreter: the one the packages above install into. The report
# runs the driver's perf mode, the large graphs and the Python benchmarks
# (high_rank_bench.py, python_call_bench.py, model_chains_bench.py) itself.
PYTHONPATH="$PWD/build-bench/python${PYTHONPATH:+:$PYTHONPATH}" \
$RT "${PYTHON:-/usr/bin/python3}" scripts/bench_report.py --results "$out" --driver build-bench/bin/reshaper-run --reps $reps \
    --large-graph-maker build-bench/bin/make_large_graph --high-rank-bench build-bench/bin/high_rank_bench \
    $quick --started "$started" \
    --markdown docs/performance.md --plot docs/performance.png --readme README.md
echo "bench: wrote docs/performance.md, docs/performance.png and README.md's headline table in $(( ($(date +%s) - started) / 60 )) minutes"
