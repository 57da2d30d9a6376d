# Every dependency of floe comes from a Debian 12 package (DESIGN.md section 7).
# Nothing is downloaded at build time; scripts/install-deps installs the packages.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

find_package(tl-expected REQUIRED)   # libexpected-dev
find_package(fmt REQUIRED)           # libfmt-dev
find_package(nlohmann_json REQUIRED) # nlohmann-json3-dev
find_package(CLI11 REQUIRED)         # libcli11-dev
find_package(ZLIB REQUIRED)          # zlib1g-dev

pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)          # libzstd-dev
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)            # liblz4-dev
pkg_check_modules(BROTLIDEC REQUIRED IMPORTED_TARGET libbrotlidec) # libbrotli-dev
pkg_check_modules(BROTLIENC REQUIRED IMPORTED_TARGET libbrotlienc)
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)     # libsqlite3-dev
pkg_check_modules(YAMLCPP REQUIRED IMPORTED_TARGET yaml-cpp)    # libyaml-cpp-dev (catalog configuration files)

# libsnappy-dev ships neither a pkg-config file nor a CMake package on Debian 12.
find_path(SNAPPY_INCLUDE_DIR snappy.h REQUIRED)
find_library(SNAPPY_LIBRARY snappy REQUIRED)
add_library(floe_dep_snappy INTERFACE)
target_include_directories(floe_dep_snappy INTERFACE ${SNAPPY_INCLUDE_DIR})
target_link_libraries(floe_dep_snappy INTERFACE ${SNAPPY_LIBRARY})

if(FLOE_BUILD_TESTS)
  find_package(GTest REQUIRED)       # libgtest-dev, libgmock-dev
endif()
if(FLOE_BUILD_BENCH)
  find_package(benchmark REQUIRED)   # libbenchmark-dev
endif()

# libpg-query-dev ships a static library and a header only.
find_path(PG_QUERY_INCLUDE_DIR pg_query.h REQUIRED)
find_library(PG_QUERY_LIBRARY NAMES libpg_query.a pg_query REQUIRED)
add_library(PgQuery::PgQuery INTERFACE IMPORTED)
target_include_directories(PgQuery::PgQuery INTERFACE ${PG_QUERY_INCLUDE_DIR})
target_link_libraries(PgQuery::PgQuery INTERFACE ${PG_QUERY_LIBRARY} Threads::Threads)

# libedit-dev: line editing and history for floe shell.
pkg_check_modules(LIBEDIT REQUIRED IMPORTED_TARGET libedit)
