// libFuzzer target: bytes as a bare pickle (storages are zeros of the size a persistent id asks
// for). Build and run with tools/fuzz-parsers.sh pickle; the seeds in corpus/pickle are also
// replayed by tests/serialize/torch_format_corpus_test.cpp through the same entry point.
#include <cstddef>
#include <cstdint>

#include "src/serialize/torch_format_internal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::serialize::detail::fuzz_pickle_input(data, size);
  return 0;
}
