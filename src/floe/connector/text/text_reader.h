#pragma once

// Records of CSV and JSON files, read from a byte range of one file: the record splitting
// that read_csv, read_json and COPY FROM share. A range starts at a record start (the file's
// start, or a place the planner found with CsvRecordStarts) and holds the records that start
// before its end; the last one is read past the end to its terminator.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "floe/common/pool_buffer.h"
#include "floe/common/result.h"
#include "floe/connector/text/csv_tokenizer.h"
#include "floe/io/file.h"

namespace floe::connector {

enum class TextFormat : uint8_t { kCsv, kJson };

/// How JSON records are laid out: one value per line (JSON lines, NDJSON), or the elements
/// of one top-level array.
enum class JsonLayout : uint8_t { kLines, kArray };

/// "csv" / "json".
std::string_view TextFormatName(TextFormat format);

/// Bytes a record may take unless a setting says otherwise (DuckDB's max_line_size).
inline constexpr int64_t kDefaultMaxRecordBytes = 2 << 20;

/// What a file's records look like.
struct TextRecordOptions {
  TextFormat format = TextFormat::kCsv;
  CsvDialect csv;
  /// The first record of each file names the columns (CSV): it is skipped.
  bool header = false;
  JsonLayout json_layout = JsonLayout::kLines;
  /// A record longer than this (bytes) is an error: no input can make a reader hold more.
  int64_t max_record_bytes = kDefaultMaxRecordBytes;

  bool operator==(const TextRecordOptions&) const = default;
};

/// A byte range of a file that one reader reads: the records starting in [begin, end).
struct TextFileRange {
  std::string path;
  int64_t begin = 0;
  /// -1: to the end of the file.
  int64_t end = -1;
  /// The line `begin` is on (1-based), for error messages.
  int64_t first_line = 1;
  /// The file's size when the range was planned (-1: unchecked). A file of another size
  /// has changed since, and its planned ranges no longer start at records.
  int64_t file_size = -1;

  bool operator==(const TextFileRange&) const = default;
};

/// Reads the records of one range. Not thread-safe; one per scan partition and file.
class TextRecordReader {
 public:
  /// `file` holds the range. A range at the file's start skips a UTF-8 byte order mark and,
  /// with `header`, the first record. kIOError from the file, and for a file whose size is
  /// not the range's `file_size`; kInvalidArgument for a JSON array range that is not the
  /// whole file.
  static Result<std::unique_ptr<TextRecordReader>> Open(std::shared_ptr<io::RandomAccessFile> file,
                                                        const TextFileRange& range,
                                                        const TextRecordOptions& options);

  /// Reads the next record; false at the end of the range. A record the format cannot read
  /// (an unterminated quote, a broken JSON array) is not an error here: it is a record
  /// whose record_status() says what is wrong, so that the caller may skip it. Errors:
  /// kIOError reading; kInvalidArgument "<path>:<line>: a record is longer than N bytes"
  /// past max_record_bytes.
  Result<bool> Next();

  /// The line the current record starts on.
  int64_t line() const { return line_; }
  /// Whether the current record is well formed (its message has no file or line).
  const Status& record_status() const { return record_status_; }
  /// CSV: the current record's fields.
  const CsvTokenizer& csv() const { return csv_; }
  /// JSON: the current record's text (one value, surrounding blanks removed).
  std::string_view json_text() const { return json_text_; }  // valid until Next()
  /// Bytes of the range's records read so far.
  int64_t bytes_read() const { return consumed_ - range_.begin; }

  const std::string& path() const { return range_.path; }

 private:
  TextRecordReader(std::shared_ptr<io::RandomAccessFile> file, TextFileRange range,
                   TextRecordOptions options);

  // The unconsumed bytes read so far.
  std::string_view window() const {
    return std::string_view(buffer_.data() + window_begin_,
                            static_cast<size_t>(window_end_ - window_begin_));
  }
  bool at_file_end() const { return read_to_ >= file_size_; }
  // Reads the next chunk after the window, moving the window to the buffer's start.
  Status ReadMore();
  void Consume(size_t n, int64_t lines);
  Status TooLong() const;
  Result<bool> NextCsv();
  Result<bool> NextJsonLine();
  Result<bool> NextJsonElement();
  // Skips blanks (JSON arrays), counting lines; false when more bytes are needed.
  Result<bool> SkipBlanks();

  std::shared_ptr<io::RandomAccessFile> file_;
  TextFileRange range_;
  TextRecordOptions options_;
  int64_t file_size_ = 0;
  int64_t end_ = 0;  // the range's end, resolved
  CsvTokenizer csv_;
  PoolBuffer<char> buffer_;
  int64_t window_begin_ = 0;  // offsets into buffer_
  int64_t window_end_ = 0;
  int64_t read_to_ = 0;   // file offset of the byte after the window
  int64_t consumed_ = 0;  // file offset of the window's first byte
  int64_t next_line_ = 1;
  int64_t line_ = 0;
  Status record_status_;
  std::string_view json_text_;
  // JSON arrays: where the reader is in the array.
  enum class ArrayState { kOpen, kFirst, kAfterElement, kClosed };
  ArrayState array_state_ = ArrayState::kOpen;
  bool skip_header_ = false;
};

}  // namespace floe::connector
