#include "python_probe.hpp"

#include "json_fields.hpp"
#include "python_import.hpp"

namespace kd {

std::string_view python_probe_program_text();  // python_probe_program.cpp, made by the build

std::string_view python_probe_program() { return python_probe_program_text(); }

std::vector<std::string> python_worker_argv(const std::string& python, bool gpu, long long index,
                                            const Options& options,
                                            const std::string& private_folder) {
  const nlohmann::json asked = {{"compile", options.compile},
                                {"imports", options.imports},
                                {"weights", options.weights},
                                {"private_folder", private_folder}};
  return {python, "-B", "-c", std::string(python_probe_program()), gpu ? "cuda" : "cpu",
          std::to_string(index),
          asked.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

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

namespace {

using json_field::flag;
using json_field::text;

// "torch/_utils_internal.py" -> "torch._utils_internal"; "torch/fx/__init__.py" -> "torch.fx".
std::string module_of_file(std::string file) {
  if (file.size() > 3 && file.compare(file.size() - 3, 3, ".py") == 0) file.resize(file.size() - 3);
  const std::string init = "/__init__";
  if (file.size() > init.size() && file.compare(file.size() - init.size(), init.size(), init) == 0) {
    file.resize(file.size() - init.size());
  }
  for (char& c : file) {
    if (c == '/') c = '.';
  }
  return file;
}

}  // namespace

PythonImport python_import_of(const nlohmann::json& facts, const nlohmann::json& found) {
  PythonImport i;
  if (facts.is_object()) {
    i.exception = text(facts, "exception");
    i.words = text(facts, "words");
    i.module = text(facts, "module");
    i.torch_module = module_of_file(text(facts, "torch_file"));
    i.loader = flag(facts, "loader");
    i.own_tag = text(facts, "extension_tag_own");
    if (auto it = facts.find("extension_tags"); it != facts.end() && it->is_array()) {
      for (const auto& tag : *it) {
        if (tag.is_string() && tag.get<std::string>() == i.own_tag) i.extension_own = true;
      }
    }
    if (auto it = facts.find("extension_python"); it != facts.end() && it->is_array()) {
      for (const auto& v : *it) {
        if (v.is_string()) i.extension_pythons.push_back(v.get<std::string>());
      }
    }
  }
  if (found.is_object()) {
    i.found_kind = text(found, "kind");
    i.found_installed = flag(found, "installed");
    i.installed_elsewhere = flag(found, "installed_elsewhere");
    i.found_place = text(found, "place");
  }
  return i;
}

}  // namespace kd
