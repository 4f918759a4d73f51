#!/usr/bin/env bash
# Prepares, on this (CPU) machine, everything the GPU check needs, so that tools/gpu-check.sh on a
# lent GPU machine builds and installs nothing. Such a machine starts bare, reaches no package
# registry (so no apt-get of OpenBLAS, oneDNN, fmt, GoogleTest...) and is lent for minutes, not
# for a 2-core build; it does have the CUDA toolkit (same major version as here) with cuBLAS.
#
#   tools/gpu-bundle.sh [BUILD_DIR]     builds Ember with CUDA (Release, sm_90, tests, benchmarks)
#                                       in BUILD_DIR (default build/gpu) and packs .gpu-bundle/
#   tools/gpu-bundle.sh --checksum      prints the source checksum a bundle is matched against
#   tools/gpu-bundle.sh --hashes        prints the per-file hashes behind it
#
# .gpu-bundle/ (git-ignored; name it in the device tool's `carry`) holds
#   bundle.tar.xz   the test programs, ember_compare_cuda, libember, and the shared libraries they
#                   load that a CUDA machine may lack, under BUILD_DIR/bundle-lib (cuBLAS and cuDNN
#                   are not among them: the machine has them, and they are 570 MB and 500 MB; ldd
#                   sees only cuDNN's small front library, which loads the rest at run time)
#   manifest        the commit, the source checksum, the build directory and the CUDA version
#   sources.sha256  the per-file hashes behind the checksum (gpu-check names the files that differ)
# tools/gpu-check.sh uses the bundle when its checksum matches the tree it runs in.
set -euo pipefail
cd "$(dirname "$0")/.."

# The files a build depends on (docs excluded), each hashed, in a fixed order. Computed the same way
# on the GPU machine, which receives the working tree without .git, so it cannot ask git.
source_hashes() {
  find CMakeLists.txt cmake include src kernels tests benchmarks -type f \
    ! -path '*/__pycache__/*' ! -name '*.pyc' ! -name '*.md' -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum
}
source_checksum() { source_hashes | sha256sum | cut -d' ' -f1; }
case "${1:-}" in
  --checksum) source_checksum; exit 0 ;;
  --hashes) source_hashes; exit 0 ;;  # per file, to name what differs from a bundle
esac

build=${1:-build/gpu}
arch=${CUDA_ARCH:-90}
export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "gpu-bundle: no nvcc (CUDA toolkit) here" >&2; exit 1; }
tools/install-deps.sh
rm -f .gpu-bundle/manifest
# Hashed before the build: an edit made while it runs must make the bundle stale, not hide in it.
hashes=$(source_hashes)

echo "=== gpu-bundle: configure + build $build (CUDA, sm_$arch) [${SECONDS}s] ==="
# EMBER_NATIVE=OFF: the GPU machine's processor is not this one.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_USE_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$arch" -DEMBER_NATIVE=OFF -DEMBER_BUILD_TESTS=ON \
  -DEMBER_BUILD_BENCHMARKS=ON -DEMBER_BUILD_EXAMPLES=OFF >/dev/null
tests=$(sed -n 's/^build \(test_[a-z0-9_]*\): phony.*/\1/p' "$build/build.ninja" | sort -u)
# One build at a time on the 2-core machines (DEVELOPERS.md); the lock is shared with other builds.
# shellcheck disable=SC2086
flock /tmp/ember-build.lock cmake --build "$build" -j"$(nproc)" --target ember_compare_cuda $tests

echo "=== gpu-bundle: pack [${SECONDS}s] ==="
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$build/tests" "$stage/$build/benchmarks/compare" "$stage/$build/bundle-lib"
cp -a "$build"/libember.so* "$stage/$build/"
find "$build/tests" -maxdepth 1 -type f -name 'test_*' -perm -u+x -exec cp -a {} "$stage/$build/tests/" \;
cp -a "$build/benchmarks/compare/ember_compare_cuda" "$stage/$build/benchmarks/compare/"

# Every shared library the programs load, except the C/C++ runtime (the GPU machine's is the same
# or newer) and the CUDA libraries the toolkit there provides (cuBLAS, cuSOLVER with the cuSPARSE
# and nvJitLink it loads, cuDNN...: 1 GB together, while the device tool carries 64 MiB). Their
# names go in the manifest; gpu-check finds each on the machine. libcudart is small and travels,
# so the runtime matches the one the kernels were built with.
{
  for exe in "$stage/$build"/tests/test_* "$stage/$build/benchmarks/compare/ember_compare_cuda"; do
    LD_LIBRARY_PATH="$build" ldd "$exe"
  done
} >"$stage/ldd.txt"
if grep -q "not found" "$stage/ldd.txt"; then
  echo "gpu-bundle: a program needs a library not found here:" >&2
  grep "not found" "$stage/ldd.txt" >&2
  exit 1
fi
machine_libs=""
while read -r name path; do
  case "$name" in
    libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | libstdc++.so* | libgcc_s.so* | \
      ld-linux* | libember.so*) continue ;;
    libcublas* | libcudnn* | libcusolver* | libcusparse* | libnvJitLink* | libcufft* | libcurand* | \
      libnccl*)
      machine_libs="$machine_libs $name"
      continue
      ;;
  esac
  cp -L "$path" "$stage/$build/bundle-lib/$name"
done < <(awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' "$stage/ldd.txt" | sort -u)
ls "$stage/$build/bundle-lib"
# Debian 12's libraries need glibc 2.36 at most; say so if a newer symbol version crept in.
objdump -T "$stage/$build"/bundle-lib/* "$stage/$build"/libember.so.*.* 2>/dev/null |
  grep -o 'GLIBC_[0-9.]*' | sort -V -u | tail -n 1 | sed 's/^/newest glibc symbol needed: /'

mkdir -p .gpu-bundle
XZ_OPT="-6 -T$(nproc)" tar -C "$stage" -cJf .gpu-bundle/bundle.tar.xz "$build"
if [ "$hashes" != "$(source_hashes)" ]; then
  echo "gpu-bundle: sources changed during the build; run it again" >&2
  exit 1
fi
echo "$hashes" >.gpu-bundle/sources.sha256
{
  echo "commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"
  echo "checksum=$(echo "$hashes" | sha256sum | cut -d' ' -f1)"
  echo "build=$build"
  echo "cuda=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
  echo "arch=$arch"
  echo "machine_libs=${machine_libs# }"
  # The cuDNN major version the build linked; gpu-check looks for the same on the GPU machine.
  grep -h -m1 '^#define CUDNN_MAJOR' "$(dirname "$(command -v nvcc)")/../include/cudnn_version.h" \
    /usr/local/include/cudnn_version.h /usr/include/cudnn_version.h 2>/dev/null |
    head -n 1 | awk '{print "cudnn=" $3}'
} >.gpu-bundle/manifest
cat .gpu-bundle/manifest
du -h .gpu-bundle/bundle.tar.xz
echo "=== gpu-bundle: done [${SECONDS}s]; on the GPU machine: carry .gpu-bundle, run tools/gpu-check.sh ==="
