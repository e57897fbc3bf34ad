# The timeouts-and-fallbacks lab.  The only entry point: see README.md.
#
#   make all        deps, build, prepare, check, measure, collect, ap, cost, provenance, factcheck, report
#   make quick      the same on the quick profile into build/quick (minutes)
#   make floods     H3-none and the 450/s arms, 9 rounds of 30 s (data/profiles.tsv), into build/floods
#   make test       every test (Criterion), ends with Criterion's synthesis line
#   make bench      benchmarks, figures printed side by side
#   make sizing     docs/SIZING.md: the rounds each verdict needs, from the simulation
#   make prepare    shop -> features -> model -> build/prep/
#   make check      re-hash every prepared file against the manifest
#   make run        one arm, one round: ARM=H3-fb25 ROUND=1 SECONDS=30 CORES=0
#   make cloud-STEP measure on a rented EC2 machine, step by step (README.md)
#
# Settings: PROFILE=full|quick|floods|tiny (data/profiles.tsv)   OUT=dir (results and provenance in dir/)

SHELL   := /bin/bash
PROFILE ?= full
OUT     ?= .
B       := build
PREP    := $(B)/prep
PROV    := $(OUT)/provenance
BIN     := $(B)/bin

# A user adds flags with CFLAGS=... (kept after the lab's own) and picks a
# compiler with CC=...; the lab's flags are always there.
ifeq ($(origin CC),default)
CC      := gcc
endif
OPT     ?= -O2
PGINC   := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
# The measured build compiles the invariants' assert()s out (NDEBUG); the
# test, sanitizer and fuzz builds keep them (TEST_CFLAGS, ASANFLAGS, FUZZ_FLAGS).
LAB_CFLAGS := -std=c11 $(OPT) -g -Wall -Wextra -Werror -D_GNU_SOURCE -DNDEBUG -I$(PGINC)
override CFLAGS := $(LAB_CFLAGS) $(CFLAGS)
DEPFLAGS := -MMD -MP
LDLIBS  := -ljansson -lcrypto -lz -lm -levent -pthread

# The layers (docs/layers.tsv): each folder of C code is compiled with its
# own include path and those of the folders it may include, nothing else, so
# an include that reaches up or sideways does not compile
# (tests/lab/test_layers.c checks the same table against every include).
LAYERS     := docs/layers.tsv
LAYER_DIRS := $(shell awk -F'\t' '!/^\#/ && $$1 != "folder" && NF {print $$1}' $(LAYERS))
$(foreach d,$(LAYER_DIRS),$(eval INC_$(d) := -I$(d) $(addprefix -I,$(filter-out -,$(shell awk -F'\t' \
    '$$1 == "$(d)" {print $$2}' $(LAYERS))))))
ALL_INC    := $(addprefix -I,$(LAYER_DIRS))
# make print-incs DIR=lab/core: a folder's include flags (tests/lab/test_layers.c)
.PHONY: print-incs
print-incs:
	@echo $(INC_$(DIR))
# make print-progs: the programs a measuring machine builds (make progs; tests/pipeline/test_cloud.c)
.PHONY: print-progs
print-progs:
	@echo $(PROGS)
# the include flags of the folder of $< (refused when docs/layers.tsv does not name it)
incs = $(or $(INC_$(patsubst %/,%,$(dir $<))),$(error $< is in a folder docs/layers.tsv does not name))

# The modules, by room (docs/DESIGN.md section 2).  LAB_OBJ: the lab's
# shared modules, linked into every program; PIPE_COMMON: the stages'
# shared modules; each stage and program adds its own folder's.
# (one `+=` line per group, so that parallel changes merge cleanly)
LAB_MODS  := base/util base/opt base/proc base/facts
LAB_MODS  += core/arms core/arrivals core/policy core/waits core/faults core/storeq core/trees core/ap
LAB_MODS  += raw/rawlog raw/rawfmt raw/raw4
LAB_MODS  += watch/watch watch/gate watch/quiet
LAB_MODS  += service/httpparse service/storeconn service/evlog core/storetab tester/answer tester/trecord
LAB_MODS  += service/front
LAB_MODS  += tester/topts
LAB_MODS  += base/tsv core/cmptab core/sctab core/prepsum
LAB_MODS  += core/guesstab
PIPE_COMMON := common/prov common/redact common/rawdigest
# (the libpq calls: only the stages that link PostgreSQL's client)
PGX_OBJ     := $(B)/pipeline/common/pgx.o
MODEL_MODS  := model/shop model/feat model/train model/prepread
MODEL_MODS  += model/shopgen
AP_MODS     := ap/apstudy ap/apboot ap/apcost ap/apref ap/testerraw
LAB_OBJ   := $(LAB_MODS:%=$(B)/lab/%.o)
PIPE_OBJ  := $(patsubst %,$(B)/pipeline/%.o,$(PIPE_COMMON) $(MODEL_MODS) $(AP_MODS) cost/costcalc provmd/provmd)
COMMON_OBJ := $(PIPE_COMMON:%=$(B)/pipeline/%.o)
MODEL_OBJ := $(MODEL_MODS:%=$(B)/pipeline/%.o)
# measure's own modules: the schedule, the system log, the remote hosts, their file lists, the prediction
MEASURE_OBJ := $(patsubst %,$(B)/pipeline/measure/%.o,profiles schedule slog remote multi mfiles mprereg)
MEASURE_OBJ += $(B)/pipeline/measure/mrun.o
# collect's own modules: the loader of one run, the prediction, the libpq calls
COLLECT_OBJ := $(patsubst %,$(B)/pipeline/collect/%.o,collectload collectpred)
COLLECT_OBJ += $(B)/pipeline/collect/collectexport.o $(B)/pipeline/collect/collectmap.o
PLAY_OBJ := $(patsubst %,$(B)/lab/play/%.o,playopt playwin playout playdef playev playsim playpct playflood playmap)
PREDICT_OBJ := $(B)/pipeline/measure/predict.o $(B)/pipeline/measure/profiles.o $(B)/pipeline/measure/noise.o $(PLAY_OBJ)
TEST_SRC  := $(wildcard tests/lab/test_*.c tests/pipeline/test_*.c)
TEST_OBJ  := $(TEST_SRC:%.c=$(B)/%.o)

PROGS := $(BIN)/prepare $(BIN)/check $(BIN)/store $(BIN)/service $(BIN)/tester $(BIN)/run \
         $(BIN)/collect $(BIN)/play $(BIN)/measure $(BIN)/ap $(BIN)/cost $(BIN)/demo
PROGS += $(BIN)/provmd $(BIN)/predict $(BIN)/noisefit $(BIN)/map
PROGS += $(BIN)/layers
.PHONY: all build deps prepare check test bench quick clean run asan collect factcheck measure release play play-floods ap cost report demo
.PHONY: sizing noise map bench-map bench-play floods bench-frontdoor bench-raw bench-published bench-quick bench-collect fuzz fuzz-replay verify-published
.PHONY: readme progs
.PHONY: layers

all: deps
	$(MAKE) build
	$(if $(filter .,$(OUT)),@bash pipeline/common/fresh.sh)
	@mkdir -p $(B) && { printf 'out\tstep\tstart_s\tend_s\n'; tail -n +2 $(B)/all-steps.tsv 2>/dev/null | \
	    awk -F'\t' -v o="$(OUT)" '$$1 != o'; } > $(B)/all-steps.tsv.tmp && mv $(B)/all-steps.tsv.tmp $(B)/all-steps.tsv
	$(call STEP,prepare)
	$(call STEP,check)
	$(call STEP,measure)
	$(call STEP,collect)
	$(call STEP,ap)
	$(call STEP,cost)
	$(call STEP,provenance)
	$(call STEP,factcheck)
	$(call STEP,report)
	$(if $(filter .,$(OUT)),$(MAKE) readme)

# One step of make all, its wall clock appended to build/all-steps.tsv (out,
# step, start and end in seconds since the epoch; a make all first drops the
# lines of its own OUT: make bench-quick reads them; under build/, never in
# the study)
STEP = t0=$$(date +%s.%N); $(MAKE) $(1) || exit $$?; \
	printf '%s\t%s\t%s\t%s\n' "$(OUT)" $(1) "$$t0" "$$(date +%s.%N)" >> $(B)/all-steps.tsv

build: $(PROGS) $(BIN)/tests $(BIN)/bench_trees $(BIN)/bench_run $(BIN)/bench_sleep $(BIN)/bench_bare $(BIN)/fakeec2 $(BIN)/bench_frontdoor

# What a measuring machine needs (make cloud-setup builds only these there):
# the programs, not the tests and benchmarks.
progs: $(PROGS)

deps:
	@bash pipeline/common/deps.sh

# Every .c compiles to its own object (build/<its path>.o) with its folder's
# include paths and its header dependencies (-MMD -MP), so a changed header
# rebuilds exactly what includes it.  The tests keep the assert()s.
TEST_CFLAGS = $(filter-out -DNDEBUG,$(CFLAGS))
$(B)/lab/%.o: lab/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(incs) -c $< -o $@
$(B)/lab/base/facts.o: lab/base/facts.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(incs) -DLAB_CFLAGS='"$(CFLAGS)"' -c $< -o $@
# The simulation's modules once more at -O3 with link-time optimisation for
# the programs that simulate the most (map, predict): about a fifth faster,
# the same figures (integer time, no floating-point contraction under -std=c11).
FAST     := $(B)/fast
FAST_OPT := -O3 -flto
SIM_MODS := base/util core/arms core/arrivals core/policy core/waits core/faults core/storeq
SIM_SLOW := $(SIM_MODS:%=$(B)/lab/%.o)
FAST_SIM_OBJ := $(SIM_MODS:%=$(FAST)/lab/%.o) $(PLAY_OBJ:$(B)/%=$(FAST)/%)
$(FAST)/lab/%.o: lab/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FAST_OPT) $(DEPFLAGS) $(incs) -c $< -o $@
$(B)/pipeline/%.o: pipeline/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(incs) -c $< -o $@
$(B)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(DEPFLAGS) $(incs) -c $< -o $@
$(BIN):
	mkdir -p $@
-include $(shell find $(B)/lab $(B)/fast $(B)/pipeline $(B)/tests $(B)/tlab -name '*.d' 2>/dev/null)

# The lab's modules again with their assert()s, for the tests (build/tlab/).
TLAB_OBJ := $(LAB_MODS:%=$(B)/tlab/%.o) $(PLAY_OBJ:$(B)/lab/%=$(B)/tlab/%)
TLAB_OBJ += $(B)/tlab/play/layers.o
$(B)/tlab/%.o: lab/%.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(DEPFLAGS) $(incs) -c $< -o $@

$(BIN)/prepare: $(B)/pipeline/prepare/prepare.o $(MODEL_OBJ) $(COMMON_OBJ) $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ -lxgboost $(LDLIBS)
$(BIN)/check: $(B)/pipeline/check/check.o $(COMMON_OBJ) $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BIN)/store: $(B)/lab/store/store.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ -levent $(LDLIBS)
$(BIN)/service: $(B)/lab/service/service.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ -levent $(LDLIBS)
$(BIN)/tester: $(B)/lab/tester/tester.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ -levent $(LDLIBS)
$(BIN)/collect: $(B)/pipeline/collect/collect.o $(COLLECT_OBJ) $(PGX_OBJ) $(COMMON_OBJ) $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ -lpq $(LDLIBS)
$(BIN)/measure: $(B)/pipeline/measure/measure.o $(MEASURE_OBJ) $(COMMON_OBJ) $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BIN)/predict: $(B)/pipeline/measure/predictmain.o $(filter-out $(PLAY_OBJ),$(PREDICT_OBJ)) $(FAST_SIM_OBJ) $(filter-out $(SIM_SLOW),$(LAB_OBJ)) | $(BIN)
	$(CC) $(CFLAGS) $(FAST_OPT) $^ -o $@ $(LDLIBS)
# the twin's noise model, fitted on a measured study (make noise)
$(BIN)/noisefit: $(B)/pipeline/measure/noisefit.o $(B)/pipeline/measure/noise.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
# ap trains models (XGBoost); cost only adds up provenance records.
AP_OBJ   := $(AP_MODS:%=$(B)/pipeline/%.o) $(MODEL_OBJ)
COST_OBJ := $(B)/pipeline/cost/costcalc.o $(COMMON_OBJ) $(LAB_OBJ)
$(BIN)/ap: $(B)/pipeline/ap/apstage.o $(AP_OBJ) $(PGX_OBJ) $(COMMON_OBJ) $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ -lxgboost -lpq $(LDLIBS)
$(BIN)/cost: $(B)/pipeline/cost/cost.o $(COST_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BIN)/provmd: $(B)/pipeline/provmd/provmdmain.o $(B)/pipeline/provmd/provmd.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BIN)/demo: $(B)/lab/demo/demo.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BIN)/map: $(FAST)/lab/play/map.o $(FAST_SIM_OBJ) $(filter-out $(SIM_SLOW),$(LAB_OBJ)) | $(BIN)
	$(CC) $(CFLAGS) $(FAST_OPT) $^ -o $@ $(LDLIBS)
# layered retries (lab/play/layers.h): its own module, not play's
$(BIN)/layers: $(B)/lab/play/layers_main.o $(B)/lab/play/layers.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BIN)/play: $(B)/lab/play/play.o $(PLAY_OBJ) $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BIN)/run: $(B)/lab/run/run.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
# The tests link the lab's modules with their assert()s (build/tlab/), the
# stages' shared modules, and measure's schedule and file lists.
$(BIN)/tests: $(TEST_OBJ) $(PIPE_OBJ) $(TLAB_OBJ) $(B)/pipeline/measure/schedule.o $(B)/pipeline/measure/mfiles.o \
              $(B)/pipeline/measure/profiles.o $(B)/pipeline/measure/noise.o | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ -lcriterion -lxgboost $(LDLIBS)
$(BIN)/bench_trees: $(B)/tests/bench/bench_trees.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ -lxgboost $(LDLIBS)
$(BIN)/bench_sleep: $(B)/tests/bench/bench_sleep.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
# the bare responder under S (tests/bench/bench_bare.c): nothing of the lab's
$(BIN)/bench_bare: $(B)/tests/bench/bench_bare.o | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@
$(BIN)/bench_run: $(B)/tests/bench/bench_run.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BIN)/bench_frontdoor: $(B)/tests/bench/bench_frontdoor.o $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
# The local EC2 endpoint of tests/pipeline/test_cloud.c (pipeline/cloud/cloud.sh's tests).
$(BIN)/fakeec2: $(patsubst %,$(B)/tests/fake/%.o,fakeec2 fakeec2res fakeec2vm) $(LAB_OBJ) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# The measured programs under AddressSanitizer, LeakSanitizer and UBSan, for
# tests/lab/test_asan.c (a short run must report no error and no leak).
ASAN      := $(B)/asan
ASANFLAGS := -std=c11 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -Wall -Wextra -Werror \
             -D_GNU_SOURCE $(ALL_INC)
LAB_SRC   := $(LAB_MODS:%=lab/%.c)
ASAN_NAMES := store service tester run
ASAN_PROGS := $(ASAN_NAMES:%=$(ASAN)/bin/%)
# The lab's modules are compiled once under the sanitizers (build/asan/obj/,
# with their header dependencies) and linked into each of the four programs
# (each program is lab/<name>/<name>.c): the same flags as one gcc command
# per program had, a quarter of the compiling.
ASAN_LAB_OBJ := $(LAB_SRC:%.c=$(ASAN)/obj/%.o)
$(ASAN)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ASANFLAGS) $(DEPFLAGS) -c $< -o $@
-include $(shell find $(ASAN)/obj -name '*.d' 2>/dev/null)
$(foreach p,$(ASAN_NAMES),$(eval $(ASAN)/bin/$(p): $(ASAN)/obj/lab/$(p)/$(p).o $(ASAN_LAB_OBJ)))
$(ASAN_PROGS):
	@mkdir -p $(@D)
	$(CC) $(ASANFLAGS) $^ -o $@ -levent $(LDLIBS)
asan: $(ASAN_PROGS)

# Fuzzing the lab's parsers (tests/fuzz/README.md): libFuzzer harnesses built
# with clang, ASan and UBSan; the same harnesses linked to a plain replay
# driver (gcc, ASan, UBSan) for make test, which replays every corpus once.
# make fuzz [SECONDS=30] [FUZZ_ONLY="http arms"] [FUZZ_CORE=1]: crashes in build/fuzz/<name>/
FUZZ       := $(B)/fuzz
FUZZ_NAMES := http answer wire arms rawfmt quiet shop prediction runjson guess redact
FUZZ_CC    ?= clang
FUZZ_CORE  ?= 1
FUZZ_ONLY  ?= $(FUZZ_NAMES)
FUZZ_FLAGS := -std=c11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -D_GNU_SOURCE $(ALL_INC) \
              -I$(PGINC) -Itests/fuzz -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_LIBSRC := $(LAB_SRC) $(patsubst %,pipeline/%.c,model/shop collect/collectpred collect/collectmap collect/collectload common/redact common/prov common/rawdigest)
FUZZ_LIBS  := -ljansson -lcrypto -lz -lm -levent -lpq
FUZZ_BINS  := $(FUZZ_NAMES:%=$(FUZZ)/bin/fuzz_%)
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(FUZZ)/replay/fuzz_%)
$(FUZZ)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c $< -o $@
$(FUZZ)/robj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(FUZZ_FLAGS) $(DEPFLAGS) -c $< -o $@
$(FUZZ)/libfz.a: $(FUZZ_LIBSRC:%.c=$(FUZZ)/obj/%.o)
	ar rcs $@ $^
$(FUZZ)/libreplay.a: $(FUZZ_LIBSRC:%.c=$(FUZZ)/robj/%.o)
	ar rcs $@ $^
$(FUZZ)/bin/fuzz_%: $(FUZZ)/obj/tests/fuzz/fuzz_%.o $(FUZZ)/libfz.a
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $^ -o $@ $(FUZZ_LIBS)
$(FUZZ)/replay/fuzz_%: $(FUZZ)/robj/tests/fuzz/fuzz_%.o $(FUZZ)/robj/tests/fuzz/replay.o $(FUZZ)/libreplay.a
	@mkdir -p $(@D)
	$(CC) $(FUZZ_FLAGS) $^ -o $@ $(FUZZ_LIBS)
-include $(shell find $(FUZZ) -name '*.d' 2>/dev/null)
.PRECIOUS: $(FUZZ)/obj/%.o $(FUZZ)/robj/%.o
fuzz: $(FUZZ_BINS)
	bash tests/fuzz/run.sh $(SECONDS) $(FUZZ_CORE) $(FUZZ) $(FUZZ_ONLY)
fuzz-replay: $(FUZZ_REPLAY)
	@for h in $(FUZZ_NAMES); do $(FUZZ)/replay/fuzz_$$h tests/fuzz/corpus/$$h || exit 1; done

# prepare and check run alone on a clone keep their record under build/
# (PREPARE_ASIDE's place) while results/ and provenance/ hold the published
# study as committed (pipeline/common/fresh.sh --is-published), saying so,
# so that the published study stays as committed; make all and make measure
# set it aside first (fresh.sh), and an explicit PROV=... is kept.
STAGE_PROV = $(if $(filter command line,$(origin PROV)),$(PROV),$$(if [ "$(OUT)" = . ] && \
    bash pipeline/common/fresh.sh --is-published; then echo $(B)/prep-aside; else echo $(PROV); fi))
ASIDE_NOTE = [ "$$prov" = "$(PROV)" ] || echo "$@: results/ and provenance/ hold the published study as committed:" \
    "left as they are; $@'s record is under $$prov"

prepare: $(BIN)/prepare
	@prov=$(STAGE_PROV); $(ASIDE_NOTE); set -x; $(BIN)/prepare --prep $(PREP) --prov $$prov --data data

check: $(BIN)/check
	@prov=$(STAGE_PROV); $(ASIDE_NOTE); set -x; $(BIN)/check --prov $$prov --root $(OUT)

# One arm, one round: make run ARM=H3-fb25 ROUND=1 [SECONDS=30] [CORES=0] [OUT=.]
ARM     ?= H3-fb25
ROUND   ?= 1
SECONDS ?= 30
CORES   ?= 0
GATE    ?= 1
run: $(PROGS)
	@test -f $(PREP)/model.json || $(MAKE) prepare
	$(BIN)/run --arm $(ARM) --round $(ROUND) --seconds $(SECONDS) --cores $(CORES) --gate $(GATE) \
	    --raw $(OUT)/results/raw --prep $(PREP) --bin $(BIN)

# The prepared files for what is not a study (tests, demo, benchmarks): the
# same files, but prepare's record goes under build/, so that the committed
# study's provenance/ is left as it is.
PREPARE_ASIDE = $(MAKE) prepare PROV=$(B)/prep-aside

# The tests read the prepared files (pinned AP, evaluator = XGBoost on every
# test row), so they run after prepare.
#
# make test uses every core.  First what the lab's tests need, side by side
# (make -j with the machine's cores, unless make was given a -j; each part's
# output printed whole when it ends): the programs, the tests, the sanitizer
# builds, the fake EC2 endpoint, the verifier (release/* on a lane, study/*
# and attempts/* alone run it), then prepare and check in place.  Then
# tests/run.sh (its header): the lab's tests that measure no time on lanes
# side by side and, beside the lanes, the phases that measure no time and
# that no lab test needs (test-beside: the fuzz replays, the verifier's and
# the report's tests, the published study verified), at nice 10, so that
# they take the time of the cores the lanes leave idle; then, after the lanes
# and those phases, the tests that measure time, alone (tests/alone.tsv).
TEST_NEEDS := $(PROGS) $(BIN)/tests $(ASAN_PROGS) $(BIN)/fakeec2
NPROC      := $(shell nproc 2>/dev/null || echo 1)
TEST_J      = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
# (through a variable, not $(MAKE) in the recipe: make -n test runs no test)
TEST_BESIDE = nice -n 10 $(MAKE) --no-print-directory -j$(NPROC) -Otarget test-beside
test:
	@mkdir -p $(B) && $(STUDY_SHA) > $(B)/study-before.sha
	@$(MAKE) --no-print-directory $(TEST_J) -Otarget test-phases
	@bash tests/run.sh --beside "$(TEST_BESIDE)" $(BIN)/tests
	@$(STUDY_SHA) | diff $(B)/study-before.sha - > $(B)/study-changed.diff || \
	    { echo "make test wrote into results/ or provenance/ (the published study):"; cat $(B)/study-changed.diff; exit 1; }
	@echo "make test: results/ and provenance/ unchanged ($$(wc -l < $(B)/study-before.sha) files)"

# make test's parts before the lab's tests (make -j runs them side by side),
# and those beside its lanes (tests/run.sh --beside)
.PHONY: test-phases test-beside test-fuzz test-verify test-report test-published test-verifier
test-phases: $(TEST_NEEDS) test-verifier test-published
test-beside: test-fuzz test-verify test-report verify-published
test-fuzz: $(FUZZ_REPLAY)
	@for h in $(FUZZ_NAMES); do $(FUZZ)/replay/fuzz_$$h tests/fuzz/corpus/$$h || exit 1; done
test-verify:
	$(MAKE) -C verify test
test-report:
	$(MAKE) -C report test
test-verifier:
	@$(MAKE) -s -C verify >/dev/null
# prepare and check in place, one after the other (they must leave the study
# as committed: make test compares); prepare writes the prepared files the
# tests read, so no prepare aside before it
test-published: $(BIN)/prepare $(BIN)/check
	@{ $(MAKE) --no-print-directory prepare && $(MAKE) --no-print-directory check; } > $(B)/test-prepare-check.log 2>&1 || \
	    { cat $(B)/test-prepare-check.log; exit 1; } # one after the other: under make -j, `make prepare check` would run them at once

# every file of the study in place, with its sha256 (make test leaves them as they were)
STUDY_SHA = find results provenance -type f -print0 | sort -z | xargs -0 sha256sum

# The committed study verified as an auditor would (0 mismatches, 0 findings);
# verified.json goes under build/, so the committed one is left as it is.
verify-published:
	@if [ -f results/verified.json ]; then \
	    echo "verify: the published study (results/, provenance/)"; \
	    $(MAKE) -s -C verify >/dev/null && \
	    verify/build/verify --root . --out $(B)/verified-published.json --max-print 5 > $(B)/verify-published.log 2>&1; \
	    rc=$$?; tail -4 $(B)/verify-published.log; exit $$rc; \
	else echo "verify-published: skipped, no study committed yet (results/verified.json absent)"; fi

# The whole schedule: the registered design of the profile (data/profiles.tsv),
# resumable; first the simulation's prediction of it (results/prediction.json),
# registered.  ROUNDS=n departs from the design (every group n rounds), with
# the reason DEVIATION="..." (results/deviations.tsv).
# make measure [PROFILE=full|quick|floods|tiny] [ROUNDS=n [DEVIATION="why"]] [OUT=.] [CORES=0] [GATE=1] [HOST=user@host]
# (ssh options for HOST: LAB_SSH_OPTS="-p 2222 -i KEY" in the environment)
HOST ?=
ROUNDS ?=
DEVIATION ?=
# The rules of a quiet run: measure, collect and the verifier read the same
# file.  QUIET=tests/quiet_off.tsv and MEASURE_FLAGS (more measure options,
# e.g. --settle-s 0.2) are for the tests of pipeline/cloud/cloud.sh only.
QUIET ?= data/quiet.tsv
MEASURE_FLAGS ?=
measure: $(PROGS)
	$(if $(filter .,$(OUT)),@bash pipeline/common/fresh.sh measure)
	@test -f $(PREP)/summary.json -a -f $(PROV)/stage-prepare.json || $(MAKE) prepare
	$(BIN)/measure --profile $(PROFILE) --root $(OUT) --prep $(PREP) --bin $(BIN) --arms lab/arms.tsv \
	    --data data --cores $(CORES) --gate $(GATE) $(if $(ROUNDS),--rounds $(ROUNDS)) $(if $(HOST),--host $(HOST)) \
	    $(if $(DEVIATION),--deviation '$(subst ','\'',$(DEVIATION))') --quiet $(QUIET) $(MEASURE_FLAGS)

# PostgreSQL: a private cluster under build/pg (started and stopped here), or
# PGURL=... for an existing server.
PGURL ?=
collect: $(BIN)/collect
	$(if $(PGURL),,bash pipeline/common/pg.sh run $(B)/pg) $(BIN)/collect --root $(OUT) $(if $(PGURL),--pgurl "$(PGURL)") \
	    --quiet $(QUIET)

# The stand-ins' cost in AP (20 model seeds, paired bootstrap; arms chosen in
# pipeline/ap_arms.tsv), loaded into PostgreSQL too; and the measurement's cost.
AP_ARMS  ?= pipeline/ap_arms.tsv
AP_FLAGS ?=
ap: $(BIN)/ap
	@test -f $(PREP)/summary.json || $(MAKE) prepare
	$(if $(PGURL),,bash pipeline/common/pg.sh run $(B)/pg) $(BIN)/ap --root $(OUT) --prep $(PREP) --arms $(AP_ARMS) \
	    $(AP_FLAGS) $(if $(PGURL),--pgurl "$(PGURL)")

# make cost [START=2026-11-30T06:00:00Z END=... PRICE_PER_HOUR=0.0363] for a rented machine
START ?=
END ?=
PRICE_PER_HOUR ?=
cost: $(BIN)/cost
	$(BIN)/cost --root $(OUT) $(if $(START),--start $(START)) $(if $(END),--end $(END)) \
	    $(if $(PRICE_PER_HOUR),--price-per-hour $(PRICE_PER_HOUR))

# results/provenance.md, the provenance for people, from OUT/provenance/ alone
# (pipeline/RESULTS.md gives the rules; the verifier writes it again and compares).
.PHONY: provenance
provenance: $(BIN)/provmd
	$(BIN)/provmd --root $(OUT)

# The independent verifier, built alone from verify/ (nothing of lab/ or
# pipeline/), recomputes every number and scans every output for secrets.
# The registered inputs (guesses, comparisons, arms, design, profiles ...)
# are the study's own copies under provenance/registered/, held there to
# prereg.json; only the quiet rules may be given (the tests' QUIET=).
# --out: verified.json written where make report reads it, even over one
# already there (without --out, verify writes it aside and compares).
factcheck:
	$(MAKE) -C verify
	verify/build/verify --root $(OUT) --out $(OUT)/results/verified.json $(if $(filter-out data/quiet.tsv,$(QUIET)),--quiet $(QUIET))

# The demo: the four basic ways at 200/s for 10 s each on this machine.
demo: $(PROGS)
	@test -f $(PREP)/summary.json || $(PREPARE_ASIDE)
	$(BIN)/demo --prep $(PREP) --bin $(BIN)

# The playground: a deterministic simulation of the store and the policies.
# make play [PLAY='--arm H3-fb25 --seeds 1-5']
PLAY ?= --arm H4-r2 --seeds 1-10
play: $(BIN)/play
	$(BIN)/play $(PLAY)

# The 450/s retry flood against the defences (issue 13), side by side over
# 200 seeds: two retries, with the retry budget, with the deadline passed
# down, behind a breaker, five tries with capped backoff, no retry.
PLAY_FLOODS ?= --arm H4-r2,H4-r2bud,H4-r2dl,H4-brkr2,H4-r4xf,H4-hedge,H4-fb25 --seeds 1-200 --summary
play-floods: $(BIN)/play
	$(BIN)/play $(PLAY_FLOODS)

# docs/SIZING.md (committed): from the simulation, for the full profile of the
# registered design (data/profiles.tsv) at the lengths and rounds it runs, each
# verdict of pipeline/comparisons.tsv's power and error rate, and the rare
# events' odds over the design's seeds; written before the study is measured
# (pipeline/measure/predict.h).
sizing: $(BIN)/predict
	@test -f $(PREP)/test.tsv || $(PREPARE_ASIDE)
	$(BIN)/predict --sizing docs/SIZING.md --profiles data/profiles.tsv --profile full --arms lab/arms.tsv \
	    --comparisons pipeline/comparisons.tsv --table $(PREP)/test.tsv

# The twin's noise model (data/noise.tsv, committed): the machine's own time
# per lookup, fitted on the quiet runs of a measured study (STUDY=., the
# published one, by default); it reads STUDY and writes only data/noise.tsv.
STUDY ?= .
noise: $(BIN)/noisefit
	$(BIN)/noisefit --root $(STUDY) --out data/noise.tsv

# The map of floods by load (lab/play/playmap.h): every policy of the 450/s
# arms at 300..600/s over 1,000 seeds of 30 s on both cores; the table in the
# terminal, build/map/map.json and the figure build/map/map.svg (report/).
MAP_SEEDS ?= 1-1000
map: $(BIN)/map
	@mkdir -p $(B)/map
	$(BIN)/map --seeds $(MAP_SEEDS) --json $(B)/map/map.json
	$(MAKE) -s -C report
	report/build/report --map $(B)/map/map.json --figure $(B)/map/map.svg
	@echo "map: the figure is $(B)/map/map.svg"

# Layered retries (lab/play/layers.h): 1 to 3 layers of 3 tries in front of a
# store that is down, without a budget, with one at every layer and at the
# bottom only; the table in the terminal and build/layers/layers.json.
layers: $(BIN)/layers
	@mkdir -p $(B)/layers
	$(BIN)/layers --json $(B)/layers/layers.json

# The map's speed beside play's: the same simulation, one policy on one core
# (play, -O2, dice drawn per run) against the map (both cores, -O3 -flto,
# one seed's dice for all its 143 cells, a flooded seed stopped there).
bench-map: $(BIN)/map $(BIN)/play
	@echo "== the map: 11 policies x 13 loads x 200 seeds of 30 s (the whole map is 1,000 seeds: about 5x this)"
	@echo "\$$ build/bin/map --seeds 1-200   beside   build/bin/play --arm H4-r2 --seeds 1-200 --summary"
	@m=$$($(BIN)/map --seeds 1-200 | tail -1); p=$$($(BIN)/play --arm H4-r2 --seeds 1-200 --summary | grep '^simulated'); \
	  echo "$$m"; echo "play, one core: $$p"; \
	  echo "$$m" | awk -v p="$$p" '{ for (i = 1; i <= NF; i++) if ($$i == "million" && $$(i+1) == "lookups" && $$(i+2) == "a") m = $$(i-1); } \
	    END { split(p, a, " "); for (i = 1; i <= length(a); i++) if (a[i] == "million") q = a[i-1]; \
	    printf "lookups a second: the map %.2f million, play %.2f million: %.2fx\n", m, q, m / q }'
	@echo "$$($(BIN)/map --seeds 1-200 | tail -1)" | awk '{ for (i = 1; i <= NF; i++) if ($$i == "s" && $$(i+1) == "of" && $$(i+2) == "wall") t = $$(i-1); } \
	    END { printf "the whole map (5x these 200 seeds, run again): about %.0f s against its target of 60 s: %.2fx the target\n", 5 * t, 5 * t / 60 }'

# The simulation's speed: the full study's prediction (every open-loop arm of
# lab/arms.tsv over 1,000 seeds of 30 s, and its 280 runs) on one core; the
# target is under 60 s.  Its last line gives the wall time.
BENCH_CORE ?= 1
bench-play: $(BIN)/predict
	@test -f $(PREP)/test.tsv || $(PREPARE_ASIDE)
	@mkdir -p $(B)/bench
	taskset -c $(BENCH_CORE) $(BIN)/predict --predict $(B)/bench/prediction.json --profile full --rounds 1-5 \
	    --seconds 30 --odds-seeds 1-1000 --table $(PREP)/test.tsv

# Figures and the report, from the verifier's numbers only (results/verified.json).
# The study's own registered arms (provenance/registered/, prepare's copy)
# when it has them: a study's report names the arms it registered.
REPORT_ARMS = $(firstword $(wildcard $(OUT)/provenance/registered/lab/arms.tsv) lab/arms.tsv)
report:
	$(MAKE) -C report
	report/build/report --root $(OUT) --arms $(REPORT_ARMS) --templates report/templates
	$(MAKE) -s -C verify
	verify/build/verify --scan $(OUT)/results/report.md --scan $(OUT)/results/report.html --scan $(OUT)/results/figures

# README.md's block between <!-- study:begin --> and <!-- study:end -->: the
# findings, from results/verified.json through report/front-page.md.in (a
# placeholder from report/tests/fixture/front.json until a study is there).
# `make test` fails when README.md differs from what this writes.
readme:
	$(MAKE) -C report build/readme
	report/build/readme --root .

release: factcheck
	bash pipeline/release/release.sh $(OUT)

bench: build
	bash tests/bench/bench.sh
	$(MAKE) -s bench-map
	$(MAKE) -s bench-play
	$(MAKE) -s bench-frontdoor
	$(MAKE) -s bench-published
	$(MAKE) -s bench-collect
	$(MAKE) -s bench-quick

# The committed study as an auditor meets it: verify --root . against the
# floor of decompressing its raw files, and its raw bytes per open-loop
# request (tests/bench/bench_published.sh).
bench-published:
	@echo "== the published study: the verifier alone against decompressing its raw files; raw bytes a request"
	@bash tests/bench/bench_published.sh

# make quick's seconds: each step's wall time (build/all-steps.tsv, written by
# make all) and the measured seconds of its runs against their wall time
# (build/quick/provenance/runs/); says so when no quick study is there
bench-quick:
	@echo "== make quick: where its wall time goes (the last make quick on this machine)"
	@bash tests/bench/bench_quick.sh $(B)/quick $(B)/all-steps.tsv

# collect on the published study (447 runs, about 13 million raw rows; the
# target is 30 s) against its floor, COPY of the same rows alone, in one run
# (tests/bench/bench_collect.sh); its results.json goes to a scratch folder
# whose raw files are links to the committed ones, and is compared with the
# committed results/results.json.
bench-collect: $(BIN)/collect
	@if [ ! -f results/results.json ]; then echo "bench-collect: skipped, no study committed"; exit 0; fi; \
	  echo "== make collect on the published study (target: 30 s) against COPY of the same rows alone"; \
	  s=$(B)/bench/collect-published; rm -rf $$s; mkdir -p $$s/results $$s/provenance; \
	  for x in raw attempts reference prediction.json; do [ ! -e results/$$x ] || ln -s $(CURDIR)/results/$$x $$s/results/$$x; done; \
	  for x in runs manifest-measure.tsv; do [ ! -e provenance/$$x ] || ln -s $(CURDIR)/provenance/$$x $$s/provenance/$$x; done; \
	  bash tests/bench/bench_collect.sh $$s $(B)/bench/pg-published && \
	  if cmp -s $$s/results/results.json results/results.json; then echo "its results.json: the committed one, byte for byte"; \
	  else echo "its results.json differs from the committed one"; exit 1; fi

# Raw format 4's bytes per request against the processes' ns logs, per run of
# a few arms (tests/bench/bench_raw.sh: 15 s runs, the capacity arm 2 s).
bench-raw: $(PROGS)
	@test -f $(PREP)/test.tsv || $(PREPARE_ASIDE)
	BENCH_CORE=$(BENCH_CORE) bash tests/bench/bench_raw.sh

# The service's front door: 10,000 idle keep-alive connections, then 1,000
# half requests more, beside an open-loop client at 300/s; a fresh client
# beside the 10,000 idle and beside 20,000 half heads, more than the
# service's cap (tests/bench/bench_frontdoor.c).
bench-frontdoor: $(PROGS) $(BIN)/bench_frontdoor
	@test -f $(PREP)/test.tsv || $(PREPARE_ASIDE)
	$(BIN)/bench_frontdoor --core $(BENCH_CORE) --prep $(PREP) --bin $(BIN)

# Measure on a rented EC2 machine, step by step (README.md, "Measure on a
# rented machine"): make cloud-check, cloud-access MY_CIDR=a.b.c.d/32,
# cloud-launch, cloud-wait, cloud-setup, cloud-smoke, cloud-start, cloud-status,
# cloud-demo, cloud-fetch, cloud-delete, cloud-cost, cloud-clean; or all of them
# in one resumable command, make cloud-study MY_CIDR=a.b.c.d/32.  Settings (from the
# command line or the environment): INSTANCE_TYPE REGION AMI TAG MY_CIDR
# PRICE_PER_HOUR PROFILE OUT FORCE=1 SMOKE=0 (pipeline/cloud/cloud.sh's head lists them all).
CLOUD_STEPS := check access launch wait setup smoke start status demo fetch delete cost clean study
.PHONY: $(addprefix cloud-,$(CLOUD_STEPS))
$(addprefix cloud-,$(CLOUD_STEPS)):
	@bash pipeline/cloud/cloud.sh $(@:cloud-%=%)

quick:
	$(MAKE) all PROFILE=quick OUT=$(B)/quick

# The rare events at full length: H3-none and the 450/s arms, 9 rounds of 30 s
# (the floods profile of data/profiles.tsv)
floods:
	$(MAKE) all PROFILE=floods OUT=$(B)/floods

# build/cloud/ (CLOUD_DIR: the rented machines' private key, instance ids
# and the studies fetched) is never removed here: a machine it lists may
# still run and bill.  make cloud-clean removes it once nothing is alive.
clean:
	@if [ -d $(B)/cloud ]; then \
	    find $(B) -mindepth 1 -maxdepth 1 ! -name cloud -exec rm -rf {} + && \
	    echo "make clean: removed $(B)/ but $(B)/cloud/ (a rented machine's key, its instance ids, the studies" \
	        "fetched: make cloud-clean removes it once nothing it lists is alive)"; \
	else rm -rf $(B); fi
