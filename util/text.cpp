#include "util/text.hpp"

#include <cctype>

namespace kd {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

void replace_all(std::string& text, std::string_view needle, std::string_view with) {
  if (needle.empty()) return;
  size_t pos = 0;
  while ((pos = text.find(needle, pos)) != std::string::npos) {
    text.replace(pos, needle.size(), with);
    pos += with.size();
  }
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::string tail_lines(std::string_view text, std::size_t lines) {
  auto all = split_lines(text);
  while (!all.empty() && trim(all.back()).empty()) all.pop_back();
  std::string out;
  std::size_t first = 0;
  if (all.size() > lines) {
    first = all.size() - lines;
    out = "[... " + std::to_string(first) + " earlier lines not shown ...]\n";
  }
  for (std::size_t i = first; i < all.size(); ++i) {
    out.append(all[i]);
    out += '\n';
  }
  return out;
}

std::string prefix_lines(std::string_view text, std::string_view prefix) {
  std::string out;
  for (std::string_view line : split_lines(text)) {
    out.append(prefix);
    out.append(line);
    out += '\n';
  }
  return out;
}

std::string joined(const std::vector<std::string>& parts, std::string_view last_joint) {
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) text += i + 1 == parts.size() ? last_joint : ", ";
    text += parts[i];
  }
  return text;
}

}  // namespace kd
