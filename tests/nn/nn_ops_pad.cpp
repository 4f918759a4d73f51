// nn op table entries of the pad family (golden family "nn_pad"; the layout of each op's record
// is documented in tests/golden/gen/nn_pad.py).
#include "ember/nn/functional/fold.h"
#include "ember/nn/functional/padding.h"
#include "ember/nn/functional/pixelshuffle.h"
#include "tests/nn/nn_op_info.h"

namespace F = ember::nn::functional;
using ember::Tensor;
using ember_test::Args;
using ember_test::nn_op;
using ember_test::NnOpInfo;

namespace {

const char* const kPadFamily = "nn_pad";

// a0 as the op sees it: channels-last strides when the case says so.
Tensor pad_case_input(const Args& a, const GoldenCase& c) {
  if (!c.has_flag("channels_last")) return a[0];
  return a[0].contiguous(a[0].dim() == 5 ? ember::MemoryFormat::ChannelsLast3d
                                         : ember::MemoryFormat::ChannelsLast);
}

F::PadFuncOptions::mode_t pad_case_mode(const std::string& s) {
  if (s == "reflect") return ember::kReflect;
  if (s == "replicate") return ember::kReplicate;
  if (s == "circular") return ember::kCircular;
  return ember::kConstant;
}

ember::ExpandingArray<2> pad_case_pair(const GoldenCase& c, size_t i) {
  return ember::ExpandingArray<2>(c.int_lists.at(i));
}

}  // namespace

EMBER_NN_OP_FAMILY(pad) {
  return {
      nn_op("pad", kPadFamily, {0},
            [](const Args& a, const GoldenCase& c) {
              F::PadFuncOptions o(c.int_lists.at(0));
              o.mode(pad_case_mode(c.strs.at(0)));
              if (!c.scalars.empty()) o.value(c.scalars.at(0));
              return F::pad(pad_case_input(a, c), o);
            }),
      nn_op("pixel_shuffle", kPadFamily, {0},
            [](const Args& a, const GoldenCase& c) {
              return F::pixel_shuffle(pad_case_input(a, c),
                                      F::PixelShuffleFuncOptions(c.ints.at(0)));
            }),
      nn_op("pixel_unshuffle", kPadFamily, {0},
            [](const Args& a, const GoldenCase& c) {
              return F::pixel_unshuffle(pad_case_input(a, c),
                                        F::PixelUnshuffleFuncOptions(c.ints.at(0)));
            }),
      nn_op("channel_shuffle", kPadFamily, {0},
            [](const Args& a, const GoldenCase& c) {
              return F::channel_shuffle(a[0], F::ChannelShuffleFuncOptions(c.ints.at(0)));
            }),
      nn_op("unfold", kPadFamily, {0},
            [](const Args& a, const GoldenCase& c) {
              return F::unfold(a[0], F::UnfoldFuncOptions(pad_case_pair(c, 0))
                                         .dilation(pad_case_pair(c, 1))
                                         .padding(pad_case_pair(c, 2))
                                         .stride(pad_case_pair(c, 3)));
            }),
      nn_op("fold", kPadFamily, {0},
            [](const Args& a, const GoldenCase& c) {
              return F::fold(a[0], F::FoldFuncOptions(pad_case_pair(c, 0), pad_case_pair(c, 1))
                                       .dilation(pad_case_pair(c, 2))
                                       .padding(pad_case_pair(c, 3))
                                       .stride(pad_case_pair(c, 4)));
            }),
  };
}
