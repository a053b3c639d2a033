#!/bin/sh
# Builds reshaper under a sanitizer in its own build directory and runs the
# tests there; any sanitizer report fails (exit non-zero). ctest runs both
# (tests sanitize_address and sanitize_thread, label "sanitizer"), so CI's
# one command covers them.
#   scripts/sanitize.sh address [BUILD_DIR]  ASan + UBSan (halt on the first
#       report, no recovery): every test of every unit-test binary, with
#       reshaper-run instrumented too for the driver tests
#   scripts/sanitize.sh thread [BUILD_DIR]   TSan: the concurrency tests (the
#       compiled-partition cache, the API from threads, the pipelined reader)
# Built at -O1 with debug info, only the targets the run needs. Needs g++
# (its libasan, libubsan and libtsan), which scripts/setup.sh installs.
set -eu

kind="${1:?usage: scripts/sanitize.sh address|thread [BUILD_DIR]}"
cd "$(dirname "$0")/.."
src="$(pwd)"

case "$kind" in
address)
    option=RESHAPER_SANITIZE_ADDRESS
    targets="core_tests ops_tests layout_tests kernels_tests partition_tests backend_tests api_tests driver_tests onnx_tests reshaper-run"
    ;;
thread)
    option=RESHAPER_SANITIZE_THREAD
    targets="backend_tests api_tests core_tests"
    ;;
*)
    echo "sanitize: unknown kind '$kind' (address or thread)" >&2
    exit 2
    ;;
esac
dir="${2:-build-sanitize-$kind}"

start=$(date +%s)
cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -D$option=ON -DRESHAPER_SANITIZER_TESTS=OFF >/dev/null
# shellcheck disable=SC2086
cmake --build "$dir" --parallel "$(nproc)" --target $targets
built=$(date +%s)
echo "sanitize $kind: built in $((built - start)) s"

# oneDNN, TBB and OpenMP are not instrumented: ASan still sees every access
# of ours; TSan ignores what those libraries do themselves (suppressions).
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$src/tests/unit/backend_tsan.supp"
export LSAN_OPTIONS="suppressions=$src/tests/unit/lsan.supp:print_suppressions=0"

# Each gtest binary runs as $shards shards side by side (gtest's own sharding:
# every test runs in exactly one shard), one per core: the tests are mostly
# single-threaded, so a binary run whole leaves the other cores idle. Each
# shard's output is kept apart and printed whole when it ends, under a header
# naming the shard; any failing shard fails the run, named as
# binary[shard/total].
shards="${SANITIZE_SHARDS:-$(nproc)}"
logs="$dir/sanitize-logs"
mkdir -p "$logs"
failed=""
run() {
    binary="$1"
    shift
    name="$(basename "$binary")"
    t0=$(date +%s)
    pids=""
    i=0
    while [ "$i" -lt "$shards" ]; do
        GTEST_TOTAL_SHARDS="$shards" GTEST_SHARD_INDEX="$i" \
            "$binary" "$@" --gtest_brief=1 >"$logs/$name.$i.log" 2>&1 &
        pids="$pids $!"
        i=$((i + 1))
    done
    i=0
    for pid in $pids; do
        status=0
        wait "$pid" || status=$?
        echo "sanitize $kind: $name $* [shard $((i + 1))/$shards]: exit $status"
        cat "$logs/$name.$i.log"
        [ "$status" -eq 0 ] || failed="$failed ${name}[shard $((i + 1))/$shards]"
        i=$((i + 1))
    done
    echo "sanitize $kind: $name ran in $(($(date +%s) - t0)) s"
}
if [ "$kind" = address ]; then
    for t in core_tests ops_tests layout_tests kernels_tests partition_tests backend_tests api_tests driver_tests onnx_tests; do
        run "$dir/bin/$t"
    done
else
    run "$dir/bin/backend_tests" --gtest_filter='backend_cache_concurrency.*'
    run "$dir/bin/api_tests" --gtest_filter='*Thread*:*Concurren*'
    # Graph files whose ops are read on a second thread (io/graph_json.cpp).
    run "$dir/bin/core_tests" --gtest_filter='GraphJsonStream.*'
fi
echo "sanitize $kind: ran in $(($(date +%s) - built)) s"
if [ -n "$failed" ]; then
    echo "sanitize $kind: FAILED:$failed" >&2
    exit 1
fi
echo "sanitize $kind: no report"
