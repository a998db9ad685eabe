// Covers util/text.hpp: trimming, replacing, splitting and the tail of a text, digits and lists.
#include "util/text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kd {
namespace {

TEST(Trim, DropsWhiteSpaceAtBothEnds) {
  EXPECT_EQ(trim("  535.104.05 \r"), "535.104.05");
  EXPECT_EQ(trim("\t a b \n"), "a b");
  EXPECT_EQ(trim("   "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("x"), "x");
}

TEST(ReplaceAll, ReplacesEveryOccurrenceLeftToRight) {
  std::string s = "{tmp}/a/{tmp}";
  replace_all(s, "{tmp}", "/t");
  EXPECT_EQ(s, "/t/a//t");
}

TEST(ReplaceAll, NeverSearchesAReplacementAgain) {
  std::string s = "aa";
  replace_all(s, "a", "aa");
  EXPECT_EQ(s, "aaaa");
}

TEST(ReplaceAll, AnEmptyNeedleChangesNothing) {
  std::string s = "abc";
  replace_all(s, "", "x");
  EXPECT_EQ(s, "abc");
}

TEST(SplitLines, CutsAtNewlinesAndDropsCarriageReturns) {
  using Lines = std::vector<std::string_view>;
  EXPECT_EQ(split_lines("a\r\nb\nc"), (Lines{"a", "b", "c"}));
  EXPECT_EQ(split_lines("a\n"), (Lines{"a"}));
  EXPECT_EQ(split_lines("\n\n"), (Lines{"", ""}));
  EXPECT_TRUE(split_lines("").empty());
}

TEST(TailLines, KeepsTheLastLinesAndSaysHowManyWereLeftOut) {
  EXPECT_EQ(tail_lines("1\n2\n3\n4\n", 2), "[... 2 earlier lines not shown ...]\n3\n4\n");
  EXPECT_EQ(tail_lines("1\n2", 5), "1\n2\n");
  EXPECT_EQ(tail_lines("1\n2\n\n  \n", 1), "[... 1 earlier lines not shown ...]\n2\n");
  EXPECT_EQ(tail_lines("", 3), "");
}

TEST(PrefixLines, PutsThePrefixBeforeEachLine) {
  EXPECT_EQ(prefix_lines("a\nb", "  | "), "  | a\n  | b\n");
  EXPECT_EQ(prefix_lines("", "  | "), "");
}

TEST(IsDigit, TheTenDigitsOnly) {
  for (char c = '0'; c <= '9'; ++c) EXPECT_TRUE(is_digit(c)) << c;
  EXPECT_FALSE(is_digit('a'));
  EXPECT_FALSE(is_digit(' '));
  EXPECT_FALSE(is_digit('\0'));
  EXPECT_FALSE(is_digit('\xd9')) << "a byte of a UTF-8 sequence (Arabic-Indic digits start so)";
}

TEST(Joined, ListsThePartsAsASentenceDoes) {
  using Parts = std::vector<std::string>;
  EXPECT_EQ(joined(Parts{}), "");
  EXPECT_EQ(joined(Parts{"a"}), "a");
  EXPECT_EQ(joined(Parts{"a", "b"}), "a and b");
  EXPECT_EQ(joined(Parts{"a", "b", "c"}), "a, b and c");
  EXPECT_EQ(joined(Parts{"a", "b", "c"}, " or "), "a, b or c");
}

}  // namespace
}  // namespace kd
