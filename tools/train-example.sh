#!/usr/bin/env bash
# Installs dependencies, builds Ember (release) and trains the default example on Fashion-MNIST:
# the 784-512-256-10 MLP, one epoch of SGD (lr 0.01, momentum 0.9, batch 64), test accuracy after.
# Usage: tools/train-example.sh [trainer flags]   (e.g. --epochs 5 --optimizer adamw
#        --scheduler cosine --out runs/a; --help lists them)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_USE_CUDA=OFF >/dev/null
cmake --build build/release -j"$(nproc)" --target train_fashion_mnist
build/release/examples/train_fashion_mnist --data /usr/share/datasets/fashion-mnist "$@"
