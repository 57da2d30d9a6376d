#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/connector/text/text_batch_builder.h"
#include "floe/connector/text/text_reader.h"
#include "floe/exec/execution_plan.h"
#include "floe/io/file_io.h"

namespace floe::exec {
class PlanCodecRegistry;
}  // namespace floe::exec

namespace floe::connector {

/// How a text scan reads its files: the records' layout and what a bad row does.
struct TextScanOptions {
  TextRecordOptions records;
  TextErrorPolicy errors;
  /// What the scan reads for, in EXPLAIN and notices: "read_csv", "read_json", "COPY".
  std::string source = "read_csv";
};

/// Reads CSV or JSON files: output partition i reads the byte ranges of groups[i] in order
/// (a range starts at a record start, found at planning). Produces the `projection` columns
/// of `file_schema` (CSV fields by position, JSON keys by name), converting only those; stops
/// after `limit` rows per partition. Files on S3 are read through `io` (nullptr when every
/// file is local), which the codec carries. A file whose size is not the planned one fails
/// the scan. Rows left out for errors are counted in EXPLAIN ANALYZE (`rejected=`) and told
/// on standard error as a NOTICE, once per partition.
class TextScanExec final : public exec::ExecutionPlan {
 public:
  static constexpr std::string_view kName = "TextScanExec";
  /// kInternal for a projection index out of range; kNotSupported for a column type text
  /// cannot be read as. No groups means one empty partition.
  static Result<exec::PlanPtr> Make(SchemaPtr file_schema,
                                    std::vector<std::vector<TextFileRange>> groups,
                                    std::vector<int> projection, TextScanOptions options,
                                    std::optional<int64_t> limit,
                                    std::shared_ptr<const io::FileIO> io = nullptr);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<exec::PlanPtr> Decode(codec::PlanDecoder& in, std::vector<exec::PlanPtr> children);
  const exec::PlanProperties& properties() const override { return properties_; }
  std::vector<exec::PlanPtr> children() const override { return {}; }
  Result<exec::PlanPtr> WithNewChildren(std::vector<exec::PlanPtr> children) const override;
  Result<exec::BatchStreamPtr> Execute(int partition,
                                       const exec::TaskContextPtr& ctx) const override;
  std::string ToString() const override;

  const SchemaPtr& file_schema() const { return file_schema_; }
  const std::vector<std::vector<TextFileRange>>& groups() const { return groups_; }
  const std::vector<int>& projection() const { return projection_; }
  const TextScanOptions& options() const { return options_; }
  const std::optional<int64_t>& limit() const { return limit_; }
  const std::shared_ptr<const io::FileIO>& io() const { return io_; }

 private:
  TextScanExec() = default;

  SchemaPtr file_schema_;
  std::vector<std::vector<TextFileRange>> groups_;
  std::vector<int> projection_;
  TextScanOptions options_;
  std::optional<int64_t> limit_;
  std::shared_ptr<const io::FileIO> io_;
  exec::PlanProperties properties_;
};

/// Opens a CSV or JSON file for reading: an S3 location through `io` (without one, through a
/// LocalFileIO, which refuses it), any other path as a local file. Errors name the path.
Result<std::shared_ptr<io::RandomAccessFile>> OpenTextFile(const std::string& path,
                                                           const io::FileIO* io);

/// Registers the codec of TextScanExec.
void RegisterTextPlanCodecs(exec::PlanCodecRegistry* registry);

}  // namespace floe::connector
