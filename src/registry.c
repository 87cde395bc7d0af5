/*
 * registry.c - the one table per plugin kind. 'appio list', --help and the
 * option parser all read these tables; a plugin whose library is missing at
 * build time is simply not listed.
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "appio/emulator.h"
#include "appio/engine.h"

extern const struct engine_ops engine_libaio, engine_io_uring, engine_threads, engine_null;
extern const struct emu_ops emu_profile;
extern const struct emu_ops emu_oltp, emu_tpcc;
extern const struct emu_ops emu_cache;
extern const struct emu_ops emu_nosql, emu_fileserver_fs, emu_webserver_fs, emu_mailserver_fs;
extern const struct emu_ops emu_db;
extern const struct emu_ops emu_replay;

const struct engine_ops *const engine_table[] = {
#ifdef HAVE_LIBAIO
	&engine_libaio,
#endif
#ifdef HAVE_LIBURING
	&engine_io_uring,
#endif
	&engine_sync,
	&engine_threads,
	&engine_null,
	NULL,
};

const struct emu_ops *const emulator_table[] = {
	&emu_profile,
	&emu_oltp,
	&emu_tpcc,
	&emu_nosql,
	&emu_cache,
	&emu_fileserver_fs,
	&emu_webserver_fs,
	&emu_mailserver_fs,
	&emu_db,
	&emu_replay,
	NULL,
};

/*
 * The block-level access specifications of the reference reviews
 * (docs/methodology.md section 1). Transfer-size mixes are the reviews' own.
 */
const struct emu_preset emu_preset_table[] = {
	{ "4k-randread", "profile", "--bs 4k --read 100 --random 100",
	  "4 KiB random reads" },
	{ "4k-randwrite", "profile", "--bs 4k --read 0 --random 100",
	  "4 KiB random writes" },
	{ "8k-randread", "profile", "--bs 8k --read 100 --random 100",
	  "8 KiB random reads" },
	{ "8k-randwrite", "profile", "--bs 8k --read 0 --random 100",
	  "8 KiB random writes" },
	{ "8k-70-30", "profile", "--bs 8k --read 70 --random 100",
	  "8 KiB random, 70% read / 30% write" },
	{ "128k-seqread", "profile", "--bs 128k --read 100 --random 0",
	  "128 KiB sequential reads" },
	{ "128k-seqwrite", "profile", "--bs 128k --read 0 --random 0",
	  "128 KiB sequential writes" },
	{ "database", "profile", "--bs 8k --read 67 --random 100",
	  "database/OLTP: 8 KiB random, 67% read" },
	{ "email", "profile", "--bs 8k --read 50 --random 100",
	  "email server: 8 KiB random, 50% read" },
	{ "fileserver", "profile",
	  "--bs 512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10 --read 80 --random 100",
	  "file server: 512 B-64 KiB mix (mean 11,346 B), 80% read" },
	{ "webserver", "profile",
	  "--bs 512/22:1k/15:2k/8:4k/23:8k/15:16k/2:32k/6:64k/7:128k/1:512k/1 --read 100 --random 100",
	  "web server: 512 B-512 KiB mix (mean 16,036 B), 100% read" },
	{ "custom", "profile", "",
	  "your own access spec: --bs, --read, --random, --dist, --align" },
	{ NULL, NULL, NULL, NULL },
};

const struct engine_ops *engine_find(const char *name)
{
	for (const struct engine_ops *const *e = engine_table; *e; e++)
		if (!strcmp((*e)->name, name))
			return *e;
	return NULL;
}

const struct engine_ops *engine_default(void)
{
	const struct engine_ops *e = engine_find("libaio");
	return e ? e : &engine_sync;
}

const struct emu_ops *emulator_find(const char *name)
{
	for (const struct emu_ops *const *e = emulator_table; *e; e++)
		if (!strcmp((*e)->name, name))
			return *e;
	return NULL;
}

bool emulator_option_is_secret(const char *name, size_t len)
{
	for (const struct emu_ops *const *e = emulator_table; *e; e++)
		if (opt_secret_in((*e)->opts, name, len))
			return true;
	return false;
}

const struct emu_preset *emu_preset_find(const char *name)
{
	for (const struct emu_preset *p = emu_preset_table; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

/* Append @name to the comma list in @buf when it begins with, or holds, @word. */
static void add_like(const char *word, const char *name, bool prefix, char *buf, size_t len)
{
	size_t n = strlen(buf);
	bool like = prefix ? !strncasecmp(name, word, strlen(word)) :
		strcasestr(name, word) && strncasecmp(name, word, strlen(word));

	if (like && n + strlen(name) + 3 < len)
		snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
}

void emu_names_like(const char *word, char *buf, size_t len)
{
	if (!len)
		return;
	buf[0] = '\0';
	if (!word[0])
		return;
	for (int prefix = 1; prefix >= 0; prefix--) {
		for (const struct emu_preset *p = emu_preset_table; p->name; p++)
			add_like(word, p->name, prefix, buf, len);
		for (const struct emu_ops *const *e = emulator_table; *e; e++)
			add_like(word, (*e)->name, prefix, buf, len);
	}
}

const char *io_op_name(unsigned op)
{
	static const char *const names[] = { "read", "write", "fsync", "fdatasync", "discard" };
	return op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}
