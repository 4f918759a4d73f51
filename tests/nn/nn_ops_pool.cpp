// nn op table entries of the pooling functionals (golden family "nn_pool"; the layout of each
// op's record is documented in tests/golden/gen/nn_pool.py). The *_with_indices entries return
// the int64 indices, compared exactly.
#include "ember/nn/functional/pooling.h"
#include "tests/nn/nn_op_info.h"

namespace F = ember::nn::functional;
using ember::Tensor;
using ember_test::Args;
using ember_test::nn_op;
using ember_test::NnOpInfo;

namespace {

const char* const kPoolFamily = "nn_pool";

// The case's input, laid out channels-last when flagged.
Tensor pool_input(const Args& a, const GoldenCase& c) {
  if (!c.has_flag("channels_last")) return a[0];
  return a[0].contiguous(a[0].dim() == 5 ? ember::MemoryFormat::ChannelsLast3d
                                         : ember::MemoryFormat::ChannelsLast);
}

template <size_t D>
ember::ExpandingArray<D> pool_ea(const std::vector<int64_t>& v) {
  return ember::ExpandingArray<D>(v);
}

template <size_t D>
ember::nn::MaxPoolOptions<D> pool_max_options(const GoldenCase& c) {
  return ember::nn::MaxPoolOptions<D>(pool_ea<D>(c.int_lists.at(0)))
      .stride(pool_ea<D>(c.int_lists.at(1)))
      .padding(pool_ea<D>(c.int_lists.at(2)))
      .dilation(pool_ea<D>(c.int_lists.at(3)))
      .ceil_mode(c.has_flag("ceil_mode"));
}

template <size_t D>
ember::nn::AvgPoolOptions<D> pool_avg_options(const GoldenCase& c) {
  auto o = ember::nn::AvgPoolOptions<D>(pool_ea<D>(c.int_lists.at(0)))
               .stride(pool_ea<D>(c.int_lists.at(1)))
               .padding(pool_ea<D>(c.int_lists.at(2)))
               .ceil_mode(c.has_flag("ceil_mode"))
               .count_include_pad(!c.has_flag("no_count_include_pad"));
  if (c.has_flag("divisor")) o.divisor_override(c.ints.at(0));
  return o;
}

template <size_t D>
ember::nn::LPPoolOptions<D> pool_lp_options(const GoldenCase& c) {
  return ember::nn::LPPoolOptions<D>(c.scalars.at(0), pool_ea<D>(c.int_lists.at(0)))
      .stride(pool_ea<D>(c.int_lists.at(1)))
      .ceil_mode(c.has_flag("ceil_mode"));
}

template <size_t D>
F::MaxUnpoolFuncOptions<D> pool_unpool_options(const GoldenCase& c) {
  auto o = F::MaxUnpoolFuncOptions<D>(pool_ea<D>(c.int_lists.at(0)))
               .stride(pool_ea<D>(c.int_lists.at(1)))
               .padding(pool_ea<D>(c.int_lists.at(2)));
  if (c.has_flag("output_size")) o.output_size(c.int_lists.at(3));
  return o;
}

template <size_t D>
ember::nn::FractionalMaxPoolOptions<D> pool_fractional_options(const Args& a, const GoldenCase& c) {
  auto o =
      ember::nn::FractionalMaxPoolOptions<D>(pool_ea<D>(c.int_lists.at(0)))._random_samples(a[1]);
  if (c.has_flag("ratio")) {
    std::array<double, D> r{};
    for (size_t i = 0; i < D; ++i) r[i] = c.scalars.at(i);
    o.output_ratio(ember::ExpandingArray<D, double>(r));
  } else {
    o.output_size(pool_ea<D>(c.int_lists.at(1)));
  }
  return o;
}

template <size_t D>
std::vector<int64_t> pool_out_list(const GoldenCase& c) {
  return c.int_lists.at(0);
}

// The values entry and the indices entry of a pooling that has both.
template <class Fn>
std::vector<NnOpInfo> pool_with_indices(const std::string& name, Fn fn) {
  return {nn_op(name, kPoolFamily, {0},
                [fn](const Args& a, const GoldenCase& c) { return std::get<0>(fn(a, c)); }),
          nn_op(name + "_with_indices", kPoolFamily, {},
                [fn](const Args& a, const GoldenCase& c) { return std::get<1>(fn(a, c)); })};
}

}  // namespace

EMBER_NN_OP_FAMILY(pool) {
  std::vector<NnOpInfo> ops;
  auto add = [&](std::vector<NnOpInfo> more) {
    for (NnOpInfo& i : more) ops.push_back(std::move(i));
  };
  add(pool_with_indices("max_pool1d", [](const Args& a, const GoldenCase& c) {
    return F::max_pool1d_with_indices(pool_input(a, c), pool_max_options<1>(c));
  }));
  add(pool_with_indices("max_pool2d", [](const Args& a, const GoldenCase& c) {
    return F::max_pool2d_with_indices(pool_input(a, c), pool_max_options<2>(c));
  }));
  add(pool_with_indices("max_pool3d", [](const Args& a, const GoldenCase& c) {
    return F::max_pool3d_with_indices(pool_input(a, c), pool_max_options<3>(c));
  }));
  ops.push_back(nn_op("avg_pool1d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
    return F::avg_pool1d(pool_input(a, c), pool_avg_options<1>(c));
  }));
  ops.push_back(nn_op("avg_pool2d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
    return F::avg_pool2d(pool_input(a, c), pool_avg_options<2>(c));
  }));
  ops.push_back(nn_op("avg_pool3d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
    return F::avg_pool3d(pool_input(a, c), pool_avg_options<3>(c));
  }));
  ops.push_back(
      nn_op("adaptive_avg_pool1d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
        return F::adaptive_avg_pool1d(
            pool_input(a, c), F::AdaptiveAvgPool1dFuncOptions(pool_ea<1>(pool_out_list<1>(c))));
      }));
  ops.push_back(
      nn_op("adaptive_avg_pool2d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
        return F::adaptive_avg_pool2d(pool_input(a, c),
                                      F::AdaptiveAvgPool2dFuncOptions(pool_out_list<2>(c)));
      }));
  ops.push_back(
      nn_op("adaptive_avg_pool3d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
        return F::adaptive_avg_pool3d(pool_input(a, c),
                                      F::AdaptiveAvgPool3dFuncOptions(pool_out_list<3>(c)));
      }));
  add(pool_with_indices("adaptive_max_pool1d", [](const Args& a, const GoldenCase& c) {
    return F::adaptive_max_pool1d_with_indices(
        pool_input(a, c), F::AdaptiveMaxPool1dFuncOptions(pool_ea<1>(pool_out_list<1>(c))));
  }));
  add(pool_with_indices("adaptive_max_pool2d", [](const Args& a, const GoldenCase& c) {
    return F::adaptive_max_pool2d_with_indices(
        pool_input(a, c), F::AdaptiveMaxPool2dFuncOptions(pool_out_list<2>(c)));
  }));
  add(pool_with_indices("adaptive_max_pool3d", [](const Args& a, const GoldenCase& c) {
    return F::adaptive_max_pool3d_with_indices(
        pool_input(a, c), F::AdaptiveMaxPool3dFuncOptions(pool_out_list<3>(c)));
  }));
  ops.push_back(nn_op("lp_pool1d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
    return F::lp_pool1d(a[0], pool_lp_options<1>(c));
  }));
  ops.push_back(nn_op("lp_pool2d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
    return F::lp_pool2d(a[0], pool_lp_options<2>(c));
  }));
  ops.push_back(nn_op("lp_pool3d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
    return F::lp_pool3d(a[0], pool_lp_options<3>(c));
  }));
  ops.push_back(nn_op("max_unpool1d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
    return F::max_unpool1d(a[0], a[1], pool_unpool_options<1>(c));
  }));
  ops.push_back(nn_op("max_unpool2d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
    return F::max_unpool2d(a[0], a[1], pool_unpool_options<2>(c));
  }));
  ops.push_back(nn_op("max_unpool3d", kPoolFamily, {0}, [](const Args& a, const GoldenCase& c) {
    return F::max_unpool3d(a[0], a[1], pool_unpool_options<3>(c));
  }));
  add(pool_with_indices("fractional_max_pool2d", [](const Args& a, const GoldenCase& c) {
    return F::fractional_max_pool2d_with_indices(a[0], pool_fractional_options<2>(a, c));
  }));
  add(pool_with_indices("fractional_max_pool3d", [](const Args& a, const GoldenCase& c) {
    return F::fractional_max_pool3d_with_indices(a[0], pool_fractional_options<3>(a, c));
  }));
  return ops;
}
