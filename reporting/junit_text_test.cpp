// Covers junit_text.hpp: what XML 1.0 may carry.
#include "junit_text.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "junit_test_support.hpp"

namespace kd::junit {
namespace {

using namespace kd::junit::testing;

TEST(JunitText, XmlSafeKeepsUtf8AndMakesTheRestVisible) {
  EXPECT_EQ(xml_safe("a\x01" "b\tc\n"), "a\\x01b\tc\n");
  EXPECT_EQ(xml_safe("5 \xC2\xB5s \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "5 \xC2\xB5s \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(xml_safe("bad \xFF\xC3 end"), "bad \\xFF\\xC3 end");
  EXPECT_EQ(xml_safe("\xC0\xAF"), "\\xC0\\xAF");          // overlong '/'
  EXPECT_EQ(xml_safe("\xED\xA0\x80"), "\\xED\\xA0\\x80");  // a surrogate
  EXPECT_EQ(xml_safe("\xEF\xBF\xBE"), "\\xEF\\xBF\\xBE");  // U+FFFE
  EXPECT_EQ(xml_safe("a\r\nb\rc"), "a\nb\nc");
}

}  // namespace
}  // namespace kd::junit
