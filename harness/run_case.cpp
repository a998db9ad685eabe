#include "run_case.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "util/files.hpp"
#include "util/machine.hpp"
#include "util/signals.hpp"
#include "util/text.hpp"
#include "runner.hpp"

namespace kdh {
namespace {

// Variables a runner may need to reach its GPU and libraries; everything
// else of the harness's environment stays out of the check's.
constexpr const char* kPassThrough[] = {
    "PATH",          "LD_LIBRARY_PATH",      "CUDA_VISIBLE_DEVICES",       "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "TMPDIR",
    // Where the stable probe finds torch, when the runner names it (torch_location.hpp).
    "KERNODECK_TORCH_DIR", "KERNODECK_TORCH_PYTHON",
};
constexpr const char* kMarkVariable = "KERNODECK_CASE_MARK";


bool write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  return static_cast<bool>(out);
}

std::string describe_pid(int pid) {
  std::string cmd = kd::read_text("/proc/" + std::to_string(pid) + "/cmdline", 512);
  std::replace(cmd.begin(), cmd.end(), '\0', ' ');
  auto st = kd::process_stat(pid);
  return "pid " + std::to_string(pid) + " (" + (st ? st->comm : "?") + "): " + cmd;
}

// Live (non-zombie) processes carrying the case's marker.
std::vector<int> marked_processes(const std::string& mark) {
  return kd::processes_carrying(std::string(kMarkVariable) + "=" + mark);
}

// What the suite allows itself to assume of a timeout argument.
double harness_limit(const std::vector<std::string>& args) {
  double limit = 60;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--timeout") {
      char* end = nullptr;
      double t = std::strtod(args[i + 1].c_str(), &end);
      if (end != args[i + 1].c_str() && t > 0 && t < 1000) limit = t + 20;
    }
  }
  return limit;
}

void note_once(std::vector<std::string>& problems, std::string problem) {
  if (std::find(problems.begin(), problems.end(), problem) == problems.end()) {
    problems.push_back(std::move(problem));
  }
}

void watch(int pid, CaseRun& run) {
  // The parent must never map libtorch or a GPU driver library.
  std::string maps = kd::read_text("/proc/" + std::to_string(pid) + "/maps", 8 << 20);
  for (const char* lib : {"libtorch", "libc10", "libcuda.so", "libamdhip64", "libnvidia-ml"}) {
    if (maps.find(lib) != std::string::npos) {
      note_once(run.watch_problems, std::string("the check's parent process mapped ") + lib +
                                        " (libtorch and GPU drivers belong in the worker only)");
    }
  }
  auto parent = kd::process_stat(pid);
  if (!parent) return;
  auto command_line = [](int p) {
    return kd::read_text("/proc/" + std::to_string(p) + "/cmdline", 4096);
  };
  const std::string parent_command = command_line(pid);
  for (int child : kd::process_ids()) {
    auto st = kd::process_stat(child);
    if (!st || st->ppid != pid || st->state == 'Z') continue;
    // Between fork and exec a child is still the parent's image, and takes its own group
    // just before exec: it is judged once it runs its own program. A command line that reads
    // empty (a child exiting, or caught in exec) names no program yet: the next sample judges.
    const std::string child_command = command_line(child);
    if (child_command.empty() || child_command == parent_command) continue;
    ++run.watched_workers;
    if (st->pgrp != child || st->pgrp == parent->pgrp) {
      note_once(run.watch_problems, "a child of the check (" + describe_pid(child) +
                                        ") is not in a process group of its own");
    }
  }
}

std::string limit_words(int resource, rlim_t value) {
  std::string n = value == RLIM_INFINITY ? "unlimited" : std::to_string(value);
  switch (resource) {
    case RLIMIT_FSIZE: return "file size limit " + n + " bytes (RLIMIT_FSIZE)";
    case RLIMIT_AS: return "address-space limit " + n + " bytes (RLIMIT_AS)";
    case RLIMIT_NPROC: return "process limit " + n + " (RLIMIT_NPROC)";
    case RLIMIT_NOFILE: return "open-file limit " + n + " (RLIMIT_NOFILE)";
    default: return "resource limit " + std::to_string(resource) + " set to " + n;
  }
}

// The descriptor the check's stdout is, for a case that does not capture it;
// -1 with `error` set when it cannot be made.
int stdout_descriptor(const StdoutTarget& target, const std::string& tmp, const std::string& copy,
                      std::string& error) {
  if (target.kind == StdoutTarget::Kind::File) {
    std::string path = expand(target.path, tmp, copy);
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) error = "cannot open " + target.path + " for the check's stdout";
    return fd;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    error = "cannot make a pipe for the check's stdout";
    return -1;
  }
  close(fds[0]);  // the reader is gone before the check writes
  return fds[1];
}

// ---- prepare -----------------------------------------------------------------

// The case's own folder under $TMPDIR; false (with setup_error) when it cannot be made.
bool make_case_folder(const Case& c, CaseRun& run) {
  std::string base = std::getenv("TMPDIR") != nullptr ? std::getenv("TMPDIR") : "/tmp";
  std::string templ = base + "/kd-" + c.layer + "-" + c.id + "-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) {
    run.setup_error = "cannot create a folder under " + base;
    return false;
  }
  run.tmp = templ;
  return true;
}

// Files the case starts from.
void prepare_files(const Case& c, CaseRun& run) {
  for (const auto& f : c.files) {
    std::string path = run.tmp + "/" + f.path;
    bool ok = true;
    switch (f.kind) {
      case FileSetup::Kind::Regular:
        ok = write_file(path, f.content);
        run.manipulation.push_back("existing file " + f.path + " (" +
                                   std::to_string(f.content.size()) + " bytes)");
        break;
      case FileSetup::Kind::DanglingSymlink:
        ok = symlink((run.tmp + "/no-such-target").c_str(), path.c_str()) == 0;
        run.manipulation.push_back("dangling symlink " + f.path);
        break;
      case FileSetup::Kind::Directory:
        ok = mkdir(path.c_str(), 0755) == 0;
        run.manipulation.push_back("folder " + f.path);
        break;
    }
    if (!ok) run.setup_error = "cannot create " + f.path;
  }
  if (c.setup && run.setup_error.empty()) run.setup_error = c.setup(run.tmp);
}

using Environment = std::map<std::string, std::string>;

// Secret-looking variables, an unusual working folder and HOME, all of which
// the report must never show.
void plant_canaries(CaseRun& run, Environment& env, std::string& home) {
  std::string token = kd::random_name(10);
  run.canaries = {{"secret variable", "kdcanary-secret-" + token},
                  {"token variable", "kdcanary-token-" + token},
                  {"working directory", "kdcanary-cwd-" + token},
                  {"home directory", "kdcanary-home-" + token}};
  env["KD_CANARY_SECRET"] = run.canaries[0].second;
  env["API_TOKEN"] = run.canaries[1].second;
  run.cwd = run.tmp + "/" + run.canaries[2].second;
  home = run.tmp + "/" + run.canaries[3].second;
  run.manipulation.push_back("canaries: secret variables KD_CANARY_SECRET and API_TOKEN, "
                             "unusual working directory and HOME");
}

// The GPU index {gpu_index} stands for; true when CTest gave this test one
// GPU, which it then sees alone, as index 0.
bool choose_gpu(const Case& c, CaseRun& run, Environment& env) {
  const Runner& r = runner();
  run.gpu_index = c.needs_gpu_index ? std::to_string(*c.needs_gpu_index) : "0";
  if (!r.allocated_gpu || std::find(c.requirements.begin(), c.requirements.end(),
                                    Requirement::Gpu) == c.requirements.end()) {
    return false;
  }
  std::string id = std::to_string(*r.allocated_gpu);
  env[r.backend == "rocm" ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES"] = id;
  run.gpu_index = "0";
  run.manipulation.push_back("CTest resource group: only GPU " + id + " visible");
  return true;
}

// The loader's audit in every process of the check, watching for what only a worker loads: a
// probe module (the real one, or the suite's) and libtorch. Its log exists, empty, before the
// run, so that it is no file of the check's.
void watch_for_a_worker(CaseRun& run, Environment& env) {
  const std::string log = run.tmp + "/" + kWorkerAuditLog;
  if (!write_file(log, "")) run.setup_error = "cannot create " + log;
  env["LD_AUDIT"] = runner().fixtures_dir + "/libkd_load_audit.so";
  env["KD_AUDIT_WATCH"] = "libkernodeck_probe,libkd_fault_probe,libtorch,libc10";
  env["KD_AUDIT_LOG"] = log;
  run.manipulation.push_back("the loader's audit (LD_AUDIT) records every probe module or "
                             "libtorch library any process of the check loads");
}

// A clean environment, then the case's change.
Environment case_environment(const Case& c, CaseRun& run, const std::string& mark,
                             bool& restricted_gpu) {
  Environment env;
  for (const char* name : kPassThrough) {
    if (const char* v = std::getenv(name)) env[name] = v;
  }
  std::string home = run.tmp + "/home";
  run.cwd = c.cwd.empty() ? run.tmp : run.tmp + "/" + c.cwd;
  if (c.privacy_canaries) plant_canaries(run, env, home);
  mkdir(home.c_str(), 0755);
  mkdir(run.cwd.c_str(), 0755);
  env["HOME"] = home;
  env[kMarkVariable] = mark;
  restricted_gpu = choose_gpu(c, run, env);
  if (c.no_worker) watch_for_a_worker(run, env);
  if (c.fault) {
    env["KERNODECK_PROBE_MODULE"] = runner().fixtures_dir + "/libkd_fault_probe.so";
    env["KERNODECK_FAULT"] = *c.fault;
    run.manipulation.push_back("fault-injecting probe, KERNODECK_FAULT=" + *c.fault);
  }
  if (c.probe_module) {
    env["KERNODECK_PROBE_MODULE"] = expand(*c.probe_module, run.tmp, "0");
    run.manipulation.push_back("probe module " + *c.probe_module);
  }
  for (const auto& name : c.unset_env) {
    env.erase(name);
    run.manipulation.push_back("unset " + name);
  }
  for (const auto& [name, value] : c.set_env) {
    env[name] = expand(value, run.tmp, "0");
    run.manipulation.push_back(name + "=" + value);
  }
  return env;
}

// The rest of the manipulation, in words: limits, stdout, a signal.
void describe_conditions(const Case& c, CaseRun& run) {
  for (const auto& [resource, value] : c.limits) {
    run.manipulation.push_back(limit_words(resource, value));
  }
  switch (c.stdout_target.kind) {
    case StdoutTarget::Kind::Capture: break;
    case StdoutTarget::Kind::File:
      run.manipulation.push_back("stdout: " + c.stdout_target.path);
      break;
    case StdoutTarget::Kind::ReaderGone:
      run.manipulation.push_back("stdout: a pipe whose reader has closed it");
      break;
  }
  if (c.signal_at) {
    run.manipulation.push_back(kd::signal_name(c.signal_at->second) + " to the check after " +
                               std::to_string(c.signal_at->first).substr(0, 4) + " s");
  }
  if (!c.described_manipulation.empty()) run.manipulation.push_back(c.described_manipulation);
}

// ---- launch ------------------------------------------------------------------

// What every copy of the check is started with.
struct Launch {
  std::vector<std::string> env;
  bool restricted_gpu = false;
  double limit = 60;
};

std::vector<std::string> command_of(const Case& c, const CaseRun& run, const Launch& launch,
                                    size_t index) {
  const Runner& r = runner();
  const std::string copy = std::to_string(index);
  std::vector<std::string> argv;
  for (const auto& w : c.wrapper) argv.push_back(expand(w, run.tmp, copy));
  argv.push_back(r.check);
  for (const auto& a : c.arguments) {
    std::string arg = expand(a, run.tmp, copy);
    kd::replace_all(arg, "{gpu_index}", run.gpu_index);
    kd::replace_all(arg, "{gpu_count}",
                    launch.restricted_gpu ? "1" : std::to_string(r.visible_gpus));
    argv.push_back(arg);
  }
  return argv;
}

kd::SpawnSpec spec_of(const Case& c, const CaseRun& run, const Launch& launch,
                      std::vector<std::string> argv) {
  kd::SpawnSpec spec;
  spec.argv = std::move(argv);
  spec.env = launch.env;
  spec.cwd = run.cwd;
  spec.out = kd::CaptureSpec{true, 4 << 20, false};
  // What the check leaves in its own process group must stay visible to
  // the leftover search, which then ends it.
  spec.end_group_on_exit = false;
  spec.err = kd::CaptureSpec{true, 64 << 10, true};
  for (const auto& [resource, value] : c.limits) {
    spec.rlimits.push_back({resource, rlimit{value, value}});
  }
  return spec;
}

// The report of one copy: from stdout or the case's report file.
void read_report(const Case& c, const CaseRun& run, size_t index, CopyRun& copy) {
  std::string source = "stdout";
  copy.report_text = copy.result.out.data;
  if (c.report_file) {
    source = *c.report_file;
    auto text = kd::read_file(run.tmp + "/" + expand(*c.report_file, run.tmp, std::to_string(index)));
    copy.report_text = text.value_or(std::string());
    if (!text) copy.report_error = "no report file " + *c.report_file;
  }
  if (copy.report_text.empty()) return;
  json parsed = json::parse(copy.report_text, nullptr, false);
  if (parsed.is_discarded()) {
    copy.report_error = source + " is not one JSON document";
  } else {
    copy.report = parsed;
  }
}

// Runs copy `index` of the check to its end and reads its report.
void launch_copy(const Case& c, CaseRun& run, const Launch& launch, size_t index) {
  CopyRun& copy = run.copies[index];
  std::vector<std::string> argv = command_of(c, run, launch, index);
  kd::SpawnSpec spec = spec_of(c, run, launch, argv);
  int out_fd = -1;
  if (c.stdout_target.kind != StdoutTarget::Kind::Capture) {
    std::string error;
    out_fd = stdout_descriptor(c.stdout_target, run.tmp, std::to_string(index), error);
    if (out_fd < 0) {
      copy.result.spawn_error = error;
      return;
    }
    spec.out_fd = out_fd;
  }
  kd::RunHooks hooks;
  bool signalled = false;
  int child_pid = 0;
  hooks.on_started = [&child_pid](int pid) { child_pid = pid; };
  hooks.tick_signal_to_group = false;
  const bool sample = c.sample_processes && index == 0;
  if (c.signal_at || sample) {
    hooks.tick_interval_s = 0.02;
    hooks.on_tick = [&](double elapsed) {
      if (sample && child_pid > 0) watch(child_pid, run);
      if (c.signal_at && !signalled && elapsed >= c.signal_at->first) {
        signalled = true;
        return c.signal_at->second;
      }
      return 0;
    };
  }
  std::ostringstream cmd;
  for (size_t i = 0; i < argv.size(); ++i) cmd << (i ? " " : "") << argv[i];
  copy.command = cmd.str();
  copy.result = kd::run_supervised(spec, kd::deadline_in(launch.limit), hooks);
  if (out_fd >= 0) close(out_fd);
  read_report(c, run, index, copy);
}

// ---- after the run -----------------------------------------------------------

// Whatever still carries the marker was left behind. A process that is being
// forked off or is exec'ing can be missed by one look, so look three times;
// then give dying processes a moment, and name and end the rest.
void collect_leftovers(const std::string& mark, CaseRun& run) {
  std::set<int> seen;
  for (int look = 0; look < 3; ++look) {
    if (look > 0) usleep(50 * 1000);
    for (int pid : marked_processes(mark)) seen.insert(pid);
  }
  auto until = kd::deadline_in(1.0);
  std::vector<int> left;
  for (;;) {
    std::vector<int> now = marked_processes(mark);
    left.clear();
    for (int pid : seen) {
      if (std::find(now.begin(), now.end(), pid) != now.end()) left.push_back(pid);
    }
    for (int pid : now) {
      if (!seen.count(pid)) {
        seen.insert(pid);
        left.push_back(pid);
      }
    }
    if (left.empty() || kd::Clock::now() >= until) break;
    usleep(50 * 1000);
  }
  for (int pid : left) {
    run.leftovers.push_back(describe_pid(pid));
    kill(pid, SIGKILL);
  }
}

// Keeps what each copy printed for the pipeline's artifacts.
void save_evidence(const Case& c, const CaseRun& run) {
  const Runner& r = runner();
  std::string dir = r.reports_dir + "/cases";
  mkdir(r.reports_dir.c_str(), 0755);
  mkdir(dir.c_str(), 0755);
  for (size_t i = 0; i < run.copies.size(); ++i) {
    std::string stem = dir + "/" + c.layer + "." + c.id + (i ? "." + std::to_string(i) : "");
    const auto& res = run.copies[i].result;
    if (!res.out.data.empty()) {
      write_file(stem + (run.copies[i].report && !c.report_file ? ".json" : ".stdout.txt"),
                 res.out.data);
    }
    if (c.report_file && run.copies[i].report) write_file(stem + ".json", run.copies[i].report_text);
    if (!res.err.data.empty()) write_file(stem + ".stderr.txt", res.err.data);
  }
}

}  // namespace

std::string expand(const std::string& text, const std::string& tmp, const std::string& copy) {
  std::string s = text;
  kd::replace_all(s, "{tmp}", tmp);
  kd::replace_all(s, "{fixtures}", runner().fixtures_dir);
  kd::replace_all(s, "{python}", runner().python.value_or("python3"));
  kd::replace_all(s, "{copy}", copy);
  return s;
}

CaseRun run_case(const Case& c) {
  CaseRun run;
  if (!make_case_folder(c, run)) return run;
  const std::string mark = kd::random_name(16);
  prepare_files(c, run);
  Launch launch;
  const Environment env = case_environment(c, run, mark, launch.restricted_gpu);
  describe_conditions(c, run);
  for (const auto& [name, value] : env) launch.env.push_back(name + "=" + value);
  run.listing_before = kd::folder_entries(run.tmp);
  if (!run.setup_error.empty()) return run;

  launch.limit = harness_limit(c.arguments);
  run.copies.resize(static_cast<size_t>(std::max(1, c.parallel)));
  if (run.copies.size() == 1) {
    launch_copy(c, run, launch, 0);
  } else {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < run.copies.size(); ++i) {
      threads.emplace_back([&, i] { launch_copy(c, run, launch, i); });
    }
    for (auto& t : threads) t.join();
  }
  collect_leftovers(mark, run);
  save_evidence(c, run);
  return run;
}

void cleanup(const CaseRun& run) {
  const char* keep = std::getenv("KERNODECK_KEEP_CASES");
  if (run.tmp.empty() || (keep != nullptr && std::string(keep) == "1")) return;
  kd::SpawnSpec spec;
  spec.argv = {"/bin/rm", "-rf", "--", run.tmp};
  kd::run_supervised(spec, kd::deadline_in(30), {});
}

}  // namespace kdh
