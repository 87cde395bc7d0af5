# appio: one non-recursive Makefile.
#   make            build ./appio
#   make test       build, then run every unit and end-to-end test
#   make asan       build ./appio-asan and run the whole suite under ASan+UBSan
#   make bench      appio against fio side by side (scripts/bench-vs-fio.sh)
#   make install    install to $(PREFIX)/bin
#   make check      the README's test command: install missing Debian packages
#                   (needs root), then make test and make asan; the database-
#                   server tests run once, in the asan pass (see README)

CC       ?= cc
PREFIX   ?= /usr/local
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-missing-field-initializers
STD      := -std=c11 -D_GNU_SOURCE -pthread
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
MYSQL_PC := $(firstword $(foreach p,libmariadb mysqlclient,$(if $(call pc,$(p)),$(p))))
ifneq ($(MYSQL_PC),)
  CPPFLAGS += -DHAVE_MYSQL $(shell pkg-config --cflags $(MYSQL_PC))
  LDLIBS   += $(shell pkg-config --libs $(MYSQL_PC))
endif

SRCS      := $(wildcard src/*.c emulators/*.c emulators/*/*.c)
LIB_SRCS  := $(filter-out src/main.c,$(SRCS))
OBJS      := $(SRCS:%.c=$(BUILD)/%.o)
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all test unit asan bench install check clean
all: $(BIN)

$(BIN): $(OBJS)
	$(CC) $(CFLAGS) $(STD) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(CPPFLAGS) $(WARN) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(CPPFLAGS) $(WARN) $(CFLAGS) -Isrc -Itests/unit -o $@ $< $(LIB_OBJS) $(LDFLAGS) $(LDLIBS)

unit: $(UNIT_BINS)

test: $(BIN) unit
	APPIO=$(CURDIR)/$(BIN) UNIT_DIR=$(CURDIR)/$(BUILD)/tests tests/run.sh

asan:
	$(MAKE) BUILD=build/asan BIN=appio-asan \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" test

bench: $(BIN)
	scripts/bench-vs-fio.sh

check:
	scripts/install-deps.sh --test
	SKIP_TESTS=t0610-db-servers $(MAKE) test
	$(MAKE) asan

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/appio

clean:
	rm -rf build $(BIN) appio-asan

-include $(OBJS:.o=.d) $(UNIT_BINS:=.d)
