#include "case_record.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string_view>

namespace kdh {

using nlohmann::json;

std::string CaseRecord::declared() const {
  return file.empty() || line <= 0 ? "" : file + ":" + std::to_string(line);
}

std::string promise_of(const std::string& value_param) {
  constexpr std::string_view kGuards = " guards: ";
  const std::size_t at = value_param.find(kGuards);
  return at == std::string::npos ? "" : value_param.substr(at + kGuards.size());
}

std::string record_file(const std::string& name) { return name + ".json"; }

std::string record_text(const CaseRecord& r) {
  json doc = {{"name", r.name}, {"file", r.file},       {"line", r.line},
              {"promise", r.promise}, {"started", r.started}, {"ended", r.ended}};
  if (r.ended) {
    doc["skipped"] = r.skipped;
    doc["failures"] = r.failures;
    doc["skip"] = r.skip;
    doc["time"] = r.time;
  }
  // Bytes that are not UTF-8 (a message quoting a binary) are kept as the replacement character.
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::optional<CaseRecord> parse_record(const std::string& text) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  auto text_of = [&doc](const char* key) {
    const auto it = doc.find(key);
    return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto flag_of = [&doc](const char* key) {
    const auto it = doc.find(key);
    return it != doc.end() && it->is_boolean() && it->get<bool>();
  };
  CaseRecord r;
  r.name = text_of("name");
  if (r.name.empty()) return std::nullopt;
  r.file = text_of("file");
  if (const auto line = doc.find("line"); line != doc.end() && line->is_number_integer())
    r.line = line->get<int>();
  if (r.file.empty() || r.line <= 0) {
    r.file.clear();
    r.line = 0;
  }
  r.promise = text_of("promise");
  r.started = text_of("started");
  r.ended = flag_of("ended");
  if (!r.ended) return r;
  r.skipped = flag_of("skipped");
  if (const auto failures = doc.find("failures"); failures != doc.end() && failures->is_array())
    for (const json& f : *failures)
      if (f.is_string()) r.failures.push_back(f.get<std::string>());
  r.skip = text_of("skip");
  if (const auto time = doc.find("time"); time != doc.end() && time->is_number())
    r.time = std::max(0.0, time->get<double>());
  return r;
}

}  // namespace kdh
