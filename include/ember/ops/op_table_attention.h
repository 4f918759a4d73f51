// Kernel op rows of the attention family: the fused (tiled, online-softmax) scaled dot-product
// attention and its backward, and FlexAttention's (score_mod, block sparsity) and its backward.
// Each row is _(name, Kind) as in EMBER_KERNEL_OPS (op_table.h), which includes this list; Kind is
// a kernel type of src/dispatch/kernel_signatures_attention.h. The math path of
// scaled_dot_product_attention is composed of other rows (bmm, softmax, ...).
#pragma once

#define EMBER_ATTENTION_KERNEL_OPS(_)       \
  _(sdpa_fused, SdpaFused)                  \
  _(sdpa_fused_backward, SdpaFusedBackward) \
  _(flex_fused, FlexFused)                  \
  _(flex_fused_backward, FlexFusedBackward)
