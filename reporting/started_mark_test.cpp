// Covers started_mark.hpp: the line a case leaves when it starts, read back as written.
#include "started_mark.hpp"

#include <gtest/gtest.h>

namespace kd::junit {
namespace {

TEST(StartedMark, ALineSaysTheCaseAndWhereItIsDeclared) {
  EXPECT_EQ(started_line("cli.run/usage", "/src/suites/cli_cases.cpp", 95),
            "cli.run/usage\t/src/suites/cli_cases.cpp:95\n");
  const auto c = parse_started_line("cli.run/usage\t/src/suites/cli_cases.cpp:95");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->name, "cli.run/usage");
  EXPECT_EQ(c->file, "/src/suites/cli_cases.cpp");
  EXPECT_EQ(c->line, 95);
  // GoogleTest knew no place: the name alone, as older marks hold it.
  EXPECT_EQ(started_line("cli.run/usage", "", 0), "cli.run/usage\n");
  const auto old = parse_started_line("cli.run/usage\r");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->name, "cli.run/usage");
  EXPECT_EQ(old->file, "");
}

TEST(StartedMark, APlaceThatIsNoFileAndLineIsDropped) {
  EXPECT_FALSE(parse_started_line("").has_value());
  for (const char* line : {"a.b\tfile.cpp", "a.b\tfile.cpp:", "a.b\tfile.cpp:x1", "a.b\t:12",
                           "a.b\tfile.cpp:0", "a.b\tfile.cpp:99999999999"}) {
    const auto c = parse_started_line(line);
    ASSERT_TRUE(c.has_value()) << line;
    EXPECT_EQ(c->name, "a.b") << line;
    EXPECT_EQ(c->file, "") << line;
    EXPECT_EQ(c->line, 0) << line;
  }
}

}  // namespace
}  // namespace kd::junit
