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
# Built at -O1 with line tables (-g1), only the targets the run needs. Needs g++
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
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -D$option=ON -DRESHAPER_SANITIZER_TESTS=OFF >/dev/null
# shellcheck disable=SC2086
cmake --build "$dir" --parallel "$(nproc)" --target $targets
built=$(date +%s)
echo "sanitize $kind: built in $((built - start)) s"

# oneDNN, TBB and OpenMP are not instrumented: ASan still sees every access
# of ours; TSan ignores what those libraries do themselves (suppressions).
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:history_size=4:suppressions=$src/tests/unit/backend_tsan.supp"
export LSAN_OPTIONS="suppressions=$src/tests/unit/lsan.supp:print_suppressions=0"

# Every test binary runs as $shards gtest shards (gtest's own sharding:
# every test runs in exactly one shard), $jobs of them at a time, taken in
# turn from one queue of all the binaries' shards (xargs -P): the tests are
# mostly single-threaded, and a few long tests make up much of some binaries'
# time, so whole binaries (or one shard per core) would leave a core idle.
# Each shard's output goes to its own log; a line as each shard ends, then
# every log whole under a header naming its shard; any failing shard fails
# the run, named as binary[shard/total].
shards="${SANITIZE_SHARDS:-$((4 * $(nproc)))}"
jobs="${SANITIZE_JOBS:-$(nproc)}"
SANITIZE_LOGS="$dir/sanitize-logs"
export SANITIZE_LOGS
rm -rf "$SANITIZE_LOGS"
mkdir -p "$SANITIZE_LOGS"
# shellcheck disable=SC2016 # expanded by the sh that xargs starts
shard_job='binary="$1" shard="$2" total="$3" filter="$4"
name="$(basename "$binary")"
log="$SANITIZE_LOGS/$name.$shard"
start=$(date +%s)
status=0
GTEST_TOTAL_SHARDS="$total" GTEST_SHARD_INDEX="$shard" "$binary" --gtest_filter="$filter" --gtest_brief=1 \
    >"$log.log" 2>&1 || status=$?
echo "$status" >"$log.status"
echo "sanitize: $name [shard $((shard + 1))/$total]: exit $status in $(($(date +%s) - start)) s"'

# BINARY:FILTER, one a line.
if [ "$kind" = address ]; then
    runs=""
    for t in core_tests ops_tests layout_tests kernels_tests partition_tests backend_tests api_tests driver_tests onnx_tests; do
        runs="$runs$t:*
"
    done
else
    # The last: graph files whose ops are read on a second thread (io/graph_json.cpp).
    runs="backend_tests:backend_cache_concurrency.*
api_tests:*Thread*:*Concurren*
core_tests:GraphJsonStream.*
"
fi

printf '%s' "$runs" | while IFS=: read -r t filter; do
    i=0
    while [ "$i" -lt "$shards" ]; do
        printf '%s\0%s\0%s\0%s\0' "$dir/bin/$t" "$i" "$shards" "$filter"
        i=$((i + 1))
    done
done | xargs -0 -n 4 -P "$jobs" sh -c "$shard_job" sh

failed=""
for t in $(printf '%s' "$runs" | cut -d: -f1); do
    i=0
    while [ "$i" -lt "$shards" ]; do
        log="$SANITIZE_LOGS/$t.$i"
        status="$(cat "$log.status" 2>/dev/null || echo "none")"
        echo "sanitize $kind: $t [shard $((i + 1))/$shards]: exit $status"
        cat "$log.log"
        [ "$status" = 0 ] || failed="$failed ${t}[shard $((i + 1))/$shards]"
        i=$((i + 1))
    done
done
echo "sanitize $kind: ran in $(($(date +%s) - built)) s"
if [ -n "$failed" ]; then
    echo "sanitize $kind: FAILED:$failed" >&2
    exit 1
fi
echo "sanitize $kind: no report"
