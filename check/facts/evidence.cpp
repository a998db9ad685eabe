#include "facts/evidence.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>

#include "facts/sanitize.hpp"
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
constexpr std::array<std::string_view, 4> kFolders{"cuda_toolkit", "ld_library_path", "own_path",
                                                   "system"};
constexpr std::array<std::string_view, 3> kHierarchies{"v1", "v2", "none"};
constexpr std::array<std::string_view, 2> kListVerdicts{"allows", "denies"};
constexpr std::array<std::string_view, 2> kGidMaps{"identity", "partial"};
constexpr std::array<std::string_view, 2> kPresence{"absent", "present"};
constexpr std::array<std::string_view, 3> kLibcudaFolders{"stubs", "compat", "other"};
constexpr std::array<std::string_view, 3> kOverrideShapes{"version", "empty", "other"};

template <size_t N>
std::optional<size_t> index_of(const std::array<std::string_view, N>& names, const json& v) {
  if (!v.is_string()) return std::nullopt;
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == v.get_ref<const std::string&>()) return i;
  }
  return std::nullopt;
}

ojson text_or_null(const std::optional<std::string>& s) { return s ? ojson(*s) : ojson(nullptr); }

// The fields of a line, split at spaces.
std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  for (size_t at = 0; at < line.size();) {
    size_t end = line.find(' ', at);
    if (end == std::string_view::npos) end = line.size();
    if (end > at) out.push_back(line.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// A decimal number of at most 10 digits, as /proc writes ids and counts.
bool whole_number(std::string_view text, unsigned long& out) {
  if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string_view::npos) {
    return false;
  }
  out = std::stoul(std::string(text));
  return true;
}

bool lists(std::string_view comma_list, std::string_view item) {
  for (size_t at = 0; at <= comma_list.size();) {
    size_t end = comma_list.find(',', at);
    if (end == std::string_view::npos) end = comma_list.size();
    if (comma_list.substr(at, end - at) == item) return true;
    at = end + 1;
  }
  return false;
}


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
          {"render_nodes_accessible", n.render_nodes_accessible},
          {"dxg", state(n.dxg)}};
}

ojson cgroup_json(const DeviceCgroup& c) {
  return {{"hierarchy", c.hierarchy},
          {"devices_list", text_or_null(c.devices_list)},
          {"nvidiactl_refused", c.nvidiactl},
          {"nvidia_uvm_refused", c.nvidia_uvm},
          {"nvidia_gpus_refused", c.nvidia_gpus},
          {"kfd_refused", c.kfd},
          {"render_nodes_refused", c.render_nodes}};
}

ojson user_namespace_json(const UserNamespace& u) {
  return {{"gid_map", u.identity ? "identity" : "partial"},
          {"unmapped_group_nodes", u.unmapped_group_nodes}};
}

ojson driver_files_json(const DriverFiles& d) {
  auto presence = [](bool present) { return present ? "present" : "absent"; };
  return {{"libcuda_so_1", presence(d.libcuda_so_1)},
          {"libcuda_file", text_or_null(d.libcuda_file)},
          {"libcuda_folder", text_or_null(d.libcuda_folder)},
          {"libcuda_version_without_link", text_or_null(d.libcuda_version_without_link)},
          {"libnvidia_ml_so_1", presence(d.libnvidia_ml_so_1)}};
}

ojson rocm_json(const RocmFacts& r) {
  return {{"gfx_target", text_or_null(r.gfx_target)},
          {"hsa_override_gfx_version", text_or_null(r.hsa_override_gfx_version)}};
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
      !state("kfd", n.kfd) || !state("dxg", n.dxg) || !count("nvidia_gpus", n.nvidia_gpus) ||
      !count("nvidia_gpus_accessible", n.nvidia_gpus_accessible) ||
      !count("render_nodes", n.render_nodes) ||
      !count("render_nodes_accessible", n.render_nodes_accessible) || v.size() != 8) {
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
  const json folder = v.is_object() ? v.value("folder", json()) : json();
  if (!found || !v.contains("name") || !v["name"].is_string() ||
      Sanitizer::token(v["name"].get<std::string>()).empty() ||
      !token_or_null(v.value("machine", json())) || !size_or_null(v.value("size", json())) ||
      !size_or_null(v.value("needed_size", json())) ||
      !(damage.is_null() || index_of(kDamages, damage)) ||
      !(folder.is_null() || index_of(kFolders, folder)) || v.size() != 7) {
    problem = "the evidence's library is malformed";
    return std::nullopt;
  }
  c.name = v["name"].get<std::string>();
  c.found = static_cast<CopyState>(*found);
  c.machine = optional_text(v["machine"]);
  c.size = optional_size(v["size"]);
  c.needed_size = optional_size(v["needed_size"]);
  c.damage = optional_text(damage);
  c.folder = optional_text(folder);
  return c;
}

// An object of exactly `keys`, each passing `fits`.
bool object_of(const json& v, std::initializer_list<std::pair<const char*, bool (*)(const json&)>> keys) {
  if (!v.is_object() || v.size() != keys.size()) return false;
  for (const auto& [key, fits] : keys) {
    if (!v.contains(key) || !fits(v[key])) return false;
  }
  return true;
}

template <const auto& kNames>
bool one_of(const json& v) {
  return index_of(kNames, v).has_value();
}
template <const auto& kNames>
bool one_of_or_null(const json& v) {
  return v.is_null() || index_of(kNames, v).has_value();
}
bool boolean(const json& v) { return v.is_boolean(); }
bool count(const json& v) { return small_count(v); }
bool token_value(const json& v) { return token_or_null(v); }

std::optional<DeviceCgroup> cgroup_from(const json& v, std::string& problem) {
  if (!object_of(v, {{"hierarchy", one_of<kHierarchies>},
                     {"devices_list", one_of_or_null<kListVerdicts>},
                     {"nvidiactl_refused", boolean},
                     {"nvidia_uvm_refused", boolean},
                     {"nvidia_gpus_refused", count},
                     {"kfd_refused", boolean},
                     {"render_nodes_refused", count}})) {
    problem = "the evidence's device cgroup is malformed";
    return std::nullopt;
  }
  DeviceCgroup c;
  c.hierarchy = v["hierarchy"].get<std::string>();
  c.devices_list = optional_text(v["devices_list"]);
  c.nvidiactl = v["nvidiactl_refused"].get<bool>();
  c.nvidia_uvm = v["nvidia_uvm_refused"].get<bool>();
  c.nvidia_gpus = v["nvidia_gpus_refused"].get<int>();
  c.kfd = v["kfd_refused"].get<bool>();
  c.render_nodes = v["render_nodes_refused"].get<int>();
  return c;
}

std::optional<UserNamespace> user_namespace_from(const json& v, std::string& problem) {
  if (!object_of(v, {{"gid_map", one_of<kGidMaps>}, {"unmapped_group_nodes", count}})) {
    problem = "the evidence's user namespace is malformed";
    return std::nullopt;
  }
  return UserNamespace{v["gid_map"] == "identity", v["unmapped_group_nodes"].get<int>()};
}

std::optional<DriverFiles> driver_files_from(const json& v, std::string& problem) {
  if (!object_of(v, {{"libcuda_so_1", one_of<kPresence>},
                     {"libcuda_file", token_value},
                     {"libcuda_folder", one_of_or_null<kLibcudaFolders>},
                     {"libcuda_version_without_link", token_value},
                     {"libnvidia_ml_so_1", one_of<kPresence>}})) {
    problem = "the evidence's driver files are malformed";
    return std::nullopt;
  }
  DriverFiles d;
  d.libcuda_so_1 = v["libcuda_so_1"] == "present";
  d.libcuda_file = optional_text(v["libcuda_file"]);
  d.libcuda_folder = optional_text(v["libcuda_folder"]);
  d.libcuda_version_without_link = optional_text(v["libcuda_version_without_link"]);
  d.libnvidia_ml_so_1 = v["libnvidia_ml_so_1"] == "present";
  return d;
}

std::optional<RocmFacts> rocm_from(const json& v, std::string& problem) {
  if (!object_of(v, {{"gfx_target", token_value},
                     {"hsa_override_gfx_version", one_of_or_null<kOverrideShapes>}})) {
    problem = "the evidence's ROCm facts are malformed";
    return std::nullopt;
  }
  return RocmFacts{optional_text(v["gfx_target"]), optional_text(v["hsa_override_gfx_version"])};
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

ojson library_json(const LibraryCopy& l) {
  auto size = [](const std::optional<long long>& n) { return n ? ojson(*n) : ojson(nullptr); };
  return {{"name", l.name},
          {"found", kCopyStates[static_cast<size_t>(l.found)]},
          {"machine", text_or_null(l.machine)},
          {"size", size(l.size)},
          {"needed_size", size(l.needed_size)},
          {"damage", text_or_null(l.damage)},
          {"folder", text_or_null(l.folder)}};
}

ojson evidence_json(const Evidence& e) {
  ojson visible = nullptr;
  if (e.visible_devices) {
    visible = ojson::object();
    for (const auto& [name, shape] : *e.visible_devices) visible[name] = text_or_null(shape);
  }
  return {{"runtime", e.runtime ? runtime_json(*e.runtime) : ojson(nullptr)},
          {"driver_library", text_or_null(e.driver_library)},
          {"kernel_module", text_or_null(e.kernel_module)},
          {"device_nodes", e.device_nodes ? nodes_json(*e.device_nodes) : ojson(nullptr)},
          {"visible_devices", visible},
          {"library", e.library ? library_json(*e.library) : ojson(nullptr)},
          {"device_cgroup", e.device_cgroup ? cgroup_json(*e.device_cgroup) : ojson(nullptr)},
          {"user_namespace",
           e.user_namespace ? user_namespace_json(*e.user_namespace) : ojson(nullptr)},
          {"driver_files", e.driver_files ? driver_files_json(*e.driver_files) : ojson(nullptr)},
          {"wsl_kernel", e.wsl_kernel ? ojson(*e.wsl_kernel) : ojson(nullptr)},
          {"rocm", e.rocm ? rocm_json(*e.rocm) : ojson(nullptr)}};
}

namespace {

// Each object key of the evidence read back with its reader, when not null.
bool objects_from(const json& v, Evidence& e, std::string& problem) {
  bool ok = true;
  auto read = [&](const char* key, auto& out, auto reader) {
    if (ok && !v[key].is_null()) ok = static_cast<bool>(out = reader(v[key], problem));
  };
  read("runtime", e.runtime, runtime_from);
  read("device_nodes", e.device_nodes, nodes_from);
  read("visible_devices", e.visible_devices, visible_from);
  read("library", e.library, library_from);
  read("device_cgroup", e.device_cgroup, cgroup_from);
  read("user_namespace", e.user_namespace, user_namespace_from);
  read("driver_files", e.driver_files, driver_files_from);
  read("rocm", e.rocm, rocm_from);
  return ok;
}

}  // namespace

std::optional<Evidence> evidence_from_json(const json& v, std::string& problem) {
  static const std::array<const char*, 11> kKeys{
      "runtime",       "driver_library", "kernel_module",  "device_nodes",
      "visible_devices", "library",      "device_cgroup",  "user_namespace",
      "driver_files",  "wsl_kernel",     "rocm"};
  if (!v.is_object() || v.size() != kKeys.size()) {
    problem = "the evidence is not an object of its eleven keys";
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
  if (!v["wsl_kernel"].is_null() && !v["wsl_kernel"].is_boolean()) {
    problem = "the evidence's wsl_kernel is not true, false or null";
    return std::nullopt;
  }
  e.driver_library = optional_text(v["driver_library"]);
  e.kernel_module = optional_text(v["kernel_module"]);
  if (v["wsl_kernel"].is_boolean()) e.wsl_kernel = v["wsl_kernel"].get<bool>();
  if (!objects_from(v, e, problem)) return std::nullopt;
  return e;
}

bool devices_list_allows(std::string_view list, unsigned major, unsigned minor) {
  auto fits = [](std::string_view field, unsigned number) {
    return field == "*" || field == std::to_string(number);
  };
  for (std::string_view line : split_lines(list)) {
    // "c 195:* rwm": a type, major:minor, the access it allows.
    std::vector<std::string_view> parts = fields(line);
    if (parts.size() != 3) continue;
    const size_t colon = parts[1].find(':');
    if (colon == std::string_view::npos) continue;
    const bool type = parts[0] == "a" || parts[0] == "c";
    const bool access = parts[2].find('r') != std::string_view::npos &&
                        parts[2].find('w') != std::string_view::npos;
    if (type && access && fits(parts[1].substr(0, colon), major) &&
        fits(parts[1].substr(colon + 1), minor)) {
      return true;
    }
  }
  return false;
}


std::string devices_cgroup_folder(std::string_view proc_cgroup, std::string_view mountinfo) {
  std::string path;
  for (std::string_view line : split_lines(proc_cgroup)) {
    // "5:devices:/docker/abc"
    size_t a = line.find(':');
    size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b != std::string_view::npos && lists(line.substr(a + 1, b - a - 1), "devices")) {
      path = std::string(line.substr(b + 1));
    }
  }
  if (path.empty()) return "";
  for (std::string_view line : split_lines(mountinfo)) {
    // "id parent major:minor root mount-point options... - cgroup cgroup rw,devices"
    std::vector<std::string_view> f = fields(line);
    const size_t dash = static_cast<size_t>(std::find(f.begin(), f.end(), "-") - f.begin());
    if (dash < 5 || dash + 3 >= f.size() || f[dash + 1] != "cgroup" ||
        !lists(f[dash + 3], "devices")) {
      continue;
    }
    std::string root(f[3]), mount_point(f[4]);
    if (root == "/") root.clear();
    if (path.compare(0, root.size(), root) != 0) continue;
    std::string rest = path.substr(root.size());
    return mount_point + (rest == "/" ? "" : rest);
  }
  return "";
}

bool gid_map_covers(std::string_view gid_map, unsigned long gid) {
  for (std::string_view line : split_lines(gid_map)) {
    std::vector<std::string_view> f = fields(line);
    unsigned long inside = 0, count = 0;
    if (f.size() != 3 || !whole_number(f[0], inside) || !whole_number(f[2], count)) continue;
    if (gid >= inside && gid - inside < count) return true;
  }
  return false;
}

bool gid_map_is_identity(std::string_view gid_map) {
  std::vector<std::string_view> lines = split_lines(gid_map);
  if (lines.size() != 1) return false;
  std::vector<std::string_view> f = fields(lines[0]);
  return f.size() == 3 && f[0] == "0" && f[1] == "0" && f[2] == "4294967295";
}

std::optional<std::string> gfx_target_name(long long version) {
  if (version <= 0) return std::nullopt;
  const long long major = version / 10000, minor = version / 100 % 100, step = version % 100;
  if (minor > 15 || step > 15) return std::nullopt;
  const char* hex = "0123456789abcdef";
  return "gfx" + std::to_string(major) + hex[minor] + hex[step];
}

std::string gfx_override_shape(std::string_view value) {
  std::string v(trim(value));
  if (v.empty()) return "empty";
  static const std::regex version("[0-9]+\\.[0-9]+\\.[0-9]+");
  return std::regex_match(v, version) ? "version" : "other";
}

std::string library_path_role(std::string_view folder) {
  std::string f(folder);
  while (f.size() > 1 && f.back() == '/') f.pop_back();
  static const std::regex toolkit(".*/cuda(-[0-9][0-9.]*)?/(lib64|lib|targets/[^/]+/lib)");
  return std::regex_match(f, toolkit) ? "cuda_toolkit" : "ld_library_path";
}

}  // namespace kd
