// Python package versions and the version specifiers of a requirement, by PEP 440's rules (as
// the `packaging` library applies them to an installed version: pre-releases are candidates).
// The one place the check decides whether the torch an environment imported satisfies what an
// extension's metadata requires of it (`Requires-Dist: torch (==2.9.1)`):
//
//   std::optional<bool> ok = satisfies("2.15.0", "==2.9.1");   // false
//   satisfies("2.15.0+cu132", ">=2.14.0");                     // true
//   satisfies("2.15.0", "~=2.x");                              // nullopt: not a specifier
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kd {

struct PackageVersion {
  long long epoch = 0;
  std::vector<long long> release;  // 2.15.0 -> {2, 15, 0}
  // The pre-release: 'a', 'b' or 'c' (rc) and its number; none where `pre_kind` is 0.
  char pre_kind = 0;
  long long pre = 0;
  std::optional<long long> post;
  std::optional<long long> dev;
  std::string local;  // "cu132" of 2.15.0+cu132, lower case, '.' between its parts

  bool is_prerelease() const { return pre_kind != 0 || dev.has_value(); }
  // The same version without its local part, pre, post and dev: its release alone.
  PackageVersion base() const;
  PackageVersion without_local() const;
  // "2.15.0": the public version, in PEP 440's normal form.
  std::string public_text() const;
};

// nullopt where `text` is no PEP 440 version.
std::optional<PackageVersion> parse_version(std::string_view text);

// <0, 0, >0, as PEP 440 orders versions (a local part orders after the same public version).
int compare(const PackageVersion& a, const PackageVersion& b);

// Whether `version` satisfies every clause of `specifier` ("==2.9.1", ">=5.3.0,!=8.3.*"; ""
// admits every version). nullopt where the version or a clause does not parse.
std::optional<bool> satisfies(std::string_view version, std::string_view specifier);

// The versions a specifier names ("==2.9.1,<3" -> 2.9.1 and 3), those that parse.
std::vector<PackageVersion> versions_named(std::string_view specifier);

// A distribution's name as names are compared ('_' and '.' as '-', lower case):
// "Nvidia_CUDNN.cu13" -> "nvidia-cudnn-cu13".
std::string folded_name(std::string name);

}  // namespace kd
