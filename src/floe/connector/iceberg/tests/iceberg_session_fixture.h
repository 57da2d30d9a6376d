#pragma once

// The fixture the Iceberg connector's session-driven tests share: a scratch directory with
// a SQLite catalog in it, a thread pool, a session over the catalog, and schema `db`.

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "floe/catalog/catalog.h"
#include "floe/common/thread_pool.h"
#include "floe/iceberg/table.h"
#include "floe/session/session.h"
#include "floe/session/tests/query_rows.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scratch_dir.h"

namespace floe::connector {

class IcebergSessionTest : public ::floe::testing::ScratchDirTest {
 protected:
  using ScratchDirTest::ScratchDirTest;

  void SetUp() override {
    ScratchDirTest::SetUp();
    catalog_ = catalog::OpenCatalog("sqlite://" + dir_ + "/catalog.db", dir_).ValueOrDie();
    threads_ = ThreadPool::Make(2).ValueOrDie();
    session::SessionOptions options;
    options.catalog = catalog_;
    options.warehouse = dir_;
    options.threads = 2;
    session_ = session::Session::Make(options).ValueOrDie();
    ASSERT_OK(Run("CREATE SCHEMA db").status());
  }

  void TearDown() override {
    session_.reset();
    catalog_.reset();
    threads_.reset();
    ScratchDirTest::TearDown();
  }

  /// The statement's rows as "v1|v2|..." (session::Rows), in the order they came.
  Result<std::vector<std::string>> Run(const std::string& sql) {
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<session::QueryResult> result, session_->Execute(sql));
    return session::Rows(*result);
  }

  iceberg::Table Load(const std::string& name) {
    return catalog_->LoadTable(catalog::TableIdentifier::Parse(name).ValueOrDie()).ValueOrDie();
  }

  catalog::CatalogPtr catalog_;
  std::unique_ptr<ThreadPool> threads_;
  std::unique_ptr<session::Session> session_;
};

}  // namespace floe::connector
