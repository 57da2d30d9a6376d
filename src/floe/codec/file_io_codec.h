#pragma once

// The codec of a FileIO's configuration (proto::FileIOConfig in iceberg.proto), shared by the
// nodes that read files through one: the Iceberg connector's pinned tables and read_parquet's
// scan. A LocalFileIO travels as its path-map rules and base directory; a ResolvingFileIO
// also as its S3 settings, credentials included (an executor on another host has no other
// way to get them). They travel in the plan bytes only: nothing here prints them.
// Credentials that a provider renews travel as they are when the plan is encoded, with
// their expiry and the id the receiver asks the plan's maker for newer ones with
// (io::ShareCredentials, io::ReceivedCredentials).

#include <memory>
#include <string_view>

#include "floe/codec/iceberg.pb.h"
#include "floe/codec/plan_codec.h"
#include "floe/common/result.h"
#include "floe/io/file_io.h"

namespace floe::codec {

/// Writes the configuration of a LocalFileIO or a ResolvingFileIO. kNotSupported naming
/// `owner` ("table db.t") and the FileIO (redacted) for any other kind; the provider's error
/// when credentials due for renewal cannot be renewed.
Status EncodeFileIO(const std::shared_ptr<const io::FileIO>& io, std::string_view owner,
                    proto::FileIOConfig* out);

/// The FileIO a message describes (a ResolvingFileIO makes its S3 side on first use; renewed
/// credentials get this process's provider of that id, io::ReceivedCredentials). kCorrupt
/// naming the node for an unknown kind, a path-map rule with an empty prefix, S3 settings on
/// a local FileIO, or renewed credentials without an expiry.
Result<std::shared_ptr<const io::FileIO>> DecodeFileIO(const PlanDecoder& in,
                                                       const proto::FileIOConfig& m);

}  // namespace floe::codec
