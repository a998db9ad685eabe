#include "facts/python_answers.hpp"

#include "facts/json_fields.hpp"

namespace kd {

const nlohmann::json* PythonAnswers::find(std::string_view call) const {
  for (const nlohmann::json& a : answers) {
    if (a.value("call", std::string()) == call) return &a;
  }
  return nullptr;
}

bool read_four(const nlohmann::json& answer, const char* key, float (&out)[4]) {
  auto it = answer.find(key);
  if (it == answer.end() || !it->is_array() || it->size() != 4) return false;
  for (size_t i = 0; i < 4; ++i) {
    if (!(*it)[i].is_number()) return false;
    out[i] = (*it)[i].get<float>();
  }
  return true;
}

bool take_python_line(PythonAnswers& answers, std::string_view line) {
  // Cheap before parsing: the protocol's own events never carry these words.
  if (line.find("\"answer\"") == std::string_view::npos &&
      line.find("\"done\"") == std::string_view::npos) {
    return false;
  }
  nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
  if (!event.is_object() || !event["event"].is_string()) return false;
  const std::string kind = event["event"].get<std::string>();
  if (kind == "done") {
    answers.done = true;
    return true;
  }
  if (kind != "answer") return false;
  if (!event["call"].is_string()) {
    if (answers.problem.empty()) answers.problem = "an answer names no call";
    return true;
  }
  answers.answers.push_back(std::move(event));
  return true;
}

std::optional<double> PythonAnswers::ms(std::string_view call) const {
  const nlohmann::json* a = find(call);
  return a == nullptr ? std::nullopt : json_field::duration(*a, "ms");
}

}  // namespace kd
