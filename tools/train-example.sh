#!/usr/bin/env bash
# Installs dependencies, builds Ember (release) and trains the default example on Fashion-MNIST.
# Usage: tools/train-example.sh [epochs]
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_USE_CUDA=OFF >/dev/null
cmake --build build/release -j"$(nproc)" --target train_fashion_mnist
build/release/examples/train_fashion_mnist /usr/share/datasets/fashion-mnist "${1:-1}"
