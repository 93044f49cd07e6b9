#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages opengpa needs to build and test; with
# "demo", only what building the library and the command needs
# (scripts/demo.sh).  Run as root (or with sudo available).  Installs nothing
# that is present.  Every package a script or test calls is named here, with
# --no-install-recommends: nothing is left to Recommends or to what a machine
# happens to have (scripts/fresh-root.sh checks that on a bare Debian 12).
set -euo pipefail

packages=(
  build-essential   # gcc, make, libc headers
  meson ninja-build pkg-config python3
  libdrm-dev        # the panfrost backend's DRM headers
  libpfm4-dev       # optional: CPU PMU events by name in the perf backend
)
if [ "${1:-}" != demo ]; then
  packages+=(
    libcmocka-dev     # the test suite
    binutils          # nm, for the exported-symbol test
    cmake             # the install test builds a find_package(OpenGPA) client
    debhelper lintian # the Debian packages (scripts/test-debian.sh)
    dh-python         # python3-opengpa's dependencies and byte-compiling (debian/control)
    git man-db        # test-debian.sh: git ls-files for the tree, man -l on the pages
    chromium          # opens opengpa stat --html's report headless (tests/tools/test_timeline.py)
    protobuf-compiler # protoc, decodes opengpa stat --perfetto files against Perfetto's schema (tests/tools/test_timeline.py)
    linux-perf        # the real perf stat, beside opengpa stat (tests/tools/test_perf_side_by_side.py)
    libhsa-runtime-dev  # hsa.h, to compile GPUPerfAPI-HSA.h as an HSA client does
    clang libclang-rt-14-dev # libFuzzer, for scripts/fuzz.sh (CI runs it)
    valgrind          # callgrind, for bench/apictx/callgrind_vk.py (instructions per Vulkan sample)
    # Real API implementations for contexts on GL, GLES and OpenCL (tests/apictx,
    # examples/gl-frame-timing): Mesa's EGL and llvmpipe, headless, and pocl.
    libegl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri
    ocl-icd-opencl-dev pocl-opencl-icd
    # Vulkan contexts (tests/apictx/test_vk_gpa.c, lib/apictx/vk.c): Mesa's
    # lavapipe (CPU Vulkan driver), the loader, its headers (tests and
    # examples only: the library itself needs none) and the Khronos
    # validation layer every Vulkan test runs under.
    mesa-vulkan-drivers libvulkan1 libvulkan-dev vulkan-validationlayers
    # The Python package's tests (python/meson.build runs /usr/bin/pytest-3);
    # NumPy for its optional results_array(); SciPy (tests only) to check
    # opengpa compare's statistics.  Debian's, not PyPI's.
    python3-pytest python3-numpy python3-scipy
    # The Prometheus server and promtool: tests/tools/test_prometheus.py runs
    # /usr/bin/prometheus itself (temporary config, storage and port)
    # against opengpa stat --listen; the package's own service is not used.
    prometheus
  )
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
if ! "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
  "${as_root[@]}" apt-get update
  "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
