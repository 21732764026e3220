# sessfs: mount a Claude Code session log as a read-only directory tree.
#
#   make            build ./sessfs
#   make test       install what is missing, build (-j), run every test
#                   twice, plain and under AddressSanitizer + UBSan, the
#                   runners side by side (scripts/run-tests.sh)
#   make test-full  the exhaustive mount checks (every file of every log),
#                   then the mutation smoke (make mutate)
#   make mutate     the mutation smoke: each bug of scripts/mutations.txt
#                   put in, one at a time, in a copy of the tree under /tmp,
#                   must fail the tests it names (scripts/mutate.sh)
#   V=1             show the compiler lines
#   make run        the main job on the bundled example, mounted in a new
#                   folder under /tmp (or MNT=DIR)
#   make bench      the benchmark (prints figures)
#   make install    sessfs and sessfs.1 under $(DESTDIR)$(PREFIX) (/usr/local);
#   make uninstall  removes them
#   make NOFUSE=1   build/sessfs-nofuse alone: a sessfs without libfuse
#                   that exports and checks (every build makes it too)
#   make fuzz       the libFuzzer targets (clang), FUZZ_SECONDS long (60);
#                   corpus and findings in build/fuzz/

CC      ?= cc
# NOFUSE=1: only sessfs-nofuse (nofuse/main.c), without libfuse.
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

# core/ is compiled with cJSON's flags only; fuse3's are fs/'s alone.
CJSON_CFLAGS := $(shell pkg-config --cflags libcjson 2>/dev/null)
CJSON_LIBS   := $(shell pkg-config --libs libcjson 2>/dev/null)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA     := $(shell pkg-config --libs cmocka 2>/dev/null)
CFLAGS_CORE = $(STD) $(OPT) $(SAN) $(CJSON_CFLAGS) $(CFLAGS)
CFLAGS_ALL  = $(STD) $(OPT) $(SAN) $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(SAN) $(LDFLAGS)
DEPFLAGS    = -MMD -MP

# core/ is layered (core/README.md), bottom first: a file includes only
# the headers of its own folder and of those below it (its -I path says
# so: an include that runs upward does not compile), and each folder is an
# archive linked top first (a call that runs upward does not link).
LAYERS := base json log replay session tree projects
INC_base     := -Icore/base
INC_json     := $(INC_base) -Icore/json
INC_log      := $(INC_json) -Icore/log
INC_replay   := $(INC_log) -Icore/replay
INC_session  := $(INC_replay) -Icore/session
INC_tree     := $(INC_session) -Icore/tree
INC_projects := $(INC_tree) -Icore/projects
INC_ALL      := $(INC_projects)
# The archives of a layer and of those below it, top first.
LIBS_base     := $(BUILD)/libbase.a
LIBS_json     := $(BUILD)/libjson.a $(LIBS_base)
LIBS_log      := $(BUILD)/liblog.a $(LIBS_json)
LIBS_replay   := $(BUILD)/libreplay.a $(LIBS_log)
LIBS_session  := $(BUILD)/libsession.a $(LIBS_replay)
LIBS_tree     := $(BUILD)/libtree.a $(LIBS_session)
LIBS_projects := $(BUILD)/libprojects.a $(LIBS_tree)
CORE_LIBS     := $(LIBS_projects)

CORE_SRC := $(sort $(wildcard core/*/*.c))
CLI_SRC  := $(sort $(wildcard cli/*.c))
FS_SRC   := $(CLI_SRC) $(sort $(wildcard fs/*.c))
CLI_OBJ   = $(CLI_SRC:%.c=$(BUILD)/%.o)
# sessfs without FUSE: export and --check (cli/ and nofuse/main.c); made
# by every build (make test runs it), and alone by make NOFUSE=1.
NOFUSE_BIN = $(BUILD)/sessfs-nofuse
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
LOOPFS_BIN = $(BUILD)/tests/loopfs

ASAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_VARS   = BUILD=build/asan OPT="-O1 -g" SAN="$(ASAN_FLAGS)"
SUBMAKE     = $(MAKE) --no-print-directory

# The fuzz targets: clang, libFuzzer, ASan + UBSan; coverage build for llvm-cov.
FUZZ_CC   ?= clang
FUZZ_SAN  := $(ASAN_FLAGS) -fsanitize=fuzzer-no-link
COV_SAN   := -fprofile-instr-generate -fcoverage-mapping

.PHONY: all test test-full test-plain test-asan test-bins bins-plain bins-asan bins-fuzz \
	check-build deps run bench bench-bins asan install uninstall clean mutate \
	fuzz fuzz-smoke fuzz-build fuzz-cov-build fuzz-bins

all: $(if $(filter 1,$(NOFUSE)),$(NOFUSE_BIN),sessfs)

sessfs: $(BUILD)/sessfs
	$(Q)ln -sf $(BUILD)/sessfs $@

$(BUILD)/sessfs: $(FS_OBJ) $(CORE_LIBS)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(FS_OBJ) $(CORE_LIBS) $(PKG_LIBS) -lpthread

$(NOFUSE_BIN): $(CLI_OBJ) $(BUILD)/nofuse/main.o $(CORE_LIBS)
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJ) $(BUILD)/nofuse/main.o $(CORE_LIBS) $(CJSON_LIBS) -lpthread

# A layer's objects and its archive (EXTRA_<layer>: objects made, not
# written: the log layer holds the price table, price.h).
EXTRA_log := $(PRICES_C:.c=.o)
define layer_rules
$$(BUILD)/core/$(1)/%.o: core/$(1)/%.c
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC) $$(CFLAGS_CORE) $$(INC_$(1)) $$(DEPFLAGS) -c -o $$@ $$<

$$(BUILD)/lib$(1).a: $$(patsubst %.c,$$(BUILD)/%.o,$$(wildcard core/$(1)/*.c)) $$(EXTRA_$(1))
	@rm -f $$@
	$$(Q)$$(AR) rcs $$@ $$^
endef
$(foreach l,$(LAYERS),$(eval $(call layer_rules,$(l))))

# Each line a string literal: backslashes, quotes, tabs and '?' (no
# trigraphs) escaped.
$(PRICES_C): data/prices.txt
	@mkdir -p $(dir $@)
	$(Q){ printf '#include <stddef.h>\n/* Made from data/prices.txt by the Makefile. */\nconst char pr_builtin_text[] =\n'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/	/\\t/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  printf ';\nconst size_t pr_builtin_len = sizeof(pr_builtin_text) - 1;\n'; } > $@.tmp && mv $@.tmp $@

$(PRICES_C:.c=.o): $(PRICES_C)
	$(Q)$(CC) $(CFLAGS_CORE) -c -o $@ $<

# The front ends (fs/, cli/, nofuse/) sit on all of core; fs/ alone on
# fuse3 too (cli/ and nofuse/ get cJSON's flags only).
$(BUILD)/fs/%.o: CFLAGS_ALL += $(INC_ALL) -Icli
$(BUILD)/cli/%.o $(BUILD)/nofuse/%.o: CFLAGS_ALL = $(CFLAGS_CORE) $(INC_ALL) -Icli
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -c -o $@ $<

# A unit test links with its layer and those below (scripts/layer-of.sh:
# the highest layer whose headers it includes).
define unit_rule
$$(BUILD)/tests/$(1): tests/unit/$(1).c $$(LIBS_$(2))
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC) $$(CFLAGS_CORE) $$(INC_$(2)) -Itests/unit $$(DEPFLAGS) -o $$@ $$< $$(LIBS_$(2)) \
		$$(CJSON_LIBS) $$(CMOCKA) -lpthread $$(LDFLAGS_ALL)
endef
$(foreach t,$(UNIT_SRC:tests/unit/%.c=%),$(eval $(call unit_rule,$(t),$(shell sh scripts/layer-of.sh tests/unit/$(t).c))))

$(CORPUS_BIN): tests/corpus/corpus_check.c tests/corpus/corpus_util.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_CORE) -o $@ $< $(CJSON_LIBS) $(LDFLAGS_ALL)

$(CONTEXT_BIN): tests/corpus/context_check.c tests/corpus/corpus_util.h $(LIBS_session)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_CORE) $(INC_session) $(DEPFLAGS) -o $@ $< $(LIBS_session) $(CJSON_LIBS) -lpthread $(LDFLAGS_ALL)

# The mount tests' size check (tests/mount/sizes.c).
$(SIZES_BIN): tests/mount/sizes.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(LDFLAGS_ALL)

# The request loop's own file system (tests/mount/loopfs.c, test_loop.sh).
$(LOOPFS_BIN): tests/mount/loopfs.c fs/loop.c fs/loop.h fs/sfuse.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -Ifs -o $@ tests/mount/loopfs.c fs/loop.c $(PKG_LIBS) -lpthread $(LDFLAGS_ALL)

# A libFuzzer target: core as built in $(BUILD), the fuzzer's main.
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h $(CORE_LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_CORE) $(INC_ALL) $(DEPFLAGS) -fsanitize=fuzzer -o $@ $< $(CORE_LIBS) $(CJSON_LIBS) -lpthread $(LDFLAGS_ALL)

# Everything one test run needs, for one build directory.
check-build: $(BUILD)/sessfs $(NOFUSE_BIN) $(UNIT_BIN) $(CORPUS_BIN) $(CONTEXT_BIN) $(SIZES_BIN) \
	$(LOOPFS_BIN)

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
	@rc=0; bash scripts/run-tests.sh --full build:plain build/asan:asan || rc=1; \
	bash scripts/mutate.sh || rc=1; exit $$rc

mutate: deps
	+@$(SUBMAKE) -j$(NPROC) bins-plain
	@bash scripts/mutate.sh

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

bench: deps sessfs bench-bins
	@bash scripts/bench.sh

# The bench's programs on core (scripts/bench.sh builds its standalone ones).
bench-bins: $(BUILD)/bench/idxbench $(BUILD)/bench/growbench

# genlog, the bench's log generator (tests/bench/genlog/): a standalone
# program, on no core archive; scripts/bench.sh and bench_projects.sh use it.
GENLOG_SRC := $(sort $(wildcard tests/bench/genlog/*.c))
$(BUILD)/bench/genlog: $(GENLOG_SRC) $(wildcard tests/bench/genlog/*.h)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -O2 -Wall -Wextra -Werror -D_FILE_OFFSET_BITS=64 -o $@ $(GENLOG_SRC)
$(BUILD)/bench/%: tests/bench/%.c $(CORE_LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_CORE) $(INC_ALL) $(DEPFLAGS) -o $@ $< $(CORE_LIBS) $(CJSON_LIBS) -lpthread $(LDFLAGS_ALL)

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

install: all
	install -D -m 0755 $(if $(filter 1,$(NOFUSE)),$(NOFUSE_BIN),$(BUILD)/sessfs) \
		$(DESTDIR)$(PREFIX)/bin/$(if $(filter 1,$(NOFUSE)),sessfs-nofuse,sessfs)
	install -D -m 0644 sessfs.1 $(DESTDIR)$(MANDIR)/man1/sessfs.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/sessfs $(DESTDIR)$(PREFIX)/bin/sessfs-nofuse \
		$(DESTDIR)$(MANDIR)/man1/sessfs.1

clean:
	rm -rf build sessfs

# Each object's headers (-MMD): a change rebuilds what includes it.
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
