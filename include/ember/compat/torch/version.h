// <torch/version.h>: the LibTorch version whose C++ API Ember follows. Ember has LibTorch 1.13's
// names (its public headers, tests/compat/libtorch_headers.txt, are 1.13's) plus some 2.x
// additions, and lacks 2.x parts that replace 1.13 ones (2.x's c10::Warning class, ...), so it
// reports 1.13.0: a program that tests TORCH_VERSION_MAJOR >= 2 to pick 2.x-only calls takes its
// 1.13 branch. Written by hand (tools/gen-compat-headers.sh leaves it alone).
#pragma once

/// LibTorch's major version that Ember's API follows.
#define TORCH_VERSION_MAJOR 1
/// LibTorch's minor version that Ember's API follows.
#define TORCH_VERSION_MINOR 13
/// LibTorch's patch version that Ember's API follows.
#define TORCH_VERSION_PATCH 0
/// "MAJOR.MINOR.PATCH" of the above.
#define TORCH_VERSION "1.13.0"
