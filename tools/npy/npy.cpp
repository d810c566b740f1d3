// attn_npy implementation. See npy.h.
#include "npy.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <sys/stat.h>
#include <unistd.h>

namespace attn_npy {
namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kMaxHeaderBytes = std::size_t{1} << 20;
constexpr uint64_t kMaxDataBytes = uint64_t{1} << 31;
constexpr std::size_t kMaxRank = 32;

struct DtypeInfo {
  const char* descr;
  std::size_t size;
  const char* name;
};

constexpr DtypeInfo kDtypes[] = {
    {"<f4", 4, "float32"}, {"<f8", 8, "float64"}, {"<f2", 2, "float16"}, {"<i8", 8, "int64"},
    {"<i4", 4, "int32"},   {"<i2", 2, "int16"},   {"|i1", 1, "int8"},    {"<u8", 8, "uint64"},
    {"<u4", 4, "uint32"},  {"<u2", 2, "uint16"},  {"|u1", 1, "uint8"},   {"|b1", 1, "bool"},
};

const DtypeInfo* find_dtype(const std::string& d) {
  for (const auto& t : kDtypes) {
    if (d == t.descr) return &t;
  }
  return nullptr;
}

// Maps spellings numpy also accepts onto the canonical descr ('=' native
// little-endian, '<' or '=' on byte-sized types).
std::string normalize_descr(const std::string& d) {
  if (d.size() == 3 && (d[0] == '=' || d[0] == '<' || d[0] == '|')) {
    std::string rest = d.substr(1);
    if (rest == "i1" || rest == "u1" || rest == "b1") return "|" + rest;
    if (d[0] == '=') return "<" + rest;
  }
  return d;
}

bool fail(std::string* error, const std::string& path, const std::string& what) {
  if (error) *error = path + ": " + what;
  return false;
}

// Printable, bounded rendering of untrusted text for messages.
std::string quote(const std::string& s) {
  std::string r = "'";
  for (std::size_t i = 0; i < s.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      r += static_cast<char>(c);
    } else {
      r += '?';
    }
  }
  if (s.size() > 40) r += "...";
  return r + "'";
}

// A small parser for the header: a Python dict literal with string keys and
// values that are strings, True/False, or tuples of non-negative integers.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : s_(text) {}

  // Parses the dict; fills descr/fortran/shape and which keys were present.
  bool parse(std::string* why) {
    skip_ws();
    if (!eat('{')) return err(why, "expected '{'");
    for (;;) {
      skip_ws();
      if (eat('}')) break;
      std::string key;
      if (!parse_string(&key)) return err(why, "expected a quoted key");
      skip_ws();
      if (!eat(':')) return err(why, "expected ':' after key " + quote(key));
      skip_ws();
      if (key == "descr") {
        if (have_descr) return err(why, "duplicate key 'descr'");
        if (!parse_string(&descr))
          return err(why, "'descr' is not a simple string (structured dtypes are unsupported)");
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_fortran) return err(why, "duplicate key 'fortran_order'");
        if (match("True")) {
          fortran = true;
        } else if (match("False")) {
          fortran = false;
        } else {
          return err(why, "'fortran_order' is not True or False");
        }
        have_fortran = true;
      } else if (key == "shape") {
        if (have_shape) return err(why, "duplicate key 'shape'");
        std::string w;
        if (!parse_shape(&w)) return err(why, "'shape' " + w);
        have_shape = true;
      } else {
        return err(why, "unexpected key " + quote(key));
      }
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      if (eat('}')) break;
      return err(why, "expected ',' or '}'");
    }
    skip_ws();
    if (pos_ != s_.size()) return err(why, "trailing characters after '}'");
    if (!have_descr) return err(why, "missing key 'descr'");
    if (!have_fortran) return err(why, "missing key 'fortran_order'");
    if (!have_shape) return err(why, "missing key 'shape'");
    return true;
  }

  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;

 private:
  static bool err(std::string* why, const std::string& w) {
    *why = w;
    return false;
  }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool match(const char* word) {
    const std::size_t n = std::strlen(word);
    if (s_.compare(pos_, n, word) == 0 && s_.size() - pos_ >= n) {
      pos_ += n;
      return true;
    }
    return false;
  }
  bool parse_string(std::string* out) {
    if (pos_ >= s_.size()) return false;
    const char q = s_[pos_];
    if (q != '\'' && q != '"') return false;
    ++pos_;
    std::string r;
    while (pos_ < s_.size() && s_[pos_] != q) {
      if (s_[pos_] == '\\' || r.size() > 64) return false;  // no escapes in valid headers
      r += s_[pos_++];
    }
    if (pos_ >= s_.size()) return false;
    ++pos_;
    *out = r;
    return true;
  }
  bool parse_shape(std::string* why) {
    if (!eat('(')) return err(why, "is not a tuple");
    shape.clear();
    for (;;) {
      skip_ws();
      if (eat(')')) return true;
      if (shape.size() >= kMaxRank) return err(why, "has more than 32 dimensions");
      if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9') {
        return err(why, "holds something other than a non-negative integer");
      }
      int64_t v = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        const int d = s_[pos_] - '0';
        if (v > (std::numeric_limits<int64_t>::max() - d) / 10) {
          return err(why, "has a dimension too large");
        }
        v = v * 10 + d;
        ++pos_;
      }
      if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 longs
      shape.push_back(v);
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      if (eat(')')) return true;
      return err(why, "is not a well-formed tuple");
    }
  }

  const std::string& s_;
  std::size_t pos_ = 0;
  bool have_descr = false;
  bool have_fortran = false;
  bool have_shape = false;
};

// Product of dims times itemsize; false on overflow or beyond kMaxDataBytes.
bool data_bytes(const std::vector<int64_t>& shape, std::size_t item, uint64_t* bytes) {
  uint64_t n = item;
  for (const int64_t d : shape) {
    if (d < 0) return false;
    const auto u = static_cast<uint64_t>(d);
    if (u != 0 && n > kMaxDataBytes / u) {
      // Overflow or too large, unless a later dimension is 0.
      for (const int64_t e : shape) {
        if (e == 0) {
          *bytes = 0;
          return true;
        }
      }
      return false;
    }
    n *= u;
  }
  *bytes = n;
  return n <= kMaxDataBytes;
}

struct File {
  std::FILE* f = nullptr;
  ~File() {
    if (f) std::fclose(f);
  }
};

}  // namespace

std::size_t Array::count() const {
  std::size_t n = 1;
  for (const int64_t d : shape) {
    if (d <= 0) return 0;
    const auto u = static_cast<std::size_t>(d);
    if (n > std::numeric_limits<std::size_t>::max() / u) return 0;
    n *= u;
  }
  return n;
}

std::size_t itemsize(const std::string& dtype) {
  const DtypeInfo* t = find_dtype(dtype);
  return t ? t->size : 0;
}

std::string dtype_name(const std::string& dtype) {
  const DtypeInfo* t = find_dtype(dtype);
  if (!t) return quote(dtype);
  return std::string(t->name) + " (" + t->descr + ")";
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string r = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) r += ", ";
    r += std::to_string(shape[i]);
  }
  if (shape.size() == 1) r += ",";
  return r + ")";
}

bool load(const std::string& path, Array* out, std::string* error) {
  if (!out) return fail(error, path, "no output array");
  File file;
  file.f = std::fopen(path.c_str(), "rb");
  if (!file.f) return fail(error, path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (fstat(fileno(file.f), &st) != 0) {
    return fail(error, path, std::string("cannot stat: ") + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) return fail(error, path, "not a regular file");
  const auto file_size = static_cast<uint64_t>(st.st_size);
  if (file_size == 0) return fail(error, path, "empty file");

  unsigned char pre[12] = {};
  const std::size_t got = std::fread(pre, 1, 10, file.f);
  if (got < 6 || std::memcmp(pre, kMagic, 6) != 0) {
    return fail(error, path, "not a .npy file (bad magic)");
  }
  if (got < 8) return fail(error, path, "truncated header (no version)");
  const unsigned major = pre[6];
  const unsigned minor = pre[7];
  if (major < 1 || major > 3 || minor != 0) {
    return fail(
        error, path,
        "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  }
  std::size_t prefix = 10;
  uint64_t header_len = 0;
  if (major == 1) {
    if (got < 10) return fail(error, path, "truncated header (no header length)");
    header_len = uint64_t{pre[8]} | (uint64_t{pre[9]} << 8);
  } else {
    prefix = 12;
    if (got < 10 || std::fread(pre + 10, 1, 2, file.f) != 2) {
      return fail(error, path, "truncated header (no header length)");
    }
    header_len = uint64_t{pre[8]} | (uint64_t{pre[9]} << 8) | (uint64_t{pre[10]} << 16) |
                 (uint64_t{pre[11]} << 24);
  }
  if (header_len > kMaxHeaderBytes) {
    return fail(error, path, "header length " + std::to_string(header_len) + " too large");
  }
  if (prefix + header_len > file_size) {
    return fail(error, path,
                "truncated header (says " + std::to_string(header_len) + " bytes, file has " +
                    std::to_string(file_size - prefix) + ")");
  }
  std::string header(static_cast<std::size_t>(header_len), '\0');
  if (header_len > 0 && std::fread(&header[0], 1, header.size(), file.f) != header.size()) {
    return fail(error, path, "truncated header");
  }
  if (header.empty() || header.back() != '\n') {
    return fail(error, path, "bad header: not terminated by a newline");
  }
  for (const char c : header) {
    const auto u = static_cast<unsigned char>(c);
    if (u == 0 || u >= 0x80) {
      if (major != 3) return fail(error, path, "bad header: non-ASCII or NUL byte");
      if (u == 0) return fail(error, path, "bad header: NUL byte");
    }
  }

  HeaderParser parser(header);
  std::string why;
  if (!parser.parse(&why)) return fail(error, path, "bad header dict: " + why);
  if (parser.fortran) {
    return fail(error, path, "fortran_order True is unsupported (save a C-order array)");
  }
  const std::string descr = normalize_descr(parser.descr);
  const DtypeInfo* dt = find_dtype(descr);
  if (!dt) return fail(error, path, "unsupported dtype " + quote(parser.descr));

  uint64_t want = 0;
  if (!data_bytes(parser.shape, dt->size, &want)) {
    return fail(error, path, "too large: shape " + shape_str(parser.shape) + " of " + dt->name);
  }
  const uint64_t have = file_size - prefix - header_len;
  if (have < want) {
    return fail(error, path,
                "data shorter than shape " + shape_str(parser.shape) + " says (" +
                    std::to_string(have) + " of " + std::to_string(want) + " bytes)");
  }
  if (have > want) {
    return fail(error, path,
                "data longer than shape " + shape_str(parser.shape) + " says (" +
                    std::to_string(have) + " bytes, expected " + std::to_string(want) + ")");
  }
  std::vector<unsigned char> data(static_cast<std::size_t>(want));
  if (want > 0 && std::fread(data.data(), 1, data.size(), file.f) != data.size()) {
    return fail(error, path, "read error in data");
  }
  out->dtype = descr;
  out->shape = parser.shape;
  out->data = std::move(data);
  return true;
}

bool expect(const Array& a, const std::string& path, const std::string& dtype, int min_rank,
            int max_rank, std::string* error) {
  if (a.dtype != dtype) {
    return fail(error, path, "expected " + dtype_name(dtype) + ", got " + a.dtype);
  }
  const auto rank = static_cast<int>(a.shape.size());
  if (rank < min_rank || rank > max_rank) {
    std::string want = min_rank == max_rank
                           ? "rank " + std::to_string(min_rank)
                           : "rank " + std::to_string(min_rank) + " to " + std::to_string(max_rank);
    return fail(error, path,
                "expected " + want + ", got rank " + std::to_string(rank) + " with shape " +
                    shape_str(a.shape));
  }
  return true;
}

bool save(const std::string& path, const std::string& dtype, const std::vector<int64_t>& shape,
          const void* data, std::string* error) {
  const DtypeInfo* dt = find_dtype(dtype);
  if (!dt) return fail(error, path, "cannot write unsupported dtype " + quote(dtype));
  if (shape.size() > kMaxRank) return fail(error, path, "cannot write more than 32 dimensions");
  uint64_t bytes = 0;
  if (!data_bytes(shape, dt->size, &bytes)) {
    return fail(error, path, "cannot write: shape " + shape_str(shape) + " too large");
  }
  if (bytes > 0 && data == nullptr) return fail(error, path, "cannot write: no data");

  std::string dict = "{'descr': '" + dtype +
                     "', 'fortran_order': False, 'shape': " + shape_str(shape) + ", }";
  // Pad with spaces so that magic + version + length + header is a multiple
  // of 64 bytes, ending in a newline.
  std::size_t total = 10 + dict.size() + 1;
  const std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  if (dict.size() > 0xffff) return fail(error, path, "cannot write: header too long");

  std::string tmpl = path + ".tmp.XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    return fail(error, path, std::string("cannot create: ") + std::strerror(errno));
  }
  const std::string tmp(name.data());
  std::FILE* f = fdopen(fd, "wb");
  if (!f) {
    const int e = errno;
    close(fd);
    std::remove(tmp.c_str());
    return fail(error, path, std::string("cannot write: ") + std::strerror(e));
  }
  unsigned char pre[10];
  std::memcpy(pre, kMagic, 6);
  pre[6] = 1;
  pre[7] = 0;
  pre[8] = static_cast<unsigned char>(dict.size() & 0xff);
  pre[9] = static_cast<unsigned char>(dict.size() >> 8);
  bool ok = std::fwrite(pre, 1, 10, f) == 10 &&
            std::fwrite(dict.data(), 1, dict.size(), f) == dict.size() &&
            (bytes == 0 || std::fwrite(data, 1, static_cast<std::size_t>(bytes), f) == bytes);
  int e = ok ? 0 : errno;
  if (std::fflush(f) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    e = errno;
  }
  // mkstemp creates 0600; give the file the usual permissions (umask applies).
  if (ok) {
    const mode_t mask = umask(0);
    umask(mask);
    chmod(tmp.c_str(), 0666 & ~mask);
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    return fail(error, path, std::string("cannot write: ") + std::strerror(e));
  }
  return true;
}

}  // namespace attn_npy
