// The facts a cause's sentences name (causes.hpp, cause_facts): the vendor and
// how its GPUs are exposed, the nodes this user may not open, the visibility
// variables set, the two driver versions, the loader's library names, the GPU's
// architecture, the resource limits, the stage the worker reached and how it
// ended, why standard output refused the report.
#include <algorithm>
#include <cctype>
#include <vector>

#include "causes/causes.hpp"
#include "util/elf.hpp"
#include "util/text.hpp"
#include "facts/version_spec.hpp"

namespace kd {
namespace {

// The nodes of the runtime's vendor whose mode refuses this process, by name (those the
// device cgroup refuses are named by refused_nodes).
std::string closed_nodes(const DeviceNodes& n, const DeviceCgroup& c, bool hip) {
  std::vector<std::string> names;
  auto add = [&names](bool closed, const char* name) {
    if (closed) names.emplace_back(name);
  };
  if (hip) {
    add(n.kfd == NodeState::NotAccessible && !c.kfd, "/dev/kfd");
    add(n.render_nodes - n.render_nodes_accessible - c.render_nodes > 0, "/dev/dri/renderD*");
  } else {
    add(n.nvidiactl == NodeState::NotAccessible && !c.nvidiactl, "/dev/nvidiactl");
    add(n.nvidia_uvm == NodeState::NotAccessible && !c.nvidia_uvm, "/dev/nvidia-uvm");
    add(n.nvidia_gpus - n.nvidia_gpus_accessible - c.nvidia_gpus > 0, "/dev/nvidiaN");
  }
  return joined(names);
}

// The nodes the device cgroup refuses, by name, and the GPUs among them: "2 of 2 /dev/nvidiaN".
void cgroup_facts(const DeviceNodes& n, const DeviceCgroup& c, bool hip, Facts& facts) {
  std::vector<std::string> names;
  const int gpus = hip ? n.render_nodes : n.nvidia_gpus;
  const int refused = hip ? c.render_nodes : c.nvidia_gpus;
  const std::string gpu_name = hip ? "/dev/dri/renderD*" : "/dev/nvidiaN";
  if (hip && c.kfd) names.emplace_back("/dev/kfd");
  if (!hip && c.nvidiactl) names.emplace_back("/dev/nvidiactl");
  if (!hip && c.nvidia_uvm) names.emplace_back("/dev/nvidia-uvm");
  if (refused > 0) names.push_back(refused == gpus ? gpu_name : "some " + gpu_name);
  facts["refused_nodes"] = names.empty() ? "no node named" : joined(names);
  facts["refused_gpus"] = std::to_string(refused) + " of " + std::to_string(gpus) + " " + gpu_name;
  facts["cgroup_list"] = c.devices_list == std::optional<std::string>("denies")
                             ? " (its devices.list lacks them)"
                         : c.hierarchy == "v2" ? " (a BPF device program of cgroup v2)"
                                               : "";
}

// "CUDA_VISIBLE_DEVICES (a UUID list)": the variables set, with their shapes.
std::string variables_set(const VisibleDevices& variables) {
  std::vector<std::string> set;
  for (const auto& [name, shape] : variables) {
    if (shape && name != "NVIDIA_VISIBLE_DEVICES") set.push_back(name + " (" + *shape + ")");
  }
  return joined(set);
}

// The driver's files where the loader looks: a stub's, and the version of a driver library
// without its link.
void driver_file_facts(const Evidence& e, Facts& facts) {
  const DriverFiles d = e.driver_files.value_or(DriverFiles{});
  facts["libcuda_version"] = d.libcuda_version_without_link.value_or("<version>");
  if (d.libcuda_folder == std::optional<std::string>("stubs")) {
    facts["stub_file"] = d.libcuda_file.value_or("libcuda.so") + " of a stubs folder";
  } else {
    facts["stub_file"] = d.libcuda_file.value_or("libcuda.so.1") + ", a file without a driver version";
  }
  const NodeState dxg = e.device_nodes ? e.device_nodes->dxg : NodeState::Absent;
  facts["dxg"] = dxg == NodeState::Absent     ? "/dev/dxg is missing too"
                 : dxg == NodeState::Accessible ? "/dev/dxg is there"
                                                : "/dev/dxg is there, but this user may not open it";
}

// A ROCm GPU's architecture and the variable that overrides it, by its shape.
void rocm_facts_of(const Evidence& e, Facts& facts) {
  const RocmFacts r = e.rocm.value_or(RocmFacts{});
  facts["gfx_target"] = r.gfx_target.value_or("an architecture it does not name");
  const std::string shape = r.hsa_override_gfx_version.value_or("");
  facts["override"] = shape.empty() ? ""
                      : shape == "empty"
                          ? "; HSA_OVERRIDE_GFX_VERSION is set, but empty"
                          : "; HSA_OVERRIDE_GFX_VERSION is set, and the target it names is not "
                            "in the build either";
}

void device_facts(const Evidence& e, bool hip, Facts& facts) {
  const DeviceCgroup cgroup = e.device_cgroup.value_or(DeviceCgroup{});
  if (e.device_nodes) {
    facts["closed_nodes"] = closed_nodes(*e.device_nodes, cgroup, hip);
    cgroup_facts(*e.device_nodes, cgroup, hip, facts);
  }
  driver_file_facts(e, facts);
  rocm_facts_of(e, facts);
  if (e.visible_devices) facts["variables"] = variables_set(*e.visible_devices);
  if (e.runtime) {
    facts["error"] = std::to_string(e.runtime->error);
    facts["driver_cuda"] = e.runtime->driver_version.value_or("no version");
    facts["runtime_cuda"] = e.runtime->runtime_version.value_or("of unknown version");
  }
  if (e.driver_library) {
    auto version = library_file_version(*e.driver_library);
    facts["driver_library"] =
        *e.driver_library + (version ? ", version " + *version : ", of unknown version");
  } else {
    facts["driver_library"] = "libcuda.so.1, of unknown version";
  }
  facts["kernel_module"] = e.kernel_module
                               ? "version " + *e.kernel_module
                               : "of unknown version: /proc/driver/nvidia/version cannot be read";
}

// The loader's library names, cut to tokens.
void loader_facts(std::string_view words, const Evidence* e, const Sanitizer& s, Facts& facts) {
  LoaderWords w = read_loader_words(words);
  auto put = [&](const char* key, const std::string& value) {
    std::string token = s.message(Sanitizer::token(value));
    if (!token.empty()) facts[key] = token;
  };
  put("library", !w.missing.empty() ? w.missing : w.subject);
  put("needed", w.needed);
  put("needer", w.needer);
  put("provider", w.provider);
  std::string elf_class = s.message(Sanitizer::token(w.elf_class));
  if (!elf_class.empty()) {
    facts["machine"] = (elf_class == "ELFCLASS32" ? "32-bit, " : "64-bit, ") + elf_class;
  }
  if (e != nullptr && e->library && e->library->machine) put("machine", *e->library->machine);
  // A damaged file found after the import failed is the library the cause names, and so is a
  // library the loader took from an unexpected folder.
  if (e != nullptr && e->library &&
      (e->library->found == CopyState::Damaged || e->library->folder)) {
    put("library", e->library->name);
  }
  const std::optional<std::string> folder = e != nullptr && e->library ? e->library->folder
                                                                        : std::nullopt;
  facts["folder"] = folder == std::optional<std::string>("cuda_toolkit")
                        ? "the image's CUDA toolkit folder that LD_LIBRARY_PATH names"
                        : "a folder LD_LIBRARY_PATH names";
}

// "; the process limit (ulimit -u) is 1", or "" without one: each limit set
// follows the sentence it explains.
std::string after_semicolon(const std::string& limits) {
  return limits.empty() ? "" : "; " + limits;
}

void limit_facts(const ResourceLimits& limits, Facts& facts) {
  facts["memory_limits"] = after_semicolon(memory_limits_text(limits));
  facts["cgroup_memory_limit"] = after_semicolon(cgroup_memory_limit_text(limits));
  facts["process_limits"] = after_semicolon(process_limits_text(limits));
  facts["open_file_limit"] = after_semicolon(open_file_limit_text(limits));
  if (limits.address_space) facts["address_space"] = size_text(*limits.address_space);
}

// What the parent knows of the worker's end and of the report's delivery.
void run_facts(const FactSources& in, Facts& facts) {
  limit_facts(in.limits != nullptr ? *in.limits : ResourceLimits{}, facts);
  if (!in.stage.empty()) facts["stage"] = std::string(in.stage);
  facts["how"] = in.how.empty() ? "" : " (" + std::string(in.how) + ")";
  if (!in.write_error.empty()) facts["write_error"] = std::string(in.write_error);
}

// The words of the failure itself, where a row quotes them whole (the check's own, as the
// stable probe's search): its first line, sanitized.
void words_fact(std::string_view words, const Sanitizer& s, Facts& facts) {
  std::string line(words.substr(0, words.find('\n')));
  if (!line.empty()) facts["words"] = s.message(line);
}

// The interpreter asked and what its import of torch showed (python_import.hpp), as tokens and
// fixed words: a module's name, never a path.
void python_facts(const FactSources& in, Facts& facts) {
  const std::string version = Sanitizer::token(in.python_version);
  if (!version.empty()) facts["python_version"] = version;
  if (in.import == nullptr) return;
  const PythonImport& i = *in.import;
  if (std::string m = Sanitizer::token(i.module); !m.empty()) facts["module"] = m;
  if (std::string m = Sanitizer::token(i.torch_module); !m.empty()) facts["torch_module"] = m;
  std::string pythons;
  for (const std::string& p : i.extension_pythons) {
    const std::string v = Sanitizer::token(p);
    if (v.empty()) continue;
    pythons += (pythons.empty() ? "" : " and ") + v;
  }
  if (!pythons.empty()) facts["torch_pythons"] = pythons;
  facts["shadow"] = i.found_kind == "module_file"       ? "a torch.py module"
                    : i.found_kind == "source_checkout" ? "a source checkout of torch"
                    : i.found_kind == "namespace"       ? "a torch folder without __init__.py"
                                                        : "a torch package no installer put there";
  facts["place"] = i.found_place == "working_folder" ? "in the working folder"
                   : i.found_place == "pythonpath"   ? "in a folder PYTHONPATH names"
                                                     : "on sys.path";
}

// The distribution that provides the module missing: the one of the extension's requirements
// this environment lacks whose name is the module's, or the only one it lacks; else the
// module's own name.
std::string provider_of(const ExtensionImport& e, const std::string& missing_top) {
  auto same = [](std::string a, std::string b) {
    auto fold = [](std::string s) {
      std::string out;
      for (char c : s) out += (c == '_' || c == '.') ? '-' : static_cast<char>(std::tolower(c));
      return out;
    };
    return fold(std::move(a)) == fold(std::move(b));
  };
  for (const std::string& d : e.requires_missing) {
    if (same(d, missing_top)) return d;
  }
  return e.requires_missing.size() == 1 ? e.requires_missing.front() : missing_top;
}

// Whether the torch imported is newer than every version the extension's requirement names:
// the extension is the older one, and an upgrade brings the release made for this torch.
bool extension_older(const ExtensionImport& e) {
  auto torch = parse_version(e.torch.version);
  if (!torch || !e.requires_torch) return false;
  const auto named = versions_named(*e.requires_torch);
  if (named.empty()) return false;
  for (const PackageVersion& v : named) {
    if (compare(torch->without_local(), v) <= 0) return false;
  }
  return true;
}

// The extension's CUDA and torch's, and what the sentences say of the torch imported.
void torch_facts_of(const ExtensionImport& e, Facts& facts) {
  const std::string version = Sanitizer::token(e.torch.version);
  facts["torch_version"] = version.empty() ? "of unknown version" : version;
  auto parsed = parse_version(e.torch.version);
  facts["torch_public"] = parsed ? parsed->public_text() : "<version>";
  const std::string cuda = Sanitizer::token(e.torch.cuda);
  facts["torch_build"] = cuda.empty() ? " (without CUDA)" : " (CUDA " + cuda + ")";
  facts["torch_cuda_words"] = cuda.empty() ? "built without CUDA" : "built with CUDA " + cuda;
  facts["torch_abi"] = e.torch.cxx11_abi == std::optional<bool>(false) ? "0" : "1";
  const std::string ext_cuda = extension_cuda(e);
  facts["ext_build"] = ext_cuda.empty() ? "" : ", " + ext_cuda;
  facts["ext_cuda_majors"] = e.cuda_majors.empty() ? "another" : joined(e.cuda_majors);
}

// A module of the application asked with --import (extension_import.hpp), as tokens and fixed
// words: names and versions, a C++ function's name, never a path.
void extension_facts(const FactSources& in, const Sanitizer& s, Facts& facts) {
  if (in.extension == nullptr) return;
  const ExtensionImport& e = *in.extension;
  const std::string module = Sanitizer::token(e.module);
  const std::string name = Sanitizer::token(e.distribution);
  facts["ext_module"] = module.empty() ? "the module asked" : module;
  facts["ext_name"] = !name.empty() ? name : module.substr(0, module.find('.'));
  facts["ext_distribution"] =
      name.empty() ? "no installed distribution" : name + " " + Sanitizer::token(e.version);
  torch_facts_of(e, facts);
  const std::string function = s.message(demangled(e.undefined_symbol));
  facts["function"] = function.empty() ? "a function" : function;
  facts["ext_abi"] = string_abi_of(demangled(e.undefined_symbol)) == "cxx11" ? "1" : "0";
  std::string words = e.words;
  if (!e.undefined_symbol.empty() && words.find(e.undefined_symbol) != std::string::npos) {
    words.replace(words.find(e.undefined_symbol), e.undefined_symbol.size(),
                  demangled(e.undefined_symbol));
  }
  facts["ext_words"] = s.message(words);
  const std::string exception = Sanitizer::token(e.exception);
  facts["ext_exception"] = exception.empty() ? "an exception" : exception;
  const std::string library = s.message(Sanitizer::token(e.library));
  facts["ext_library"] = library.empty() ? "of it" : library;
  const std::string spec = Sanitizer::specifier(e.requires_torch.value_or(""));
  facts["ext_requirement"] = spec.empty() ? " (any release)" : spec;
  facts["ext_built_for"] =
      spec.rfind("==", 0) == 0 ? " (torch" + spec + ", as its metadata requires)" : "";
  facts["ext_upgrade"] = extension_older(e) ? "--upgrade " : "";
  facts["ext_failure"] =
      !e.failed ? ""
      : e.phase == "library"
          ? ": loading its library " + facts["ext_library"] + " failed (" + facts["ext_words"] + ")"
          : ": its import failed (" + facts["ext_exception"] + ": " + facts["ext_words"] + ")";
  const std::string missing = Sanitizer::token(e.missing_module);
  const std::string missing_top = missing.substr(0, missing.find('.'));
  const std::string provider = Sanitizer::token(provider_of(e, missing_top));
  facts["ext_provider"] = provider.empty() ? "it" : provider;
  facts["ext_missing"] = missing.empty() ? "it names"
                         : provider.empty() || provider == missing_top
                             ? missing
                             : missing + " (of the distribution " + provider + ")";
  const std::string needed_by = Sanitizer::token(e.needed_by);
  facts["ext_needed_by"] = needed_by.empty() ? facts["ext_module"] : needed_by;
}

// "1,342,177,280": a size in bytes, readable.
std::string grouped(long long n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// A weights file asked with --weights (weights_file.hpp), as its base name, sizes, tokens and
// fixed words, never a path.
void weights_facts(const FactSources& in, const Sanitizer& s, Facts& facts) {
  const std::string torch = Sanitizer::token(in.torch_version);
  if (!torch.empty()) facts["torch_version"] = torch;
  if (in.weights == nullptr) return;
  const WeightsFile& w = *in.weights;
  const std::string file = s.message(w.file);
  facts["weights_file"] = file.empty() ? "asked" : file;
  facts["weights_format"] = format_words(w.format);
  facts["weights_words"] = w.words.empty() ? w.error_name : s.message(w.words);
  facts["weights_mode"] = Sanitizer::token(w.mode).empty() ? "unknown" : Sanitizer::token(w.mode);
  facts["weights_owner"] = w.owner_other ? ", and it belongs to another user" : "";
  facts["weights_size"] = w.size ? grouped(*w.size) : "an unknown number of";
  facts["lfs_size"] = w.lfs_size ? grouped(*w.lfs_size) : "unknown size";
  facts["weights_cut"] =
      w.promised_size && w.size
          ? "its header promises " + grouped(*w.promised_size) + " bytes and the file has " +
                grouped(*w.size)
          : "its end (the zip archive's central directory) is missing after " +
                (w.size ? grouped(*w.size) : std::string("its")) + " bytes";
  std::vector<std::string> dtypes;
  for (const std::string& d : w.unsupported_dtypes) {
    if (!Sanitizer::token(d).empty()) dtypes.push_back(Sanitizer::token(d));
  }
  facts["weights_unsupported"] = dtypes.empty() ? "" : " with the dtypes " + joined(dtypes);
  std::vector<std::string> globals;
  for (const std::string& g : w.refused_globals) {
    if (!Sanitizer::token(g).empty()) globals.push_back(Sanitizer::token(g));
  }
  facts["weights_globals"] = globals.empty() ? "that it names" : joined(globals);
  facts["weights_damage"] = w.damage.empty() ? s.message(w.words) : s.message(w.damage);
  const std::string exception = Sanitizer::token(w.exception);
  facts["weights_exception"] = exception.empty() ? "an exception" : exception;
}

// The weights asked against the memory this process may use (precision.hpp): sizes in words,
// what binds and the way out of it.
void memory_facts(const FactSources& in, Facts& facts) {
  if (in.memory == nullptr) return;
  const WeightsMemory& m = *in.memory;
  const long long room = m.available_bytes.value_or(0);
  const std::string short_by = size_text(static_cast<unsigned long long>(
      std::max(0LL, m.weights_bytes - room)));
  facts["weights_need"] = size_text(static_cast<unsigned long long>(m.weights_bytes));
  facts["memory_room"] = size_text(static_cast<unsigned long long>(room));
  facts["memory_device"] = m.limited_by == "device" ? "the GPU" : "the CPU";
  if (m.limited_by == "device") {
    facts["memory_binds"] = "the GPU's free memory";
    facts["memory_next"] = "Free the GPU of other processes (nvidia-smi shows them) or use one "
                           "with at least " + short_by + " more memory";
  } else if (m.limited_by == "cgroup") {
    facts["memory_binds"] = "the container's memory limit (its cgroup's, less what it already "
                            "uses)";
    facts["memory_next"] = "Raise the container's memory limit by at least " + short_by +
                           " (resources.limits.memory in Kubernetes, docker run --memory)";
  } else if (m.limited_by == "address_space") {
    facts["memory_binds"] = "the address-space limit (ulimit -v, less what the process maps)";
    facts["memory_next"] = "Raise the address-space limit (ulimit -v) by at least " + short_by;
  } else {
    facts["memory_binds"] = "the memory available on this machine (MemAvailable)";
    facts["memory_next"] = "Free memory on this machine, or run on one with at least " +
                           short_by + " more, with a container memory limit that large";
  }
}

// A precision the computation failed in (precision.hpp): the dtype, the device, torch's words and
// where a kernel of that dtype exists.
void precision_facts(const FactSources& in, const Sanitizer& s, Facts& facts) {
  if (in.precision == nullptr) return;
  const PrecisionRun& p = *in.precision;
  const std::string dtype = Sanitizer::token(p.dtype).empty() ? "a dtype" : Sanitizer::token(p.dtype);
  const bool cpu = p.device == "cpu";
  const bool float8 = dtype.rfind("float8", 0) == 0;
  facts["precision_dtype"] = dtype;
  facts["precision_device"] = cpu ? "the CPU" : Sanitizer::token(p.device).empty()
                                                    ? "the GPU"
                                                    : Sanitizer::token(p.device);
  const std::string words = s.message(p.words);
  facts["precision_words"] = words.empty() ? "no words" : words;
  const std::string exception = Sanitizer::token(p.exception);
  facts["precision_exception"] = exception.empty() ? "an exception" : exception;
  facts["precision_came"] = float8 ? " (the float8 dtypes came with torch 2.1)" : "";
  facts["precision_float32"] = float8 ? "weights dequantized to float32, model.float()"
                                      : "model.float(), tensors .float()";
  if (cpu) {
    facts["precision_where"] = float8 ? "a GPU of compute capability 8.9 or later, or a newer "
                                        "torch whose CPU has the scaled product"
                                      : "a newer torch, whose CPU kernels cover " + dtype +
                                            ", or a GPU";
  } else if (dtype == "bfloat16") {
    facts["precision_where"] = "a GPU of compute capability 8.0 or later (A100, H100)";
  } else if (float8) {
    facts["precision_where"] = "a GPU of compute capability 8.9 or later (L4, H100)";
  } else {
    facts["precision_where"] = "a torch built for this GPU's architecture";
  }
}

// Where a library of the backend torch loaded comes from, in words.
std::string origin_words(const BackendLibrary& l) {
  const std::string wheel = Sanitizer::token(l.distribution) + "==" + Sanitizer::token(l.version);
  if (l.origin == "pinned_wheel") return "the wheel torch pins (" + wheel + ")";
  if (l.origin == "other_wheel") return "the wheel " + wheel + ", not the release torch pins";
  if (l.origin == "replaced_wheel") {
    return "the folder of the wheel " + wheel + ", in a file that is not the one that wheel "
           "installed (its size is not the one the wheel's RECORD gives)";
  }
  if (l.origin == "cuda_toolkit") return "a CUDA toolkit's folder that LD_LIBRARY_PATH names";
  if (l.origin == "ld_library_path") return "a folder that LD_LIBRARY_PATH names";
  if (l.origin == "system") return "the system's library path (ld.so.cache)";
  return "a place the check could not tell";
}

// A library of the backend (backend_libraries.hpp): its name, versions, origin, torch's pin.
void library_facts(const FactSources& in, Facts& facts) {
  if (in.library == nullptr) return;
  const BackendLibrary& l = *in.library;
  const std::string name = l.name == "cudnn" ? "cuDNN" : l.name == "miopen" ? "MIOpen"
                           : l.name == "rccl"  ? "RCCL"  : "NCCL";
  const std::string pinned = Sanitizer::specifier(l.pinned);
  for (const char* prefix : {"dnn", "ccl"}) {
    const std::string p(prefix);
    facts[p] = name;
    facts[p + "_compiled"] = Sanitizer::token(l.compiled).empty() ? "an unknown release"
                                                                  : Sanitizer::token(l.compiled);
    facts[p + "_runtime"] = Sanitizer::token(l.runtime).empty() ? "an unknown release"
                                                                : Sanitizer::token(l.runtime);
    facts[p + "_origin"] = origin_words(l);
    facts[p + "_pinned"] = pinned.empty() ? "the release it was built with" : pinned;
  }
}

// What torch.compile's toolchain lacked (compile_facts.hpp).
void compile_facts_words(const FactSources& in, const Sanitizer& s, Facts& facts) {
  if (in.compile == nullptr) return;
  const CompileFacts& c = *in.compile;
  const std::string words = s.message(c.words);
  facts["compile_words"] = words.empty() ? "no words" : words;
  const std::string exception = Sanitizer::token(c.exception);
  facts["compile_exception"] = exception.empty() ? "an exception" : exception;
  facts["compile_triton"] = c.triton.empty() ? "is not installed"
                            : "is " + (Sanitizer::token(c.triton).empty() ? std::string("installed")
                                                                          : Sanitizer::token(c.triton));
  const std::string pin = Sanitizer::specifier(c.triton_pinned);
  facts["compile_triton_pinned"] = pin.empty() ? "" : pin;
}

}  // namespace

Facts cause_facts(const FactSources& in, const Sanitizer& sanitizer) {
  const bool hip = in.backend == "rocm" ||
                   (in.evidence != nullptr && in.evidence->runtime && in.evidence->runtime->api == "hip");
  Facts facts;
  facts["vendor"] = hip ? "AMD" : "NVIDIA";
  facts["expose"] = hip ? "--device /dev/kfd --device /dev/dri, or the device plugin"
                        : "--gpus, or the device plugin";
  facts["host_machine"] = elf_machine_name(host_elf_machine());
  std::string capability = Sanitizer::token(in.capability);
  // On ROCm the capability stays unknown; the KFD topology may name the GPU's target.
  const bool gfx = in.evidence != nullptr && in.evidence->rocm && in.evidence->rocm->gfx_target;
  facts["architecture"] = !capability.empty() ? (hip ? capability : "compute capability " + capability)
                          : gfx               ? *in.evidence->rocm->gfx_target
                                              : "an architecture it does not name";
  if (in.evidence != nullptr) device_facts(*in.evidence, hip, facts);
  loader_facts(in.error_message, in.evidence, sanitizer, facts);
  words_fact(in.error_message, sanitizer, facts);
  python_facts(in, facts);
  extension_facts(in, sanitizer, facts);
  weights_facts(in, sanitizer, facts);
  library_facts(in, facts);
  compile_facts_words(in, sanitizer, facts);
  memory_facts(in, facts);
  precision_facts(in, sanitizer, facts);
  run_facts(in, facts);
  return facts;
}

}  // namespace kd
