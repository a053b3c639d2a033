#!/bin/sh
# Sets reshaper up on a Debian (bookworm) machine: installs the toolchain and
# the libraries from Debian's packages when any is missing (a quick no-op when
# all are there), then configures and builds into build/.
#   scripts/setup.sh            build the library, the driver and the tests
#   BUILD_TYPE=Debug scripts/setup.sh
set -eu

cd "$(dirname "$0")/.."

# oneDNN's CMake package looks for OpenCL (its GPU runtime): ocl-icd-opencl-dev.
# The sanitizer runs (scripts/sanitize.sh) use g++'s own runtimes; the
# fuzzers (scripts/fuzz.sh) need clang and its libFuzzer: libclang-rt-14-dev.
# ONNX models in (src/onnx): libonnx-dev and libprotobuf-dev (whose headers
# libonnx-dev's include but does not pull in); their tests: libonnx-testdata
# (ONNX's node tests), python3-onnx, python3-torch and python3-torchvision
# (torchvision models exported with torch.onnx.export, scripts/run_model.sh);
# libtorch-dev: torch's C++ headers, for the Python module's torch bridge
# (src/python/torch_bridge.hpp: torch tensors read and made through torch's C++ API).
# dims_t (src/core/dims.hpp) is absl::InlinedVector: libabsl-dev.
PACKAGES="g++ make cmake ninja-build pkg-config git ca-certificates \
libdnnl-dev ocl-icd-opencl-dev libtbb-dev nlohmann-json3-dev rapidjson-dev libgtest-dev libbenchmark-dev \
clang libclang-rt-14-dev python3-dev pybind11-dev python3-numpy python3-pytest \
libonnx-dev libprotobuf-dev libonnx-testdata python3-onnx python3-torch python3-torchvision libtorch-dev \
libabsl-dev libboost-dev"

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "setup: run as root or install sudo" >&2; exit 1; }
        SUDO=sudo
    fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -q --no-install-recommends $missing
fi

BUILD_TYPE="${BUILD_TYPE:-Release}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" ${CMAKE_ARGS:-}
cmake --build build --parallel "$(nproc)"
