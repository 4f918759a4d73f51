#!/usr/bin/env bash
# Installs what building and testing Ember needs, from Debian 12 packages, and nothing that is
# already there (idempotent). Usage: tools/install-deps.sh [--bench] [--golden]
#   --bench   also LibTorch (libtorch-dev), for the side-by-side benchmark runner
#   --golden  also PyTorch (python3-torch), to regenerate tests/golden/*.golden
set -euo pipefail

# ocl-icd-opencl-dev: Debian's oneDNN CMake package looks for OpenCL (only a Recommends of
# libdnnl-dev, which --no-install-recommends skips; without it configuring fails).
packages=(build-essential cmake ninja-build pkg-config
  libopenblas-dev libdnnl-dev ocl-icd-opencl-dev libfmt-dev zlib1g-dev libsleef-dev libeigen3-dev
  libgloo-dev libgtest-dev libgmock-dev libbenchmark-dev dataset-fashion-mnist fortunes)
for arg in "$@"; do
  case "$arg" in
    --bench) packages+=(libtorch-dev) ;;
    --golden) packages+=(python3-torch) ;;
    *) echo "install-deps: unknown option $arg" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
