# appio: one non-recursive Makefile.
#   make            build ./appio
#   make test       build, then run every unit and end-to-end test
#   make asan       build ./appio-asan and run the whole suite under ASan+UBSan
#   make tsan       build ./appio-tsan and run the multi-threaded tests under TSan
#   make fuzz       build the fuzz targets of tests/fuzz (clang, libFuzzer), run
#                   each for FUZZ_TIME seconds (a trace reader's for FUZZ_TRACE_TIME)
#                   and replay its regression inputs
#   make bench      appio against fio side by side (scripts/bench-vs-fio.sh)
#   make install    install to $(PREFIX): bin/appio, its manual page, bash completion
#   make check      the README's test command: install missing Debian packages
#                   (needs root), then the -O2 build and its unit tests, make
#                   asan (every test), make tsan and a short make fuzz; each
#                   end-to-end test runs once, in the asan pass (see README)

CC       ?= cc
PREFIX   ?= /usr/local
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-missing-field-initializers
STD      := -std=c11 -D_GNU_SOURCE -pthread
# Include paths show the layers: everything sees the public contracts in
# include/; emulators also see each other's shared pieces (e.g. sysbench/);
# the core sees no plugin; unit tests see all three.
CPPFLAGS += -Iinclude -MMD -MP
LDLIBS   := -pthread -lm

BUILD    ?= build
BIN      ?= appio

# Optional libraries: each one found adds a define and its flags, and the
# plugins built on it join the registries (see src/registry.c).
pc = $(shell pkg-config --exists $(1) 2>/dev/null && echo yes)

ifeq ($(call pc,liburing),yes)
  CPPFLAGS += -DHAVE_LIBURING $(shell pkg-config --cflags liburing)
  LDLIBS   += $(shell pkg-config --libs liburing)
endif
# libaio ships no .pc file: probe by compiling.
HAVE_LIBAIO := $(shell printf '\043include <libaio.h>\nint main(void){io_context_t c=0;return io_setup(1,&c);}\n' | \
                 $(CC) -x c - -laio -o /dev/null 2>/dev/null && echo yes)
ifeq ($(HAVE_LIBAIO),yes)
  CPPFLAGS += -DHAVE_LIBAIO
  LDLIBS   += -laio
endif
ifeq ($(call pc,blkid),yes)
  CPPFLAGS += -DHAVE_BLKID $(shell pkg-config --cflags blkid)
  LDLIBS   += $(shell pkg-config --libs blkid)
endif
ifeq ($(call pc,sqlite3),yes)
  CPPFLAGS += -DHAVE_SQLITE $(shell pkg-config --cflags sqlite3)
  LDLIBS   += $(shell pkg-config --libs sqlite3)
endif
ifeq ($(call pc,libpq),yes)
  CPPFLAGS += -DHAVE_PGSQL $(shell pkg-config --cflags libpq)
  LDLIBS   += $(shell pkg-config --libs libpq)
endif
# jansson reads result documents back (appio report, appio compare): required.
ifeq ($(call pc,jansson),yes)
  CPPFLAGS += $(shell pkg-config --cflags jansson)
  LDLIBS   += $(shell pkg-config --libs jansson)
else ifeq ($(filter check clean,$(MAKECMDGOALS)),)
  $(error jansson not found: run scripts/install-deps.sh (Debian package libjansson-dev))
endif
# zlib reads gzip-compressed traces (the bundled ones): required.
ifeq ($(call pc,zlib),yes)
  CPPFLAGS += $(shell pkg-config --cflags zlib)
  LDLIBS   += $(shell pkg-config --libs zlib)
else ifeq ($(filter check clean,$(MAKECMDGOALS)),)
  $(error zlib not found: run scripts/install-deps.sh (Debian package zlib1g-dev))
endif
# libtracefs (with libtraceevent) lets 'appio trace record' capture block requests.
ifeq ($(call pc,libtracefs),yes)
  CPPFLAGS += -DHAVE_TRACEFS $(shell pkg-config --cflags libtracefs libtraceevent)
  LDLIBS   += $(shell pkg-config --libs libtracefs libtraceevent)
endif
# Open MPI: scale-out under mpirun (src/mpi_run.c, docs/scale-out.md). Optional:
# without it src/mpi_run.h stubs say "one process". MPI=0 leaves it out even
# when found; a change of MPI rebuilds every object (the stamp below).
MPI ?= $(if $(call pc,ompi-c),1,0)
ifeq ($(MPI),1)
  # its headers as system headers: our warnings are for our code
  CPPFLAGS += -DHAVE_MPI $(patsubst -I%,-isystem %,$(shell pkg-config --cflags ompi-c))
  LDLIBS   += $(shell pkg-config --libs ompi-c)
endif
MYSQL_PC := $(firstword $(foreach p,libmariadb mysqlclient,$(if $(call pc,$(p)),$(p))))
ifneq ($(MYSQL_PC),)
  CPPFLAGS += -DHAVE_MYSQL $(shell pkg-config --cflags $(MYSQL_PC))
  LDLIBS   += $(shell pkg-config --libs $(MYSQL_PC))
endif

SRCS      := $(filter-out $(if $(filter 1,$(MPI)),,src/mpi_run.c), \
               $(wildcard src/*.c emulators/*.c emulators/*/*.c traces/*.c))
LIB_SRCS  := $(filter-out src/main.c,$(SRCS))
OBJS      := $(SRCS:%.c=$(BUILD)/%.o)
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

# The gates for races and hostile input (README "Sanitizers and fuzzing").
TSAN_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
# unit tests and the end-to-end tests that run worker threads, briefly
TSAN_TESTS  ?= unit/ t0200 t0300 t0800 t0810 t0820 t0910
FUZZ_CC     ?= clang
FUZZ_SAN    := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
FUZZ_TIME   ?= 20
# seconds for each trace reader's target (one per format, from tests/fuzz/trace.c)
FUZZ_TRACE_TIME ?= 5
FUZZ_TRACES := $(shell sed -n 's/^\t&trace_fmt_\([a-z0-9_]*\),$$/\1/p' traces/registry.c)
FUZZ_SRCS   := $(filter-out tests/fuzz/trace.c,$(wildcard tests/fuzz/*.c))
FUZZ_BINS   := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%) $(FUZZ_TRACES:%=$(BUILD)/fuzz/trace-%)
# the result target draws no chart: gnuplot is a child process, not a parser
FUZZ_LDFLAGS_result := -Wl,--wrap=chart_figure

.PHONY: all test unit asan tsan fuzz fuzz-bins bench install check clean
all: $(BIN)

$(BIN): $(OBJS)
	$(CC) $(CFLAGS) $(STD) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/emulators/%.o: CPPFLAGS += -Iemulators

MPI_STAMP := $(BUILD)/mpi-$(MPI).stamp
$(MPI_STAMP):
	@mkdir -p $(BUILD)
	@rm -f $(BUILD)/mpi-*.stamp
	@touch $@

$(BUILD)/%.o: %.c $(MPI_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(CPPFLAGS) $(WARN) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(CPPFLAGS) $(WARN) $(CFLAGS) -Isrc -Iemulators -Itraces -Itests/unit -o $@ $< $(LIB_OBJS) $(LDFLAGS) $(LDLIBS)

# The fault-injection shim the e2e tests preload (tests/fault/fault.c): plain
# flags, no sanitizer, so that it loads into any build of appio.
FAULT_SO := $(BUILD)/tests/fault.so
$(FAULT_SO): tests/fault/fault.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g -fPIC -shared $(WARN) -o $@ $< -ldl

unit: $(UNIT_BINS) $(FAULT_SO)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(CPPFLAGS) -Isrc -Iemulators $(WARN) $(CFLAGS) -fsanitize=fuzzer -o $@ $< \
	  $(LIB_OBJS) $(LDFLAGS) $(FUZZ_LDFLAGS_$*) $(LDLIBS)

# a static pattern: the .d files beside these binaries must not match it
$(FUZZ_TRACES:%=$(BUILD)/fuzz/trace-%): $(BUILD)/fuzz/trace-%: tests/fuzz/trace.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(CPPFLAGS) -DTRACE_FORMAT='"$*"' $(WARN) $(CFLAGS) -fsanitize=fuzzer -o $@ $< \
	  $(LIB_OBJS) $(LDFLAGS) $(LDLIBS)

fuzz-bins: $(FUZZ_BINS)

test: $(BIN) unit
	APPIO=$(CURDIR)/$(BIN) UNIT_DIR=$(CURDIR)/$(BUILD)/tests tests/run.sh

asan:
	$(MAKE) BUILD=build/asan BIN=appio-asan \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" test

# A race stops the program (exit 66) and so fails its test.
tsan:
	$(MAKE) BUILD=build/tsan BIN=appio-tsan CFLAGS="$(TSAN_CFLAGS)" \
	  LDFLAGS="-fsanitize=thread" appio-tsan unit
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" APPIO=$(CURDIR)/appio-tsan \
	  UNIT_DIR=$(CURDIR)/build/tsan/tests ONLY="$(TSAN_TESTS)" tests/run.sh

fuzz:
	$(MAKE) CC=$(FUZZ_CC) BUILD=build/fuzz \
	  CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
	  LDFLAGS="$(FUZZ_SAN)" fuzz-bins
	tests/fuzz/run.sh build/fuzz/fuzz $(FUZZ_TIME) $(FUZZ_TRACE_TIME)

bench: $(BIN)
	scripts/bench-vs-fio.sh

# make check runs each end-to-end test once, in the ASan pass: it runs every
# test the plain build runs, with the same assertions, and a memory error or
# undefined behaviour fails it too (the database-server tests are the only ones
# that reach the MySQL and PostgreSQL client code). Run in both, the
# end-to-end tests took the whole of make check past its 15 minutes. The plain
# pass builds the -O2 binary with -Werror and runs the unit tests against it.

# Two tests at a time (tests/run.sh JOBS): most of a test's time is appio
# running for a set time, so two share the two cores; the tests that count
# what a block device did still run alone.
CHECK_JOBS ?= 2
# the longest of them start first, so that the short ones fill the end
CHECK_FIRST := t0650 t0620 t1100 t0500 t0510 t0200 t0610 t0700

# Each pass says how long it took (its build included), so that the one that
# grows shows.
check_pass = s=$$(date +%s); $(1) && echo "make check: $(2) pass took $$(( $$(date +%s) - s )) s"

check:
	scripts/install-deps.sh --test
	@$(call check_pass,ONLY=unit/ JOBS=$(CHECK_JOBS) $(MAKE) test,plain)
	@$(call check_pass,JOBS=$(CHECK_JOBS) FIRST="$(CHECK_FIRST)" $(MAKE) asan,ASan)
	@$(call check_pass,JOBS=$(CHECK_JOBS) $(MAKE) tsan,TSan)
	@$(call check_pass,$(MAKE) fuzz FUZZ_TIME=10,fuzz)

# the manual page and the bash completion are printed by the binary from its own
# tables; the bundled traces go where --trace NAME looks for them
install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/appio
	./$(BIN) man > $(BUILD)/appio.1
	install -D -m 0644 $(BUILD)/appio.1 $(DESTDIR)$(PREFIX)/share/man/man1/appio.1
	./$(BIN) completion bash > $(BUILD)/appio.bash
	install -D -m 0644 $(BUILD)/appio.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/appio
	for f in traces/*.trace.gz; do [ ! -e "$$f" ] || \
	  install -D -m 0644 "$$f" "$(DESTDIR)$(PREFIX)/share/appio/$$f" || exit 1; done

clean:
	rm -rf build $(BIN) appio-asan appio-tsan

-include $(OBJS:.o=.d) $(UNIT_BINS:=.d)
-include $(FUZZ_BINS:=.d)
