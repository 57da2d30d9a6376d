#include "floe/connector/text/csv_tokenizer.h"

#include <algorithm>
#include <cstring>

namespace floe::connector {

CsvTokenizer::CsvTokenizer(CsvDialect dialect) : dialect_(std::move(dialect)) {
  std::fill(std::begin(classes_), std::end(classes_), kPlain);
  classes_[static_cast<uint8_t>('\n')] = kNewline;
  classes_[static_cast<uint8_t>('\r')] = kReturn;
  classes_[static_cast<uint8_t>(dialect_.delimiter)] = kDelimiter;
  if (dialect_.quote != '\0') {
    if (dialect_.escape != '\0' && dialect_.escape != dialect_.quote) {
      classes_[static_cast<uint8_t>(dialect_.escape)] = kEscape;
    }
    classes_[static_cast<uint8_t>(dialect_.quote)] = kQuote;
  }
}

Result<CsvTokenizer::Step> CsvTokenizer::Next(std::string_view data, bool at_end,
                                              size_t* consumed) {
  arena_.clear();
  fields_.clear();
  newlines_ = 0;
  empty_line_ = false;
  const size_t n = data.size();
  const char* p = data.data();
  const bool doubled_quotes = dialect_.quote != '\0' && dialect_.escape == dialect_.quote;
  size_t i = 0;
  size_t field_begin = 0;
  bool field_quoted = false;
  bool in_quotes = false;
  auto end_field = [&] {
    fields_.push_back(Field{field_begin, arena_.size(), field_quoted});
    field_begin = arena_.size();
    field_quoted = false;
  };
  while (true) {
    if (i >= n) {
      if (!at_end) return Step::kNeedMore;
      if (in_quotes) {
        return Status::Invalid("unterminated quoted field (a quote opened in it is never closed)");
      }
      end_field();
      *consumed = n;
      return Step::kRecord;
    }
    if (!in_quotes) {
      // A run of plain bytes goes to the arena at once.
      size_t run = i;
      while (run < n && classes_[static_cast<uint8_t>(p[run])] == kPlain) ++run;
      if (run > i) {
        arena_.append(p + i, run - i);
        i = run;
        continue;
      }
      switch (classes_[static_cast<uint8_t>(p[i])]) {
        case kDelimiter:
          end_field();
          ++i;
          break;
        case kNewline:
          empty_line_ = i == 0;
          end_field();
          ++newlines_;
          *consumed = i + 1;
          return Step::kRecord;
        case kReturn:
          if (i + 1 >= n && !at_end) return Step::kNeedMore;
          if (i + 1 < n && p[i + 1] == '\n') {
            empty_line_ = i == 0;
            end_field();
            ++newlines_;
            *consumed = i + 2;
            return Step::kRecord;
          }
          arena_.push_back('\r');
          ++i;
          break;
        case kQuote:
          in_quotes = true;
          field_quoted = true;
          ++i;
          break;
        default:  // an escape outside quotes is data
          arena_.push_back(p[i]);
          ++i;
          break;
      }
      continue;
    }
    // Inside quotes: everything but the quote and the escape is data.
    size_t run = i;
    while (run < n) {
      const CharClass c = classes_[static_cast<uint8_t>(p[run])];
      if (c == kQuote || c == kEscape) break;
      if (c == kNewline) ++newlines_;
      ++run;
    }
    if (run > i) {
      arena_.append(p + i, run - i);
      i = run;
      continue;
    }
    if (classes_[static_cast<uint8_t>(p[i])] == kEscape) {
      if (i + 1 >= n) {
        if (!at_end) return Step::kNeedMore;
        arena_.push_back(p[i]);
        ++i;
        continue;
      }
      const char next = p[i + 1];
      if (next == dialect_.quote || next == dialect_.escape) {
        arena_.push_back(next);
        i += 2;
      } else {
        arena_.push_back(p[i]);
        ++i;
      }
      continue;
    }
    // The quote: doubled, it is one quote; otherwise it closes the quoted section.
    if (doubled_quotes) {
      if (i + 1 >= n && !at_end) return Step::kNeedMore;
      if (i + 1 < n && p[i + 1] == dialect_.quote) {
        arena_.push_back(dialect_.quote);
        i += 2;
        continue;
      }
    }
    in_quotes = false;
    ++i;
  }
}

CsvRecordStarts::CsvRecordStarts(const CsvDialect& dialect)
    : quote_(dialect.quote), escape_(dialect.escape == dialect.quote ? '\0' : dialect.escape) {}

void CsvRecordStarts::Feed(std::string_view bytes) {
  const char* p = bytes.data();
  const size_t n = bytes.size();
  auto record_start = [&](int64_t start) {
    while (next_wanted_ < wanted_.size() && wanted_[next_wanted_] <= start) {
      found_.push_back(Start{start, lines_ + 1});
      ++next_wanted_;
    }
  };
  if (quote_ == '\0') {
    // Every line break ends a record.
    size_t i = 0;
    while (i < n) {
      const void* hit = std::memchr(p + i, '\n', n - i);
      if (hit == nullptr) break;
      const size_t at = static_cast<size_t>(static_cast<const char*>(hit) - p);
      ++lines_;
      record_start(position_ + static_cast<int64_t>(at) + 1);
      i = at + 1;
    }
    position_ += static_cast<int64_t>(n);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const char c = p[i];
    if (c == '\n') {
      ++lines_;
      after_escape_ = false;
      if (!in_quotes_) record_start(position_ + static_cast<int64_t>(i) + 1);
      continue;
    }
    if (!in_quotes_) {
      if (c == quote_) in_quotes_ = true;
      continue;
    }
    if (after_escape_) {
      after_escape_ = false;
      if (c == quote_ || c == escape_) continue;
    }
    if (c == escape_ && escape_ != '\0') {
      after_escape_ = true;
    } else if (c == quote_) {
      in_quotes_ = false;
    }
  }
  position_ += static_cast<int64_t>(n);
}

}  // namespace floe::connector
