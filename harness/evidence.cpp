#include "evidence.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <system_error>

#include "contract/report_rules.hpp"
#include "published_scan.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace kdh {
namespace {

namespace fs = std::filesystem;

// The exit code an .exit file holds: a number 0-255 and white space.
std::optional<int> parse_exit_code(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.pop_back();
  if (s.empty() || s.size() > 3 || !std::all_of(s.begin(), s.end(), kd::is_digit)) {
    return std::nullopt;
  }
  return std::stoi(s);
}

std::optional<int> read_exit_file(const fs::path& path) {
  auto text = kd::read_file(path.string(), 64);
  return text ? parse_exit_code(*text) : std::nullopt;
}

}  // namespace

const std::vector<std::string>& evidence_required_files() {
  static const std::vector<std::string> files{"junit.xml", "summary.txt", "hand/default.json"};
  return files;
}

namespace {

// One file: private by the contract's standard, an exit file holds an exit
// code, and a report holds against the contract (and its exit code).
void check_evidence_file(const fs::path& root, const fs::path& relative,
                         std::vector<EvidenceProblem>& problems) {
  using nlohmann::json;
  const fs::path path = root / relative;
  auto add = [&](const std::string& p) { problems.push_back({path.generic_string(), p}); };
  // The whole file, however large: a secret past any limit would go unseen.
  const auto text = kd::read_file(path.string(), std::numeric_limits<std::size_t>::max());
  if (!text) {
    add("cannot be read");
    return;
  }
  for (const auto& p : kd::published::privacy_problems(*text)) add(p);
  if (relative.extension() == ".exit") {
    if (!parse_exit_code(*text)) add("does not hold an exit code (a number 0-255)");
    return;
  }
  if (relative.extension() != ".json") return;
  const json report = json::parse(*text, nullptr, false);
  fs::path exit_file = path;
  exit_file.replace_extension(".exit");
  std::error_code ec;
  const bool has_exit = fs::is_regular_file(exit_file, ec);
  if (report.is_discarded()) {
    add(has_exit ? "is not JSON: the run printed no report" : "is not JSON");
    return;
  }
  if (!report.is_object() || !report.contains("schema_version")) {
    if (has_exit) add("is not a report (no schema_version), yet the run has an exit code");
    return;
  }
  const std::optional<int> exit_code = has_exit ? read_exit_file(exit_file) : std::nullopt;
  for (const auto& p : report_problems(report, arguments_from_report(report), exit_code)) {
    add(p);
  }
}

}  // namespace

std::vector<EvidenceProblem> check_evidence_folder(const std::string& dir) {
  std::vector<EvidenceProblem> problems;
  const fs::path root(dir);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    problems.push_back({dir, "is not a folder"});
    return problems;
  }
  for (const std::string& required : evidence_required_files()) {
    if (!fs::is_regular_file(root / required, ec)) {
      problems.push_back(
          {(root / required).generic_string(),
           "missing: an evidence folder holds junit.xml, summary.txt and hand/default.json"});
    }
  }
  for (const fs::path& relative :
       kd::published::plain_files(root, "is a link; evidence holds plain files only", problems)) {
    check_evidence_file(root, relative, problems);
  }
  return problems;
}

}  // namespace kdh
