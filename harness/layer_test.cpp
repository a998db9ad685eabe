#include "layer_test.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <set>
#include <sstream>

#include "case_driver.hpp"

namespace kdh {
namespace {

// One case as one GoogleTest test.
class CaseTest : public testing::Test {
 public:
  explicit CaseTest(Case c) : case_(std::move(c)) {}
  void TestBody() override { run_and_check(case_); }

 private:
  Case case_;
};

bool valid_id(const std::string& id) {
  if (id.empty()) return false;
  for (char ch : id) {
    const bool word = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '_';
    if (!word) return false;
  }
  return true;
}

// The case's file as GoogleTest should record it: relative to the source root, so that reports
// point at "suites/cli_cases.cpp" and name no folder of this machine. The build names the
// project's files so already (__FILE__, cmake/KernodeckBuildCost.cmake); an absolute path under
// the source root, from a compiler given none of that, is made so here.
std::string source_relative(const char* file) {
  namespace fs = std::filesystem;
  fs::path path(file);
  if (path.is_relative()) return path.lexically_normal().string();
  path = path.lexically_normal();
  fs::path relative = path.lexically_relative(fs::path(KERNODECK_SOURCE_DIR).lexically_normal());
  if (relative.empty() || *relative.begin() == "..") return path.string();
  return relative.string();
}

[[noreturn]] void refuse(const Case& c, const char* why) {
  std::fprintf(stderr, "%s:%d: case \"%s\" of layer %s %s\n", c.where.file, c.where.line,
               c.id.c_str(), c.layer.c_str(), why);
  std::exit(2);
}

}  // namespace

int register_layer(const char* layer, std::vector<Case> cases) {
  std::set<std::string> ids;
  for (Case& c : in_layer(layer, std::move(cases))) {
    if (!valid_id(c.id)) refuse(c, "has an id that is not made of [A-Za-z0-9_]");
    if (!ids.insert(c.id).second) refuse(c, "has the id of an earlier case of the layer");
    std::ostringstream param;
    PrintTo(c, &param);
    const std::string name = "run/" + c.id;
    const std::string file = source_relative(c.where.file);
    const int line = c.where.line;
    testing::RegisterTest(layer, name.c_str(), nullptr, param.str().c_str(), file.c_str(), line,
                          [c = std::move(c)]() -> CaseTest* {
                            return new CaseTest(c);
                          });
  }
  return static_cast<int>(ids.size());
}

}  // namespace kdh
