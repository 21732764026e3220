# sessfs: mount a Claude Code session log as a read-only directory tree.
#
#   make            build ./sessfs
#   make test       install what is missing, build, run every test twice:
#                   plain, and under AddressSanitizer + UBSan
#   make run        the main job on the bundled example
#   make bench      the benchmark (prints figures)
#   make NOFUSE=1 BUILD=build/nofuse
#                   a sessfs without libfuse that only exports
#   make fuzz       the libFuzzer targets (clang), FUZZ_SECONDS long (60);
#                   corpus and findings in build/fuzz/

CC      ?= cc
# NOFUSE=1: a sessfs that only exports (nofuse/main.c), without libfuse.
NOFUSE  ?=
PKGS    := $(if $(filter 1,$(NOFUSE)),,fuse3 )libcjson
STD     := -std=c11 -Wall -Wextra -Werror -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE
OPT     ?= -O2 -g
SAN     ?=
BUILD   ?= build
PREFIX  ?= /usr/local

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA     := $(shell pkg-config --libs cmocka 2>/dev/null)
CFLAGS_ALL  = $(STD) $(OPT) $(SAN) $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(SAN) $(LDFLAGS)

CORE_SRC := $(sort $(wildcard core/*.c))
FS_SRC   := $(if $(filter 1,$(NOFUSE)),nofuse/main.c,$(sort $(wildcard fs/*.c)))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
CORE_OBJ  = $(CORE_SRC:%.c=$(BUILD)/%.o)
FS_OBJ    = $(FS_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN  = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
CORPUS_BIN = $(BUILD)/tests/corpus_check
CONTEXT_BIN = $(BUILD)/tests/context_check
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN  = $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/%)

ASAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer

# The fuzz targets: clang, libFuzzer, ASan + UBSan; coverage build for llvm-cov.
FUZZ_CC   ?= clang
FUZZ_SAN  := $(ASAN_FLAGS) -fsanitize=fuzzer-no-link
COV_SAN   := -fprofile-instr-generate -fcoverage-mapping

.PHONY: all test test-plain test-asan check-build deps run bench asan install clean \
	fuzz fuzz-smoke fuzz-build fuzz-cov-build fuzz-bins

all: sessfs

sessfs: $(BUILD)/sessfs
	ln -sf $(BUILD)/sessfs $@

$(BUILD)/sessfs: $(CORE_OBJ) $(FS_OBJ)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lpthread

$(BUILD)/%.o: %.c $(wildcard core/*.h fs/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(CORE_OBJ) tests/unit/testutil.h tests/unit/render_oracle.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Icore -o $@ $< $(CORE_OBJ) $(PKG_LIBS) $(CMOCKA) $(LDFLAGS_ALL)

$(CORPUS_BIN): tests/corpus/corpus_check.c tests/corpus/corpus_util.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(PKG_LIBS) $(LDFLAGS_ALL)

$(CONTEXT_BIN): tests/corpus/context_check.c tests/corpus/corpus_util.h $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Icore -o $@ $< $(CORE_OBJ) $(PKG_LIBS) $(LDFLAGS_ALL)

# A libFuzzer target: core as built in $(BUILD), the fuzzer's main.
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h $(CORE_OBJ) $(wildcard core/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Icore -fsanitize=fuzzer -o $@ $< $(CORE_OBJ) $(PKG_LIBS) $(LDFLAGS_ALL)

# Everything one test run needs, for one build directory.
check-build: $(BUILD)/sessfs $(UNIT_BIN) $(CORPUS_BIN) $(CONTEXT_BIN)

deps:
	@sh scripts/deps.sh

test: deps
	@$(MAKE) --no-print-directory test-plain
	@$(MAKE) --no-print-directory test-asan
	@sh scripts/summary.sh build/results.txt build/asan/results.txt

test-plain:
	@$(MAKE) --no-print-directory check-build sessfs
	@sh scripts/run-tests.sh build plain

test-asan:
	@$(MAKE) --no-print-directory check-build BUILD=build/asan OPT="-O1 -g" SAN="$(ASAN_FLAGS)"
	@sh scripts/run-tests.sh build/asan asan

asan:
	@$(MAKE) --no-print-directory check-build BUILD=build/asan OPT="-O1 -g" SAN="$(ASAN_FLAGS)"

run: deps sessfs
	@sh scripts/run-demo.sh

bench: deps sessfs
	@bash scripts/bench.sh

fuzz-bins: $(FUZZ_BIN)

fuzz-build:
	@$(MAKE) --no-print-directory fuzz-bins BUILD=build/fuzz/obj CC=$(FUZZ_CC) OPT="-O1 -g" SAN="$(FUZZ_SAN)"

fuzz-cov-build:
	@$(MAKE) --no-print-directory fuzz-bins BUILD=build/fuzz/cov CC=$(FUZZ_CC) OPT="-O1 -g" SAN="$(COV_SAN)"

fuzz: deps
	@sh scripts/fuzz.sh run

fuzz-smoke:
	@sh scripts/fuzz.sh smoke

install: sessfs
	install -D -m 0755 $(BUILD)/sessfs $(DESTDIR)$(PREFIX)/bin/sessfs

clean:
	rm -rf build sessfs
