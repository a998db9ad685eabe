#include "process.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <thread>

extern char** environ;

namespace kd {
namespace {

// ---- signals -------------------------------------------------------------

int g_signal_pipe[2] = {-1, -1};
volatile sig_atomic_t g_pending_interrupt = 0;
bool g_installed = false;
bool g_catch_interrupts = false;

void on_signal(int sig) {
  int saved = errno;
  if (sig != SIGCHLD) g_pending_interrupt = sig;
  unsigned char byte = static_cast<unsigned char>(sig);
  // Non-blocking: when the pipe is full, a wake-up is already pending.
  ssize_t ignored = write(g_signal_pipe[1], &byte, 1);
  (void)ignored;
  errno = saved;
}

// Reads and discards pending wake-ups.
void drain_signal_pipe() {
  unsigned char buf[64];
  while (read(g_signal_pipe[0], buf, sizeof buf) > 0) {
  }
}

// ---- file descriptors ----------------------------------------------------

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = other.release();
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset() {
    // close() is never retried: on Linux the descriptor is gone even on EINTR.
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read_end, write_end;
};

bool make_pipe(Pipe& p) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  p.read_end = Fd(fds[0]);
  p.write_end = Fd(fds[1]);
  return true;
}

void set_nonblocking(int fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// ---- capture -------------------------------------------------------------

struct Sink {
  CaptureSpec spec;
  Captured* target = nullptr;

  void append(const char* data, size_t n) {
    std::string& buf = target->data;
    if (spec.keep_tail) {
      buf.append(data, n);
      if (buf.size() > spec.limit) {
        size_t excess = buf.size() - spec.limit;
        buf.erase(0, excess);
        target->dropped += excess;
      }
    } else {
      size_t room = spec.limit > buf.size() ? spec.limit - buf.size() : 0;
      size_t take = std::min(room, n);
      buf.append(data, take);
      target->dropped += n - take;
    }
  }
};

struct LineSplitter {
  std::string partial;
  bool discarding = false;
  bool overflow = false;

  void feed(const char* data, size_t n, const std::function<void(std::string_view)>& on_line) {
    for (size_t i = 0; i < n; ++i) {
      char c = data[i];
      if (c == '\n') {
        if (!discarding && on_line) on_line(partial);
        partial.clear();
        discarding = false;
      } else if (!discarding) {
        partial.push_back(c);
        if (partial.size() > kMaxEventLine) {
          overflow = true;
          discarding = true;
          partial.clear();
        }
      }
    }
  }
};

// A readable stream of the child: returns false at EOF (or error).
bool read_available(int fd, const std::function<void(const char*, size_t)>& consume) {
  char buf[16384];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      consume(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
    return false;
  }
}

int poll_timeout_ms(Clock::time_point now, Clock::time_point until) {
  if (until <= now) return 0;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1;
  return static_cast<int>(std::min<long long>(ms, 60 * 60 * 1000));
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// Tells the parent why the child could not become the program, and ends it.
[[noreturn]] void fail_exec(int errpipe_w, int err) {
  ssize_t ignored = write(errpipe_w, &err, sizeof err);
  (void)ignored;
  _exit(127);
}

// Only async-signal-safe calls between fork and exec.
[[noreturn]] void exec_child(const SpawnSpec& spec, pid_t parent, char* const* argv,
                             char* const* envp, int out_w, int err_w, int ev_w, int errpipe_w) {
  auto fail = [errpipe_w](int err) { fail_exec(errpipe_w, err); };
  setpgid(0, 0);
  if (spec.die_with_parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
  }
  // Dispositions set to "ignore" survive exec; handlers do not. Give the
  // program the defaults it expects.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig : {SIGPIPE, SIGXFSZ, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT}) {
    sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0) fail(errno);
  if (dup2(devnull, 0) < 0) fail(errno);
  const int out_target = spec.out_fd >= 0 ? spec.out_fd : out_w;
  if (dup2(out_target >= 0 ? out_target : devnull, 1) < 0) fail(errno);
  int err_target = spec.merge_err_into_out ? out_target : err_w;
  if (dup2(err_target >= 0 ? err_target : devnull, 2) < 0) fail(errno);
  if (ev_w >= 0) {
    if (ev_w == 3) {
      if (fcntl(3, F_SETFD, 0) < 0) fail(errno);
    } else if (dup2(ev_w, 3) < 0) {
      fail(errno);
    }
  }
  for (const auto& [resource, limit] : spec.rlimits) {
    if (setrlimit(resource, &limit) != 0) fail(errno);
  }
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) fail(errno);
  if (envp != nullptr) {
    execve(argv[0], argv, envp);
  } else {
    execv(argv[0], argv);
  }
  fail_exec(errpipe_w, errno);
}

WaitStatus status_from_siginfo(const siginfo_t& info) {
  WaitStatus st;
  st.valid = true;
  if (info.si_code == CLD_EXITED) {
    st.code = info.si_status;
  } else {
    st.signaled = true;
    st.signal = info.si_status;
  }
  return st;
}

}  // namespace

// ---- public --------------------------------------------------------------

void install_signal_handling(bool catch_interrupts) {
  if (!g_installed) {
    if (pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
      g_signal_pipe[0] = g_signal_pipe[1] = -1;
    }
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    g_installed = true;
  }
  if (catch_interrupts && !g_catch_interrupts) {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
    g_catch_interrupts = true;
  }
}

int pending_interrupt() { return g_pending_interrupt; }

void die_by_signal(int sig) {
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  _exit(128 + sig);  // only if the signal did not end the process
}

std::string signal_name(int sig) {
  static const std::array<std::pair<int, const char*>, 17> kNames{{
      {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
      {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
      {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
      {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
      {SIGXFSZ, "SIGXFSZ"},
  }};
  for (const auto& [number, name] : kNames) {
    if (number == sig) return name;
  }
  return "signal " + std::to_string(sig);
}

std::optional<std::string> find_on_path(std::string_view program, std::string_view path_value) {
  size_t start = 0;
  while (start <= path_value.size()) {
    size_t colon = path_value.find(':', start);
    if (colon == std::string_view::npos) colon = path_value.size();
    std::string dir(path_value.substr(start, colon - start));
    start = colon + 1;
    // An empty element would mean the working folder: never run a program
    // from wherever the check happens to be started.
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + std::string(program);
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return std::nullopt;
}

std::string WaitStatus::describe() const {
  if (!valid) return "did not end";
  if (signaled) return "killed by signal " + signal_name(signal);
  return "exited with code " + std::to_string(code);
}

RunResult run_supervised(const SpawnSpec& spec, Clock::time_point deadline,
                         const RunHooks& hooks) {
  install_signal_handling(false);
  RunResult result;
  const auto started = Clock::now();
  if (spec.argv.empty()) {
    result.spawn_error = "no program given";
    result.spawn_errno = EINVAL;
    return result;
  }

  Pipe out, err, ev, errpipe;
  bool ok = make_pipe(errpipe);
  if (ok && spec.out.enabled && spec.out_fd < 0) ok = make_pipe(out);
  if (ok && spec.err.enabled && !spec.merge_err_into_out) ok = make_pipe(err);
  if (ok && spec.event_pipe) ok = make_pipe(ev);
  if (!ok) {
    result.spawn_errno = errno;
    result.spawn_error = strerror(errno);
    return result;
  }

  std::vector<char*> argv = c_strings(spec.argv);
  std::vector<char*> envp;
  if (spec.env) envp = c_strings(*spec.env);
  const pid_t parent = getpid();

  pid_t pid = fork();
  if (pid < 0) {
    result.spawn_errno = errno;
    result.spawn_error = strerror(errno);
    return result;
  }
  if (pid == 0) {
    exec_child(spec, parent, argv.data(), spec.env ? envp.data() : nullptr, out.write_end.get(),
               err.write_end.get(), ev.write_end.get(), errpipe.write_end.get());
  }
  // Both sides set the group so that it exists before either relies on it.
  setpgid(pid, pid);
  out.write_end.reset();
  err.write_end.reset();
  ev.write_end.reset();
  errpipe.write_end.reset();

  // The exec-error pipe closes on a successful exec (close-on-exec).
  int child_errno = 0;
  size_t got = 0;
  while (got < sizeof child_errno) {
    ssize_t n = read(errpipe.read_end.get(), reinterpret_cast<char*>(&child_errno) + got,
                     sizeof child_errno - got);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  if (got == sizeof child_errno) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    result.spawn_errno = child_errno;
    result.spawn_error = strerror(child_errno);
    result.elapsed_s = seconds_between(started, Clock::now());
    return result;
  }
  if (hooks.on_started) hooks.on_started(pid);

  for (Fd* fd : {&out.read_end, &err.read_end, &ev.read_end}) {
    if (*fd) set_nonblocking(fd->get());
  }
  Sink out_sink{spec.out, &result.out};
  Sink err_sink{spec.err, &result.err};
  LineSplitter lines;

  auto pump = [&](Fd& fd, const std::function<void(const char*, size_t)>& consume) {
    if (fd && !read_available(fd.get(), consume)) fd.reset();
  };
  auto pump_all = [&]() {
    pump(out.read_end, [&](const char* d, size_t n) { out_sink.append(d, n); });
    pump(err.read_end, [&](const char* d, size_t n) { err_sink.append(d, n); });
    pump(ev.read_end,
         [&](const char* d, size_t n) { lines.feed(d, n, hooks.on_event_line); });
  };

  bool exited = false;
  // Looks at the child without reaping it: while the leader is a zombie its
  // pid cannot be reused, so killing its group stays safe.
  auto check_exit = [&]() {
    if (exited) return;
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid) {
      exited = true;
      result.status = status_from_siginfo(info);
    }
  };
  // Waits up to timeout_ms for output or, with `signals`, a wake-up from a
  // signal; pumps whatever came. Returns poll's result.
  auto poll_streams = [&](int timeout_ms, bool signals) {
    std::array<pollfd, 4> pfds{};
    nfds_t n = 0;
    if (signals) pfds[n++] = {g_signal_pipe[0], POLLIN, 0};
    for (Fd* fd : {&out.read_end, &err.read_end, &ev.read_end}) {
      if (*fd) pfds[n++] = {fd->get(), POLLIN, 0};
    }
    int rc = poll(pfds.data(), n, timeout_ms);
    if (rc > 0) {
      if (signals) drain_signal_pipe();
      pump_all();
    }
    return rc;
  };
  // Waits (pumping output) until the child exits or `until` passes.
  auto wait_exit_until = [&](Clock::time_point until) {
    for (;;) {
      check_exit();
      if (exited) return;
      auto now = Clock::now();
      if (now >= until) return;
      if (poll_streams(std::min(poll_timeout_ms(now, until), 20), true) < 0 && errno != EINTR) {
        // poll itself fails: look again shortly rather than spin.
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
  };
  auto teardown = [&]() {
    kill(-pid, SIGTERM);
    wait_exit_until(Clock::now() + from_seconds(spec.kill_grace_s));
    kill(-pid, SIGKILL);
    // A process stuck in the kernel (a GPU driver call) may take a while to
    // die; it has been killed, so the verdict does not wait for it long.
    wait_exit_until(Clock::now() + std::chrono::milliseconds(300));
  };

  auto next_tick = started;
  for (;;) {
    drain_signal_pipe();
    check_exit();
    if (exited) {
      result.end = RunEnd::Exited;
      break;
    }
    if (g_catch_interrupts && g_pending_interrupt != 0) {
      result.interrupt_signal = g_pending_interrupt;
      result.end = RunEnd::Interrupted;
      teardown();
      break;
    }
    auto now = Clock::now();
    if (now >= deadline) {
      result.end = RunEnd::Deadline;
      teardown();
      break;
    }
    auto wake = deadline;
    if (hooks.on_tick) {
      if (now >= next_tick) {
        if (int sig = hooks.on_tick(seconds_between(started, now)); sig != 0) {
          kill(hooks.tick_signal_to_group ? -pid : pid, sig);
        }
        next_tick = now + from_seconds(hooks.tick_interval_s);
      }
      wake = std::min(wake, next_tick);
    }
    // The signal pipe wakes us when the child ends; the cap only bounds the
    // cost of a lost wake-up.
    if (poll_streams(std::min(poll_timeout_ms(now, wake), 100), true) < 0 && errno != EINTR) {
      // Without poll nothing more can be watched: say so, and end the group.
      result.watch_errno = errno;
      result.watch_error = std::string("poll: ") + strerror(errno);
      result.end = RunEnd::WatchFailed;
      teardown();
      break;
    }
  }

  // Nothing of the group outlives the run, whatever the leader did (unless
  // the caller wants to see what it left).
  if (result.end != RunEnd::Exited || spec.end_group_on_exit) kill(-pid, SIGKILL);
  // Collect what the group wrote before it ended; the writers are gone, so
  // EOF comes quickly unless something escaped the group.
  auto drain_until = Clock::now() + std::chrono::milliseconds(200);
  while ((out.read_end || err.read_end || ev.read_end) && Clock::now() < drain_until) {
    if (poll_streams(poll_timeout_ms(Clock::now(), drain_until), false) <= 0) break;
  }
  // Reap the leader; WNOHANG if it has not ended (stuck in the kernel).
  int st = 0;
  pid_t reaped;
  do {
    reaped = waitpid(pid, &st, exited ? 0 : WNOHANG);
  } while (reaped < 0 && errno == EINTR);
  if (reaped == pid && !result.status.valid) {
    result.status.valid = true;
    result.status.signaled = WIFSIGNALED(st);
    result.status.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    result.status.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  }
  result.event_line_overflow = lines.overflow;
  result.elapsed_s = seconds_between(started, Clock::now());
  return result;
}

}  // namespace kd
