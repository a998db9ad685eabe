// SHA-256 (FIPS 180-4), written once for the check: a damaged library is told
// from a sound one by comparing its digest with the one its wheel's RECORD
// lists. Small and dependency-free; it runs only after a failure.
//
//   auto digest = kd::sha256_file(path);             // nullopt: unreadable
//   if (digest && kd::base64url(*digest) == listed) ...
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace kd {

using Sha256Digest = std::array<std::uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // The digest of everything given; the object is spent afterwards.
  Sha256Digest finish();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;  // bytes given
};

Sha256Digest sha256(std::string_view data);
// The digest of a file's whole content, read in chunks of 1 MiB; nullopt when it
// cannot be opened or read, or when `stop`, asked before each chunk, says so.
std::optional<Sha256Digest> sha256_file(const std::string& path,
                                        const std::function<bool()>& stop = {});

// Lower-case hexadecimal.
std::string hex(const Sha256Digest& digest);
// URL-safe base64 without padding (RFC 4648 section 5), as a wheel's RECORD
// writes digests: "sha256=<this>".
std::string base64url(const std::uint8_t* data, std::size_t size);
inline std::string base64url(const Sha256Digest& digest) {
  return base64url(digest.data(), digest.size());
}

}  // namespace kd
