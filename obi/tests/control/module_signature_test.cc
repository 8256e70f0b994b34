// The module signature check (control/module_signature.hh) against the shared test vector
// protocol/vectors/module-signature/ed25519.json, which the controller's Java signer must
// reproduce byte for byte, and the policy of CustomModules (no trust list, development mode).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "control/custom_modules.hh"
#include "control/module_signature.hh"
#include "openbox/error.hh"
#include "test_signing.hh"

namespace fs = std::filesystem;
using nlohmann::json;
using obi::control::CustomModules;
using obi::control::ModulePolicy;
using obi::control::ModuleSignature;
using obi::control::ModuleTrust;
namespace ts = obi::testing_signing;

namespace {

struct Vector {
  json v = ts::vector();
  std::string name = v["module_name"];
  std::string version = v["module_version"];
  std::string content;
  ModuleSignature sig{v["module_version"].get<std::string>(), v["signature"].get<std::string>(),
                      v["key_id"].get<std::string>()};
  Vector() { EXPECT_TRUE(openbox::base64_decode(v["module_content"].get<std::string>(), content)); }
};

std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(d[c >> 4]);
    out.push_back(d[c & 15]);
  }
  return out;
}

// The ADD_MODULE_FAILED message of a refused verify(), or "" when it was accepted.
std::string refusal(const ModuleTrust& t, const std::string& name, const std::string& content,
                    const ModuleSignature& sig) {
  try {
    t.verify(name, content, sig);
    return "";
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::ADD_MODULE_FAILED) << e.what();
    return e.what();
  }
}

fs::path temp_dir(const std::string& tag) {
  fs::path d = fs::temp_directory_path() / ("obi-sigtest-" + tag + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(module_signature, SigningInputAndKeyIdMatchTheVector) {
  Vector t;
  EXPECT_EQ(hex(obi::control::module_signing_input(t.name, t.version, t.content)),
            t.v["signing_input_hex"].get<std::string>());
  ModuleTrust trust = ModuleTrust::load(ts::trusted_pub());
  EXPECT_EQ(trust.key_ids(), std::vector<std::string>{t.v["key_id"].get<std::string>()});
  EXPECT_EQ(ModuleTrust::load(ts::untrusted_pub()).key_ids(),
            std::vector<std::string>{t.v["untrusted_key_id"].get<std::string>()});
  // Ed25519 is deterministic: signing the vector again gives the vector's signature.
  EXPECT_EQ(ts::sign(t.name, t.version, t.content), t.v["signature"].get<std::string>());
}

TEST(module_signature, GoodSignatureIsAccepted) {
  Vector t;
  EXPECT_EQ(refusal(ModuleTrust::load(ts::trusted_pub()), t.name, t.content, t.sig), "");
}

TEST(module_signature, TamperedBytesAreRefused) {
  Vector t;
  std::string bytes = t.content;
  bytes[bytes.size() / 2] ^= 1;
  std::string why = refusal(ModuleTrust::load(ts::trusted_pub()), t.name, bytes, t.sig);
  EXPECT_NE(why.find("does not match its name, version and content"), std::string::npos) << why;
  EXPECT_NE(refusal(ModuleTrust::load(ts::trusted_pub()), t.name, t.content + "x", t.sig), "");
}

TEST(module_signature, ChangedNameIsRefused) {
  Vector t;
  std::string why = refusal(ModuleTrust::load(ts::trusted_pub()), "sampler2", t.content, t.sig);
  EXPECT_NE(why.find("custom module \"sampler2\" refused"), std::string::npos) << why;
  EXPECT_NE(why.find("does not match"), std::string::npos) << why;
}

TEST(module_signature, ChangedOrMissingVersionIsRefused) {
  Vector t;
  ModuleSignature other = t.sig;
  other.version = "1.2.1";
  EXPECT_NE(refusal(ModuleTrust::load(ts::trusted_pub()), t.name, t.content, other).find("does not match"),
            std::string::npos);
  other.version.reset();  // signed as the empty version
  EXPECT_NE(refusal(ModuleTrust::load(ts::trusted_pub()), t.name, t.content, other), "");
}

TEST(module_signature, UnknownKeyIsRefused) {
  Vector t;
  // the list trusts only the other key: the vector's key id is unknown to it
  std::string why = refusal(ModuleTrust::load(ts::untrusted_pub()), t.name, t.content, t.sig);
  EXPECT_NE(why.find("signed by key " + t.v["key_id"].get<std::string>() + ", which this OBI does not trust"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find(t.v["untrusted_key_id"].get<std::string>()), std::string::npos) << why;
  // a trusted key's id on a signature made by another key
  ModuleTrust both = ModuleTrust::load(ts::trusted_pub());
  both.add_pem(ts::read_text(ts::untrusted_pub()), "untrusted.pub");
  ModuleSignature wrong_key = t.sig;
  wrong_key.key_id = t.v["untrusted_key_id"].get<std::string>();
  EXPECT_NE(refusal(both, t.name, t.content, wrong_key).find("does not match"), std::string::npos);
}

TEST(module_signature, BadSignatureEncodingIsRefused) {
  Vector t;
  ModuleTrust trust = ModuleTrust::load(ts::trusted_pub());
  for (std::string bad :
       {std::string("not base64!"), std::string("AAAA"), t.sig.signature->substr(4), *t.sig.signature + "AAAA"}) {
    ModuleSignature s = t.sig;
    s.signature = bad;
    std::string why = refusal(trust, t.name, t.content, s);
    EXPECT_NE(why.find("not the base64 of a 64-byte Ed25519 signature"), std::string::npos) << bad << ": " << why;
  }
  // 64 bytes, one bit flipped
  std::string raw;
  ASSERT_TRUE(openbox::base64_decode(*t.sig.signature, raw));
  raw[10] ^= 0x20;
  ModuleSignature flipped = t.sig;
  flipped.signature = openbox::base64_encode(raw);
  EXPECT_NE(refusal(trust, t.name, t.content, flipped).find("does not match"), std::string::npos);
}

TEST(module_signature, UnsignedAndKeylessAreRefused) {
  Vector t;
  ModuleTrust trust = ModuleTrust::load(ts::trusted_pub());
  std::string why = refusal(trust, t.name, t.content, ModuleSignature{t.version, std::nullopt, std::nullopt});
  EXPECT_NE(why.find("it is not signed"), std::string::npos) << why;
  ModuleSignature no_key = t.sig;
  no_key.key_id.reset();
  EXPECT_NE(refusal(trust, t.name, t.content, no_key).find("no \"key_id\""), std::string::npos);
}

TEST(module_signature, TrustListFromFileOrDirectoryAndItsErrors) {
  fs::path d = temp_dir("trust");
  fs::copy_file(ts::trusted_pub(), d / "a.pub");
  fs::copy_file(ts::untrusted_pub(), d / "b.pem");
  std::ofstream(d / "notes.txt") << "ignored: not a key file name";
  EXPECT_EQ(ModuleTrust::load(d.string()).key_ids().size(), 2u);
  // one file, both keys
  std::ofstream(d / "both.pem.txt") << ts::read_text(ts::trusted_pub()) << ts::read_text(ts::untrusted_pub());
  EXPECT_EQ(ModuleTrust::load((d / "both.pem.txt").string()).key_ids().size(), 2u);

  auto load_error = [](const std::string& path) -> std::string {
    try {
      ModuleTrust::load(path);
      return "";
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  };
  EXPECT_NE(load_error((d / "missing.pub").string()).find("no such file"), std::string::npos);
  // a private key is not a trust list
  fs::copy_file(ts::vector_dir() / "test-signing.key", d / "private.pem");
  EXPECT_NE(load_error((d / "private.pem").string()).find("no PEM public key"), std::string::npos);
  // an EC key is not an Ed25519 key
  std::ofstream(d / "ec.pub") << "-----BEGIN PUBLIC KEY-----\n"
                                 "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE7GsuT7u3Jbg1q4j4moKpN75PUXOl\n"
                                 "2WzA3eaNvk/RR3lLFmS0qiMBdkWixWhZMGQ8hnn9nlm8Cm9EQcrxEjja0Q==\n"
                                 "-----END PUBLIC KEY-----\n";
  std::string ec = load_error((d / "ec.pub").string());
  EXPECT_NE(ec.find("ec.pub: public key 1 is not an Ed25519 key"), std::string::npos) << ec;
  fs::path empty = temp_dir("empty");
  EXPECT_NE(load_error(empty.string()).find("no *.pub or *.pem key file"), std::string::npos);
  fs::remove_all(d);
  fs::remove_all(empty);
}

TEST(module_signature, NoTrustListRefusesEveryModuleWithHowToConfigure) {
  Vector t;
  CustomModules modules;  // no --module-trust, no --allow-unsigned-modules
  for (const ModuleSignature& s : {t.sig, ModuleSignature{}}) {
    try {
      modules.add(t.name, t.content, json(), s);
      ADD_FAILURE() << "module accepted without a trust list";
    } catch (const openbox::ProtocolError& e) {
      EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::ADD_MODULE_FAILED);
      EXPECT_NE(std::string(e.what()).find("no module trust list; start it with --module-trust FILE|DIR"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(modules.has(t.name));
}

TEST(module_signature, PolicyChecksBeforeTheFileIsLookedAt) {
  // A correctly signed non-ELF: the signature passes, then the loader's own check refuses
  // it (BAD_FILE); the same bytes unsigned are refused by the signature check first.
  Vector t;
  CustomModules modules(ModulePolicy::load(ts::trusted_pub(), false));
  const std::string not_elf = "plain text, not a shared object";
  ModuleSignature good{std::string("1"), ts::sign("txt", "1", not_elf), t.v["key_id"].get<std::string>()};
  try {
    modules.add("txt", not_elf, json(), good);
    ADD_FAILURE() << "a non-ELF was accepted";
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_FILE) << e.what();
  }
  try {
    modules.add("txt", not_elf, json(), ModuleSignature{});
    ADD_FAILURE() << "an unsigned module was accepted";
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::ADD_MODULE_FAILED) << e.what();
  }
  // development mode: an unsigned module gets as far as the loader
  CustomModules dev(ModulePolicy::load("", true));
  try {
    dev.add("txt", not_elf, json(), ModuleSignature{});
    ADD_FAILURE() << "a non-ELF was accepted";
  } catch (const openbox::ProtocolError& e) {
    EXPECT_EQ(e.subtype(), openbox::ErrorSubtype::BAD_FILE) << e.what();
  }
}
