// The runner requirements' registry and the registration of a layer's cases.
#include "requirements.hpp"

#include <gtest/gtest.h>

#include <set>

#include "case.hpp"
#include "layer_test.hpp"

namespace kdh {
namespace {

TEST(Requirements, EveryRowFollowsTheEnumeration) {
  const auto& all = all_requirements();
  ASSERT_FALSE(all.empty());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(all[i].requirement), i) << all[i].name;
    EXPECT_EQ(info(all[i].requirement).name, all[i].name);
  }
  EXPECT_EQ(all.size(), static_cast<size_t>(Requirement::RunsWithoutProc) + 1)
      << "the registry lacks a row for an enumerator";
}

TEST(Requirements, NamesAreUniqueWordsJoinedByHyphens) {
  std::set<std::string> names;
  for (const auto& r : all_requirements()) {
    const std::string name = r.name;
    EXPECT_TRUE(names.insert(name).second) << name << " is named twice";
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-"), std::string::npos)
        << name;
    EXPECT_NE(std::string(r.asks), "") << name;
  }
}

TEST(Requirements, TwoBackendsCannotBothBeMet) {
  // A CPU-only and a CUDA libtorch exclude each other: whatever this runner's check links, a
  // case needing both is skipped, with a reason that names what it needs.
  Case both("needs_both_backends");
  both.needs(Requirement::CpuOnlyBackend).needs(Requirement::CudaBackend);
  auto why_not = unmet_requirements(both);
  ASSERT_TRUE(why_not.has_value());
  EXPECT_NE(why_not->reason.find("needs a "), std::string::npos) << why_not->reason;
  EXPECT_NE(why_not->reason.find("libtorch"), std::string::npos) << why_not->reason;
}

TEST(Requirements, TheSanitizersClashesAreTheirBuildsOnly) {
  for (Requirement r : {Requirement::StartsUnderAddressSpaceLimit,
                        Requirement::ExitsUnderProcessLimitOfOne, Requirement::RunsWithoutProc}) {
    auto why_not = unmet(r);
#ifdef KERNODECK_SANITIZED
    ASSERT_TRUE(why_not.has_value()) << info(r).name;
    EXPECT_NE(why_not->reason.find("asan build"), std::string::npos) << why_not->reason;
    EXPECT_FALSE(why_not->fatal);
#else
    EXPECT_FALSE(why_not.has_value()) << info(r).name << ": " << why_not->reason;
#endif
  }
}

TEST(Requirements, ACaseWithoutRequirementsRunsAnywhere) {
  EXPECT_FALSE(unmet_requirements(Case("anywhere")).has_value());
}

TEST(Registration, ACaseKnowsTheLineItWasWrittenOn) {
  const int line = __LINE__ + 1;
  Case here("written_here");
  EXPECT_EQ(here.where.line, line);
  EXPECT_NE(std::string(here.where.file).find("requirements_test.cpp"), std::string::npos);
}

Case made_by_a_helper(const std::string& id, Where where = Where::here()) { return Case(id, where); }

TEST(Registration, AHelperMadeCasePointsAtTheHelpersCall) {
  const int line = __LINE__ + 1;
  Case made = made_by_a_helper("made");
  EXPECT_EQ(made.where.line, line);
}

TEST(RegistrationDeathTest, TwoCasesOfALayerCannotShareAnId) {
  EXPECT_EXIT(register_layer("cli", {Case("twice"), Case("twice")}), testing::ExitedWithCode(2),
              "case \"twice\" of layer cli has the id of an earlier case of the layer");
}

TEST(RegistrationDeathTest, AnIdIsMadeOfWordCharacters) {
  EXPECT_EXIT(register_layer("cli", {Case("not/a name")}), testing::ExitedWithCode(2),
              "requirements_test.cpp:[0-9]+: case \"not/a name\" of layer cli has an id that");
}

}  // namespace
}  // namespace kdh
