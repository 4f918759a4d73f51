// LibTorch's recurrent API, written as LibTorch programs write it: torch::nn::LSTM / GRU / RNN with
// their Options, forward with and without a state, structured bindings of the results, the cells,
// the ATen-level torch::lstm_cell, and packed sequences. The file also builds and passes against
// LibTorch 1.13.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <tuple>
#include <vector>

namespace libtorch_rnn_test {

TEST(LibTorchRNN, LSTMAsLibTorchProgramsUseIt) {
  torch::manual_seed(0);
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(8, 16).num_layers(2).batch_first(true));
  torch::Tensor x = torch::randn({4, 10, 8});
  auto [out, state] = lstm->forward(x);
  auto [h, c] = state;
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{4, 10, 16}));
  EXPECT_EQ(h.sizes(), (std::vector<int64_t>{2, 4, 16}));
  EXPECT_EQ(c.sizes(), (std::vector<int64_t>{2, 4, 16}));
  // The last step's output is the top layer's final state.
  EXPECT_TRUE(torch::allclose(out.select(1, 9), h[1]));
  // Feeding the state back continues the sequence.
  auto again = lstm->forward(x, std::make_tuple(h, c));
  EXPECT_EQ(std::get<0>(again).sizes(), out.sizes());
  EXPECT_EQ(lstm->named_parameters().size(), 8u);
}

TEST(LibTorchRNN, GRUAndRNNWithOptions) {
  torch::nn::GRU gru(torch::nn::GRUOptions(3, 5).bidirectional(true));
  auto gru_out = gru->forward(torch::randn({6, 2, 3}));
  EXPECT_EQ(std::get<0>(gru_out).sizes(), (std::vector<int64_t>{6, 2, 10}));
  EXPECT_EQ(std::get<1>(gru_out).sizes(), (std::vector<int64_t>{2, 2, 5}));
  torch::nn::RNN rnn(torch::nn::RNNOptions(3, 5).nonlinearity(torch::kReLU));
  auto rnn_out = rnn->forward(torch::randn({6, 2, 3}), torch::zeros({1, 2, 5}));
  EXPECT_GE(std::get<0>(rnn_out).min().item<float>(), 0.0f);
}

TEST(LibTorchRNN, CellsAndTheATenFunction) {
  torch::nn::LSTMCell cell(3, 4);
  torch::Tensor x = torch::randn({2, 3});
  auto hc = cell->forward(x);
  auto hc2 = torch::lstm_cell(x, {torch::zeros({2, 4}), torch::zeros({2, 4})}, cell->weight_ih,
                              cell->weight_hh, cell->bias_ih, cell->bias_hh);
  EXPECT_TRUE(torch::allclose(std::get<0>(hc), std::get<0>(hc2)));
  EXPECT_TRUE(torch::allclose(std::get<1>(hc), std::get<1>(hc2)));
  torch::nn::GRUCell gru_cell(torch::nn::GRUCellOptions(3, 4).bias(false));
  EXPECT_EQ(gru_cell->forward(x, torch::zeros({2, 4})).sizes(), (std::vector<int64_t>{2, 4}));
}

TEST(LibTorchRNN, PackedSequences) {
  namespace rnn = torch::nn::utils::rnn;
  torch::nn::GRU gru(torch::nn::GRUOptions(2, 3));
  torch::Tensor padded = torch::randn({4, 3, 2});
  torch::Tensor lengths = torch::tensor({2, 4, 1}, torch::kLong);
  rnn::PackedSequence packed = rnn::pack_padded_sequence(padded, lengths, false, false);
  auto result = gru->forward_with_packed_input(packed);
  auto unpacked = rnn::pad_packed_sequence(std::get<0>(result));
  EXPECT_EQ(std::get<0>(unpacked).sizes(), (std::vector<int64_t>{4, 3, 3}));
  EXPECT_TRUE(torch::equal(std::get<1>(unpacked), lengths));
  EXPECT_EQ(std::get<1>(result).sizes(), (std::vector<int64_t>{1, 3, 3}));
}

}  // namespace libtorch_rnn_test
