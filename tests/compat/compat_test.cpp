// Ember's compat headers: an unchanged LibTorch program (libtorch_program.cpp) builds and runs,
// and LibTorch's macros behave as LibTorch's.
#include <gtest/gtest.h>
#include <torch/torch.h>

int run_libtorch_program();

TEST(Compat, UnchangedLibTorchProgramTrains) { EXPECT_EQ(run_libtorch_program(), 0); }

TEST(Compat, TorchCheckThrowsWithTheMessage) {
  try {
    TORCH_CHECK(1 + 1 == 3, "arithmetic says ", 1 + 1);
    FAIL() << "TORCH_CHECK did not throw";
  } catch (const c10::Error& e) {
    EXPECT_STREQ(e.what(), "arithmetic says 2");
  }
  EXPECT_NO_THROW(TORCH_CHECK(true, "never"));
}

TEST(Compat, NamespacesAreEmbers) {
  at::Tensor a = torch::ones({2});
  ember::Tensor b = a;
  EXPECT_TRUE(b.is_same(a));
  EXPECT_EQ(c10::kFloat, ember::kFloat);
}
