#include "floe/codec/file_io_codec.h"

#include <optional>
#include <utility>

#include "floe/io/resolving_file_io.h"
#include "fmt/format.h"

namespace floe::codec {

namespace {

void EncodeLocal(const io::LocalFileIOOptions& local, proto::FileIOConfig* out) {
  for (const io::PathMapRule& rule : local.path_map) {
    proto::FileIOConfig::PathMapRule* r = out->add_path_map();
    r->set_from(rule.from);
    r->set_to(rule.to);
  }
  out->set_base_dir(local.base_dir);
}

}  // namespace

Status EncodeFileIO(const std::shared_ptr<const io::FileIO>& io, std::string_view owner,
                    proto::FileIOConfig* out) {
  if (const auto* local = dynamic_cast<const io::LocalFileIO*>(io.get())) {
    out->set_kind("local");
    EncodeLocal(local->options(), out);
    return Status::OK();
  }
  if (const auto* resolving = dynamic_cast<const io::ResolvingFileIO*>(io.get())) {
    out->set_kind("resolving");
    EncodeLocal(resolving->local().options(), out);
    if (const auto& s3 = resolving->s3_options()) {
      proto::FileIOConfig::S3* m = out->mutable_s3();
      m->set_endpoint(s3->client.endpoint);
      m->set_region(s3->client.region);
      m->set_path_style(s3->client.path_style);
      io::ExpiringCredentials credentials{s3->client.credentials, s3->client.credentials_expire_at};
      if (const std::shared_ptr<io::CredentialsProvider>& provider =
              s3->client.credentials_provider) {
        // The credentials as they are now (renewed first when due), so that a receiver
        // starts with the longest-lasting ones, and the id it asks for newer ones with.
        FLOE_ASSIGN_OR_RAISE(credentials, provider->Current());
        if (provider->refreshes()) {
          m->set_credentials_id(io::ShareCredentials(provider));
          m->set_credentials_of(provider->what());
        }
      }
      m->set_access_key_id(credentials.credentials.access_key_id);
      m->set_secret_access_key(credentials.credentials.secret_access_key);
      m->set_session_token(credentials.credentials.session_token);
      if (credentials.expires_at) m->set_expires_at_ms(io::ToEpochMillis(*credentials.expires_at));
      m->set_part_size(s3->part_size);
    }
    return Status::OK();
  }
  return Status::NotSupported("{}: its FileIO {} has no codec", owner,
                              io ? io->ToString() : std::string("(none)"));
}

Result<std::shared_ptr<const io::FileIO>> DecodeFileIO(const PlanDecoder& in,
                                                       const proto::FileIOConfig& m) {
  if (m.kind() != "local" && m.kind() != "resolving") {
    return in.Corrupt(fmt::format("unknown FileIO kind \"{}\"", m.kind()));
  }
  io::LocalFileIOOptions options;
  for (const proto::FileIOConfig::PathMapRule& rule : m.path_map()) {
    if (rule.from().empty()) return in.Corrupt("a path-map rule with an empty prefix");
    options.path_map.push_back(io::PathMapRule{rule.from(), rule.to()});
  }
  options.base_dir = m.base_dir();
  if (m.kind() == "local") {
    if (m.has_s3()) return in.Corrupt("a local FileIO with S3 settings");
    return std::shared_ptr<const io::FileIO>(std::make_shared<io::LocalFileIO>(std::move(options)));
  }
  std::optional<io::S3FileIOOptions> s3;
  if (m.has_s3()) {
    s3.emplace();
    s3->client.endpoint = m.s3().endpoint();
    s3->client.region = m.s3().region();
    s3->client.path_style = m.s3().path_style();
    s3->client.credentials = {m.s3().access_key_id(), m.s3().secret_access_key(),
                              m.s3().session_token()};
    if (m.s3().expires_at_ms() < 0) return in.Corrupt("S3 credentials that expire before 1970");
    if (m.s3().expires_at_ms() > 0) {
      s3->client.credentials_expire_at = io::FromEpochMillis(m.s3().expires_at_ms());
    }
    if (m.s3().credentials_id() != 0) {
      if (!s3->client.credentials_expire_at) {
        return in.Corrupt("renewed S3 credentials without an expiry");
      }
      s3->client.credentials_provider =
          io::ReceivedCredentials(m.s3().credentials_id(), m.s3().credentials_of(),
                                  {s3->client.credentials, s3->client.credentials_expire_at});
    }
    if (m.s3().part_size() > 0) s3->part_size = m.s3().part_size();
  }
  return std::shared_ptr<const io::FileIO>(
      std::make_shared<io::ResolvingFileIO>(std::move(options), std::move(s3)));
}

}  // namespace floe::codec
