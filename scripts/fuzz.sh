#!/bin/sh
# libFuzzer targets, built with clang (-fsanitize=fuzzer,address,undefined)
# into build-fuzz/ (FUZZ_BUILD_DIR to change it).
#   scripts/fuzz.sh                   the target names, one per line
#   scripts/fuzz.sh TARGET SECONDS    build TARGET, run it that long on its
#                                     corpus; non-zero exit on a finding
# The corpus (build-fuzz/corpus/TARGET) starts from the seeds (graph files
# under tests/ and examples/, and ../shared/corpus) and keeps what the runs
# add; findings are written to build-fuzz/findings/. Extra libFuzzer
# arguments may follow SECONDS.
set -eu

TARGETS="fuzz_graph_file
fuzz_shape_inference
fuzz_execute
fuzz_runtime_shape
fuzz_builder"

if [ $# -eq 0 ]; then
    echo "$TARGETS"
    exit 0
fi
target="$1"
seconds="${2:?usage: scripts/fuzz.sh [TARGET SECONDS]}"
shift 2
echo "$TARGETS" | grep -qx "$target" || { echo "fuzz: unknown target '$target'" >&2; exit 2; }

cd "$(dirname "$0")/.."
src="$(pwd)"
dir="${FUZZ_BUILD_DIR:-$src/build-fuzz}"
CC=clang CXX=clang++ cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DRESHAPER_BUILD_FUZZERS=ON -DRESHAPER_BUILD_TESTS=OFF >/dev/null
cmake --build "$dir" --parallel "$(nproc)" --target "$target"

corpus="$dir/corpus/$target"
mkdir -p "$corpus" "$dir/findings"
if [ "$target" = fuzz_graph_file ]; then
    find "$src/tests" "$src/examples" "$src/../shared/corpus" -name '*.json' 2>/dev/null |
        while read -r f; do cp "$f" "$corpus/seed_$(echo "$f" | md5sum | cut -c1-16).json"; done
fi

export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# One worker thread: runs stay reproducible and the machine's other cores free.
export OMP_NUM_THREADS=1
"$dir/bin/$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 -max_len=65536 \
    -dict="$src/tests/fuzz/graph.dict" -artifact_prefix="$dir/findings/$target-" -print_final_stats=1 \
    "$@" "$corpus"
