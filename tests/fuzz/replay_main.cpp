// Replays fuzz inputs without libFuzzer: runs LLVMFuzzerTestOneInput once on
// every file named on the command line and on every file inside every
// directory named there. Used by builds without ATTN_FUZZ (GCC, or Clang
// without libFuzzer) so that the seed corpora and the regression inputs run
// as ordinary tests, under the sanitizers of the build they are part of.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

namespace {

bool run_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    std::fprintf(stderr, "replay: cannot open %s\n", path.c_str());
    return false;
  }
  std::vector<uint8_t> data;
  uint8_t buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.insert(data.end(), buf, buf + n);
  std::fclose(f);
  // An exactly sized copy, so that reads past the end are caught.
  std::vector<uint8_t> exact(data.begin(), data.end());
  exact.shrink_to_fit();
  LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') continue;  // libFuzzer flags: ignored
    struct stat st {};
    if (stat(arg.c_str(), &st) != 0) {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", arg.c_str());
      return 1;
    }
    std::vector<std::string> paths;
    if (S_ISDIR(st.st_mode)) {
      DIR* d = opendir(arg.c_str());
      if (d == nullptr) return 1;
      while (const dirent* e = readdir(d)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        paths.push_back(arg + "/" + name);
      }
      closedir(d);
      std::sort(paths.begin(), paths.end());
    } else {
      paths.push_back(arg);
    }
    for (const std::string& p : paths) {
      if (!run_file(p)) return 1;
      ++files;
    }
  }
  std::printf("replay: %d input(s) ran cleanly\n", files);
  return files > 0 ? 0 : 1;
}
