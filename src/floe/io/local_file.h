#pragma once

// How local files are opened for reading: a memory mapping for large regular files, pread
// otherwise.

#include <cstdint>
#include <memory>
#include <string>

#include "floe/common/result.h"
#include "floe/io/file.h"

namespace floe::io {

/// How OpenLocalFile reads a file.
struct LocalReadOptions {
  /// Regular files of at least this many bytes are memory-mapped: ReadAt returns views of
  /// the mapping without copying or allocating, the pages are faulted in when first
  /// touched, and they leave the process again when the last view of a read goes. Smaller
  /// files, other kinds of files, files that cannot be mapped, and every file when this is
  /// negative are read with pread into fresh buffers.
  ///
  /// A mapped file truncated while it is read reads as zeros past its new end (the process
  /// is not killed) and RandomAccessFile::CheckIntact reports it: only readers that check it
  /// may map (FileIO::NewScanInputFile). The default reads with pread.
  int64_t map_min_size = -1;
};

/// The map_min_size of LocalFileIO::NewScanInputFile. Scanning TPC-H lineitem through a
/// mapping takes about the user time pread takes and a fraction of its system time (no
/// copy out of the page cache, no first touch of fresh buffers); below this size the
/// mapping's own system calls cost more than the copy.
inline constexpr int64_t kScanMapMinSize = 256 << 10;

/// Opens a local file for reading as `options` say. OpenLocalFile(path) (file.h) uses the
/// default options.
Result<std::unique_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path,
                                                        const LocalReadOptions& options);

/// Whether `file` is a memory-mapped local file: its reads are views that cost no copy and
/// no system call, so reading ahead on another thread gains nothing.
bool IsMemoryMapped(const RandomAccessFile& file);

}  // namespace floe::io
