/*
 * dwarf_lines.c: native functions' declaration lines from DWARF, through libdw opened with
 * dlopen (dwarf_lines.h).
 *
 * libdw is not linked: it is an optional runtime dependency (libdw1, from elfutils), loaded
 * the first time a function of the report is in a file with debug information, so that
 * start-up and a machine or a run without debug information never pay for it (it brings libelf, zlib, bzip2, lzma and
 * zstd). Its few types and functions are declared here by hand from elfutils' libdw.h
 * (stable since 0.1xx: Dwarf_Die is four words), so building needs no libdw-dev.
 *
 * Lookup: the compile unit holding the address (dwarf_addrdie, from .debug_aranges; where a
 * file has none, each unit's ranges in turn), then the DW_TAG_subprogram among its children
 * (or inside namespaces and classes) whose ranges hold it: the concrete function, never an
 * inlined callee's (dwarf_getscopes would give the inlined function's abstract scopes).
 */
#include "config.h"
#include "source/elf/dwarf_lines.h"
#include "source/elf/elf_file.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- libdw, declared by hand (elfutils libdw.h) ---- */

typedef struct Dwarf Dwarf;
typedef uint64_t Dwarf_Addr;
typedef uint64_t Dwarf_Off;
/* libdw's own is { void *addr; struct Dwarf_CU *cu; Dwarf_Abbrev *abbrev; long padding__; }:
 * filled and read by libdw only, so four words of the same size and alignment stand for it. */
typedef void *Dwarf_Die[4];

#define DWARF_C_READ 0
#define DW_TAG_class_type 0x02
#define DW_TAG_structure_type 0x13
#define DW_TAG_subprogram 0x2e
#define DW_TAG_namespace 0x39
#define DW_TAG_module 0x1e

static struct {
	Dwarf *(*begin)(int fd, int cmd);
	int (*end)(Dwarf *dbg);
	Dwarf_Die *(*addrdie)(Dwarf *dbg, Dwarf_Addr addr, Dwarf_Die *result);
	int (*nextcu)(Dwarf *dbg, Dwarf_Off off, Dwarf_Off *next, size_t *header_size, Dwarf_Off *abbrev,
		      uint8_t *address_size, uint8_t *offset_size);
	Dwarf_Die *(*offdie)(Dwarf *dbg, Dwarf_Off off, Dwarf_Die *result);
	int (*haspc)(Dwarf_Die *die, Dwarf_Addr pc);
	int (*child)(Dwarf_Die *die, Dwarf_Die *result);
	int (*siblingof)(Dwarf_Die *die, Dwarf_Die *result);
	int (*tag)(Dwarf_Die *die);
	const char *(*decl_file)(Dwarf_Die *die);
	int (*decl_line)(Dwarf_Die *die, int *line);
	void *(*getelf)(Dwarf *dbg);
	ssize_t (*gnu_build_id)(void *elf, const void **build_id);
} dw;

static int dw_state;   /* 0 not tried, 1 loaded, -1 unusable */
static char dw_why[160];

static bool dw_load(void)
{
	if (dw_state != 0)
		return dw_state > 0;
	dw_state = -1;
	void *lib = dlopen(CPW_DWARF_LINES_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		if (!e || strstr(e, "No such file"))
			snprintf(dw_why, sizeof(dw_why), "%s not found", CPW_DWARF_LINES_SONAME);
		else
			snprintf(dw_why, sizeof(dw_why), "%s could not be loaded (%s)", CPW_DWARF_LINES_SONAME, e);
		return false;
	}
	static const char *const names[] = { "dwarf_begin", "dwarf_end", "dwarf_addrdie", "dwarf_nextcu",
					     "dwarf_offdie", "dwarf_haspc", "dwarf_child", "dwarf_siblingof",
					     "dwarf_tag", "dwarf_decl_file", "dwarf_decl_line", "dwarf_getelf",
					     "dwelf_elf_gnu_build_id" };
	void **slots[] = { (void **)&dw.begin, (void **)&dw.end, (void **)&dw.addrdie, (void **)&dw.nextcu,
			   (void **)&dw.offdie, (void **)&dw.haspc, (void **)&dw.child, (void **)&dw.siblingof,
			   (void **)&dw.tag, (void **)&dw.decl_file, (void **)&dw.decl_line, (void **)&dw.getelf,
			   (void **)&dw.gnu_build_id };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		*slots[i] = dlsym(lib, names[i]);
		if (!*slots[i]) {
			snprintf(dw_why, sizeof(dw_why), "%s lacks %s", CPW_DWARF_LINES_SONAME, names[i]);
			dlclose(lib);
			memset(&dw, 0, sizeof(dw));
			return false;
		}
	}
	dw_state = 1;
	return true;
}

const char *cpw_dwarf_lines_why(void)
{
	return dw_state < 0 ? dw_why : NULL;
}

struct cpw_dwarf_lines {
	int fd;
	Dwarf *dbg;
};

/* DWARF of the file open at fd (taken), whose build-id must be bid where bid_len; NULL
 * otherwise (fd closed). */
static struct cpw_dwarf_lines *begin(int fd, const uint8_t *bid, size_t bid_len)
{
	Dwarf *dbg = dw.begin(fd, DWARF_C_READ);
	if (!dbg) {
		close(fd);
		return NULL;
	}
	if (bid_len) {
		const void *got = NULL;
		void *elf = dw.getelf(dbg);
		ssize_t n = elf ? dw.gnu_build_id(elf, &got) : -1;
		if (n != (ssize_t)bid_len || memcmp(got, bid, bid_len) != 0) {
			dw.end(dbg);
			close(fd);
			return NULL;
		}
	}
	struct cpw_dwarf_lines *d = malloc(sizeof(*d));
	if (!d) {
		dw.end(dbg);
		close(fd);
		return NULL;
	}
	d->fd = fd;
	d->dbg = dbg;
	return d;
}

int cpw_dwarf_lines_open(int root_fd, const char *proc_root, pid_t pid, const char *path, const uint8_t *build_id,
			 size_t build_id_len, bool has_debug, struct cpw_dwarf_lines **out)
{
	*out = NULL;
	if (has_debug) {
		if (!dw_load())
			return -ENOSYS;
		int fd = cpw_elf_file_open_in(root_fd, proc_root, pid, path);
		if (fd >= 0 && (*out = begin(fd, build_id, build_id_len)) != NULL)
			return 0;
	}
	char dbg[96];
	if (!cpw_elf_file_debug_path(build_id, build_id_len, dbg, sizeof(dbg)))
		return -ENODATA;
	int fd = cpw_elf_file_open_in(root_fd, proc_root, pid, dbg);
	if (fd < 0)
		return -ENODATA;
	if (!dw_load()) {
		close(fd);
		return -ENOSYS;
	}
	*out = begin(fd, build_id, build_id_len);
	return *out ? 0 : -ENODATA;
}

void cpw_dwarf_lines_close(struct cpw_dwarf_lines *d)
{
	if (!d)
		return;
	dw.end(d->dbg);
	close(d->fd);
	free(d);
}

/* The subprogram among parent's children (through namespaces and classes, depth-bounded)
 * whose ranges hold pc. */
static bool find_subprogram(Dwarf_Die *parent, Dwarf_Addr pc, int depth, Dwarf_Die *out)
{
	Dwarf_Die die;
	if (depth > 8 || dw.child(parent, &die) != 0)
		return false;
	do {
		int tag = dw.tag(&die);
		if (tag == DW_TAG_subprogram) {
			if (dw.haspc(&die, pc) == 1) {
				memcpy(out, &die, sizeof(die));
				return true;
			}
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
			   tag == DW_TAG_module) {
			if (find_subprogram(&die, pc, depth + 1, out))
				return true;
		}
	} while (dw.siblingof(&die, &die) == 0);
	return false;
}

/* The compile unit whose ranges hold pc, where .debug_aranges is missing (clang's default). */
static bool find_unit(Dwarf *dbg, Dwarf_Addr pc, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	for (int k = 0; k < 100000 && dw.nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0; k++, off = next)
		if (dw.offdie(dbg, off + hsize, cu) && dw.haspc(cu, pc) == 1)
			return true;
	return false;
}

bool cpw_dwarf_lines_decl(struct cpw_dwarf_lines *d, uint64_t vaddr, char *out, size_t len)
{
	Dwarf_Die cu, fn;
	if (!d || (!dw.addrdie(d->dbg, vaddr, &cu) && !find_unit(d->dbg, vaddr, &cu)))
		return false;
	if (!find_subprogram(&cu, vaddr, 0, &fn))
		return false;
	const char *file = dw.decl_file(&fn);
	int line = 0;
	if (!file || dw.decl_line(&fn, &line) != 0 || line <= 0)
		return false;
	const char *slash = strrchr(file, '/');
	const char *base = slash && slash[1] ? slash + 1 : file;
	int w = snprintf(out, len, "%s:%d", base, line);
	return w > 0 && (size_t)w < len;
}
