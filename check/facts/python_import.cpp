#include "facts/python_import.hpp"

#include "facts/json_fields.hpp"

namespace kd {

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
