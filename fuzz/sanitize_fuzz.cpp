// The sanitizer (check/facts/sanitize.hpp): a secret planted anywhere in a message never comes out.
// The input chooses up to three secrets (3 to 64 bytes, as short as a host or user name) and
// the text around a copy of one of them; the output may hold only the stand-in "<redacted>",
// and the "..." of a cut, where the secret was.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "facts/sanitize.hpp"

namespace {

constexpr std::string_view kStandIn = "<redacted>";

// The stretches of `out` that came from the input: between stand-ins, without the "..." that
// marks a cut message.
std::vector<std::string_view> input_stretches(std::string_view out) {
  if (out.size() >= 3 && out.substr(out.size() - 3) == "...") out.remove_suffix(3);
  std::vector<std::string_view> stretches;
  std::size_t start = 0;
  while (true) {
    std::size_t at = out.find(kStandIn, start);
    if (at == std::string_view::npos) break;
    stretches.push_back(out.substr(start, at - start));
    start = at + kStandIn.size();
  }
  stretches.push_back(out.substr(start));
  return stretches;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  std::vector<std::string> secrets;
  const std::size_t count = in.ConsumeIntegralInRange<std::size_t>(1, 3);
  for (std::size_t i = 0; i < count; ++i) {
    std::string secret = in.ConsumeRandomLengthString(64);
    if (secret.size() < 3) return 0;
    secrets.push_back(std::move(secret));
  }
  const std::size_t planted = in.ConsumeIntegralInRange<std::size_t>(0, secrets.size() - 1);
  std::string before = in.ConsumeRandomLengthString(512);
  std::string after = in.ConsumeRemainingBytesAsString();
  std::string text = before + secrets[planted] + after;

  const kd::Sanitizer sanitizer(secrets);
  const std::string out = sanitizer.message(text);
  KD_FUZZ_REQUIRE(out.size() <= kd::Sanitizer::kMaxMessage, "a message is at most kMaxMessage");
  KD_FUZZ_REQUIRE(out.find('\n') == std::string::npos, "a message is one line");
  for (char c : out) {
    auto u = static_cast<unsigned char>(c);
    KD_FUZZ_REQUIRE(u >= 0x20 && u != 0x7f, "a message holds no control character");
  }
  for (const auto& secret : secrets) {
    for (std::string_view stretch : input_stretches(out)) {
      KD_FUZZ_REQUIRE(stretch.find(secret) == std::string_view::npos,
                      "no planted secret comes out of the sanitizer");
    }
  }
  // A version token is kept whole or not at all.
  const std::string token = kd::Sanitizer::token(after);
  KD_FUZZ_REQUIRE(token.empty() || after.find(token) != std::string::npos,
                  "a token is a part of its text");
  return 0;
}
