#include "floe/iceberg/expire_snapshots.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/metadata_update.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/tests/in_memory_table_ops.h"
#include "floe/iceberg/tests/reader_test_util.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::iceberg::testing::InMemoryTableOps;
using ::floe::iceberg::testing::TempDir;
using ::floe::testing::IsErrorWith;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr int64_t kFarFuture = std::numeric_limits<int64_t>::max() / 2;

class ExpireSnapshotsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema = Schema::Make(0, {Field("id", Int64(), false, 1)});
    ASSERT_OK(schema);
    NewTableOptions options;
    options.schema = *schema;
    options.location = dir_.Join("t");
    options.properties = {{"commit.retry.min-wait-ms", "1"}};
    auto ops = InMemoryTableOps::Create(options);
    ASSERT_OK(ops);
    ops_ = *ops;
    std::filesystem::create_directories(dir_.Join("t") + "/data");
  }

  /// A data file that exists on disk.
  DataFilePtr File(const std::string& name) {
    std::string path = Path(name);
    std::ofstream(path) << "x";
    auto f = std::make_shared<DataFile>();
    f->file_path = path;
    f->record_count = 1;
    f->file_size_in_bytes = 1;
    return f;
  }
  std::string Path(const std::string& name) { return dir_.Join("t") + "/data/" + name; }
  static bool Exists(const std::string& path) { return std::filesystem::exists(path); }

  int64_t Append(const std::string& name) {
    auto append = FastAppend::Make(ops_);
    append->AppendFile(File(name));
    EXPECT_OK(append->Commit());
    return append->snapshot_id();
  }
  int64_t Delete(const std::string& name) {
    auto del = DeleteFiles::Make(ops_);
    del->DeleteFile(Path(name));
    EXPECT_OK(del->Commit());
    return del->snapshot_id();
  }

  std::vector<std::string> ManifestsOf(int64_t snapshot_id) {
    auto t = *ops_->Refresh();
    auto list = ReadManifestList(*t.io, t.metadata->SnapshotById(snapshot_id)->manifest_list);
    EXPECT_OK(list);
    std::vector<std::string> out;
    for (const auto& m : *list) out.push_back(m.manifest_path);
    return out;
  }
  std::string ListOf(int64_t snapshot_id) {
    return ops_->current()->SnapshotById(snapshot_id)->manifest_list;
  }

  TempDir dir_;
  std::shared_ptr<InMemoryTableOps> ops_;
};

TEST_F(ExpireSnapshotsTest, DeletesExactlyTheUnreachableFiles) {
  int64_t s1 = Append("a");
  int64_t s2 = Append("b");
  std::vector<std::string> m1 = ManifestsOf(s1);
  std::string l1 = ListOf(s1);
  std::string l2 = ListOf(s2);
  int64_t s3 = Delete("a");
  std::vector<std::string> m3 = ManifestsOf(s3);

  auto expire = ExpireSnapshots::Make(ops_);
  expire->ExpireOlderThan(kFarFuture).RetainLast(1);
  ASSERT_OK_AND_ASSIGN(ExpireSnapshotsResult r, expire->Commit());
  EXPECT_OK(r.cleanup_status);
  std::vector<int64_t> expired = {s1, s2};
  std::sort(expired.begin(), expired.end());
  EXPECT_EQ(r.expired_snapshot_ids, expired);
  ASSERT_EQ(r.table.metadata->snapshots.size(), 1u);
  EXPECT_EQ(r.table.metadata->snapshots[0].snapshot_id, s3);
  EXPECT_THAT(r.deleted_files, ElementsAre(Path("a")));
  EXPECT_EQ(r.deleted_manifests, m1);  // s3 rewrote a's manifest; b's is still listed
  std::vector<std::string> lists = {l1, l2};
  std::sort(lists.begin(), lists.end());
  EXPECT_EQ(r.deleted_manifest_lists, lists);
  EXPECT_FALSE(Exists(Path("a")));
  EXPECT_TRUE(Exists(Path("b")));
  EXPECT_FALSE(Exists(m1[0]));
  EXPECT_FALSE(Exists(l1));
  EXPECT_FALSE(Exists(l2));
  for (const auto& m : m3) EXPECT_TRUE(Exists(m));
  EXPECT_TRUE(Exists(ListOf(s3)));
}

TEST_F(ExpireSnapshotsTest, DefaultsKeepRecentSnapshots) {
  Append("a");
  Append("b");
  auto expire = ExpireSnapshots::Make(ops_);
  ASSERT_OK_AND_ASSIGN(ExpireSnapshotsResult r, expire->Commit());
  EXPECT_THAT(r.expired_snapshot_ids, IsEmpty());
  EXPECT_EQ(ops_->successful_commits(), 2);  // nothing to commit
}

TEST_F(ExpireSnapshotsTest, TagsAndBranchRetentionKeepSnapshots) {
  int64_t s1 = Append("a");
  int64_t s2 = Append("b");
  int64_t s3 = Delete("a");
  int64_t s4 = Append("c");
  std::string l2 = ListOf(s2);
  auto manage = ManageSnapshots::Make(ops_);
  manage->CreateTag("v1", s1).SetMinSnapshotsToKeep("main", 2);
  ASSERT_OK(manage->Commit());

  auto expire = ExpireSnapshots::Make(ops_);
  expire->ExpireOlderThan(kFarFuture);
  ASSERT_OK_AND_ASSIGN(ExpireSnapshotsResult r, expire->Commit());
  EXPECT_EQ(r.expired_snapshot_ids, std::vector<int64_t>{s2});
  (void)s3;
  (void)s4;
  // a is still live in the tagged snapshot s1.
  EXPECT_THAT(r.deleted_files, IsEmpty());
  EXPECT_TRUE(Exists(Path("a")));
  EXPECT_THAT(r.deleted_manifest_lists, ElementsAre(l2));
  EXPECT_THAT(r.deleted_manifests, IsEmpty());  // every manifest of s2 is listed by s1 or s3
  EXPECT_FALSE(Exists(l2));
}

TEST_F(ExpireSnapshotsTest, ExpiredTagIsRemovedAndItsFilesCleaned) {
  int64_t s1 = Append("a");
  Delete("a");
  auto manage = ManageSnapshots::Make(ops_);
  manage->CreateTag("old", s1).SetMaxRefAgeMs("old", 1);
  ASSERT_OK(manage->Commit());
  auto expire = ExpireSnapshots::Make(ops_);
  expire->ExpireOlderThan(kFarFuture).SetNowMs(kFarFuture);
  ASSERT_OK_AND_ASSIGN(ExpireSnapshotsResult r, expire->Commit());
  EXPECT_EQ(r.removed_refs, std::vector<std::string>{"old"});
  EXPECT_EQ(r.expired_snapshot_ids, std::vector<int64_t>{s1});
  EXPECT_EQ(r.table.metadata->refs.count("old"), 0u);
  EXPECT_THAT(r.deleted_files, ElementsAre(Path("a")));
}

TEST_F(ExpireSnapshotsTest, ExplicitIdsAndNoCleanup) {
  int64_t s1 = Append("a");
  int64_t s2 = Delete("a");
  Append("b");
  auto tagged = ManageSnapshots::Make(ops_);
  tagged->CreateTag("t", s2);
  ASSERT_OK(tagged->Commit());
  auto refused = ExpireSnapshots::Make(ops_);
  refused->ExpireSnapshotId(s2);
  EXPECT_THAT(refused->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "ref 't'"));

  std::string l1 = ListOf(s1);
  auto expire = ExpireSnapshots::Make(ops_);
  expire->ExpireSnapshotId(s1).CleanExpiredFiles(false);
  ASSERT_OK_AND_ASSIGN(ExpireSnapshotsResult r, expire->Commit());
  EXPECT_EQ(r.expired_snapshot_ids, std::vector<int64_t>{s1});
  EXPECT_EQ(r.table.metadata->snapshots.size(), 2u);
  EXPECT_THAT(r.deleted_files, IsEmpty());
  EXPECT_TRUE(Exists(l1));
  EXPECT_TRUE(Exists(Path("a")));
}

TEST_F(ExpireSnapshotsTest, TablePropertiesSetTheDefaults) {
  int64_t s1 = Append("a");
  int64_t s2 = Append("b");
  int64_t s3 = Append("c");
  auto props = UpdateProperties::Make(ops_);
  props->Set("history.expire.max-snapshot-age-ms", "0")
      .Set("history.expire.min-snapshots-to-keep", "2");
  ASSERT_OK(props->Commit());
  auto expire = ExpireSnapshots::Make(ops_);
  expire->SetNowMs(kFarFuture);
  ASSERT_OK_AND_ASSIGN(ExpireSnapshotsResult r, expire->Commit());
  EXPECT_EQ(r.expired_snapshot_ids, std::vector<int64_t>{s1});
  ASSERT_EQ(r.table.metadata->snapshots.size(), 2u);
  EXPECT_NE(r.table.metadata->SnapshotById(s2), nullptr);
  EXPECT_NE(r.table.metadata->SnapshotById(s3), nullptr);
  // a is still live in s2 and s3: only s1's list goes.
  EXPECT_THAT(r.deleted_files, IsEmpty());
  EXPECT_THAT(r.deleted_manifests, IsEmpty());
  EXPECT_EQ(r.deleted_manifest_lists.size(), 1u);

  auto bad = UpdateProperties::Make(ops_);
  bad->Set("history.expire.min-snapshots-to-keep", "many");
  ASSERT_OK(bad->Commit());
  EXPECT_THAT(ExpireSnapshots::Make(ops_)->Commit(),
              IsErrorWith(StatusCode::kInvalidArgument, "history.expire.min-snapshots-to-keep"));
}

}  // namespace
}  // namespace floe::iceberg
