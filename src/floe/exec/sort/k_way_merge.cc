#include "floe/exec/sort/k_way_merge.h"

#include <algorithm>
#include <string>
#include <utility>

#include "floe/batch/builder.h"
#include "floe/common/logging.h"

namespace floe::exec {

RowInterleaver::RowInterleaver(SchemaPtr schema, MemoryPool* pool)
    : schema_(std::move(schema)), pool_(pool) {}

void RowInterleaver::Add(const RecordBatchPtr& batch, int64_t row) {
  ++rows_;
  if (!runs_.empty() && runs_.back().batch == batch && runs_.back().end == row) {
    ++runs_.back().end;
    return;
  }
  runs_.push_back({batch, row, row + 1});
}

Result<RecordBatchPtr> RowInterleaver::Finish() {
  std::vector<ArrayPtr> columns;
  columns.reserve(static_cast<size_t>(schema_->num_fields()));
  if (runs_.size() == 1 && runs_[0].begin == 0 && runs_[0].end == runs_[0].batch->num_rows()) {
    RecordBatchPtr whole = runs_[0].batch;
    runs_.clear();
    rows_ = 0;
    return RecordBatch::Make(schema_, whole->num_rows(), whole->columns());
  }
  for (int c = 0; c < schema_->num_fields(); ++c) {
    auto builder = MakeBuilder(schema_->field(c).type(), pool_);
    FLOE_RETURN_NOT_OK(builder->Reserve(rows_));
    for (const Run& run : runs_) {
      FLOE_RETURN_NOT_OK(
          builder->AppendArraySlice(*run.batch->column(c), run.begin, run.end - run.begin));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, builder->Finish());
    columns.push_back(std::move(a));
  }
  int64_t rows = rows_;
  runs_.clear();
  rows_ = 0;
  return RecordBatch::Make(schema_, rows, std::move(columns));
}

Result<bool> MergeCursor::LoadNext() {
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, stream_->Next());
    if (b == nullptr) {
      batch_ = nullptr;
      return false;
    }
    if (b->num_rows() == 0) continue;
    if (keys_.empty()) {
      std::vector<ArrayPtr> cols;
      for (int c : key_columns_) cols.push_back(b->column(c));
      FLOE_RETURN_NOT_OK(EncodeRowKeys(cols, options_, &keys_rows_));
    } else {
      FLOE_ASSIGN_OR_RAISE(auto cols, EvaluateKeys(keys_, *b));
      FLOE_RETURN_NOT_OK(EncodeRowKeys(cols, options_, &keys_rows_));
    }
    batch_ = std::move(b);
    row_ = 0;
    return true;
  }
}

Result<bool> MergeCursor::Advance() {
  if (++row_ < batch_->num_rows()) return true;
  return LoadNext();
}

KWayMerger::KWayMerger(std::vector<std::unique_ptr<MergeCursor>> cursors)
    : cursors_(std::move(cursors)) {
  for (size_t i = 0; i < cursors_.size(); ++i) {
    if (!cursors_[i]->done()) heap_.push_back(static_cast<int>(i));
  }
  for (size_t i = heap_.size(); i-- > 0;) SiftDown(i);
}

bool KWayMerger::Less(int a, int b) const {
  int c = CompareKeys(cursors_[a]->key(), cursors_[b]->key());
  return c != 0 ? c < 0 : a < b;
}

void KWayMerger::SiftDown(size_t i) {
  const size_t n = heap_.size();
  while (true) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && Less(heap_[l], heap_[m])) m = l;
    if (r < n && Less(heap_[r], heap_[m])) m = r;
    if (m == i) return;
    std::swap(heap_[i], heap_[m]);
    i = m;
  }
}

Status KWayMerger::Pop() {
  FLOE_ASSIGN_OR_RAISE(bool more, cursors_[heap_[0]]->Advance());
  if (!more) {
    heap_[0] = heap_.back();
    heap_.pop_back();
  }
  if (!heap_.empty()) SiftDown(0);
  return Status::OK();
}

namespace {

class MergeStream final : public BatchStream {
 public:
  MergeStream(SchemaPtr schema, std::vector<std::unique_ptr<MergeCursor>> cursors,
              int64_t batch_size, int64_t limit, std::shared_ptr<void> owned)
      : schema_(std::move(schema)),
        pending_(std::move(cursors)),
        batch_size_(batch_size),
        limit_(limit),
        owned_(std::move(owned)),
        out_(schema_) {}

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (!merger_) {
      for (auto& c : pending_) FLOE_RETURN_NOT_OK(c->Init());
      merger_ = std::make_unique<KWayMerger>(std::move(pending_));
    }
    while (!merger_->done() && out_.num_rows() < batch_size_ &&
           (limit_ < 0 || emitted_ + out_.num_rows() < limit_)) {
      MergeCursor* top = merger_->top();
      out_.Add(top->batch(), top->row());
      FLOE_RETURN_NOT_OK(merger_->Pop());
    }
    if (out_.num_rows() == 0) {
      owned_.reset();
      return RecordBatchPtr();
    }
    emitted_ += out_.num_rows();
    return out_.Finish();
  }

 private:
  SchemaPtr schema_;
  std::vector<std::unique_ptr<MergeCursor>> pending_;
  std::unique_ptr<KWayMerger> merger_;
  int64_t batch_size_;
  int64_t limit_;
  int64_t emitted_ = 0;
  std::shared_ptr<void> owned_;
  RowInterleaver out_;
};

}  // namespace

BatchStreamPtr MakeMergeStream(SchemaPtr schema, std::vector<std::unique_ptr<MergeCursor>> cursors,
                               int64_t batch_size, int64_t limit, std::shared_ptr<void> owned) {
  return std::make_unique<MergeStream>(std::move(schema), std::move(cursors), batch_size, limit,
                                       std::move(owned));
}

}  // namespace floe::exec
