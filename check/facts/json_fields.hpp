// The fields of the python probe's answers (JSON objects), read without trusting their types: a
// field that is missing or of another type reads as the empty value (or `otherwise`).
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kd::json_field {

inline std::string text(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The strings of an array field, its other elements left out.
inline std::vector<std::string> texts(const nlohmann::json& object, const char* key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

inline bool flag(const nlohmann::json& object, const char* key, bool otherwise = false) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() ? it->get<bool>() : otherwise;
}

// A number: nullopt where it is missing or anything else.
inline std::optional<double> number(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// The numbers of an array field; none where any element is not a number.
inline std::vector<double> numbers(const nlohmann::json& object, const char* key) {
  std::vector<double> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (!v.is_number()) return {};
    out.push_back(v.get<double>());
  }
  return out;
}

// A count (bytes, tensors): an integer, not negative; nullopt where it is missing or anything
// else.
inline std::optional<long long> count(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer() || it->get<long long>() < 0) return std::nullopt;
  return it->get<long long>();
}

// A time the probe measured (its `ms`, an entry's `seconds`): a finite number, not negative;
// nullopt where it is missing or anything else.
inline std::optional<double> duration(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  const double value = it->get<double>();
  if (!std::isfinite(value) || value < 0) return std::nullopt;
  return value;
}

}  // namespace kd::json_field
