// Runs a fuzz target's entry point over files, without libFuzzer: the regular build links
// each target with this main so that every test run replays the seed corpora
// (fuzz/corpus/<name>) and the harnesses keep compiling with the engine. Finding new inputs
// is libFuzzer's job, in `make fuzz` (fuzz/run.sh), outside the test suite.
//
// usage: fuzz_<name>_replay PATH...   (a file, or a directory whose regular files are read
// in name order). Exits 1 naming the path when an input cannot be read or none is given; a
// crash or an abort of the target ends the process as it would under libFuzzer.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Defined by the targets that set something up once; optional, as in libFuzzer.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace {

bool CollectInputs(const std::filesystem::path& path, std::vector<std::filesystem::path>* out) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    if (ec) return false;
    std::sort(files.begin(), files.end());
    out->insert(out->end(), files.begin(), files.end());
    return true;
  }
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  out->push_back(path);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PATH...\n", argv[0]);
    return 1;
  }
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (!CollectInputs(argv[i], &inputs)) {
      std::fprintf(stderr, "replay: %s is not a readable file or directory\n", argv[i]);
      return 1;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no inputs in the given paths\n");
    return 1;
  }
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
      return 1;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replay: %zu inputs ran\n", inputs.size());
  return 0;
}
