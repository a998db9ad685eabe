#include "facts/compile_facts.hpp"

#include "facts/json_fields.hpp"
#include "facts/version_spec.hpp"

namespace kd {
namespace {

using json_field::flag;
using json_field::text;

}  // namespace

CompileFacts compile_facts_of(const nlohmann::json& facts, bool gpu) {
  CompileFacts c;
  c.gpu = gpu;
  if (!facts.is_object()) return c;
  c.exception = text(facts, "exception");
  c.words = text(facts, "words");
  c.in_torch = flag(facts, "in_torch", true);
  c.cxx_found = flag(facts, "cxx_found", true);
  c.python_headers = flag(facts, "python_headers", true);
  c.cc_found = flag(facts, "cc_found", true);
  c.triton = text(facts, "triton");
  c.triton_pinned = text(facts, "triton_pinned");
  return c;
}

bool triton_mismatch(const CompileFacts& c) {
  if (c.triton.empty()) return true;
  if (c.triton_pinned.empty()) return false;
  return satisfies(c.triton, c.triton_pinned) == std::optional<bool>(false);
}

}  // namespace kd
