# Every dependency of floe comes from a Debian 12 package (DESIGN.md section 7).
# Nothing is downloaded at build time; scripts/install-deps installs the packages.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

# Each shared library costs the dynamic loader time at every process start (a floe process
# runs one query). With FLOE_STATIC_DEPS the libraries that Debian also ships as static
# archives are linked from them; a dependency without a .a stays shared.
option(FLOE_STATIC_DEPS "Link dependencies from their static archives where they exist" ON)

# The static archive of library `name` (as in -l<name>) in `dirs` or the default library
# path, or `name` itself (the shared library) when there is none or FLOE_STATIC_DEPS is off.
function(floe_prefer_static out name dirs)
  set(result ${name})
  # The C library's parts stay shared (a static libm does not link into a PIE).
  if(FLOE_STATIC_DEPS AND NOT name MATCHES "^(c|m|dl|pthread|rt)$")
    string(MAKE_C_IDENTIFIER "FLOE_STATIC_LIB_${name}" var)
    find_library(${var} NAMES lib${name}.a HINTS ${dirs} NO_CACHE)
    if(${var})
      set(result ${${var}})
    endif()
  endif()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

# Relinks the imported target PkgConfig::<prefix> (from pkg_check_modules) against the static
# archives of the libraries `pkg-config --static` lists, each falling back to its shared
# library.
function(floe_static_pkg prefix)
  if(NOT FLOE_STATIC_DEPS)
    return()
  endif()
  set(libs)
  foreach(name IN LISTS ${prefix}_STATIC_LIBRARIES)
    floe_prefer_static(lib ${name} "${${prefix}_STATIC_LIBRARY_DIRS}")
    list(APPEND libs ${lib})
  endforeach()
  list(APPEND libs ${${prefix}_STATIC_LDFLAGS_OTHER})
  list(REMOVE_DUPLICATES libs)
  set_property(TARGET PkgConfig::${prefix} PROPERTY INTERFACE_LINK_LIBRARIES ${libs})
  set_property(TARGET PkgConfig::${prefix} PROPERTY INTERFACE_LINK_OPTIONS "")
endfunction()

find_package(tl-expected REQUIRED)   # libexpected-dev
find_package(fmt REQUIRED)           # libfmt-dev
find_package(nlohmann_json REQUIRED) # nlohmann-json3-dev
find_package(CLI11 REQUIRED)         # libcli11-dev
find_package(ZLIB REQUIRED)          # zlib1g-dev
floe_prefer_static(FLOE_ZLIB_LIBRARY z "")
if(NOT FLOE_ZLIB_LIBRARY STREQUAL "z")
  set_property(TARGET ZLIB::ZLIB PROPERTY IMPORTED_LOCATION ${FLOE_ZLIB_LIBRARY})
endif()

pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)          # libzstd-dev
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)            # liblz4-dev
pkg_check_modules(BROTLIDEC REQUIRED IMPORTED_TARGET libbrotlidec) # libbrotli-dev
pkg_check_modules(BROTLIENC REQUIRED IMPORTED_TARGET libbrotlienc)
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)     # libsqlite3-dev
pkg_check_modules(YAMLCPP REQUIRED IMPORTED_TARGET yaml-cpp)    # libyaml-cpp-dev (catalog configuration files)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)             # libre2-dev (regular expressions)
pkg_check_modules(LIBDEFLATE REQUIRED IMPORTED_TARGET libdeflate) # libdeflate-dev (Avro's deflate blocks)
foreach(prefix ZSTD LZ4 BROTLIDEC BROTLIENC SQLITE3 YAMLCPP RE2 LIBDEFLATE)
  floe_static_pkg(${prefix})
endforeach()

# Object storage: libcurl (the HTTP transport) and OpenSSL's libcrypto (HMAC-SHA256 and
# SHA-256 for AWS Signature Version 4); the SQL catalog on PostgreSQL: libpq. Linked shared:
# their static archives need the whole TLS, GSSAPI and LDAP stacks besides.
pkg_check_modules(CURL REQUIRED IMPORTED_TARGET libcurl)        # libcurl4-openssl-dev
pkg_check_modules(LIBCRYPTO REQUIRED IMPORTED_TARGET libcrypto) # libssl-dev
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)         # libpq-dev
# floe's own HTTP servers (the REST catalog server): cpp-httplib, built by Debian as a shared
# library with OpenSSL for HTTPS.
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib) # libcpp-httplib-dev

# libsnappy-dev ships neither a pkg-config file nor a CMake package on Debian 12.
find_path(SNAPPY_INCLUDE_DIR snappy.h REQUIRED)
find_library(SNAPPY_LIBRARY snappy REQUIRED)
floe_prefer_static(FLOE_SNAPPY_STATIC snappy "")
if(NOT FLOE_SNAPPY_STATIC STREQUAL "snappy")
  set(SNAPPY_LIBRARY ${FLOE_SNAPPY_STATIC})
endif()
add_library(floe_dep_snappy INTERFACE)
target_include_directories(floe_dep_snappy INTERFACE ${SNAPPY_INCLUDE_DIR})
target_link_libraries(floe_dep_snappy INTERFACE ${SNAPPY_LIBRARY})

# The plan codec's wire format (libprotobuf-dev, protobuf-compiler): messages compiled
# from src/floe/codec/*.proto at build time.
find_package(Protobuf REQUIRED)
floe_prefer_static(FLOE_PROTOBUF_STATIC protobuf "")
if(NOT FLOE_PROTOBUF_STATIC STREQUAL "protobuf")
  set_target_properties(protobuf::libprotobuf PROPERTIES
    IMPORTED_LOCATION ${FLOE_PROTOBUF_STATIC}
    IMPORTED_LOCATION_RELEASE ${FLOE_PROTOBUF_STATIC}
    IMPORTED_LOCATION_NOCONFIG ${FLOE_PROTOBUF_STATIC})
endif()

# Distributed execution (libopenmpi-dev, openmpi-bin); only src/floe/dist includes mpi.h.
find_package(MPI REQUIRED COMPONENTS C)

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
floe_static_pkg(LIBEDIT)
