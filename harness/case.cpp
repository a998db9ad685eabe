#include "case.hpp"

#include "contract/table.hpp"

namespace kdh {

Case::Case(std::string case_id, Where declared) : id(std::move(case_id)), where(declared) {}

std::vector<Case> in_layer(const std::string& layer, std::vector<Case> cases) {
  for (Case& c : cases) c.layer = layer;
  return cases;
}

Case& Case::guards(std::string text) {
  promise = std::move(text);
  return *this;
}
Case& Case::args(std::vector<std::string> a) {
  arguments = std::move(a);
  return *this;
}
Case& Case::env(const std::string& name, const std::string& value) {
  set_env[name] = value;
  return *this;
}
Case& Case::unset(const std::string& name) {
  unset_env.push_back(name);
  return *this;
}
Case& Case::with_fault(std::string spec) {
  fault = std::move(spec);
  return *this;
}
Case& Case::with_probe(std::string path) {
  probe_module = std::move(path);
  return *this;
}
Case& Case::file(std::string path, std::string content) {
  files.push_back({FileSetup::Kind::Regular, std::move(path), std::move(content)});
  return *this;
}
Case& Case::dangling_symlink(std::string path) {
  files.push_back({FileSetup::Kind::DanglingSymlink, std::move(path), {}});
  return *this;
}
Case& Case::directory(std::string path) {
  files.push_back({FileSetup::Kind::Directory, std::move(path), {}});
  return *this;
}
Case& Case::limit_file_size(rlim_t bytes) { return limit(RLIMIT_FSIZE, bytes); }
Case& Case::limit(int resource, rlim_t value) {
  limits.emplace_back(resource, value);
  return *this;
}
Case& Case::stdout_to(std::string path) {
  stdout_target = {StdoutTarget::Kind::File, std::move(path)};
  return *this;
}
Case& Case::stdout_to_gone_reader() {
  stdout_target = {StdoutTarget::Kind::ReaderGone, {}};
  return *this;
}
Case& Case::send_signal(double seconds, int sig) {
  signal_at = std::make_pair(seconds, sig);
  return *this;
}
void Case::describe(const std::string& words) {
  if (words.empty()) return;
  if (!described_manipulation.empty()) described_manipulation += "; ";
  described_manipulation += words;
}
Case& Case::wrap(std::vector<std::string> argv, std::string description) {
  wrapper = std::move(argv);
  describe(description);
  return *this;
}
Case& Case::prepare(std::function<std::string(const std::string&)> step,
                    std::string description) {
  setup = std::move(step);
  describe(description);
  return *this;
}
Case& Case::in_folder(std::string relative) {
  cwd = std::move(relative);
  return *this;
}
Case& Case::copies(int n) {
  parallel = n;
  return *this;
}
Case& Case::watch_processes() {
  sample_processes = true;
  return *this;
}
Case& Case::needs(Requirement requirement) {
  requirements.push_back(requirement);
  return *this;
}
Case& Case::needs_index(long long index) {
  requirements.push_back(Requirement::Gpu);
  needs_gpu_index = index;
  return *this;
}
Case& Case::expect_exit(int code_value) {
  exit_code = code_value;
  return *this;
}
Case& Case::expect_killed_by(int sig) {
  killed_by_signal = sig;
  return *this;
}
Case& Case::expect_code(std::string value) {
  code = std::move(value);
  return *this;
}
Case& Case::expect_stage(std::string value) {
  stage = std::move(value);
  return *this;
}
Case& Case::expect_field(std::string pointer, json value) {
  fields.emplace_back(std::move(pointer), std::move(value));
  return *this;
}
Case& Case::expect_not_null(std::string pointer) {
  not_null.push_back(std::move(pointer));
  return *this;
}
Case& Case::expect_null(std::string pointer) {
  is_null.push_back(std::move(pointer));
  return *this;
}
Case& Case::expect_field_contains(std::string pointer, std::string text) {
  field_contains.emplace_back(std::move(pointer), std::move(text));
  return *this;
}
Case& Case::expect_field_lacks(std::string pointer, std::string text) {
  field_lacks.emplace_back(std::move(pointer), std::move(text));
  return *this;
}
Case& Case::expect_stdout_contains(std::string text) {
  stdout_contains.push_back(std::move(text));
  return *this;
}
Case& Case::expect_stderr_contains(std::string text) {
  stderr_contains.push_back(std::move(text));
  return *this;
}
Case& Case::expect_report_lacks(std::string text) {
  report_not_contains.push_back(std::move(text));
  return *this;
}
Case& Case::expect_no_report() {
  report_expected = false;
  return *this;
}
Case& Case::expect_text_stdout() {
  report_expected = false;
  text_stdout = true;
  return *this;
}
Case& Case::expect_report_in(std::string path) {
  report_file = std::move(path);
  return *this;
}
Case& Case::expect_no_new_files() {
  no_new_files = true;
  return *this;
}
Case& Case::expect_no_worker() {
  no_worker = true;
  return *this;
}
Case& Case::expect_file(FileExpect::Kind kind, std::string path) {
  file_expectations.push_back({kind, std::move(path)});
  return *this;
}
Case& Case::within(double seconds) {
  max_seconds = seconds;
  return *this;
}
Case& Case::at_least(double seconds) {
  min_seconds = seconds;
  return *this;
}
Case& Case::with_privacy_canaries() {
  privacy_canaries = true;
  return *this;
}
Case& Case::also(std::function<void(const CaseRun&, std::vector<std::string>&)> check) {
  extra = std::move(check);
  return *this;
}

Case& Case::usage_error(std::string stderr_text) {
  expect_exit(2);
  expect_no_report();
  if (!stderr_text.empty()) expect_stderr_contains(std::move(stderr_text));
  return *this;
}

Case& Case::outcome(const std::string& value, const std::string& stage_value) {
  auto exit_value = contract_exit_code(value);
  exit_code = exit_value.value_or(-1);
  code = value;
  stage = stage_value;
  status = exit_value == 0 ? "passed" : "failed";
  return *this;
}

void PrintTo(const Case& c, std::ostream* os) {
  // Shown by --gtest_list_tests: the catalog of cases (ci/catalog) reads it.
  *os << c.layer << "." << c.id << " guards: " << c.promise;
}

}  // namespace kdh
