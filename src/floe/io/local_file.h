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
  /// the mapping without copying or allocating, and the pages are faulted in when first
  /// touched. Smaller files, other kinds of files, files that cannot be mapped, and every
  /// file when this is negative are read with pread into fresh buffers. A mapped file must
  /// not be truncated while it is read (the reader would fault).
  ///
  /// Off by default: scanning TPC-H lineitem from the page cache through a mapping took
  /// the same user-space instructions as pread but about a third more user time on the
  /// virtual machines measured (4 KiB file pages, against pread's large heap buffers), more
  /// than the copy it saves.
  int64_t map_min_size = -1;
};

/// Opens a local file for reading as `options` say. OpenLocalFile(path) (file.h) uses the
/// default options.
Result<std::unique_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path,
                                                        const LocalReadOptions& options);

/// Whether `file` is a memory-mapped local file: its reads are views that cost no copy and
/// no system call, so reading ahead on another thread gains nothing.
bool IsMemoryMapped(const RandomAccessFile& file);

}  // namespace floe::io
