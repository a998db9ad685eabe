#include "commit_mark.hpp"

#include <cstdlib>

#include "kd/supervisor.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace kd::junit {

std::optional<std::string> commit_mark(const std::filesystem::path& source_root, double seconds) {
  const char* path = std::getenv("PATH");
  const std::optional<std::string> git = kd::find_on_path("git", path != nullptr ? path : "");
  if (!git) return std::nullopt;
  // One question: HEAD's short hash (no tag, --exclude='*'), "+changes" when a tracked file
  // differs from it.
  kd::SpawnSpec spec;
  spec.argv = {*git, "-C", source_root.string(), "describe", "--always", "--abbrev=12",
               "--exclude=*", "--dirty=+changes"};
  spec.out.limit = 4096;
  spec.err.limit = 4096;  // read and dropped: "not a git repository" is an answer, not noise
  const kd::RunResult run = kd::run_supervised(spec, kd::deadline_in(seconds), {});
  const std::string mark(trim(run.out.data));
  if (run.end != kd::RunEnd::Exited || !run.status.exited() || run.status.code != 0 ||
      mark.empty())
    return std::nullopt;
  return mark;
}

}  // namespace kd::junit
