#include "commit_mark.hpp"

#include <cstdlib>
#include <string_view>
#include <vector>

#include "kd/supervisor.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace kd::junit {
namespace {

struct Answer {
  bool ok = false;
  std::string out;
  bool more = false;  // output past what was kept
};

// `git -C ROOT ARGS...`; ok only when it exited 0 in time.
Answer ask_git(const std::string& git, const std::filesystem::path& root,
               std::vector<std::string> args, Clock::time_point deadline) {
  kd::SpawnSpec spec;
  spec.argv = {git, "-C", root.string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.out.limit = 4096;
  spec.out.keep_tail = false;
  spec.err.limit = 4096;  // read and dropped: "not a git repository" is an answer, not noise
  const kd::RunResult run = kd::run_supervised(spec, deadline, {});
  Answer answer;
  answer.ok = run.end == kd::RunEnd::Exited && run.status.exited() && run.status.code == 0;
  answer.out = std::string(trim(run.out.data));
  answer.more = run.out.dropped > 0;
  return answer;
}

}  // namespace

std::optional<std::string> commit_mark(const std::filesystem::path& source_root, double seconds) {
  const char* path = std::getenv("PATH");
  const std::optional<std::string> git = kd::find_on_path("git", path != nullptr ? path : "");
  if (!git) return std::nullopt;
  const Clock::time_point deadline = kd::deadline_in(seconds);
  const Answer head = ask_git(*git, source_root, {"rev-parse", "--short=12", "HEAD"}, deadline);
  if (!head.ok || head.out.empty()) return std::nullopt;
  const Answer status =
      ask_git(*git, source_root, {"status", "--porcelain", "--untracked-files=no"}, deadline);
  const bool changed = status.ok && (!status.out.empty() || status.more);
  return head.out + (changed ? "+changes" : "");
}

}  // namespace kd::junit
