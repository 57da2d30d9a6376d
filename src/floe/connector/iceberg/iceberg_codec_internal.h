#pragma once

// The codec of what the Iceberg connector's node codecs share (exec/plan_codec.h; messages in
// codec/iceberg.proto): a table pinned to its metadata file, and a write target. A pinned
// table travels as its metadata file's location (immutable: the decoder reads exactly that
// file, as the catalogs do, and checks the table's uuid and last-updated time) and the FileIO
// configuration its data files resolve through. Private to the connector's node files.

#include <string_view>

#include "floe/codec/iceberg.pb.h"
#include "floe/codec/plan_codec.h"
#include "floe/common/result.h"
#include "floe/connector/iceberg/iceberg_write_target.h"
#include "floe/iceberg/table.h"

namespace floe::connector::internal {

/// Writes the table's metadata location, uuid, last-updated time and FileIO. kNotSupported
/// naming `name` when the table is not pinned to a metadata file or its FileIO has no codec.
Status EncodeTableRef(const iceberg::Table& table, std::string_view name,
                      codec::proto::IcebergTableRef* out);

/// Reads the pinned metadata file (once per process while some plan holds it) and checks that
/// it is the one the message names. kCorrupt naming the node for a message that does not
/// decode or a file that is not the pinned one; kIOError when the file cannot be read.
Result<iceberg::Table> DecodeTableRef(const codec::PlanDecoder& in,
                                      const codec::proto::IcebergTableRef& m,
                                      std::string_view name);

/// Writes a write target: its pinned table, the schema, spec, sort order and properties as
/// planned, the operation id, mode and fanout. Remembers the target, so that decoding in
/// this process finds it again.
Status EncodeTargetOf(const IcebergWriteTargetPtr& target, codec::proto::IcebergWriteTarget* out);

/// The target a message names. In the process that planned it: that very target (its catalog
/// connection and write journal). Elsewhere: one rebuilt from the pinned table (checked
/// against the message), whose commit is refused; kNotSupported when `need_catalog` (a
/// commit) and the target was not planned here. kCorrupt for a message that does not match.
Result<IcebergWriteTargetPtr> DecodeTarget(const codec::PlanDecoder& in,
                                           const codec::proto::IcebergWriteTarget& m,
                                           bool need_catalog);

}  // namespace floe::connector::internal
