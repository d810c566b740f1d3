// Unit tests of attn_npy: round trips, and every kind of broken file gives
// false with a one-line message that names the file.
#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "npy.h"

namespace {

class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/attn_npy_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const std::string& f : files()) std::remove((dir_ + "/" + f).c_str());
    rmdir(dir_.c_str());
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  std::vector<std::string> files() const {
    std::vector<std::string> r;
    if (DIR* d = opendir(dir_.c_str())) {
      while (dirent* e = readdir(d)) {
        const std::string n = e->d_name;
        if (n != "." && n != "..") r.push_back(n);
      }
      closedir(d);
    }
    return r;
  }
  void write_raw(const std::string& name, const std::string& bytes) {
    std::FILE* f = std::fopen(path(name).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    if (!bytes.empty()) {
      ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    }
    std::fclose(f);
  }
  // A .npy made by hand: magic, version, header length, header text, data.
  static std::string npy(const std::string& header, const std::string& data, int major = 1) {
    std::string s = "\x93NUMPY";
    s += static_cast<char>(major);
    s += '\0';
    const std::size_t n = header.size();
    s += static_cast<char>(n & 0xff);
    s += static_cast<char>((n >> 8) & 0xff);
    if (major >= 2) {
      s += static_cast<char>((n >> 16) & 0xff);
      s += static_cast<char>((n >> 24) & 0xff);
    }
    return s + header + data;
  }
  // Expects load to fail with a one-line message naming the file and containing `what`.
  void expect_error(const std::string& name, const std::string& bytes, const std::string& what) {
    write_raw(name, bytes);
    attn_npy::Array a;
    std::string err;
    EXPECT_FALSE(attn_npy::load(path(name), &a, &err)) << name;
    EXPECT_EQ(err.rfind(path(name) + ": ", 0), 0u) << err;
    EXPECT_NE(err.find(what), std::string::npos) << "message: " << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
  std::string dir_;
};

const std::string kF4x6(24, '\0');

TEST_F(NpyTest, RoundTripEveryDtypeAndRank) {
  const char* dtypes[] = {"<f4", "<f8", "<i4", "<i8", "|i1", "|u1", "|b1", "<f2", "<u2"};
  const std::vector<std::vector<int64_t>> shapes = {{},        {5},          {2, 3},
                                                    {3, 1, 4}, {2, 1, 2, 3}, {0, 4}};
  for (const char* dt : dtypes) {
    for (const auto& shape : shapes) {
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      const std::size_t bytes = static_cast<std::size_t>(n) * attn_npy::itemsize(dt);
      std::vector<unsigned char> data(bytes);
      for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(i * 7 + 1);
      if (std::string(dt) == "|b1") {
        for (auto& c : data) c &= 1;
      }
      std::string err;
      ASSERT_TRUE(attn_npy::save(path("x.npy"), dt, shape, data.data(), &err)) << err;
      attn_npy::Array a;
      ASSERT_TRUE(attn_npy::load(path("x.npy"), &a, &err)) << err;
      EXPECT_EQ(a.dtype, dt);
      EXPECT_EQ(a.shape, shape);
      EXPECT_EQ(a.count(), static_cast<std::size_t>(n));
      EXPECT_EQ(a.data, data);
    }
  }
  EXPECT_EQ(files(), std::vector<std::string>{"x.npy"});  // no temporary files left
}

TEST_F(NpyTest, SavedHeaderIsNumpyVersion1PaddedTo64) {
  const float v[3] = {1.5f, -2.0f, 3.25f};
  std::string err;
  ASSERT_TRUE(attn_npy::save(path("v.npy"), "<f4", {3}, v, &err)) << err;
  std::FILE* f = std::fopen(path("v.npy").c_str(), "rb");
  ASSERT_NE(f, nullptr);
  unsigned char buf[256];
  const std::size_t n = std::fread(buf, 1, sizeof buf, f);
  std::fclose(f);
  ASSERT_GE(n, 10u);
  EXPECT_EQ(std::memcmp(buf, "\x93NUMPY\x01\x00", 8), 0);
  const std::size_t hl = buf[8] | (buf[9] << 8);
  EXPECT_EQ((10 + hl) % 64, 0u);
  EXPECT_EQ(n, 10 + hl + 12);
  EXPECT_EQ(buf[10 + hl - 1], '\n');
  const std::string header(reinterpret_cast<char*>(buf) + 10, hl);
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos);
  EXPECT_NE(header.find("'shape': (3,)"), std::string::npos);
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos);
}

TEST_F(NpyTest, LoadsVersions2And3AndSpellingsNumpyWrites) {
  attn_npy::Array a;
  std::string err;
  write_raw("v2.npy",
            npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", kF4x6, 2));
  ASSERT_TRUE(attn_npy::load(path("v2.npy"), &a, &err)) << err;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  write_raw("v3.npy",
            npy("{\"descr\":\"<f4\",\"shape\":(6,),\"fortran_order\":False}\n", kF4x6, 3));
  ASSERT_TRUE(attn_npy::load(path("v3.npy"), &a, &err)) << err;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{6}));
  write_raw("u1.npy", npy("{'descr': '<u1', 'fortran_order': False, 'shape': (2L,), }\n", "ab"));
  ASSERT_TRUE(attn_npy::load(path("u1.npy"), &a, &err)) << err;
  EXPECT_EQ(a.dtype, "|u1");
}

TEST_F(NpyTest, MissingAndEmptyFiles) {
  attn_npy::Array a;
  std::string err;
  EXPECT_FALSE(attn_npy::load(path("absent.npy"), &a, &err));
  EXPECT_EQ(err.rfind(path("absent.npy") + ": cannot open", 0), 0u) << err;
  expect_error("empty.npy", "", "empty file");
  EXPECT_FALSE(attn_npy::load(dir_, &a, &err));
  EXPECT_NE(err.find(dir_), std::string::npos);
}

TEST_F(NpyTest, BrokenFilesNameTheFileAndTheProblem) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n";
  expect_error("magic.npy", "PK\x03\x04 this is a zip file, not npy", "not a .npy");
  expect_error("csv.npy", "1.0,2.0,3.0\n", "not a .npy");
  expect_error("short.npy", "\x93NUMPY", "truncated header");
  expect_error("nolen.npy", std::string("\x93NUMPY\x01\x00\x40", 9), "truncated header");
  expect_error("version.npy", npy(good, kF4x6, 4), "version 4.0");
  expect_error("hdrtrunc.npy", npy(good, kF4x6).substr(0, 40), "truncated header");
  std::string huge_len = npy(good, kF4x6, 2);
  huge_len[10] = '\x7f';  // header length > 1 MiB
  expect_error("hdrhuge.npy", huge_len, "too large");
  expect_error("nonl.npy",
               npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", kF4x6),
               "newline");
  expect_error("notdict.npy", npy("['<f4', False, (2, 3)]\n", kF4x6), "bad header dict");
  expect_error("nodescr.npy", npy("{'fortran_order': False, 'shape': (2, 3), }\n", kF4x6),
               "missing key 'descr'");
  expect_error("noshape.npy", npy("{'descr': '<f4', 'fortran_order': False, }\n", kF4x6),
               "missing key 'shape'");
  expect_error("noorder.npy", npy("{'descr': '<f4', 'shape': (2, 3), }\n", kF4x6),
               "missing key 'fortran_order'");
  expect_error("extra.npy",
               npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}\n", kF4x6),
               "unexpected key");
  expect_error(
      "dup.npy",
      npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}\n", kF4x6),
      "duplicate key");
  expect_error("unterminated.npy", npy("{'descr': '<f4, 'fortran_order': False\n", kF4x6),
               "bad header dict");
  expect_error("fortran.npy",
               npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n", kF4x6),
               "fortran_order True");
  expect_error("bigendian.npy",
               npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }\n", kF4x6),
               "unsupported dtype '>f4'");
  expect_error("complex.npy",
               npy("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }\n", kF4x6),
               "unsupported dtype");
  expect_error("object.npy",
               npy("{'descr': '|O', 'fortran_order': False, 'shape': (3,), }\n", kF4x6),
               "unsupported dtype");
  expect_error("struct.npy",
               npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,), }\n", kF4x6),
               "structured");
  expect_error("shorter.npy", npy(good, kF4x6.substr(0, 20)),
               "data shorter than shape (2, 3) says");
  expect_error("longer.npy", npy(good, kF4x6 + "xx"), "data longer than shape (2, 3) says");
  expect_error("negdim.npy",
               npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 6), }\n", kF4x6),
               "'shape'");
  expect_error("floatdim.npy",
               npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2.5, 6), }\n", kF4x6),
               "'shape'");
  expect_error("notuple.npy",
               npy("{'descr': '<f4', 'fortran_order': False, 'shape': 6, }\n", kF4x6), "'shape'");
  expect_error(
      "toolarge.npy",
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }\n", kF4x6),
      "too large");
  expect_error("overflow.npy",
               npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, "
                   "4611686018427387904, 16), }\n",
                   kF4x6),
               "too large");
  expect_error(
      "bigdigits.npy",
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }\n",
          kF4x6),
      "too large");
  std::string nul = "{'descr': '<f4'";
  nul += '\0';
  nul += ", 'fortran_order': False, 'shape': (6,)}\n";
  expect_error("nul.npy", npy(nul, kF4x6), "NUL");
  std::string rank33 = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 33; ++i) rank33 += "1, ";
  expect_error("rank33.npy", npy(rank33 + "), }\n", "abcd"), "32 dimensions");
}

TEST_F(NpyTest, ZeroDimensionWithHugeOthersIsEmptyNotOverflow) {
  write_raw(
      "zero.npy",
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4611686018427387904), }\n", ""));
  attn_npy::Array a;
  std::string err;
  ASSERT_TRUE(attn_npy::load(path("zero.npy"), &a, &err)) << err;
  EXPECT_EQ(a.count(), 0u);
  EXPECT_TRUE(a.data.empty());
}

TEST_F(NpyTest, ExpectChecksDtypeAndRank) {
  attn_npy::Array a;
  a.dtype = "<f8";
  a.shape = {2, 3};
  std::string err;
  EXPECT_FALSE(attn_npy::expect(a, "Q.npy", "<f4", 2, 3, &err));
  EXPECT_EQ(err, "Q.npy: expected float32 (<f4), got <f8");
  a.dtype = "<f4";
  EXPECT_TRUE(attn_npy::expect(a, "Q.npy", "<f4", 2, 3, &err));
  a.shape = {2, 3, 4, 5};
  EXPECT_FALSE(attn_npy::expect(a, "Q.npy", "<f4", 2, 3, &err));
  EXPECT_EQ(err, "Q.npy: expected rank 2 to 3, got rank 4 with shape (2, 3, 4, 5)");
  a.shape = {7};
  EXPECT_FALSE(attn_npy::expect(a, "b.npy", "<f4", 2, 2, &err));
  EXPECT_EQ(err, "b.npy: expected rank 2, got rank 1 with shape (7,)");
}

TEST_F(NpyTest, SaveFailuresLeaveNoFile) {
  const float v[2] = {1, 2};
  std::string err;
  EXPECT_FALSE(attn_npy::save(path("missing/dir/o.npy"), "<f4", {2}, v, &err));
  EXPECT_EQ(err.rfind(path("missing/dir/o.npy") + ": ", 0), 0u) << err;
  EXPECT_FALSE(attn_npy::save(path("o.npy"), "<c8", {2}, v, &err));
  EXPECT_NE(err.find("unsupported dtype"), std::string::npos) << err;
  EXPECT_FALSE(attn_npy::save(path("o.npy"), "<f4", {2}, nullptr, &err));
  EXPECT_FALSE(attn_npy::save(path("o.npy"), "<f4", {int64_t{1} << 40}, v, &err));
  EXPECT_TRUE(files().empty());
}

// Mutated and truncated copies of a valid file: load may fail, but never
// crashes or reads out of bounds (run under ASan/UBSan to check the latter),
// and when it succeeds the data size agrees with the shape.
TEST_F(NpyTest, MutatedFilesNeverCrash) {
  const std::string good =
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }      \n", kF4x6);
  std::mt19937 rng(1234);
  attn_npy::Array a;
  std::string err;
  for (std::size_t n = 0; n <= good.size(); ++n) {
    write_raw("t.npy", good.substr(0, n));
    const bool ok = attn_npy::load(path("t.npy"), &a, &err);
    EXPECT_EQ(ok, n == good.size()) << n << ": " << err;
  }
  for (int iter = 0; iter < 3000; ++iter) {
    std::string s = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      s[rng() % s.size()] = static_cast<char>(rng() & 0xff);
    }
    write_raw("m.npy", s);
    if (attn_npy::load(path("m.npy"), &a, &err)) {
      EXPECT_EQ(a.data.size(), a.count() * attn_npy::itemsize(a.dtype));
    } else {
      EXPECT_EQ(err.find('\n'), std::string::npos);
    }
  }
}

}  // namespace
