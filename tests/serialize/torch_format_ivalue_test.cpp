// The IValue containers a pickle loads into: generic lists, tuples and insertion-ordered dicts.
#include <gtest/gtest.h>

#include "ember/core/ivalue.h"
#include "ember/ops/factory.h"
#include "tests/support/expect_error.h"

namespace {

TEST(IValueContainers, GenericDictKeepsInsertionOrderAndOverwritesInPlace) {
  ember::GenericDict d;
  d.insert_or_assign("b", 1);
  d.insert_or_assign("a", 2);
  d.insert_or_assign(int64_t{3}, 3.5);
  d.insert_or_assign("b", 4);
  ASSERT_EQ(d.size(), 3u);
  std::vector<std::string> kinds;
  for (const auto& e : d) kinds.push_back(e.key().tagKind());
  EXPECT_EQ(kinds, (std::vector<std::string>{"String", "String", "Int"}));
  EXPECT_EQ(d.begin()->key().toStringRef(), "b");
  EXPECT_EQ(d.at("b").toInt(), 4);
  EXPECT_EQ(d.at(int64_t{3}).toDouble(), 3.5);
  EXPECT_TRUE(d.contains("a"));
  EXPECT_FALSE(d.contains(int64_t{4}));
  EXPECT_FALSE(d.contains("3"));  // a string key is not the int key
  ember_test::expect_error<ember::IndexError>([&] { d.at("zz"); }, {"no key 'zz'"});
  ember_test::expect_error<ember::TypeError>(
      [&] { d.insert_or_assign(ember::IValue(ember::GenericList()), 1); },
      {"a GenericList cannot be a key"});
}

TEST(IValueContainers, KindsAndAccessors) {
  ember::IValue list(ember::GenericList({ember::IValue(1), ember::IValue("x")}));
  EXPECT_TRUE(list.isList());
  EXPECT_TRUE(list.isGenericList());
  EXPECT_EQ(std::string(list.tagKind()), "GenericList");
  EXPECT_EQ(list.toList()->get(1).toStringRef(), "x");
  ember_test::expect_error<ember::IndexError>([&] { list.toList()->get(2); }, {"index 2"});
  ember::IValue ints(std::vector<int64_t>{4, 5});
  EXPECT_TRUE(ints.isList());
  EXPECT_FALSE(ints.isGenericList());
  EXPECT_EQ(ints.toList()->get(1).toInt(), 5);
  ember::IValue tuple(ember::Tuple::create({ember::IValue(), ember::IValue(true)}));
  EXPECT_TRUE(tuple.isTuple());
  EXPECT_TRUE(tuple.toTuple()->elements()[0].isNone());
  ember_test::expect_error<ember::TypeError>([&] { tuple.toGenericDict(); },
                                             {"expected GenericDict but the value holds Tuple"});
  // Containers are shared between copies, as LibTorch's.
  ember::IValue dict(ember::GenericDict{});
  ember::IValue copy = dict;
  copy.toGenericDict().insert_or_assign("k", ember::zeros({2}));
  EXPECT_EQ(dict.toGenericDict().size(), 1u);
  EXPECT_TRUE(dict.toGenericDict().at("k").isTensor());
}

}  // namespace
