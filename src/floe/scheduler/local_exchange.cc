#include "floe/scheduler/local_exchange.h"

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "floe/exec/spill.h"

namespace floe::scheduler {

namespace {

// The rows one task wrote to one output partition: runs of batches held in memory or
// in a spill file, in the order written.
struct Segment {
  std::vector<RecordBatchPtr> batches;
  std::string spill_path;  // set once the segment was spilled
  int64_t rows = 0;        // in memory or spilled
};

struct PartitionBuffer {
  std::vector<Segment> segments;
};

// What one task (one input partition) of a stage wrote.
struct Writer {
  std::vector<PartitionBuffer> outputs;  // per output partition
  std::unique_ptr<exec::MemoryReservation> reservation;
  bool finished = false;
};

struct StageOutput {
  SchemaPtr schema;
  int output_partitions = 0;
  std::vector<std::unique_ptr<Writer>> writers;  // per input partition
  int finished = 0;
};

// Streams the segments of every writer of one output partition in order.
class ExchangeStream final : public exec::BatchStream {
 public:
  ExchangeStream(SchemaPtr schema, std::vector<Segment> segments)
      : schema_(std::move(schema)), segments_(std::move(segments)) {}

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    while (segment_ < segments_.size()) {
      Segment& segment = segments_[segment_];
      if (!segment.spill_path.empty()) {
        if (!file_) {
          FLOE_ASSIGN_OR_RAISE(file_, exec::OpenSpillFile(segment.spill_path, schema_));
        }
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, file_->Next());
        if (batch) return batch;
        file_.reset();
      } else if (batch_ < segment.batches.size()) {
        return segment.batches[batch_++];
      }
      ++segment_;
      batch_ = 0;
    }
    return RecordBatchPtr();
  }

 private:
  SchemaPtr schema_;
  std::vector<Segment> segments_;
  size_t segment_ = 0;
  size_t batch_ = 0;
  exec::BatchStreamPtr file_;
};

class LocalExchange final : public exec::ExchangeService {
 public:
  LocalExchange(std::shared_ptr<exec::MemoryManager> memory, std::string spill_directory)
      : memory_(std::move(memory)), spill_directory_(std::move(spill_directory)) {}

  ~LocalExchange() override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [id, stage] : stages_) RemoveFiles(*stage);
  }

  Status RegisterStage(int stage, SchemaPtr schema, int input_partitions,
                       int output_partitions) override {
    if (input_partitions < 0 || output_partitions < 1) {
      return Status::Invalid("exchange stage {}: bad partition counts {} -> {}", stage,
                             input_partitions, output_partitions);
    }
    auto output = std::make_unique<StageOutput>();
    output->schema = std::move(schema);
    output->output_partitions = output_partitions;
    for (int i = 0; i < input_partitions; ++i) {
      auto writer = std::make_unique<Writer>();
      writer->outputs.resize(static_cast<size_t>(output_partitions));
      writer->reservation = std::make_unique<exec::MemoryReservation>(
          memory_.get(), "exchange of stage " + std::to_string(stage));
      output->writers.push_back(std::move(writer));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stages_.emplace(stage, std::move(output)).second) {
      return Status::Invalid("exchange stage {} registered twice", stage);
    }
    return Status::OK();
  }

  Status Write(int stage, int input_partition, int output_partition,
               const RecordBatchPtr& batch) override {
    FLOE_ASSIGN_OR_RAISE(Writer * writer, GetWriter(stage, input_partition));
    if (output_partition < 0 || output_partition >= static_cast<int>(writer->outputs.size())) {
      return Status::Internal("exchange stage {}: output partition {} out of range", stage,
                              output_partition);
    }
    if (batch->num_rows() == 0) return Status::OK();
    const int64_t bytes = batch->memory_size();
    if (!Hold(writer, writer->reservation->size() + bytes)) {
      // Past the budget: this writer's buffered batches go to disk, then the new one is
      // kept in memory when it fits alone and written to disk otherwise.
      FLOE_RETURN_NOT_OK(SpillWriter(stage, writer));
      if (!Hold(writer, bytes)) {
        Segment segment;
        segment.batches.push_back(batch);
        segment.rows = batch->num_rows();
        FLOE_RETURN_NOT_OK(SpillSegment(stage, &segment));
        writer->outputs[static_cast<size_t>(output_partition)].segments.push_back(
            std::move(segment));
        return Status::OK();
      }
    }
    std::vector<Segment>& segments =
        writer->outputs[static_cast<size_t>(output_partition)].segments;
    if (segments.empty() || !segments.back().spill_path.empty()) segments.emplace_back();
    segments.back().batches.push_back(batch);
    segments.back().rows += batch->num_rows();
    return Status::OK();
  }

  Status Finish(int stage, int input_partition) override {
    FLOE_ASSIGN_OR_RAISE(Writer * writer, GetWriter(stage, input_partition));
    std::lock_guard<std::mutex> lock(mutex_);
    if (writer->finished) {
      return Status::Internal("exchange stage {}: input partition {} finished twice", stage,
                              input_partition);
    }
    writer->finished = true;
    ++stages_[stage]->finished;
    return Status::OK();
  }

  bool IsComplete(int stage) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = stages_.find(stage);
    return it != stages_.end() &&
           it->second->finished == static_cast<int>(it->second->writers.size());
  }

  Result<exec::BatchStreamPtr> Open(int stage, int output_partition) override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Segment> segments;
    FLOE_ASSIGN_OR_RAISE(const StageOutput* output,
                         ForEachSegment(stage, output_partition, [&](const Segment& segment) {
                           segments.push_back(segment);
                         }));
    return exec::BatchStreamPtr(
        std::make_unique<ExchangeStream>(output->schema, std::move(segments)));
  }

  std::optional<int64_t> RowCount(int stage, int output_partition) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    int64_t rows = 0;
    if (!ForEachSegment(stage, output_partition, [&](const Segment& s) {
           rows += s.rows;
         }).has_value()) {
      return std::nullopt;
    }
    return rows;
  }

  void Remove(int stage) override {
    std::unique_ptr<StageOutput> output;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = stages_.find(stage);
      if (it == stages_.end()) return;
      output = std::move(it->second);
      stages_.erase(it);
    }
    for (const auto& writer : output->writers) held_ -= writer->reservation->size();
    RemoveFiles(*output);
  }

 private:
  // Calls `visit` with every segment of `output_partition` of `stage`, writer by writer,
  // once the stage is complete; the stage's output, or why it cannot be read. mutex_ held.
  template <typename Visit>
  Result<const StageOutput*> ForEachSegment(int stage, int output_partition, Visit&& visit) const {
    auto it = stages_.find(stage);
    if (it == stages_.end()) return Status::Internal("exchange stage {} is unknown", stage);
    const StageOutput& output = *it->second;
    if (output.finished != static_cast<int>(output.writers.size())) {
      return Status::Internal("exchange stage {} is read before it completed", stage);
    }
    if (output_partition < 0 || output_partition >= output.output_partitions) {
      return Status::Internal("exchange stage {}: output partition {} out of range ({})", stage,
                              output_partition, output.output_partitions);
    }
    for (const auto& writer : output.writers) {
      for (const Segment& segment :
           writer->outputs[static_cast<size_t>(output_partition)].segments) {
        visit(segment);
      }
    }
    return &output;
  }

  // The exchange's buffers hold at most this share of a limited budget (kHeldShareDivisor:
  // a half), so that the operators that read them (a sort, an aggregation, a join's build
  // side) find the rest of the budget free rather than spill because batches waiting in
  // the exchange took it all.
  static constexpr int64_t kHeldShareDivisor = 2;

  // Grows (or shrinks) `writer`'s reservation to `bytes`; false, unchanged, when the
  // exchange's share or the budget does not take it.
  bool Hold(Writer* writer, int64_t bytes) {
    exec::MemoryReservation& reservation = *writer->reservation;
    const int64_t delta = bytes - reservation.size();
    const int64_t limit = memory_->limit();
    // Counted before the check, so that writers growing at once cannot pass the share
    // together.
    const int64_t held = held_.fetch_add(delta) + delta;
    if ((delta > 0 && limit > 0 && held > limit / kHeldShareDivisor) ||
        !reservation.TryResize(bytes)) {
      held_ -= delta;
      return false;
    }
    return true;
  }

  Result<Writer*> GetWriter(int stage, int input_partition) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = stages_.find(stage);
    if (it == stages_.end()) return Status::Internal("exchange stage {} is unknown", stage);
    if (input_partition < 0 || input_partition >= static_cast<int>(it->second->writers.size())) {
      return Status::Internal("exchange stage {}: input partition {} out of range", stage,
                              input_partition);
    }
    return it->second->writers[static_cast<size_t>(input_partition)].get();
  }

  Status SpillSegment(int stage, Segment* segment) {
    if (segment->batches.empty()) return Status::OK();
    std::string path = exec::NewSpillPath(spill_directory_, "exchange-" + std::to_string(stage));
    FLOE_ASSIGN_OR_RAISE(auto writer,
                         floe::exec::SpillWriter::Make(path, segment->batches[0]->schema()));
    // Recorded before writing so that a failed write still has its file removed.
    segment->spill_path = path;
    for (const RecordBatchPtr& batch : segment->batches) {
      FLOE_RETURN_NOT_OK(writer->Write(*batch));
    }
    FLOE_RETURN_NOT_OK(writer->Finish());
    segment->batches.clear();
    return Status::OK();
  }

  // Moves every batch `writer` holds in memory to spill files.
  Status SpillWriter(int stage, Writer* writer) {
    for (PartitionBuffer& buffer : writer->outputs) {
      for (Segment& segment : buffer.segments) {
        if (segment.spill_path.empty()) FLOE_RETURN_NOT_OK(SpillSegment(stage, &segment));
      }
    }
    (void)Hold(writer, 0);
    return Status::OK();
  }

  static void RemoveFiles(const StageOutput& output) {
    for (const auto& writer : output.writers) {
      for (const PartitionBuffer& buffer : writer->outputs) {
        for (const Segment& segment : buffer.segments) {
          if (!segment.spill_path.empty()) std::remove(segment.spill_path.c_str());
        }
      }
    }
  }

  std::shared_ptr<exec::MemoryManager> memory_;
  std::string spill_directory_;
  std::atomic<int64_t> held_{0};  // the writers' reservations in all
  mutable std::mutex mutex_;
  std::map<int, std::unique_ptr<StageOutput>> stages_;
};

}  // namespace

std::shared_ptr<exec::ExchangeService> MakeLocalExchange(
    std::shared_ptr<exec::MemoryManager> memory, std::string spill_directory) {
  return std::make_shared<LocalExchange>(std::move(memory), std::move(spill_directory));
}

}  // namespace floe::scheduler
