// The program supervisor_test supervises: one behaviour per mode, chosen by argv.
//
//   sleep SECONDS           sleep, then exit 0
//   exit CODE               exit with CODE
//   signal SEGV|ABRT        end by raising the signal
//   flood-out BYTES         write BYTES to stdout ("HEAD" first, "TAIL" last), exit 0
//   flood-err BYTES         the same on stderr
//   interleave              "out1" on stdout, "err1" on stderr, "out2" on stdout
//   events LINE...          each LINE and '\n' on fd 3, then exit 0
//   raw-event TEXT          TEXT on fd 3 with no newline, then exit 0
//   long-event BYTES        a line of BYTES 'e' then the line "after" on fd 3
//   grandchild              fork a sleeping grandchild, tell its pid on fd 3, sleep
//   orphan                  fork a sleeping grandchild, tell its pid on fd 3, exit 0
//   ignore-term             ignore SIGTERM, say "ready" on fd 3, sleep
//   close-std SECONDS CODE  close stdout and stderr, sleep, exit CODE
//   env NAME                print NAME's value or "<unset>"
//   cwd                     print the working directory
//   nofile                  print the soft RLIMIT_NOFILE
//   group                   print "pid pgid"
//   stdin                   print how many bytes stdin gave before EOF
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "util/files.hpp"

namespace {

// The fixture ends (90) when it cannot write what a test waits for.
void write_all(int fd, const std::string& text) {
  if (kd::write_all(fd, text) != 0) _exit(90);
}

void sleep_seconds(double seconds) {
  timespec ts{static_cast<time_t>(seconds),
              static_cast<long>((seconds - static_cast<double>(static_cast<time_t>(seconds))) * 1e9)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

void flood(int fd, size_t bytes) {
  // Markers at both ends tell which part a capture kept.
  std::string chunk(64 * 1024, 'x');
  write_all(fd, "HEAD");
  size_t left = bytes - 8;
  while (left > 0) {
    size_t n = left < chunk.size() ? left : chunk.size();
    write_all(fd, chunk.substr(0, n));
    left -= n;
  }
  write_all(fd, "TAIL");
}

pid_t spawn_sleeper() {
  pid_t pid = fork();
  if (pid == 0) {
    sleep_seconds(60);
    _exit(0);
  }
  if (pid < 0) _exit(91);
  write_all(3, std::to_string(pid) + "\n");
  return pid;
}

// Modes that shape the process's life: how it ends, what it leaves behind;
// nullopt when `mode` is none of them.
std::optional<int> life_mode(const std::string& mode, const char* arg, int argc, char** argv) {
  if (mode == "sleep") {
    sleep_seconds(atof(arg));
    return 0;
  }
  if (mode == "exit") return atoi(arg);
  if (mode == "signal") {
    // No core file for a crash made on purpose.
    rlimit none{0, 0};
    setrlimit(RLIMIT_CORE, &none);
    raise(std::string(arg) == "SEGV" ? SIGSEGV : SIGABRT);
    return 92;
  }
  if (mode == "grandchild") {
    spawn_sleeper();
    sleep_seconds(60);
    return 0;
  }
  if (mode == "orphan") {
    spawn_sleeper();
    return 0;
  }
  if (mode == "ignore-term") {
    signal(SIGTERM, SIG_IGN);
    write_all(3, "ready\n");
    sleep_seconds(60);
    return 0;
  }
  if (mode == "close-std") {
    close(1);
    close(2);
    sleep_seconds(atof(arg));
    return argc > 3 ? atoi(argv[3]) : 0;
  }
  return std::nullopt;
}

// Modes that write what a test reads back: streams, events, environment;
// nullopt when `mode` is none of them.
std::optional<int> output_mode(const std::string& mode, const char* arg, int argc, char** argv) {
  if (mode == "flood-out" || mode == "flood-err") {
    flood(mode == "flood-out" ? 1 : 2, strtoull(arg, nullptr, 10));
    return 0;
  }
  if (mode == "interleave") {
    write_all(1, "out1");
    write_all(2, "err1");
    write_all(1, "out2");
    return 0;
  }
  if (mode == "events") {
    for (int i = 2; i < argc; ++i) write_all(3, std::string(argv[i]) + "\n");
    return 0;
  }
  if (mode == "raw-event") {
    write_all(3, arg);
    return 0;
  }
  if (mode == "long-event") {
    write_all(3, std::string(strtoull(arg, nullptr, 10), 'e') + "\nafter\n");
    return 0;
  }
  if (mode == "env") {
    const char* value = getenv(arg);
    write_all(1, value != nullptr ? value : "<unset>");
    return 0;
  }
  if (mode == "cwd") {
    char buf[PATH_MAX];
    if (getcwd(buf, sizeof buf) == nullptr) return 93;
    write_all(1, buf);
    return 0;
  }
  if (mode == "nofile") {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 94;
    write_all(1, std::to_string(static_cast<unsigned long long>(limit.rlim_cur)));
    return 0;
  }
  if (mode == "group") {
    write_all(1, std::to_string(getpid()) + " " + std::to_string(getpgid(0)));
    return 0;
  }
  if (mode == "stdin") {
    char buf[256];
    size_t total = 0;
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0) total += static_cast<size_t>(n);
    write_all(1, std::to_string(total));
    return 0;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 64;
  const std::string mode = argv[1];
  const char* arg = argc > 2 ? argv[2] : "";
  if (auto code = life_mode(mode, arg, argc, argv)) return *code;
  if (auto code = output_mode(mode, arg, argc, argv)) return *code;
  return 64;
}
