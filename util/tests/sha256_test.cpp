// Covers util/sha256.hpp: FIPS 180-4's examples, pieces of every size, files,
// and the URL-safe base64 of a wheel's RECORD.
#include "util/sha256.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "util/tests/temp_dir.hpp"

namespace kd {
namespace {

std::string hex_of(std::string_view text) { return hex(sha256(text)); }

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(hex_of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex_of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex_of(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, LengthsAroundTheBlockAndPadding) {
  // 55 bytes pad in one block, 56 need a second; 64 is a whole block.
  EXPECT_EQ(hex_of(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(hex_of(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(hex_of(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Sha256, PiecesGiveTheDigestOfTheWhole) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>(i * 7 + 3);
  const Sha256Digest whole = sha256(text);
  for (size_t piece : {1u, 3u, 63u, 64u, 65u, 129u}) {
    Sha256 h;
    for (size_t at = 0; at < text.size(); at += piece) h.update(std::string_view(text).substr(at, piece));
    EXPECT_EQ(h.finish(), whole) << "pieces of " << piece;
  }
}

TEST(Sha256, Files) {
  test::TempDir dir;
  std::string content(3 * (1 << 20) + 17, 'x');  // more than one read's chunk
  std::ofstream(dir.file("lib.so"), std::ios::binary) << content;
  auto digest = sha256_file(dir.file("lib.so"));
  ASSERT_TRUE(digest);
  EXPECT_EQ(*digest, sha256(content));
  EXPECT_FALSE(sha256_file(dir.file("absent.so")));
  // Asked before each chunk of 1 MiB: stopped after two, there is no digest.
  int asked = 0;
  EXPECT_FALSE(sha256_file(dir.file("lib.so"), [&asked] { return ++asked > 2; }));
  EXPECT_EQ(asked, 3);
  EXPECT_TRUE(sha256_file(dir.file("lib.so"), [] { return false; }));
}

TEST(Base64Url, Rfc4648ExamplesWithoutPadding) {
  auto b64 = [](std::string_view s) {
    return base64url(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  };
  EXPECT_EQ(b64(""), "");
  EXPECT_EQ(b64("f"), "Zg");
  EXPECT_EQ(b64("fo"), "Zm8");
  EXPECT_EQ(b64("foo"), "Zm9v");
  EXPECT_EQ(b64("foob"), "Zm9vYg");
  EXPECT_EQ(b64("fooba"), "Zm9vYmE");
  EXPECT_EQ(b64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(b64("\xfb\xff"), "-_8");  // the URL-safe alphabet
}

TEST(Base64Url, AsARecordWritesTheDigestOfAnEmptyFile) {
  // torch-*.dist-info/RECORD: "functorch/_src/__init__.py,sha256=47DEQ...,0".
  EXPECT_EQ(base64url(sha256("")), "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
}

}  // namespace
}  // namespace kd
