// Fuzz target: attn_npy::load on arbitrary file contents.
//
// The input is written to an in-memory file (memfd) and loaded through its
// /proc/self/fd path, so no disk I/O happens per input. Checked: load never
// crashes, reads out of bounds or throws; on failure it gives a one-line
// message naming the file; on success the array is consistent (dtype known,
// data size = product(shape) * itemsize) and survives a save/load round trip
// unchanged (save writes to a private temporary directory).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_common.h"
#include "npy.h"

namespace {

struct State {
  int fd = -1;
  std::string path;
  std::string out_path;
  State() {
    fd = memfd_create("attn_fuzz_npy", 0);
    FUZZ_CHECK(fd >= 0);
    path = "/proc/self/fd/" + std::to_string(fd);
    char dir[] = "/tmp/attn_fuzz_npy.XXXXXX";
    FUZZ_CHECK(mkdtemp(dir) != nullptr);
    out_path = std::string(dir) + "/rt.npy";
  }
  ~State() {
    std::remove(out_path.c_str());
    rmdir(out_path.substr(0, out_path.size() - 7).c_str());
  }
};

State& state() {
  static State s;
  return s;
}

void write_all(int fd, const uint8_t* data, std::size_t size) {
  FUZZ_CHECK(ftruncate(fd, 0) == 0);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    FUZZ_CHECK(n > 0);
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  State& s = state();
  write_all(s.fd, data, size);

  attn_npy::Array a;
  std::string error;
  if (!attn_npy::load(s.path, &a, &error)) {
    FUZZ_CHECK(error.rfind(s.path + ": ", 0) == 0);
    FUZZ_CHECK(error.find('\n') == std::string::npos);
    return 0;
  }
  const std::size_t item = attn_npy::itemsize(a.dtype);
  FUZZ_CHECK(item > 0);
  FUZZ_CHECK(a.shape.size() <= 32);
  uint64_t n = 1;
  for (const int64_t d : a.shape) {
    FUZZ_CHECK(d >= 0);
    n *= static_cast<uint64_t>(d);  // bounded: the data fit in the input
  }
  FUZZ_CHECK(n * item == a.data.size());
  FUZZ_CHECK(a.count() == n);
  (void)attn_npy::dtype_name(a.dtype);
  (void)attn_npy::shape_str(a.shape);
  for (const char* want : {"<f4", "|i1"}) {
    std::string why;
    if (!attn_npy::expect(a, s.path, want, 0, 4, &why)) FUZZ_CHECK(!why.empty());
  }

  // Round trip.
  FUZZ_CHECK(attn_npy::save(s.out_path, a.dtype, a.shape, a.data.data(), &error));
  attn_npy::Array b;
  FUZZ_CHECK(attn_npy::load(s.out_path, &b, &error));
  FUZZ_CHECK(b.dtype == a.dtype && b.shape == a.shape && b.data == a.data);
  return 0;
}
