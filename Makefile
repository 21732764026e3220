# sessfs: mount a Claude Code session log as a read-only directory tree.
#
#   make            build ./sessfs
#   make test       install what is missing, build (-j), run every test
#                   twice, plain and under AddressSanitizer + UBSan, the
#                   runners side by side (scripts/run-tests.sh)
#   make test-full  the exhaustive mount checks (every file of every log)
#   V=1             show the compiler lines
#   make run        the main job on the bundled example, mounted in a new
#                   folder under /tmp (or MNT=DIR)
#   make bench      the benchmark (prints figures)
#   make install    sessfs and sessfs.1 under $(DESTDIR)$(PREFIX) (/usr/local);
#   make uninstall  removes them
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
NPROC   := $(shell nproc 2>/dev/null || echo 2)

# Quiet unless V=1: errors and warnings still show.
ifeq ($(V),1)
Q :=
SILENT :=
else
Q := @
SILENT := -s
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA     := $(shell pkg-config --libs cmocka 2>/dev/null)
CFLAGS_ALL  = $(STD) $(OPT) $(SAN) $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(SAN) $(LDFLAGS)

CORE_SRC := $(sort $(wildcard core/*.c))
FS_SRC   := $(if $(filter 1,$(NOFUSE)),nofuse/main.c,$(sort $(wildcard fs/*.c)))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
# The price table (data/prices.txt), made into C and built in (price.h).
PRICES_C  = $(BUILD)/gen/prices_data.c
CORE_OBJ  = $(CORE_SRC:%.c=$(BUILD)/%.o) $(PRICES_C:.c=.o)
FS_OBJ    = $(FS_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN  = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
CORPUS_BIN = $(BUILD)/tests/corpus_check
CONTEXT_BIN = $(BUILD)/tests/context_check
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN  = $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/%)
SIZES_BIN = $(BUILD)/tests/sizes

ASAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_VARS   = BUILD=build/asan OPT="-O1 -g" SAN="$(ASAN_FLAGS)"
SUBMAKE     = $(MAKE) --no-print-directory

# The fuzz targets: clang, libFuzzer, ASan + UBSan; coverage build for llvm-cov.
FUZZ_CC   ?= clang
FUZZ_SAN  := $(ASAN_FLAGS) -fsanitize=fuzzer-no-link
COV_SAN   := -fprofile-instr-generate -fcoverage-mapping

.PHONY: all test test-full test-plain test-asan test-bins bins-plain bins-asan bins-fuzz \
	check-build deps run bench asan install uninstall clean \
	fuzz fuzz-smoke fuzz-build fuzz-cov-build fuzz-bins

all: sessfs

sessfs: $(BUILD)/sessfs
	$(Q)ln -sf $(BUILD)/sessfs $@

$(BUILD)/sessfs: $(CORE_OBJ) $(FS_OBJ)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS) -lpthread

$(BUILD)/%.o: %.c $(wildcard core/*.h fs/*.h)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

# Each line a string literal: backslashes, quotes, tabs and '?' (no
# trigraphs) escaped.
$(PRICES_C): data/prices.txt
	@mkdir -p $(dir $@)
	$(Q){ printf '#include <stddef.h>\n/* Made from data/prices.txt by the Makefile. */\nconst char pr_builtin_text[] =\n'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/	/\\t/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  printf ';\nconst size_t pr_builtin_len = sizeof(pr_builtin_text) - 1;\n'; } > $@.tmp && mv $@.tmp $@

$(PRICES_C:.c=.o): $(PRICES_C)
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(CORE_OBJ) tests/unit/testutil.h tests/unit/render_oracle.h tests/unit/cxutil.h tests/unit/ixutil.h \
		tests/unit/grow_util.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -Icore -o $@ $< $(CORE_OBJ) $(PKG_LIBS) $(CMOCKA) $(LDFLAGS_ALL)

$(CORPUS_BIN): tests/corpus/corpus_check.c tests/corpus/corpus_util.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(PKG_LIBS) $(LDFLAGS_ALL)

$(CONTEXT_BIN): tests/corpus/context_check.c tests/corpus/corpus_util.h $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -Icore -o $@ $< $(CORE_OBJ) $(PKG_LIBS) $(LDFLAGS_ALL)

# The mount tests' size check (tests/mount/sizes.c).
$(SIZES_BIN): tests/mount/sizes.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(LDFLAGS_ALL)

# A libFuzzer target: core as built in $(BUILD), the fuzzer's main.
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h $(CORE_OBJ) $(wildcard core/*.h)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -Icore -fsanitize=fuzzer -o $@ $< $(CORE_OBJ) $(PKG_LIBS) $(LDFLAGS_ALL)

# Everything one test run needs, for one build directory.
check-build: $(BUILD)/sessfs $(UNIT_BIN) $(CORPUS_BIN) $(CONTEXT_BIN) $(SIZES_BIN)

deps:
	@sh scripts/deps.sh

# Both builds (and the fuzz targets, with clang) at once, on every core.
test-bins:
	+@$(SUBMAKE) -j$(NPROC) bins-plain bins-asan bins-fuzz

bins-plain:
	+@$(SUBMAKE) check-build sessfs

bins-asan:
	+@$(SUBMAKE) check-build $(ASAN_VARS)

bins-fuzz:
	@if command -v $(FUZZ_CC) >/dev/null 2>&1; then $(MAKE) --no-print-directory fuzz-build; fi

test: deps
	+@$(SUBMAKE) test-bins
	@bash scripts/run-tests.sh build:plain build/asan:asan

test-full: deps
	+@$(SUBMAKE) test-bins
	@bash scripts/run-tests.sh --full build:plain build/asan:asan

test-plain: deps
	+@$(SUBMAKE) -j$(NPROC) bins-plain
	@bash scripts/run-tests.sh build:plain

test-asan: deps
	+@$(SUBMAKE) -j$(NPROC) bins-asan bins-fuzz
	@bash scripts/run-tests.sh build/asan:asan

asan:
	+@$(SUBMAKE) -j$(NPROC) check-build $(ASAN_VARS)

run: deps
	+@$(SUBMAKE) $(SILENT) -j$(NPROC) sessfs
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

MANDIR ?= $(PREFIX)/share/man

install: sessfs
	install -D -m 0755 $(BUILD)/sessfs $(DESTDIR)$(PREFIX)/bin/sessfs
	install -D -m 0644 sessfs.1 $(DESTDIR)$(MANDIR)/man1/sessfs.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/sessfs $(DESTDIR)$(MANDIR)/man1/sessfs.1

clean:
	rm -rf build sessfs
