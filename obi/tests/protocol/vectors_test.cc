// Runs every protocol test vector (protocol/vectors/messages/**, protocol/vectors/header-match/*)
// through the C++ codec: valid messages must round-trip to equal JSON, invalid ones must
// fail with exactly the named error type and subtype; header-match cases must produce the
// canonical form or BAD_HEADER_MATCH.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "openbox/header_match.hh"
#include "openbox/messages.hh"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path vectors_dir() { return fs::path(OPENBOX_ROOT) / "protocol" / "vectors"; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// What a valid message re-encodes to: the input with input-only aliases replaced.
json normalised(json m) {
  if (m["type"] == "AddCustomModule") m["type"] = "AddCustomModuleRequest";
  if (m["type"] == "RemoveCustomModule") m["type"] = "RemoveCustomModuleRequest";
  if (m["type"] == "WriteResponse" && !m.contains("write_handle") && m.contains("read_handle")) {
    m["write_handle"] = m["read_handle"];
    m.erase("read_handle");
  }
  return m;
}

}  // namespace

TEST(protocol_vectors, EveryMessageVector) {
  auto files = json_files(vectors_dir() / "messages");
  ASSERT_FALSE(files.empty()) << "no message vectors under " << (vectors_dir() / "messages");
  int valid = 0, invalid = 0;
  for (const auto& path : files) {
    const std::string rel = fs::relative(path, vectors_dir()).string();
    json vec = json::parse(slurp(path), nullptr, false);
    if (vec.is_discarded() || !vec.is_object() || !vec.contains("expect")) {
      ADD_FAILURE() << rel << ": not a vector file";
      continue;
    }
    const std::string dir = path.parent_path().filename().string();
    std::optional<openbox::MessageType> expected;
    openbox::MessageType t;
    if (openbox::parse_message_type(dir, t)) expected = t;
    std::string body = vec.contains("raw") ? vec["raw"].get<std::string>() : vec["message"].dump();
    const json& expect = vec["expect"];
    if (expect == "valid") {
      ++valid;
      try {
        openbox::Message m = openbox::decode(body, expected);
        json out = openbox::encode(m);
        const json want = vec.contains("encoded") ? vec["encoded"] : normalised(vec["message"]);
        EXPECT_EQ(out, want) << rel << ": round trip differs";
        // Decoding from a tree that is handed over (block configs moved, not copied) gives the same message.
        EXPECT_EQ(openbox::encode(openbox::decode_json(json::parse(body), expected)), want)
            << rel << ": moved decode differs";
      } catch (const openbox::ProtocolError& e) {
        ADD_FAILURE() << rel << ": valid vector rejected: " << openbox::to_string(e.type()) << "/"
                      << openbox::to_string(e.subtype()) << ": " << e.what();
      }
    } else {
      ++invalid;
      const std::string want_type = expect.value("error_type", ""), want_sub = expect.value("error_subtype", "");
      try {
        openbox::decode(body, expected);
        ADD_FAILURE() << rel << ": invalid vector accepted (expected " << want_type << "/" << want_sub << ")";
      } catch (const openbox::ProtocolError& e) {
        EXPECT_EQ(std::string(openbox::to_string(e.type())), want_type) << rel << ": " << e.what();
        EXPECT_EQ(std::string(openbox::to_string(e.subtype())), want_sub) << rel << ": " << e.what();
      }
      // The same refusal from a tree that is handed over (when the body is JSON within the depth limit).
      json tree = openbox::json_depth(body) <= openbox::kMaxJsonDepth ? json::parse(body, nullptr, false)
                                                                      : json(json::value_t::discarded);
      if (!tree.is_discarded()) {
        try {
          openbox::decode_json(std::move(tree), expected);
          ADD_FAILURE() << rel << ": invalid vector accepted by the moved decode";
        } catch (const openbox::ProtocolError& e) {
          EXPECT_EQ(std::string(openbox::to_string(e.subtype())), want_sub) << rel << ": moved decode: " << e.what();
        }
      }
    }
  }
  std::printf("C++ protocol vectors: %d run (%d valid, %d invalid)\n", valid + invalid, valid, invalid);
}

TEST(protocol_vectors, EveryHeaderMatchVector) {
  auto files = json_files(vectors_dir() / "header-match");
  ASSERT_FALSE(files.empty()) << "no header-match vectors under " << (vectors_dir() / "header-match");
  int cases = 0, errors = 0;
  for (const auto& path : files) {
    const std::string rel = fs::relative(path, vectors_dir()).string();
    json arr = json::parse(slurp(path), nullptr, false);
    if (!arr.is_array()) {
      ADD_FAILURE() << rel << ": not an array of cases";
      continue;
    }
    for (size_t i = 0; i < arr.size(); ++i) {
      const json& c = arr[i];
      const std::string where = rel + "[" + std::to_string(i) + "] " + c.value("description", "");
      const json& expect = c["expect"];
      const bool want_error = expect == "BAD_HEADER_MATCH";
      errors += want_error;
      ++cases;
      try {
        if (c.contains("match")) {
          openbox::parse_header_match(c["match"]);
          EXPECT_FALSE(want_error) << where << ": accepted";
          if (!want_error) {
            EXPECT_EQ(expect, "valid") << where;
          }
        } else {
          openbox::FieldMatch m = openbox::parse_field_value(c["field"].get<std::string>(), c["value"]);
          if (want_error) {
            ADD_FAILURE() << where << ": accepted as " << openbox::to_canonical(m).dump();
          } else {
            EXPECT_EQ(openbox::to_canonical(m), expect) << where;
          }
        }
      } catch (const openbox::ProtocolError& e) {
        EXPECT_TRUE(want_error) << where << ": rejected: " << e.what();
        EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_HEADER_MATCH) << where;
      }
    }
  }
  std::printf("C++ header-match vectors: %d run (%d valid, %d invalid)\n", cases, cases - errors, errors);
}
