// attn_npy: reading and writing NumPy .npy files for the host tools and tests.
//
// Host-only (uses std::string, std::vector and stdio); never linked into the
// engine. Loading is defensive: the header is parsed by a small bounded parser,
// every size is checked for overflow and against the file's real length before
// anything is allocated, and every failure is reported as one line naming the
// file and the problem. No function throws for a malformed file.
//
// Supported dtypes (numpy descr): <f4 <f8 <f2 <i8 <i4 <i2 |i1 <u8 <u4 <u2 |u1 |b1
// (little-endian or byte-sized; '=' is accepted as '<' and normalized).
// Limits: rank <= 32, data <= 2 GiB, header <= 1 MiB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn_npy {

struct Array {
  std::string dtype;                // numpy descr, e.g. "<f4", "<i4", "|i1", "|u1", "<f8"
  std::vector<int64_t> shape;       // empty = scalar
  std::vector<unsigned char> data;  // C order, little-endian
  // Number of elements: product of shape (1 for a scalar).
  std::size_t count() const;
  // The data as T. std::vector's storage comes from operator new, aligned for
  // every fundamental type, so the cast through void* (which keeps
  // -Wcast-align quiet on strict-alignment Arm targets) is safe.
  template <class T>
  const T* as() const {
    return static_cast<const T*>(static_cast<const void*>(data.data()));
  }
};

// Loads a .npy (format versions 1.0, 2.0, 3.0). Returns false with a one-line
// message naming the file and the problem (not a .npy, truncated header, bad
// header dict, fortran_order True, unsupported dtype, data shorter/longer than
// the shape says, too large) in *error (if error is not null).
bool load(const std::string& path, Array* out, std::string* error);

// Checks dtype and rank range; the message names the file, e.g.
// "Q.npy: expected float32 (<f4), got <f8".
bool expect(const Array& a, const std::string& path, const std::string& dtype, int min_rank,
            int max_rank, std::string* error);

// Writes a version 1.0 .npy atomically (temporary file in the same directory,
// then rename), so a failure leaves no output file. `data` holds
// product(shape) * itemsize(dtype) bytes.
bool save(const std::string& path, const std::string& dtype, const std::vector<int64_t>& shape,
          const void* data, std::string* error);

// Bytes per element of a supported dtype, 0 if unsupported.
std::size_t itemsize(const std::string& dtype);

// A readable name for a dtype: "float32 (<f4)".
std::string dtype_name(const std::string& dtype);

// "(2, 3)" / "(3,)" / "()".
std::string shape_str(const std::vector<int64_t>& shape);

}  // namespace attn_npy
