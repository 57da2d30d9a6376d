# floe's front door. `make test` and `make demo` install what is missing, configure,
# build (Release with debug info) and run.

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
FUZZ_LONG_SECONDS ?= 1800

.PHONY: all deps configure build test unit-test fuzz-smoke fuzz demo bench bench-iceberg bench-iceberg-write bench-queries format clean

all: build

deps:
	@scripts/install-deps

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Every suite (unit, SQL, codec, MPI, interop, CLI, fuzz-corpus replays) through ctest.
# Finding new fuzz inputs is `make fuzz` (sanitized libFuzzer builds), outside the suite.
test: build
	ctest --test-dir $(BUILD_DIR) -j $(JOBS) --output-on-failure --timeout 900

unit-test: build
	ctest --test-dir $(BUILD_DIR) -j $(JOBS) --output-on-failure -L unit

# A short libFuzzer run of every target (builds build-fuzz/ with clang and sanitizers first).
fuzz-smoke:
	fuzz/run.sh $(FUZZ_SECONDS)

fuzz: deps
	fuzz/run.sh $(FUZZ_LONG_SECONDS)

# The Parquet demo, then the same INSERT and SELECT in one process and under mpirun -np 2.
# Builds the floe binary alone, not the tests.
demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target floe
	$(BUILD_DIR)/src/floe/cli/floe demo
	scripts/demo-distributed $(BUILD_DIR)/src/floe/cli/floe

bench: build
	bench/parquet_scan.sh

bench-iceberg: build
	bench/iceberg_plan.sh
	cmake --build $(BUILD_DIR) -j $(JOBS) --target floe_avro_decode_bench floe_iceberg_plan_bench
	$(BUILD_DIR)/bench/floe_avro_decode_bench
	$(BUILD_DIR)/bench/floe_iceberg_plan_bench

bench-iceberg-write: build
	bench/iceberg_append.sh

# The 22 TPC-H queries (scale factor 1) in floe and DuckDB on the same Parquet files.
bench-queries: build
	bench/queries.sh

# Debian installs clang-format as clang-format-14 (with clang-14).
CLANG_FORMAT ?= $(shell command -v clang-format || command -v clang-format-14)

format:
	git ls-files '*.h' '*.cc' | xargs $(CLANG_FORMAT) -i

clean:
	rm -rf $(BUILD_DIR)
