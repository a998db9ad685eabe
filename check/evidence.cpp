#include "evidence.hpp"

#include <array>
#include <cctype>
#include <regex>

#include "sanitize.hpp"
#include "util/text.hpp"

namespace kd {
namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

constexpr std::array<std::string_view, 3> kNodeStates{"absent", "accessible", "not_accessible"};
constexpr std::array<std::string_view, 5> kCopyStates{"absent", "readable", "not_readable",
                                                      "other_machine", "damaged"};
constexpr std::array<std::string_view, 5> kDamages{"truncated", "bad_header", "dynamic_outside",
                                                   "symbol_table", "record_mismatch"};
constexpr std::array<std::string_view, 8> kShapes{"empty",     "-1",         "void",  "none",
                                                  "all",       "uuid_list",  "index_list", "other"};

template <size_t N>
std::optional<size_t> index_of(const std::array<std::string_view, N>& names, const json& v) {
  if (!v.is_string()) return std::nullopt;
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == v.get_ref<const std::string&>()) return i;
  }
  return std::nullopt;
}

ojson text_or_null(const std::optional<std::string>& s) { return s ? ojson(*s) : ojson(nullptr); }

ojson runtime_json(const RuntimeAnswer& r) {
  return {{"api", r.api},
          {"error", r.error},
          {"error_name", r.error_name.empty() ? ojson(nullptr) : ojson(r.error_name)},
          {"driver_version", text_or_null(r.driver_version)},
          {"runtime_version", text_or_null(r.runtime_version)}};
}

ojson nodes_json(const DeviceNodes& n) {
  auto state = [](NodeState s) { return std::string(kNodeStates[static_cast<size_t>(s)]); };
  return {{"nvidiactl", state(n.nvidiactl)},
          {"nvidia_uvm", state(n.nvidia_uvm)},
          {"nvidia_gpus", n.nvidia_gpus},
          {"nvidia_gpus_accessible", n.nvidia_gpus_accessible},
          {"kfd", state(n.kfd)},
          {"render_nodes", n.render_nodes},
          {"render_nodes_accessible", n.render_nodes_accessible}};
}

// ---- reading a worker's evidence back ----

// A string that is a short version-like token, or null.
bool token_or_null(const json& v) {
  return v.is_null() || (v.is_string() && !Sanitizer::token(v.get<std::string>()).empty());
}

std::optional<std::string> optional_text(const json& v) {
  return v.is_string() ? std::optional<std::string>(v.get<std::string>()) : std::nullopt;
}

bool small_count(const json& v) {
  return v.is_number_integer() && v.get<long long>() >= 0 && v.get<long long>() <= 4096;
}

std::optional<RuntimeAnswer> runtime_from(const json& v, std::string& problem) {
  RuntimeAnswer r;
  if (!v.is_object() || !(v.value("api", "") == "cuda" || v.value("api", "") == "hip") ||
      !v.contains("error") || !v["error"].is_number_integer() ||
      !token_or_null(v.value("error_name", json())) || !token_or_null(v.value("driver_version", json())) ||
      !token_or_null(v.value("runtime_version", json())) || v.size() != 5) {
    problem = "the evidence's runtime is malformed";
    return std::nullopt;
  }
  r.api = v["api"].get<std::string>();
  r.error = v["error"].get<int>();
  r.error_name = optional_text(v["error_name"]).value_or("");
  r.driver_version = optional_text(v["driver_version"]);
  r.runtime_version = optional_text(v["runtime_version"]);
  return r;
}

std::optional<DeviceNodes> nodes_from(const json& v, std::string& problem) {
  DeviceNodes n;
  auto state = [&](const char* key, NodeState& out) {
    auto i = v.is_object() && v.contains(key) ? index_of(kNodeStates, v[key]) : std::nullopt;
    if (i) out = static_cast<NodeState>(*i);
    return i.has_value();
  };
  auto count = [&](const char* key, int& out) {
    bool ok = v.is_object() && v.contains(key) && small_count(v[key]);
    if (ok) out = v[key].get<int>();
    return ok;
  };
  if (!state("nvidiactl", n.nvidiactl) || !state("nvidia_uvm", n.nvidia_uvm) ||
      !state("kfd", n.kfd) || !count("nvidia_gpus", n.nvidia_gpus) ||
      !count("nvidia_gpus_accessible", n.nvidia_gpus_accessible) ||
      !count("render_nodes", n.render_nodes) ||
      !count("render_nodes_accessible", n.render_nodes_accessible) || v.size() != 7) {
    problem = "the evidence's device nodes are malformed";
    return std::nullopt;
  }
  return n;
}

std::optional<VisibleDevices> visible_from(const json& v, std::string& problem) {
  VisibleDevices out;
  if (v.is_object() && v.size() == visibility_variables().size()) {
    for (const auto& name : visibility_variables()) {
      if (!v.contains(name)) break;
      const json& shape = v[name];
      if (shape.is_null()) {
        out.emplace_back(name, std::nullopt);
      } else if (index_of(kShapes, shape)) {
        out.emplace_back(name, shape.get<std::string>());
      } else {
        break;
      }
    }
  }
  if (out.size() != visibility_variables().size()) {
    problem = "the evidence's visible devices are malformed";
    return std::nullopt;
  }
  return out;
}

bool size_or_null(const json& v) {
  return v.is_null() || (v.is_number_integer() && v.get<long long>() >= 0);
}

std::optional<long long> optional_size(const json& v) {
  return v.is_number_integer() ? std::optional<long long>(v.get<long long>()) : std::nullopt;
}

std::optional<LibraryCopy> library_from(const json& v, std::string& problem) {
  LibraryCopy c;
  auto found = v.is_object() && v.contains("found") ? index_of(kCopyStates, v["found"]) : std::nullopt;
  const json damage = v.is_object() ? v.value("damage", json()) : json();
  if (!found || !v.contains("name") || !v["name"].is_string() ||
      Sanitizer::token(v["name"].get<std::string>()).empty() ||
      !token_or_null(v.value("machine", json())) || !size_or_null(v.value("size", json())) ||
      !size_or_null(v.value("needed_size", json())) ||
      !(damage.is_null() || index_of(kDamages, damage)) || v.size() != 6) {
    problem = "the evidence's library is malformed";
    return std::nullopt;
  }
  c.name = v["name"].get<std::string>();
  c.found = static_cast<CopyState>(*found);
  c.machine = optional_text(v["machine"]);
  c.size = optional_size(v["size"]);
  c.needed_size = optional_size(v["needed_size"]);
  c.damage = optional_text(damage);
  return c;
}

}  // namespace

const std::vector<std::string>& visibility_variables() {
  static const std::vector<std::string> names{"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
                                              "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"};
  return names;
}

std::string visibility_shape(std::string_view value) {
  std::string v(trim(value));
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v.empty()) return "empty";
  if (v == "void" || v == "none" || v == "all") return v;
  if (v == "-1" || v.rfind("-1,", 0) == 0) return "-1";
  static const std::regex uuids("(gpu|mig)-[0-9a-f-]+(/[0-9]+/[0-9]+)?(,(gpu|mig)-[0-9a-f-]+(/[0-9]+/[0-9]+)?)*");
  static const std::regex indices("[0-9]+(,[0-9]+)*");
  if (std::regex_match(v, uuids)) return "uuid_list";
  if (std::regex_match(v, indices)) return "index_list";
  return "other";
}

std::optional<std::string> runtime_version_text(const std::string& api, int version) {
  if (version <= 0) return std::nullopt;
  // CUDA: 1000 * major + 10 * minor; HIP: 10000000 * major + 100000 * minor + patch.
  int major = api == "hip" ? version / 10000000 : version / 1000;
  int minor = api == "hip" ? version / 100000 % 100 : version % 1000 / 10;
  return std::to_string(major) + "." + std::to_string(minor);
}

std::optional<RuntimeAnswer> runtime_answer(const kd_runtime_status& s) {
  if (s.api != KD_API_CUDA && s.api != KD_API_HIP) return std::nullopt;
  RuntimeAnswer r;
  r.api = s.api == KD_API_CUDA ? "cuda" : "hip";
  r.error = s.error_number;
  r.error_name = Sanitizer::token(std::string(s.error_name, strnlen(s.error_name, sizeof s.error_name)));
  r.driver_version = runtime_version_text(r.api, s.driver_version);
  r.runtime_version = runtime_version_text(r.api, s.runtime_version);
  return r;
}

std::optional<std::string> kernel_module_version(std::string_view text) {
  std::vector<std::string_view> lines = split_lines(text);
  std::string first(lines.empty() ? std::string_view() : lines[0]);
  // "... Kernel Module  535.104.05  ..." or "... Open Kernel Module for x86_64  550.54.15 ...".
  static const std::regex version("Kernel Module.*?\\b([0-9]+\\.[0-9]+(\\.[0-9]+)?)\\b");
  std::smatch m;
  if (!std::regex_search(first, m, version)) return std::nullopt;
  return m[1].str();
}

std::optional<std::string> library_file_version(std::string_view name) {
  size_t so = name.find(".so.");
  if (so == std::string_view::npos) return std::nullopt;
  std::string version(name.substr(so + 4));
  // libcuda.so.1 is the soname, not a driver version.
  if (version.find('.') == std::string::npos) return std::nullopt;
  std::string token = Sanitizer::token(version);
  return token.empty() ? std::nullopt : std::optional<std::string>(token);
}

ojson evidence_json(const Evidence& e) {
  ojson visible = nullptr;
  if (e.visible_devices) {
    visible = ojson::object();
    for (const auto& [name, shape] : *e.visible_devices) visible[name] = text_or_null(shape);
  }
  ojson library = nullptr;
  if (e.library) {
    auto size = [](const std::optional<long long>& n) { return n ? ojson(*n) : ojson(nullptr); };
    library = {{"name", e.library->name},
               {"found", kCopyStates[static_cast<size_t>(e.library->found)]},
               {"machine", text_or_null(e.library->machine)},
               {"size", size(e.library->size)},
               {"needed_size", size(e.library->needed_size)},
               {"damage", text_or_null(e.library->damage)}};
  }
  return {{"runtime", e.runtime ? runtime_json(*e.runtime) : ojson(nullptr)},
          {"driver_library", text_or_null(e.driver_library)},
          {"kernel_module", text_or_null(e.kernel_module)},
          {"device_nodes", e.device_nodes ? nodes_json(*e.device_nodes) : ojson(nullptr)},
          {"visible_devices", visible},
          {"library", library}};
}

std::optional<Evidence> evidence_from_json(const json& v, std::string& problem) {
  static const std::array<const char*, 6> kKeys{"runtime",      "driver_library",  "kernel_module",
                                                "device_nodes", "visible_devices", "library"};
  if (!v.is_object() || v.size() != kKeys.size()) {
    problem = "the evidence is not an object of its six keys";
    return std::nullopt;
  }
  for (const char* key : kKeys) {
    if (!v.contains(key)) {
      problem = std::string("the evidence lacks ") + key;
      return std::nullopt;
    }
  }
  Evidence e;
  if (!token_or_null(v["driver_library"]) || !token_or_null(v["kernel_module"])) {
    problem = "the evidence's versions are not version tokens";
    return std::nullopt;
  }
  e.driver_library = optional_text(v["driver_library"]);
  e.kernel_module = optional_text(v["kernel_module"]);
  bool ok = true;
  if (!v["runtime"].is_null()) ok = ok && (e.runtime = runtime_from(v["runtime"], problem));
  if (!v["device_nodes"].is_null()) ok = ok && (e.device_nodes = nodes_from(v["device_nodes"], problem));
  if (!v["visible_devices"].is_null()) {
    ok = ok && (e.visible_devices = visible_from(v["visible_devices"], problem));
  }
  if (!v["library"].is_null()) ok = ok && (e.library = library_from(v["library"], problem));
  if (!ok) return std::nullopt;
  return e;
}

}  // namespace kd
