// Bytes as text: RFC 4648's Base64 test vectors, the URL-safe alphabet, bad input, and hex.

#include <gtest/gtest.h>

#include "floe/common/base64.h"

namespace floe {
namespace {

TEST(Base64Test, Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(Base64Encode(plain), encoded);
    EXPECT_EQ(Base64Decode(encoded), std::optional<std::string>(plain));
  }
}

TEST(Base64Test, UrlSafeAlphabetUnpaddedAndBadInput) {
  const std::string bytes("\xfb\xff\xfe", 3);
  EXPECT_EQ(Base64Encode(bytes), "+//+");
  EXPECT_EQ(Base64Decode("-__-"), std::optional<std::string>(bytes));
  EXPECT_EQ(Base64Decode("Zm9vYg"), std::optional<std::string>("foob"));
  EXPECT_EQ(Base64Decode("Zm9v*"), std::nullopt);
}

TEST(HexTest, LowercaseTwoDigitsPerByte) {
  EXPECT_EQ(HexEncode(std::string("\x00\x0f\xa0\xff", 4)), "000fa0ff");
  EXPECT_EQ(HexEncode(""), "");
}

}  // namespace
}  // namespace floe
