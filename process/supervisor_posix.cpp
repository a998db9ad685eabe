#include "kd/supervisor.hpp"

#include "util/signals.hpp"

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
#include <atomic>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <thread>

extern char** environ;

namespace kd {
namespace {

// ---- signals -------------------------------------------------------------

// Set once, before the handler that writes to it is installed; read by every
// run, each of which passes through the same std::call_once first.
int g_signal_pipe[2] = {-1, -1};
// Set by the handler, read by any thread: a lock-free atomic is safe in both.
std::atomic<int> g_pending_interrupt{0};
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<bool> g_catch_interrupts{false};
std::once_flag g_installed;
std::once_flag g_interrupts_installed;

void on_signal(int sig) {
  int saved = errno;
  if (sig != SIGCHLD) g_pending_interrupt.store(sig);
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

// What every run needs: the wake-up pipe and SIGCHLD's handler; SIGPIPE and
// SIGXFSZ ignored.
void install_run_handling() {
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
}

// SIGINT, SIGTERM and SIGHUP caught, for a caller that ends its children first.
void install_interrupt_handling() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  g_catch_interrupts.store(true);
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

// In the child, before it unblocks signals: a handler of the parent must not
// run here (it would act on the parent's state: its signal pipe is still
// open), so each signal caught goes back to its default. Dispositions set to
// "ignore" survive exec; those the program expects at default are reset too.
void restore_default_dispositions() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction current {};
    // The C library's own signals cannot be asked about, and SIGKILL and
    // SIGSTOP are always at default: none of them holds a handler.
    if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler != SIG_DFL &&
        current.sa_handler != SIG_IGN) {
      sigaction(sig, &dfl, nullptr);
    }
  }
  for (int sig : {SIGPIPE, SIGXFSZ, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT}) {
    sigaction(sig, &dfl, nullptr);
  }
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
  // Every signal has been blocked since before the fork (Supervisor::fork_child):
  // only once no handler of the parent is left may one be delivered here.
  restore_default_dispositions();
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, nullptr);

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
  // Once per process, race-free: the harness starts its first runs from
  // several threads at the same moment.
  std::call_once(g_installed, install_run_handling);
  if (catch_interrupts) std::call_once(g_interrupts_installed, install_interrupt_handling);
}

int pending_interrupt() { return g_pending_interrupt.load(); }

void die_by_signal(int sig) {
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  _exit(128 + sig);  // only if the signal did not end the process
}

std::string WaitStatus::describe() const {
  if (!valid) return "did not end";
  if (signaled) return "killed by signal " + signal_name(signal);
  return "exited with code " + std::to_string(code);
}

namespace {

// One supervised run, in the order a reader follows it: start the child,
// watch it to its end (or the deadline, or an interrupt), end its group,
// collect what it wrote last, and reap it.
class Supervisor {
 public:
  Supervisor(const SpawnSpec& spec, const RunHooks& hooks)
      : spec_(spec),
        hooks_(hooks),
        started_(Clock::now()),
        out_sink_{spec.out, &result_.out},
        err_sink_{spec.err, &result_.err} {}

  RunResult run(Clock::time_point deadline) {
    if (!start()) return result_;
    try {
      if (hooks_.on_started) hooks_.on_started(pid_);
      watch(deadline);
      end_group();
      // Still calls on_event_line, for what the child wrote just before it ended.
      collect_last_output();
    } catch (...) {
      // A hook that throws (or memory that runs out) leaves the run early:
      // nothing of the group outlives it, and the leader is not left a zombie.
      abandon();
      throw;
    }
    reap();
    result_.event_line_overflow = lines_.overflow;
    result_.elapsed_s = seconds_since(started_);
    return result_;
  }

 private:
  // ---- start ----

  // Forks and execs the child; false (with result_ saying why) when it did
  // not become the program.
  bool start() {
    if (spec_.argv.empty()) return spawn_failed(EINVAL, "no program given");
    if (!open_pipes()) return spawn_failed(errno);
    std::vector<char*> argv = c_strings(spec_.argv);
    std::vector<char*> envp;
    if (spec_.env) envp = c_strings(*spec_.env);
    if (!fork_child(argv.data(), spec_.env ? envp.data() : nullptr)) return false;
    // Both sides set the group so that it exists before either relies on it.
    setpgid(pid_, pid_);
    for (Pipe* p : {&out_, &err_, &ev_, &errpipe_}) p->write_end.reset();
    if (int child_errno = exec_error(); child_errno != 0) {
      int st = 0;
      while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
      }
      spawn_failed(child_errno);
      result_.elapsed_s = seconds_since(started_);
      return false;
    }
    for (Fd* fd : streams()) {
      if (*fd) set_nonblocking(fd->get());
    }
    return true;
  }

  // Forks with every signal blocked in this thread, so that no handler of
  // this process can run in the child before it has reset them (exec_child);
  // this thread's mask is restored at once. False (result_ saying why) when
  // there is no child.
  bool fork_child(char* const* argv, char* const* envp) {
    sigset_t all, saved;
    sigfillset(&all);
    if (int err = pthread_sigmask(SIG_SETMASK, &all, &saved); err != 0) return spawn_failed(err);
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      exec_child(spec_, parent, argv, envp, out_.write_end.get(), err_.write_end.get(),
                 ev_.write_end.get(), errpipe_.write_end.get());
    }
    const int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    return pid_ > 0 || spawn_failed(fork_errno);
  }

  bool open_pipes() {
    bool ok = make_pipe(errpipe_);
    if (ok && spec_.out.enabled && spec_.out_fd < 0) ok = make_pipe(out_);
    if (ok && spec_.err.enabled && !spec_.merge_err_into_out) ok = make_pipe(err_);
    if (ok && spec_.event_pipe) ok = make_pipe(ev_);
    return ok;
  }

  bool spawn_failed(int err, const char* why = nullptr) {
    result_.spawn_errno = err;
    result_.spawn_error = why != nullptr ? why : strerror(err);
    return false;
  }

  // The errno the child sent before exec failed; 0 once the exec-error pipe
  // closed empty (close-on-exec: the program runs).
  int exec_error() {
    int child_errno = 0;
    size_t got = 0;
    while (got < sizeof child_errno) {
      ssize_t n = read(errpipe_.read_end.get(), reinterpret_cast<char*>(&child_errno) + got,
                       sizeof child_errno - got);
      if (n > 0) {
        got += static_cast<size_t>(n);
      } else if (!(n < 0 && errno == EINTR)) {
        break;
      }
    }
    return got == sizeof child_errno ? child_errno : 0;
  }

  // ---- watch ----

  // Until the child ends, the deadline passes, an interrupt comes or poll
  // fails; sets result_.end.
  void watch(Clock::time_point deadline) {
    auto next_tick = started_;
    for (;;) {
      drain_signal_pipe();
      look_for_exit();
      if (exited_) {
        result_.end = RunEnd::Exited;
        return;
      }
      if (const int sig = g_pending_interrupt.load(); sig != 0 && g_catch_interrupts.load()) {
        result_.interrupt_signal = sig;
        return stop(RunEnd::Interrupted);
      }
      const auto now = Clock::now();
      if (now >= deadline) return stop(RunEnd::Deadline);
      auto wake = deadline;
      if (hooks_.on_tick) wake = std::min(wake, tick(now, next_tick));
      // The signal pipe wakes us when the child ends; the cap only bounds the
      // cost of a lost wake-up.
      if (poll_streams(std::min(poll_timeout_ms(now, wake), 100), true) < 0 && errno != EINTR) {
        // Without poll nothing more can be watched: say so, and end the group.
        result_.watch_errno = errno;
        result_.watch_error = std::string("poll: ") + strerror(errno);
        return stop(RunEnd::WatchFailed);
      }
    }
  }

  // Calls on_tick when its time has come and sends the signal it asks for;
  // returns when it is due next.
  Clock::time_point tick(Clock::time_point now, Clock::time_point& next_tick) {
    if (now >= next_tick) {
      if (int sig = hooks_.on_tick(seconds_between(started_, now)); sig != 0) {
        kill(hooks_.tick_signal_to_group ? -pid_ : pid_, sig);
      }
      next_tick = now + from_seconds(hooks_.tick_interval_s);
    }
    return next_tick;
  }

  // Looks at the child without reaping it: while the leader is a zombie its
  // pid cannot be reused, so killing its group stays safe.
  void look_for_exit() {
    if (exited_) return;
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid_) {
      exited_ = true;
      result_.status = status_from_siginfo(info);
    }
  }

  std::array<Fd*, 3> streams() { return {&out_.read_end, &err_.read_end, &ev_.read_end}; }

  // Waits up to timeout_ms for output or, with `signals`, a wake-up from a
  // signal; pumps whatever came. Returns poll's result.
  int poll_streams(int timeout_ms, bool signals) {
    std::array<pollfd, 4> pfds{};
    nfds_t n = 0;
    if (signals) pfds[n++] = {g_signal_pipe[0], POLLIN, 0};
    for (Fd* fd : streams()) {
      if (*fd) pfds[n++] = {fd->get(), POLLIN, 0};
    }
    int rc = poll(pfds.data(), n, timeout_ms);
    if (rc > 0) {
      if (signals) drain_signal_pipe();
      pump_all();
    }
    return rc;
  }

  void pump_all() {
    pump(out_.read_end, [this](const char* d, size_t n) { out_sink_.append(d, n); });
    pump(err_.read_end, [this](const char* d, size_t n) { err_sink_.append(d, n); });
    pump(ev_.read_end,
         [this](const char* d, size_t n) { lines_.feed(d, n, hooks_.on_event_line); });
  }

  static void pump(Fd& fd, const std::function<void(const char*, size_t)>& consume) {
    if (fd && !read_available(fd.get(), consume)) fd.reset();
  }

  // ---- tear down ----

  void stop(RunEnd why) {
    result_.end = why;
    kill(-pid_, SIGTERM);
    wait_exit_until(Clock::now() + from_seconds(spec_.kill_grace_s));
    kill(-pid_, SIGKILL);
    // A process stuck in the kernel (a GPU driver call) may take a while to
    // die; it has been killed, so the verdict does not wait for it long.
    wait_exit_until(Clock::now() + std::chrono::milliseconds(300));
  }

  // Waits (pumping output) until the child exits or `until` passes.
  void wait_exit_until(Clock::time_point until) {
    for (;;) {
      look_for_exit();
      if (exited_) return;
      auto now = Clock::now();
      if (now >= until) return;
      if (poll_streams(std::min(poll_timeout_ms(now, until), 20), true) < 0 && errno != EINTR) {
        // poll itself fails: look again shortly rather than spin.
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
  }

  // Ends the group at once and reaps the leader, calling no hook: the run is
  // being left by an exception. A leader stuck in the kernel is given the
  // same 300 ms as after a deadline.
  void abandon() noexcept {
    kill(-pid_, SIGKILL);
    const auto until = Clock::now() + std::chrono::milliseconds(300);
    int st = 0;
    for (;;) {
      pid_t reaped = waitpid(pid_, &st, WNOHANG);
      if (reaped == pid_ || (reaped < 0 && errno != EINTR) || Clock::now() >= until) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  // Nothing of the group outlives the run, whatever the leader did (unless
  // the caller wants to see what it left).
  void end_group() {
    if (result_.end != RunEnd::Exited || spec_.end_group_on_exit) kill(-pid_, SIGKILL);
  }

  // ---- collect and reap ----

  // What the group wrote before it ended; the writers are gone, so EOF comes
  // quickly unless something escaped the group.
  void collect_last_output() {
    const auto until = Clock::now() + std::chrono::milliseconds(200);
    while ((out_.read_end || err_.read_end || ev_.read_end) && Clock::now() < until) {
      if (poll_streams(poll_timeout_ms(Clock::now(), until), false) <= 0) break;
    }
  }

  // Reaps the leader; WNOHANG if it has not ended (stuck in the kernel).
  void reap() {
    int st = 0;
    pid_t reaped;
    do {
      reaped = waitpid(pid_, &st, exited_ ? 0 : WNOHANG);
    } while (reaped < 0 && errno == EINTR);
    if (reaped == pid_ && !result_.status.valid) {
      result_.status.valid = true;
      result_.status.signaled = WIFSIGNALED(st);
      result_.status.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
      result_.status.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    }
  }

  const SpawnSpec& spec_;
  const RunHooks& hooks_;
  const Clock::time_point started_;
  RunResult result_;
  pid_t pid_ = -1;
  bool exited_ = false;
  Pipe out_, err_, ev_, errpipe_;
  Sink out_sink_, err_sink_;
  LineSplitter lines_;
};

}  // namespace

RunResult run_supervised(const SpawnSpec& spec, Clock::time_point deadline,
                         const RunHooks& hooks) {
  install_signal_handling(false);
  return Supervisor(spec, hooks).run(deadline);
}

}  // namespace kd
