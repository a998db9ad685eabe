// The PEP 440 rules the application layer judges an extension's requirement on torch by: each
// row's answer is the one `packaging` (SpecifierSet.contains with prereleases=True, as for an
// installed version) gives.
#include "facts/version_spec.hpp"

#include <gtest/gtest.h>

namespace kd {
namespace {

struct Row {
  const char* version;
  const char* specifier;
  bool satisfied;
};

constexpr Row kRows[] = {
    {"2.15.0", "==2.9.1", false},
    {"2.15.0", ">=2.14.0", true},
    {"2.15.0+cu132", ">=2.14.0", true},
    {"2.15.0+cu132", "==2.15.0", true},
    {"2.15.0", "==2.15", true},
    {"2.15.0", "==2.15.*", true},
    {"2.15.1", "==2.15.*", true},
    {"2.16.0", "==2.15.*", false},
    {"2.15.0", "!=2.15.*", false},
    {"2.15.0", "~=2.14", true},
    {"2.15.0", "~=2.14.0", false},
    {"2.14.3", "~=2.14.0", true},
    {"2.15.0", ">=2.0,<2.15", false},
    {"2.15.0", "<=2.15", true},
    {"2.15.0.dev20260101", "<2.15", false},
    {"2.15.0rc1", "<2.15", false},
    {"2.15.0rc1", ">=2.15.0rc1", true},
    {"2.15.0a0+git1234", ">=2.14", true},
    {"2.15.0.post1", ">2.15.0", false},
    {"2.15.1", ">2.15.0", true},
    {"2.15.0+cu132", ">2.15.0", false},
    {"2.15.0+cu132", "==2.15.0+cu132", true},
    {"2.15.0+cu128", "==2.15.0+cu132", false},
    {"1.13.0a0+gitunknown", ">=1.13", false},
    {"1.13.0a0+gitunknown", "==1.13.*", true},
    {"2.15.0", "", true},
    {"2.15.0", "===2.15.0", true},
    {"2.15", "===2.15.0", false},
    {"2.15.0+cu132", "===2.15.0+cu132", true},
    {"1!1.0", ">=2.0", true},
    {"2.15.0", "!=2.15.0,>=2.0", false},
    {"2.9.1", "==2.9.1", true},
    {"2.9.1.post2", "==2.9.1", false},
    {"2.9.1", ">=5.3.0,!=8.3.*", false},
    {"10.0.0", "!=8.3.*,>=5.3.0", true},
    {"2.15.0", "<2.15.0.post1", true},
    {"2.15.0.post1", "<=2.15.0", false},
    {"2.15.0", "> 2.14 , < 3", true},
};

TEST(VersionSpec, JudgesAsPackagingDoes) {
  for (const Row& row : kRows) {
    EXPECT_EQ(satisfies(row.version, row.specifier), std::optional<bool>(row.satisfied))
        << row.version << " against '" << row.specifier << "'";
  }
}

TEST(VersionSpec, UnknownWhereNothingParses) {
  EXPECT_EQ(satisfies("not a version", ">=2"), std::nullopt);
  EXPECT_EQ(satisfies("2.15.0", "~=2"), std::nullopt);  // ~= needs two parts of a release
  EXPECT_EQ(satisfies("2.15.0", ">=two"), std::nullopt);
  EXPECT_EQ(satisfies("2.15.0", "2.15.0"), std::nullopt);  // no operator
}

TEST(VersionSpec, OrdersAsPep440) {
  const char* ascending[] = {"1.0.dev0", "1.0a1", "1.0b2", "1.0rc1", "1.0", "1.0+local",
                             "1.0.post1.dev0", "1.0.post1", "1.1", "2!0.1"};
  for (size_t i = 0; i + 1 < std::size(ascending); ++i) {
    auto a = parse_version(ascending[i]), b = parse_version(ascending[i + 1]);
    ASSERT_TRUE(a && b) << ascending[i];
    EXPECT_LT(compare(*a, *b), 0) << ascending[i] << " < " << ascending[i + 1];
  }
  EXPECT_EQ(compare(*parse_version("2.15"), *parse_version("2.15.0")), 0);
  EXPECT_EQ(parse_version("V2.15.0-RC1")->public_text(), "2.15.0rc1");
  EXPECT_EQ(parse_version("2.15.0+CU132")->local, "cu132");
}

TEST(VersionSpec, NamesTheVersionsOfASpecifier) {
  auto named = versions_named("==2.9.1, <3.*");
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].public_text(), "2.9.1");
  EXPECT_EQ(named[1].public_text(), "3");
}

TEST(VersionSpec, FoldsADistributionsNameAsNamesAreCompared) {
  EXPECT_EQ(folded_name("Nvidia_CUDNN.cu13"), "nvidia-cudnn-cu13");
  EXPECT_EQ(folded_name("nvidia-cudnn-cu13"), "nvidia-cudnn-cu13");
  EXPECT_NE(folded_name("nvidia-cudnn-cu12"), folded_name("nvidia-cudnn-cu13"));
}

}  // namespace
}  // namespace kd
