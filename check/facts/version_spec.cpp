#include "facts/version_spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>
#include <tuple>

namespace kd {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::optional<long long> number(const std::string& digits) {
  long long value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// PEP 440's version, every spelling it accepts (its appendix's regular expression).
const std::regex& version_pattern() {
  static const std::regex pattern(
      "v?(?:([0-9]+)!)?([0-9]+(?:\\.[0-9]+)*)"
      "(?:[-_.]?(alpha|beta|preview|pre|rc|a|b|c)[-_.]?([0-9]+)?)?"
      "(?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?"
      "(?:[-_.]?(dev)[-_.]?([0-9]+)?)?"
      "(?:\\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?",
      std::regex::ECMAScript | std::regex::optimize);
  return pattern;
}

// A local part's segments: numbers order after words, and compare as numbers.
int compare_local(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return a.empty() == b.empty() ? 0 : (a.empty() ? -1 : 1);
  auto split = [](const std::string& text) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == '.') {
        parts.push_back(text.substr(start, i - start));
        start = i + 1;
      }
    }
    return parts;
  };
  const auto pa = split(a), pb = split(b);
  for (size_t i = 0; i < std::min(pa.size(), pb.size()); ++i) {
    const auto na = number(pa[i]), nb = number(pb[i]);
    if (na && nb) {
      if (*na != *nb) return *na < *nb ? -1 : 1;
    } else if (na || nb) {
      return na ? 1 : -1;
    } else if (pa[i] != pb[i]) {
      return pa[i] < pb[i] ? -1 : 1;
    }
  }
  return pa.size() == pb.size() ? 0 : (pa.size() < pb.size() ? -1 : 1);
}

// A release without its trailing zeros: 2.15.0 and 2.15 are one version.
std::vector<long long> stripped(std::vector<long long> release) {
  while (release.size() > 1 && release.back() == 0) release.pop_back();
  return release;
}

// The order of the parts after the release: a dev-only release before every pre-release, a
// final release after them; no post before any; no dev after every.
constexpr long long kBefore = -1, kAfter = 1LL << 62;

std::tuple<long long, long long, long long, long long, long long> suffix_key(const PackageVersion& v) {
  long long pre_rank = v.pre_kind == 0 ? (v.dev && !v.post ? kBefore : kAfter) : v.pre_kind;
  long long pre_number = v.pre_kind == 0 ? 0 : v.pre;
  return {pre_rank, pre_number, v.post ? 1 : 0, v.post.value_or(0), v.dev ? *v.dev : kAfter};
}

int compare_public(const PackageVersion& a, const PackageVersion& b) {
  if (a.epoch != b.epoch) return a.epoch < b.epoch ? -1 : 1;
  const auto ra = stripped(a.release), rb = stripped(b.release);
  if (ra != rb) return ra < rb ? -1 : 1;
  const auto ka = suffix_key(a), kb = suffix_key(b);
  if (ka != kb) return ka < kb ? -1 : 1;
  return 0;
}

// ==V.* : the release begins with V's (padded with zeros), epochs equal. V is a release alone.
std::optional<bool> prefix_equal(const PackageVersion& candidate, std::string_view prefix) {
  auto v = parse_version(prefix);
  if (!v || v->pre_kind != 0 || v->post || v->dev || !v->local.empty()) return std::nullopt;
  std::vector<long long> release = candidate.release;
  if (release.size() < v->release.size()) release.resize(v->release.size(), 0);
  return candidate.epoch == v->epoch &&
         std::equal(v->release.begin(), v->release.end(), release.begin());
}

bool is_post(const PackageVersion& v) { return v.post.has_value(); }

// One clause, `op` and its version `text`, of the version `raw` that parsed as `candidate`.
std::optional<bool> clause_holds(const PackageVersion& candidate, std::string_view raw,
                                 std::string_view op, std::string_view text) {
  const bool wildcard = text.size() > 2 && text.substr(text.size() - 2) == ".*";
  if (op == "===") return lower(trimmed(raw)) == lower(text);
  if (wildcard) {
    if (op != "==" && op != "!=") return std::nullopt;
    auto equal = prefix_equal(candidate, text.substr(0, text.size() - 2));
    if (!equal) return std::nullopt;
    return op == "==" ? *equal : !*equal;
  }
  auto spec = parse_version(text);
  if (!spec) return std::nullopt;
  const PackageVersion candidate_public = candidate.without_local();
  if (op == "==" || op == "!=") {
    const bool equal = spec->local.empty() ? compare(candidate_public, *spec) == 0
                                           : compare(candidate, *spec) == 0;
    return op == "==" ? equal : !equal;
  }
  if (op == "<=") return compare(candidate_public, *spec) <= 0;
  if (op == ">=") return compare(candidate_public, *spec) >= 0;
  const bool same_base = compare(candidate.base(), spec->base()) == 0;
  if (op == "<") {
    if (compare(candidate, *spec) >= 0) return false;
    return !(!spec->is_prerelease() && candidate.is_prerelease() && same_base);
  }
  if (op == ">") {
    if (compare(candidate, *spec) <= 0) return false;
    if (!is_post(*spec) && is_post(candidate) && same_base) return false;
    return !(!candidate.local.empty() && same_base);
  }
  if (op == "~=") {
    if (spec->release.size() < 2) return std::nullopt;
    if (compare(candidate_public, *spec) < 0) return false;
    PackageVersion prefix;
    prefix.epoch = spec->epoch;
    prefix.release.assign(spec->release.begin(), spec->release.end() - 1);
    std::string prefix_text = prefix.public_text();
    return prefix_equal(candidate, prefix_text);
  }
  return std::nullopt;
}

// "==2.9.1" -> {"==", "2.9.1"}; nullopt where the clause names no operator or no version.
std::optional<std::pair<std::string, std::string>> clause_of(std::string_view clause) {
  clause = trimmed(clause);
  for (std::string_view op : {"===", "~=", "==", "!=", "<=", ">=", "<", ">"}) {
    if (clause.substr(0, op.size()) == op) {
      std::string_view rest = trimmed(clause.substr(op.size()));
      if (rest.empty()) return std::nullopt;
      return std::make_pair(std::string(op), std::string(rest));
    }
  }
  return std::nullopt;
}

std::vector<std::string_view> clauses_of(std::string_view specifier) {
  std::vector<std::string_view> clauses;
  size_t start = 0;
  for (size_t i = 0; i <= specifier.size(); ++i) {
    if (i == specifier.size() || specifier[i] == ',') {
      std::string_view c = trimmed(specifier.substr(start, i - start));
      if (!c.empty()) clauses.push_back(c);
      start = i + 1;
    }
  }
  return clauses;
}

}  // namespace

PackageVersion PackageVersion::base() const {
  PackageVersion v;
  v.epoch = epoch;
  v.release = release;
  return v;
}

PackageVersion PackageVersion::without_local() const {
  PackageVersion v = *this;
  v.local.clear();
  return v;
}

std::string PackageVersion::public_text() const {
  std::string text = epoch != 0 ? std::to_string(epoch) + "!" : "";
  for (size_t i = 0; i < release.size(); ++i) text += (i ? "." : "") + std::to_string(release[i]);
  if (pre_kind != 0) text += (pre_kind == 'c' ? std::string("rc") : std::string(1, pre_kind)) + std::to_string(pre);
  if (post) text += ".post" + std::to_string(*post);
  if (dev) text += ".dev" + std::to_string(*dev);
  return text;
}

std::optional<PackageVersion> parse_version(std::string_view text) {
  const std::string normal = lower(trimmed(text));
  std::smatch m;
  if (!std::regex_match(normal, m, version_pattern())) return std::nullopt;
  PackageVersion v;
  if (m[1].matched) {
    auto e = number(m[1].str());
    if (!e) return std::nullopt;
    v.epoch = *e;
  }
  const std::string release = m[2].str();
  size_t start = 0;
  for (size_t i = 0; i <= release.size(); ++i) {
    if (i == release.size() || release[i] == '.') {
      auto n = number(release.substr(start, i - start));
      if (!n) return std::nullopt;
      v.release.push_back(*n);
      start = i + 1;
    }
  }
  if (m[3].matched) {
    const std::string kind = m[3].str();
    v.pre_kind = kind == "a" || kind == "alpha" ? 'a' : kind == "b" || kind == "beta" ? 'b' : 'c';
    v.pre = m[4].matched ? number(m[4].str()).value_or(0) : 0;
  }
  if (m[5].matched) {
    v.post = number(m[5].str());
  } else if (m[6].matched) {
    v.post = m[7].matched ? number(m[7].str()).value_or(0) : 0;
  }
  if (m[8].matched) v.dev = m[9].matched ? number(m[9].str()).value_or(0) : 0;
  if (m[10].matched) {
    v.local = m[10].str();
    std::replace_if(v.local.begin(), v.local.end(), [](char c) { return c == '-' || c == '_'; }, '.');
  }
  return v;
}

int compare(const PackageVersion& a, const PackageVersion& b) {
  if (int c = compare_public(a, b); c != 0) return c;
  return compare_local(a.local, b.local);
}

std::optional<bool> satisfies(std::string_view version, std::string_view specifier) {
  auto candidate = parse_version(version);
  if (!candidate) return std::nullopt;
  bool all = true;
  for (std::string_view clause : clauses_of(specifier)) {
    auto parsed = clause_of(clause);
    if (!parsed) return std::nullopt;
    auto holds = clause_holds(*candidate, version, parsed->first, parsed->second);
    if (!holds) return std::nullopt;
    all = all && *holds;
  }
  return all;
}

std::string folded_name(std::string name) {
  for (char& c : name) {
    c = (c == '_' || c == '.') ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

std::vector<PackageVersion> versions_named(std::string_view specifier) {
  std::vector<PackageVersion> named;
  for (std::string_view clause : clauses_of(specifier)) {
    auto parsed = clause_of(clause);
    if (!parsed) continue;
    std::string text = parsed->second;
    if (text.size() > 2 && text.compare(text.size() - 2, 2, ".*") == 0) text.resize(text.size() - 2);
    if (auto v = parse_version(text)) named.push_back(*v);
  }
  return named;
}

}  // namespace kd
