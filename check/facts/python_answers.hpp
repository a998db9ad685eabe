// The python probe's answers (run/python_probe.hpp runs it): JSON lines, one per call of the probe
// interface (probe_abi.h) in the order the stages make them, read once where they arrive; the
// stages walk them as they walk any probe's calls.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kd {

struct PythonAnswers {
  std::vector<nlohmann::json> answers;  // in the order given
  bool done = false;                    // the program ended its answers
  std::string problem;                  // the first malformed answer, if any

  // The first answer to `call`; nullptr where none was given.
  const nlohmann::json* find(std::string_view call) const;
  // The time the answer to `call` gives, in milliseconds; nullopt where it gives none.
  std::optional<double> ms(std::string_view call) const;
};

// The four numbers of an answer's `key` (a 2x2 result, row by row) into `out`; false where it
// holds anything else.
bool read_four(const nlohmann::json& answer, const char* key, float (&out)[4]);

// Takes an answer or the end of the answers; false for any other line (a protocol event).
bool take_python_line(PythonAnswers& answers, std::string_view line);

}  // namespace kd
