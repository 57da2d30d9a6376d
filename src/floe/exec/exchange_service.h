#pragma once

// Where stage outputs live between stages (DESIGN.md section 3). A ShuffleWriterExec task
// (one input partition of a stage) writes its rows, already routed to the stage's output
// partitions, and then finishes; once every task of the stage has finished, readers
// (ShuffleReaderExec of the consuming stages) stream each output partition. The
// interface is transport-neutral: the in-process implementation keeps batches in
// memory within the query's budget and spills past it (scheduler/local_exchange.h); a
// distributed transport (dist/) moves the same batches between processes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::exec {

class ExchangeService {
 public:
  virtual ~ExchangeService() = default;

  /// Declares stage `stage`'s output before any task writes: the schema of its rows and
  /// how many input and output partitions it has. kInvalidArgument when declared twice.
  virtual Status RegisterStage(int stage, SchemaPtr schema, int input_partitions,
                               int output_partitions) = 0;
  /// Appends `batch` to output partition `output_partition` of `stage`, written by the
  /// task of input partition `input_partition`. One task writes each input partition
  /// (calls for one input partition are never concurrent).
  virtual Status Write(int stage, int input_partition, int output_partition,
                       const RecordBatchPtr& batch) = 0;
  /// Marks `input_partition` of `stage` as complete.
  virtual Status Finish(int stage, int input_partition) = 0;
  /// True once every input partition of `stage` has finished.
  virtual bool IsComplete(int stage) const = 0;
  /// Streams output partition `output_partition` of a complete stage: the batches of
  /// input partition 0 in the order written, then those of input partition 1, and so
  /// on. Several readers may open the same partition (a broadcast). kInternal when the
  /// stage is unknown or not complete.
  virtual Result<BatchStreamPtr> Open(int stage, int output_partition) = 0;
  /// The rows Open(stage, output_partition) streams, when this exchange knows them before
  /// it is read (the stage is complete and its batches counted); nullopt otherwise (the
  /// default). A hint for sizing what reads them: never a reason to read fewer rows.
  virtual std::optional<int64_t> RowCount(int stage, int output_partition) const {
    return std::nullopt;
  }
  /// Drops a stage's output (memory and files) once no reader needs it.
  virtual void Remove(int stage) = 0;
  /// Called by task threads between batches (every operator's Next): an exchange between
  /// processes looks for its peers' messages here, while the thread runs anyway, so that
  /// its serving thread need not wake up often to look. Cheap; the default does nothing.
  virtual void Progress() {}
};

}  // namespace floe::exec
