// Containers: Sequential (named, nested, several inputs, hooks inside), AnyModule, ModuleList,
// ModuleDict, ParameterList, ParameterDict, Functional.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/nn/test_modules.h"

using namespace ember;
using ember_test::Leaf;
using ember_test::LeafImpl;

namespace {

struct AddImpl : nn::Cloneable<AddImpl> {
  Tensor forward(const Tensor& a, const Tensor& b) { return a + b; }
};
EMBER_MODULE(Add);

struct SplitImpl : nn::Cloneable<SplitImpl> {
  std::vector<Tensor> forward(const Tensor& x) { return {x, x * 10}; }
};
EMBER_MODULE(Split);

struct ScaleImpl : nn::Cloneable<ScaleImpl> {
  explicit ScaleImpl(double f) : f(f) {}
  Tensor forward(Tensor x) { return x * f; }
  double f;
};
EMBER_MODULE(Scale);

TEST(Sequential, RunsInOrderWithIndexNames) {
  nn::Sequential seq(Scale(2.0), Leaf(2), Scale(3.0));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_EQ(seq->named_parameters().keys(), (std::vector<std::string>{"1.w", "1.b"}));
  EXPECT_EQ(seq(ones({2})).sum().item<float>(), 12.f);
  EXPECT_EQ(seq->forward(ones({2})).sum().item<float>(), 12.f);
  EXPECT_EQ(seq->at<ScaleImpl>(2).f, 3.0);
  EXPECT_NE(seq->ptr<LeafImpl>(1), nullptr);
  EXPECT_THROW(seq->ptr(3), IndexError);
}

TEST(Sequential, NamedModules) {
  nn::Sequential seq({{"scale", Scale(2.0)}, {"leaf", Leaf(2)}});
  EXPECT_EQ(seq->named_children().keys(), (std::vector<std::string>{"scale", "leaf"}));
  EXPECT_EQ(seq->state_dict().keys(),
            (std::vector<std::string>{"leaf.w", "leaf.b", "leaf.running"}));
}

TEST(Sequential, NestsInsideSequential) {
  nn::Sequential inner(Scale(2.0), Leaf(2));
  nn::Sequential outer(inner, Scale(5.0));
  EXPECT_EQ(outer(ones({2})).sum().item<float>(), 20.f);
  EXPECT_EQ(outer->named_parameters().keys(), (std::vector<std::string>{"0.1.w", "0.1.b"}));
  std::ostringstream s;
  s << *outer;
  EXPECT_NE(s.str().find("(0): ember::nn::Sequential(\n    (0): "), std::string::npos) << s.str();
}

TEST(Sequential, ModulesWithSeveralInputs) {
  nn::Sequential first_takes_two(Add(), Scale(2.0));
  EXPECT_EQ(first_takes_two->forward(ones({2}), ones({2})).sum().item<float>(), 8.f);
  nn::Sequential spread{Split(), Add()};
  EXPECT_EQ(spread(ones({2})).sum().item<float>(), 22.f);
  nn::Sequential bad(Scale(1.0), Add());
  EXPECT_THROW(bad(ones({2})), Error);
}

TEST(Sequential, RunsEachModulesHooks) {
  nn::Sequential seq(Scale(2.0), Scale(3.0));
  seq[1]->register_forward_hook(
      [](nn::Module&, const std::vector<IValue>&, const IValue& out) -> std::optional<IValue> {
        return out.toTensor() + 1;
      });
  EXPECT_EQ(seq(ones({1})).item<float>(), 7.f);
}

TEST(Sequential, CloneIsDeep) {
  nn::Sequential seq(Leaf(2), Scale(2.0));
  auto copy = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy->ptr(0).get(), seq->ptr(0).get());
  EXPECT_EQ(copy->ptr(0).get(), copy->get_submodule("0").get());
  {
    NoGradGuard g;
    copy->at<LeafImpl>(0).w.fill_(3.0);
  }
  EXPECT_EQ(copy->forward(ones({2})).sum().item<float>(), 12.f);
  EXPECT_EQ(seq(ones({2})).sum().item<float>(), 4.f);
}

TEST(AnyModule, WrongArgumentCountIsAnError) {
  nn::AnyModule any(Add{});
  EXPECT_EQ(any.forward(ones({1}), ones({1})).item<float>(), 2.f);
  try {
    any.forward(ones({1}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("takes 2 argument(s), but 1 were given"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(any.arity(), 2u);
  EXPECT_THROW(any.get<LeafImpl>(), TypeError);
}

TEST(ModuleList, RegistersByPositionAndRenamesOnInsert) {
  nn::ModuleList list(Leaf(1), Leaf(2));
  list->insert(0, Leaf(3));
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ(list->named_parameters().keys(),
            (std::vector<std::string>{"0.w", "0.b", "1.w", "1.b", "2.w", "2.b"}));
  EXPECT_EQ(list->at<LeafImpl>(0).w.size(0), 3);
  EXPECT_EQ(list->get_parameter("2.w").size(0), 2);
  Tensor x = ones({1});
  int n = 0;
  for (const auto& m : *list) n += m->as<LeafImpl>() != nullptr;
  EXPECT_EQ(n, 3);
  EXPECT_THROW(list->ptr(7), IndexError);
}

TEST(ModuleDict, InsertReplacePop) {
  nn::ModuleDict dict({{"a", Leaf(1).ptr()}, {"b", Leaf(2).ptr()}});
  dict->insert("a", Leaf(4));
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(dict->at<LeafImpl>("a").w.size(0), 4);
  auto b = dict->pop("b");
  EXPECT_EQ(dict->named_parameters().keys(), (std::vector<std::string>{"a.w", "a.b"}));
  EXPECT_FALSE(dict->contains("b"));
  EXPECT_THROW((*dict)["b"], ValueError);
}

TEST(ParameterContainers, ListAndDict) {
  // As in LibTorch, each tensor keeps its requires_grad flag.
  nn::ParameterList list(ones({2}, requires_grad()), zeros({3}));
  list->append(ones({1}, requires_grad()));
  EXPECT_EQ(list->size(), 3u);
  EXPECT_TRUE(list[0].requires_grad());
  EXPECT_FALSE(list[1].requires_grad());
  EXPECT_TRUE(list[2].requires_grad());
  EXPECT_EQ(list->named_parameters().keys(), (std::vector<std::string>{"0", "1", "2"}));
  nn::ParameterDict dict({{"scale", ones({1}, requires_grad())}});
  dict->insert("shift", zeros({1}));
  dict->insert("frozen", zeros({1}, requires_grad(false)));
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"scale", "shift", "frozen"}));
  EXPECT_TRUE(dict["scale"].requires_grad());
  EXPECT_FALSE(dict["shift"].requires_grad());
  EXPECT_FALSE(dict["frozen"].requires_grad());
  dict->insert("shift", ones({1}, requires_grad()));  // replacing keeps the new tensor's flag
  EXPECT_TRUE(dict["shift"].requires_grad());
  dict->pop("frozen");
  Tensor s = dict->pop("scale");
  EXPECT_EQ(dict->size(), 1u);
  EXPECT_EQ(dict->state_dict().keys(), std::vector<std::string>{"shift"});
}

TEST(Functional, WrapsFunctionsAndBindsArguments) {
  nn::Functional twice([](Tensor x) { return x * 2; });
  EXPECT_EQ(twice(ones({1})).item<float>(), 2.f);
  nn::Functional clamp([](Tensor x, double lo, double hi) { return x.clamp(lo, hi); }, 0.0, 0.5);
  EXPECT_EQ(clamp(ones({1})).item<float>(), 0.5f);
  nn::Sequential seq(Scale(3.0), twice);
  EXPECT_EQ(seq(ones({1})).item<float>(), 6.f);
}

}  // namespace

namespace container_codec_test {

// Tuples, pairs, vectors and maps as forward arguments and results: they travel through
// AnyModule, Sequential and the hooks as Tuple, GenericList and GenericDict IValues.
struct TupleToMapImpl : nn::Cloneable<TupleToMapImpl> {
  std::map<std::string, Tensor> forward(const std::tuple<Tensor, std::pair<Tensor, int64_t>>& in) {
    const auto& [a, bk] = in;
    return {{"sum", a + bk.first}, {"scaled", a * static_cast<double>(bk.second)}};
  }
};
EMBER_MODULE(TupleToMap);

struct MapToVectorImpl : nn::Cloneable<MapToVectorImpl> {
  std::vector<std::tuple<std::string, Tensor>> forward(const std::map<std::string, Tensor>& m) {
    std::vector<std::tuple<std::string, Tensor>> out;
    for (const auto& [k, v] : m) out.emplace_back(k, v.sum());
    return out;
  }
};
EMBER_MODULE(MapToVector);

TEST(ModuleCall, ContainersTravelThroughSequentialAndHooks) {
  TupleToMap first;
  int pre_calls = 0;
  // The pre-hook sees the tuple as a Tuple and may replace it: the pair's integer becomes 3.
  first->register_forward_pre_hook(
      [&](nn::Module&, const std::vector<IValue>& in) -> std::optional<std::vector<IValue>> {
        ++pre_calls;
        const auto& outer = in.at(0).toTuple()->elements();
        EXPECT_EQ(outer.size(), 2u);
        const auto& pair = outer.at(1).toTuple()->elements();
        EXPECT_EQ(pair.at(1).toInt(), 2);
        return std::vector<IValue>{IValue(
            Tuple::create({outer[0], IValue(Tuple::create({pair[0], IValue(int64_t{3})}))}))};
      });
  // The forward hook sees the map as a GenericDict and adds 1 to "sum".
  first->register_forward_hook([](nn::Module&, const std::vector<IValue>&,
                                  const IValue& out) -> std::optional<IValue> {
    GenericDict d = out.toGenericDict();
    d.insert_or_assign(IValue(std::string("sum")), d.at(IValue(std::string("sum"))).toTensor() + 1);
    return IValue(std::move(d));
  });
  nn::Sequential seq(first, MapToVector());
  const Tensor a = ember::full({2}, 1.0), b = ember::full({2}, 5.0);
  auto out = seq->forward<std::vector<std::tuple<std::string, Tensor>>>(
      std::make_tuple(a, std::make_pair(b, int64_t{2})));
  EXPECT_EQ(pre_calls, 1);
  ASSERT_EQ(out.size(), 2u);  // std::map order: "scaled", "sum"
  EXPECT_EQ(std::get<0>(out[0]), "scaled");
  EXPECT_EQ(std::get<1>(out[0]).item<float>(), 6.f);  // (1 * 3) * 2 elements
  EXPECT_EQ(std::get<0>(out[1]), "sum");
  EXPECT_EQ(std::get<1>(out[1]).item<float>(), 14.f);  // (1 + 5 + 1) * 2 elements
}

// A hook may hand back an int list where the forward takes a std::vector<int>: the codec reads
// it as a list (the temporary GenericList it makes must outlive the read).
struct SumIntsImpl : nn::Cloneable<SumIntsImpl> {
  Tensor forward(const std::vector<int>& v) {
    int64_t total = 0;
    for (int x : v) total += x;
    return ember::full({1}, static_cast<double>(total));
  }
};
EMBER_MODULE(SumInts);

TEST(ModuleCall, AHookMayReplaceAVectorArgumentWithAnIntList) {
  SumInts m;
  m->register_forward_pre_hook(
      [](nn::Module&, const std::vector<IValue>&) -> std::optional<std::vector<IValue>> {
        return std::vector<IValue>{IValue(std::vector<int64_t>{10, 20, 30})};
      });
  EXPECT_EQ(m(std::vector<int>{1, 2}).item<float>(), 60.f);
}

TEST(ModuleCall, ATupleOfTheWrongLengthIsAnError) {
  TupleToMap m;
  m->register_forward_pre_hook(
      [](nn::Module&, const std::vector<IValue>& in) -> std::optional<std::vector<IValue>> {
        return std::vector<IValue>{IValue(Tuple::create({in.at(0).toTuple()->elements()[0]}))};
      });
  try {
    m(std::make_tuple(ember::ones({1}), std::make_pair(ember::ones({1}), int64_t{1})));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1 elements where the forward's std::tuple has 2"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace container_codec_test
