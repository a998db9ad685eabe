#include "facts/extension_import.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "facts/json_fields.hpp"
#include "facts/version_spec.hpp"

namespace kd {
namespace {

using json_field::flag;
using json_field::text;
using json_field::texts;

bool digits_only(const std::string& s) {
  if (s.empty() || s.size() > 4) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "cu128" -> "12.8", "cu130" -> "13.0", "pt24cu121" -> "12.1": the CUDA a version's local part
// names, as PyTorch's and PyG's indexes spell it; "" where none.
std::string cuda_of_local(const std::string& local) {
  const size_t at = local.find("cu");
  if (at == std::string::npos) return "";
  std::string digits;
  for (size_t i = at + 2; i < local.size() && local[i] >= '0' && local[i] <= '9'; ++i) {
    digits += local[i];
  }
  if (digits.size() < 3) return "";
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

// A distribution's facts, as the python probe gives them (Distribution.facts).
void distribution_of(const nlohmann::json& d, ExtensionImport& e) {
  if (!d.is_object()) return;
  e.distribution = text(d, "distribution");
  e.version = text(d, "version");
  if (auto it = d.find("requires_torch"); it != d.end() && it->is_string()) {
    e.requires_torch = it->get<std::string>();
  }
  if (e.module.empty()) e.module = text(d, "module");
  e.cuda_tag = cuda_of_local(text(d, "local_tag"));
}

}  // namespace

ExtensionImport extension_import_of(const nlohmann::json& answer, const TorchFacts& torch) {
  ExtensionImport e;
  e.torch = torch;
  if (!answer.is_object()) return e;
  e.module = text(answer, "module");
  if (auto d = answer.find("distribution"); d != answer.end() && !d->is_string()) {
    distribution_of(*d, e);  // an import's answer: its distribution's facts, or null
  } else {
    distribution_of(answer, e);  // an entry of the listing is the distribution itself
  }
  for (const std::string& major : texts(answer, "cuda_majors")) {
    if (digits_only(major)) e.cuda_majors.push_back(major);  // "12" of libcudart.so.12
  }
  if (e.requires_torch) e.torch_matches = satisfies(torch.version, *e.requires_torch);
  if (auto ok = answer.find("ok"); ok != answer.end() && ok->is_boolean()) e.failed = !ok->get<bool>();
  e.phase = text(answer, "phase");
  e.library = text(answer, "library");
  const nlohmann::json facts = answer.value("facts", nlohmann::json::object());
  if (!facts.is_object()) return e;
  e.exception = text(facts, "exception");
  e.words = text(facts, "words");
  e.missing_module = text(facts, "missing_module");
  e.needed_by = text(facts, "needed_by");
  e.undefined_symbol = text(facts, "undefined_symbol");
  e.symbol_in_torch = flag(facts, "symbol_in_torch");
  e.requires_missing = texts(facts, "requires_missing");
  return e;
}

std::string extension_cuda(const ExtensionImport& e) {
  if (!e.cuda_tag.empty()) return "CUDA " + e.cuda_tag;
  if (e.cuda_majors.empty()) return "";
  std::string majors;
  for (const std::string& m : e.cuda_majors) majors += (majors.empty() ? "" : " and ") + m;
  return "CUDA " + majors;
}

std::string demangled(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : symbol;
}

std::string string_abi_of(const std::string& cxx_name) {
  if (cxx_name.find("std::__cxx11::") != std::string::npos) return "cxx11";
  if (cxx_name.find("std::string") != std::string::npos ||
      cxx_name.find("std::basic_string<") != std::string::npos) {
    return "old";
  }
  return "";
}

}  // namespace kd
