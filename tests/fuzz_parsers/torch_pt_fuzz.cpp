// libFuzzer target: bytes as a torch.save file (zip + pickle), loaded in memory. Build and run
// with tools/fuzz-parsers.sh torch_pt; the seeds in corpus/torch_pt are also replayed by
// tests/serialize/torch_format_corpus_test.cpp through the same entry point.
#include <cstddef>
#include <cstdint>

#include "src/serialize/torch_format_internal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::serialize::detail::fuzz_torch_pt_input(data, size);
  return 0;
}
