#include "floe/connector/text/text_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace floe::connector {

namespace {

// Bytes read from the file at a time.
constexpr int64_t kChunkBytes = 1 << 20;

bool IsJsonBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view TrimJsonBlanks(std::string_view s) {
  while (!s.empty() && IsJsonBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsJsonBlank(s.back())) s.remove_suffix(1);
  return s;
}

int64_t CountLines(std::string_view s) {
  return static_cast<int64_t>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace

std::string_view TextFormatName(TextFormat format) {
  return format == TextFormat::kCsv ? "csv" : "json";
}

TextRecordReader::TextRecordReader(std::shared_ptr<io::RandomAccessFile> file, TextFileRange range,
                                   TextRecordOptions options)
    : file_(std::move(file)),
      range_(std::move(range)),
      options_(std::move(options)),
      csv_(options_.csv) {}

Result<std::unique_ptr<TextRecordReader>> TextRecordReader::Open(
    std::shared_ptr<io::RandomAccessFile> file, const TextFileRange& range,
    const TextRecordOptions& options) {
  if (range.begin < 0 || (range.end >= 0 && range.end < range.begin)) {
    return Status::Invalid("'{}': bad byte range [{}, {})", range.path, range.begin, range.end);
  }
  if (range.file_size >= 0 && file->size() != range.file_size) {
    return Status::IOError("'{}' changed after the query was planned (size {} -> {} bytes)",
                           range.path, range.file_size, file->size());
  }
  auto reader = std::unique_ptr<TextRecordReader>(new TextRecordReader(file, range, options));
  reader->file_size_ = file->size();
  reader->end_ = range.end < 0 ? reader->file_size_ : std::min(range.end, reader->file_size_);
  reader->read_to_ = std::min(range.begin, reader->file_size_);
  reader->consumed_ = reader->read_to_;
  reader->next_line_ = range.first_line;
  if (range.begin == 0) {
    FLOE_RETURN_NOT_OK(reader->ReadMore());
    const std::string_view start = reader->window();
    if (start.size() >= 3 && start.substr(0, 3) == "\xEF\xBB\xBF") reader->Consume(3, 0);
    reader->skip_header_ = options.format == TextFormat::kCsv && options.header;
  } else if (options.format == TextFormat::kJson && options.json_layout == JsonLayout::kArray) {
    return Status::Invalid("'{}': a JSON array file cannot be read from byte {}", range.path,
                           range.begin);
  }
  return reader;
}

Status TextRecordReader::ReadMore() {
  const int64_t kept = window_end_ - window_begin_;
  const int64_t want = std::min<int64_t>(kChunkBytes, file_size_ - read_to_);
  if (want <= 0) return Status::OK();
  char* data = buffer_.Reserve(kept + want, /*keep=*/true);
  if (window_begin_ > 0 && kept > 0) std::memmove(data, data + window_begin_, static_cast<size_t>(kept));
  window_begin_ = 0;
  window_end_ = kept;
  FLOE_ASSIGN_OR_RAISE(BufferPtr chunk, file_->ReadAt(read_to_, want));
  if (chunk->size() != want) {
    return Status::IOError("'{}': read {} bytes at offset {} where {} were expected", range_.path,
                           chunk->size(), read_to_, want);
  }
  std::memcpy(data + window_end_, chunk->data(), static_cast<size_t>(want));
  window_end_ += want;
  read_to_ += want;
  return Status::OK();
}

void TextRecordReader::Consume(size_t n, int64_t lines) {
  window_begin_ += static_cast<int64_t>(n);
  consumed_ += static_cast<int64_t>(n);
  next_line_ += lines;
}

Status TextRecordReader::TooLong() const {
  return Status::Invalid(
      "{}:{}: a record is longer than {} bytes (the reader's limit; raise it with {} => N if "
      "the file is right)",
      range_.path, next_line_, options_.max_record_bytes,
      options_.format == TextFormat::kCsv ? "max_line_size" : "maximum_object_size");
}

Result<bool> TextRecordReader::Next() {
  record_status_ = Status::OK();
  if (skip_header_) {
    skip_header_ = false;
    FLOE_ASSIGN_OR_RAISE(bool header, NextCsv());
    if (!header) return false;
    record_status_ = Status::OK();
  }
  if (options_.format == TextFormat::kCsv) return NextCsv();
  if (options_.json_layout == JsonLayout::kLines) return NextJsonLine();
  return NextJsonElement();
}

Result<bool> TextRecordReader::NextCsv() {
  while (true) {
    if (consumed_ >= end_) return false;
    if (window_end_ == window_begin_) {
      if (at_file_end()) return false;
      FLOE_RETURN_NOT_OK(ReadMore());
      continue;
    }
    size_t length = 0;
    Result<CsvTokenizer::Step> step = csv_.Next(window(), at_file_end(), &length);
    if (!step.ok()) {
      // An open quote runs to the end of the file: the rest is this one bad record.
      line_ = next_line_;
      record_status_ = step.status();
      const std::string_view rest = window();
      Consume(rest.size(), CountLines(rest));
      return true;
    }
    if (*step == CsvTokenizer::Step::kNeedMore) {
      if (window_end_ - window_begin_ > options_.max_record_bytes) return TooLong();
      FLOE_RETURN_NOT_OK(ReadMore());
      continue;
    }
    if (static_cast<int64_t>(length) > options_.max_record_bytes) return TooLong();
    line_ = next_line_;
    Consume(length, csv_.newlines());
    return true;
  }
}

Result<bool> TextRecordReader::NextJsonLine() {
  while (true) {
    if (consumed_ >= end_) return false;
    const std::string_view w = window();
    const void* hit = w.empty() ? nullptr : std::memchr(w.data(), '\n', w.size());
    if (hit == nullptr) {
      if (!at_file_end()) {
        if (static_cast<int64_t>(w.size()) > options_.max_record_bytes) return TooLong();
        FLOE_RETURN_NOT_OK(ReadMore());
        continue;
      }
      if (w.empty()) return false;
    }
    const size_t length =
        hit == nullptr ? w.size() : static_cast<size_t>(static_cast<const char*>(hit) - w.data());
    if (static_cast<int64_t>(length) > options_.max_record_bytes) return TooLong();
    const std::string_view text = TrimJsonBlanks(w.substr(0, length));
    line_ = next_line_;
    Consume(hit == nullptr ? length : length + 1, hit == nullptr ? 0 : 1);
    if (text.empty()) continue;  // blank lines hold no record
    json_text_ = text;
    return true;
  }
}

Result<bool> TextRecordReader::SkipBlanks() {
  while (true) {
    const std::string_view w = window();
    size_t i = 0;
    int64_t lines = 0;
    while (i < w.size() && IsJsonBlank(w[i])) {
      if (w[i] == '\n') ++lines;
      ++i;
    }
    Consume(i, lines);
    if (i < w.size()) return true;
    if (at_file_end()) return false;
    FLOE_RETURN_NOT_OK(ReadMore());
  }
}

Result<bool> TextRecordReader::NextJsonElement() {
  auto expected = [&](std::string_view what) {
    const std::string_view w = window();
    return Status::Invalid("{}:{}: expected {} in the JSON array, found {}", range_.path,
                           next_line_, what,
                           w.empty() ? std::string("the end of the file")
                                     : "'" + std::string(1, w[0]) + "'");
  };
  while (true) {
    switch (array_state_) {
      case ArrayState::kClosed: {
        FLOE_ASSIGN_OR_RAISE(bool more, SkipBlanks());
        if (more) return Status::Invalid("{}:{}: data after the end of the JSON array", range_.path,
                                         next_line_);
        return false;
      }
      case ArrayState::kOpen: {
        FLOE_ASSIGN_OR_RAISE(bool more, SkipBlanks());
        if (!more || window()[0] != '[') return expected("'['");
        Consume(1, 0);
        array_state_ = ArrayState::kFirst;
        FLOE_ASSIGN_OR_RAISE(more, SkipBlanks());
        if (!more) return expected("a value or ']'");
        if (window()[0] == ']') {
          Consume(1, 0);
          array_state_ = ArrayState::kClosed;
          continue;
        }
        break;
      }
      case ArrayState::kFirst:
        break;
      case ArrayState::kAfterElement: {
        FLOE_ASSIGN_OR_RAISE(bool more, SkipBlanks());
        if (!more) return expected("',' or ']'");
        const char c = window()[0];
        if (c == ']') {
          Consume(1, 0);
          array_state_ = ArrayState::kClosed;
          continue;
        }
        if (c != ',') return expected("',' or ']'");
        Consume(1, 0);
        FLOE_ASSIGN_OR_RAISE(more, SkipBlanks());
        if (!more) return expected("a value");
        break;
      }
    }
    // An element starts at the window: find where it ends (a ',' or ']' outside strings and
    // nested values).
    while (true) {
      const std::string_view w = window();
      int depth = 0;
      bool in_string = false;
      bool escaped = false;
      int64_t lines = 0;
      size_t i = 0;
      for (; i < w.size(); ++i) {
        const char c = w[i];
        if (c == '\n') ++lines;
        if (in_string) {
          if (escaped) {
            escaped = false;
          } else if (c == '\\') {
            escaped = true;
          } else if (c == '"') {
            in_string = false;
          }
          continue;
        }
        if (c == '"') {
          in_string = true;
        } else if (c == '[' || c == '{') {
          ++depth;
        } else if (c == ']' || c == '}') {
          if (depth == 0) break;
          --depth;
        } else if (c == ',' && depth == 0) {
          break;
        }
      }
      if (static_cast<int64_t>(i) > options_.max_record_bytes) return TooLong();
      if (i == w.size()) {
        if (at_file_end()) {
          return Status::Invalid("{}:{}: the JSON array is not closed", range_.path, next_line_);
        }
        FLOE_RETURN_NOT_OK(ReadMore());
        continue;
      }
      line_ = next_line_;
      json_text_ = TrimJsonBlanks(w.substr(0, i));
      Consume(i, lines);
      array_state_ = ArrayState::kAfterElement;
      return true;
    }
  }
}

}  // namespace floe::connector
