/*
 * sample_maps.c: the watched processes' executable mappings and the files they map, and
 * the turning of a sample's addresses into named frames (sample_private.h).
 *
 * A process's mappings come from its MMAP2 records, a child's from its parent's at the
 * FORK, and what was mapped before the events were armed from /proc/PID/maps (its
 * executable mappings through PROCMAP_QUERY where the kernel has it, else its text) at the
 * arming for processes that were running (cpw_sampler_prime()), else the first time one
 * of its samples is seen. An exec (COMM with the exec flag) empties them. The
 * files are shared between processes and read once, when a frame first falls in them.
 * Everything is bounded: processes, mappings per process, files.
 */
#include "config.h"
#include "source/sample/sample_private.h"
#include "source/sample/kallsyms.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/elf/dwarf_lines.h"
#include "source/elf/elf_file.h"
#include "source/elf/elf_symbols.h"
#include "source/kernel/kfile.h"

#define PROCS_MAX 4096
#define MAPS_MAX 1024      /* executable mappings per process */
#define FILES_MAX 1024
#define JIT_SYMS_MAX 200000
#define JIT_REREAD_S 1.0   /* a JIT writes its map as it goes: read again at most this often */
#define PATH_LEN 512
#define ROOTS_MAX 16       /* containers' root directories held open for the source lines */

struct mapped_file {
	char path[PATH_LEN];
	const char *base;
	uint8_t build_id[20];
	uint8_t build_id_len;
	uint64_t ino;
	enum cpw_code_kind kind;
	int state;              /* 0 not read yet, 1 read, -1 unreadable */
	pid_t reader;           /* a process that maps it, to read it through its root */
	struct cpw_elf_info elf;
	bool no_lines;          /* its debug information was looked for: none, or no libdw */
	int8_t root;            /* index in the held roots: read in a container; -1 not */
	uint16_t below_root;    /* leading characters of path that name the reader's root as
				 * cperfwatch sees it (cpw_elf_file_root_prefix): opened without */
};

struct mapping {
	uint64_t start, end, pgoff;
	int file;               /* index in files; -1 anonymous (JIT code) */
};

struct proc {
	pid_t pid;
	bool used, maps_read, dead;
	char comm[16];
	struct mapping *maps;
	size_t nmaps;
	struct cpw_perf_map jit;
	double jit_read_s;      /* when the perf map was last read; 0 never */
};

#define KALLSYMS_AFTER_SAMPLES 50

/* PROCMAP_QUERY (Linux 6.11, <linux/fs.h>), declared here as the kernel lays it out:
 * Debian 12's headers are 6.1's. An ioctl on /proc/PID/maps that gives the first mapping at
 * or after an address with the flags asked for, its file's name into a buffer. */
struct cpw_procmap_query { /* the kernel's layout: not every field is used here */
	// cppcheck-suppress unusedStructMember
	uint64_t size, query_flags, query_addr;
	// cppcheck-suppress unusedStructMember
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	// cppcheck-suppress unusedStructMember
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	// cppcheck-suppress unusedStructMember
	uint64_t vma_name_addr, build_id_addr;
};
#define CPW_PROCMAP_QUERY _IOWR('f', 17, struct cpw_procmap_query)
#define CPW_PROCMAP_EXECUTABLE 0x04
#define CPW_PROCMAP_COVERING_OR_NEXT 0x10

struct cpw_symtab {
	const char *proc_root;
	bool maps_text;         /* PROCMAP_QUERY is not there (an older kernel, a fixture root) */
	struct proc *procs;     /* open addressing by pid */
	/* The slots in use, and how many of them hold an ended process: freeing the table and
	 * dropping the ended touch only these (the whole table is ~370 KB, most of it never
	 * written: a pass over it faulted in ~90 pages, 0.5 ms at each run's end). */
	uint16_t *used_slots;
	size_t nused, ndead;
	struct mapped_file *files;
	size_t nfiles;
	uint64_t cut_short, leaf_only, unresolved, unreadable;
	struct cpw_kallsyms kernel; /* read once the kernel is a real part of the samples */
	bool kernel_read;
	uint64_t kernel_samples;
	uint64_t kernel_unnamed; /* of them, named [kernel] */
	struct cpw_dwarf_lines *dwarf; /* the one file's debug information held open ... */
	int dwarf_file;         /* ... that of this file (index), -1 none */
	bool lines_no_libdw;    /* a file had debug information libdw was needed for */
	/* The root directories of the containers whose files were read (O_PATH descriptors):
	 * their source lines are read when the watch ends, after their processes. */
	struct held_root {
		dev_t dev;
		ino_t ino;
		int fd;
	} roots[ROOTS_MAX];
	size_t nroots;
	struct stat own_root;   /* cperfwatch's own "/": a root like it needs no holding */
	bool own_root_known;
	char scratch[CPW_STACK_MAX][96]; /* "[FILE]" names of the stack being built */
};

const char *cpw_sampler_code_kind_name(enum cpw_code_kind k)
{
	static const char *const names[CPW_CODE_KINDS] = { "native", "libc", "interpreter", "kernel",
							   "jit", "unknown", "python" };
	return (unsigned)k < CPW_CODE_KINDS ? names[k] : "unknown";
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum cpw_code_kind cpw_sample_code_kind_of_path(const char *path)
{
	if (path[0] == '\0' || starts(path, "//anon") || starts(path, "[anon") || starts(path, "/memfd:") ||
	    starts(path, "memfd:") || strcmp(path, "[heap]") == 0 || strcmp(path, "[stack]") == 0)
		return CPW_CODE_JIT;
	if (strcmp(path, "[vdso]") == 0 || strcmp(path, "[vsyscall]") == 0)
		return CPW_CODE_KERNEL;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (starts(base, "libc.so") || starts(base, "libc-") || starts(base, "ld-linux") ||
	    starts(base, "ld-2.") || starts(base, "ld64.so") || starts(base, "libm.so") ||
	    starts(base, "libpthread") || starts(base, "libdl.so") || starts(base, "ld-musl") ||
	    starts(base, "libc.musl"))
		return CPW_CODE_LIBC;
	if (starts(base, "libpython") || starts(base, "python") || starts(base, "libruby") ||
	    starts(base, "ruby") || starts(base, "libperl") || starts(base, "perl") ||
	    starts(base, "libjvm") || starts(base, "node") || starts(base, "libnode") ||
	    starts(base, "libluajit") || starts(base, "lua"))
		return CPW_CODE_INTERPRETER;
	return CPW_CODE_NATIVE;
}

bool cpw_sample_maps_parse_line(const char *line, struct cpw_maps_line *out)
{
	char perms[8];
	int path_at = 0;
	unsigned long long start, end, pgoff, ino;
	/* start-end perms offset dev inode path: most lines are not executable (a Python
	 * process's 6 of 43), and are passed over before sscanf, which took 1 us a line. */
	const char *sp = strchr(line, ' ');
	if (!sp || strnlen(sp, 4) < 4 || sp[3] != 'x')
		return false;
	if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %llu %n", &start, &end, perms, &pgoff, &ino,
		   &path_at) < 5 || path_at == 0)
		return false;
	if (strlen(perms) < 3 || perms[2] != 'x' || end <= start)
		return false;
	out->start = start;
	out->end = end;
	out->pgoff = pgoff;
	out->ino = ino;
	out->path = line + path_at;
	return true;
}

struct cpw_symtab *cpw_sample_symtab_new(const char *proc_root)
{
	struct cpw_symtab *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->procs = calloc(PROCS_MAX, sizeof(*t->procs));
	t->used_slots = malloc(PROCS_MAX * sizeof(*t->used_slots));
	t->files = calloc(FILES_MAX, sizeof(*t->files));
	if (!t->procs || !t->used_slots || !t->files) {
		cpw_sample_symtab_free(t);
		return NULL;
	}
	t->proc_root = proc_root ? proc_root : "/proc";
	t->dwarf_file = -1;
	return t;
}

static void proc_clear(struct proc *p)
{
	free(p->maps);
	cpw_elf_symbols_perf_map_free(&p->jit);
	memset(p, 0, sizeof(*p));
}

void cpw_sample_symtab_free(struct cpw_symtab *t)
{
	if (!t)
		return;
	if (t->procs)
		for (size_t i = 0; i < t->nused; i++)
			proc_clear(&t->procs[t->used_slots[i]]);
	if (t->files)
		for (size_t i = 0; i < t->nfiles; i++)
			cpw_elf_symbols_info_free(&t->files[i].elf);
	cpw_dwarf_lines_close(t->dwarf);
	for (size_t i = 0; i < t->nroots; i++)
		close(t->roots[i].fd);
	free(t->procs);
	free(t->used_slots);
	free(t->files);
	cpw_kallsyms_free(&t->kernel);
	free(t);
}

static struct proc *find_proc(struct cpw_symtab *t, pid_t pid, bool create)
{
	size_t h = ((uint32_t)pid * 2654435761u) % PROCS_MAX;
	for (size_t k = 0; k < PROCS_MAX; k++) {
		struct proc *p = &t->procs[(h + k) % PROCS_MAX];
		if (p->used && p->pid == pid)
			return p;
		if (!p->used) {
			if (!create)
				return NULL;
			p->used = true;
			p->pid = pid;
			t->used_slots[t->nused++] = (uint16_t)((h + k) % PROCS_MAX);
			return p;
		}
	}
	return NULL; /* full: its samples go unnamed */
}

/* The index of the file of path (and build-id or inode); -1 when the table is full. */
static int file_index(struct cpw_symtab *t, const char *path, const uint8_t *bid, uint8_t bid_len,
		      uint64_t ino, pid_t pid)
{
	for (size_t i = 0; i < t->nfiles; i++) {
		struct mapped_file *f = &t->files[i];
		if (strcmp(f->path, path) != 0)
			continue;
		if (bid_len && f->build_id_len ? f->build_id_len == bid_len && memcmp(f->build_id, bid, bid_len) == 0
		    : (!ino || !f->ino || f->ino == ino))
			return (int)i;
	}
	if (t->nfiles == FILES_MAX)
		return -1;
	struct mapped_file *f = &t->files[t->nfiles];
	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", path);
	const char *slash = strrchr(f->path, '/');
	f->base = slash && slash[1] ? slash + 1 : f->path;
	if (bid_len) {
		memcpy(f->build_id, bid, bid_len);
		f->build_id_len = bid_len;
	}
	f->ino = ino;
	f->root = -1;
	f->kind = cpw_sample_code_kind_of_path(path);
	f->reader = pid;
	return (int)t->nfiles++;
}

/* Adds a mapping, replacing what it overlaps. */
static void add_mapping(struct cpw_symtab *t, struct proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
			const char *path, const uint8_t *bid, uint8_t bid_len, uint64_t ino)
{
	enum cpw_code_kind kind = cpw_sample_code_kind_of_path(path);
	int file = kind == CPW_CODE_JIT ? -1 : file_index(t, path, bid, bid_len, ino, p->pid);
	if (kind != CPW_CODE_JIT && file < 0)
		return;
	size_t w = 0;
	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].end <= start || p->maps[i].start >= end)
			p->maps[w++] = p->maps[i];
	p->nmaps = w;
	if (p->nmaps == MAPS_MAX)
		return;
	if (!p->maps) {
		p->maps = malloc(MAPS_MAX * sizeof(*p->maps));
		if (!p->maps)
			return;
	}
	/* Kept sorted by start. */
	size_t at = p->nmaps;
	while (at > 0 && p->maps[at - 1].start > start) {
		p->maps[at] = p->maps[at - 1];
		at--;
	}
	p->maps[at] = (struct mapping){ start, end, pgoff, file };
	p->nmaps++;
}

/* p's executable mappings through PROCMAP_QUERY: one ioctl each, where the text formats
 * every mapping (a Python process has ~8 executable ones among ~130: 17-40 us here against
 * 55-160 for the text). 0, or -errno: -ENOTTY where the kernel has no such ioctl (or the
 * root is a fixture's), -ENAMETOOLONG for a name past 4 KiB (the text has it whole). */
static int query_maps(struct cpw_symtab *t, struct proc *p, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char name[4096];
	int rc = 0;
	for (uint64_t addr = 0;;) {
		struct cpw_procmap_query q = {
			.size = sizeof(q),
			.query_flags = CPW_PROCMAP_EXECUTABLE | CPW_PROCMAP_COVERING_OR_NEXT,
			.query_addr = addr,
			.vma_name_addr = (uint64_t)(uintptr_t)name,
			.vma_name_size = sizeof(name),
		};
		if (ioctl(fd, CPW_PROCMAP_QUERY, &q) < 0) {
			rc = errno == ENOENT ? 0 : -errno; /* ENOENT: none left */
			break;
		}
		if (q.vma_end <= addr || q.vma_end <= q.vma_start)
			break;
		add_mapping(t, p, q.vma_start, q.vma_end, q.vma_offset, q.vma_name_size ? name : "", NULL, 0, q.inode);
		addr = q.vma_end;
	}
	close(fd);
	return rc;
}

/* What a process mapped before the events were armed. */
static void read_maps(struct cpw_symtab *t, struct proc *p)
{
	char path[128], *text = NULL;
	p->maps_read = true;
	if (!p->comm[0]) { /* its name too: COMM records come only when it changes */
		char comm[32];
		snprintf(path, sizeof(path), "%s/%d/comm", t->proc_root, (int)p->pid);
		ssize_t c = cpw_kfile_read(path, comm, sizeof(comm));
		if (c > 0) {
			comm[strcspn(comm, "\n")] = '\0';
			snprintf(p->comm, sizeof(p->comm), "%s", comm);
		}
	}
	snprintf(path, sizeof(path), "%s/%d/maps", t->proc_root, (int)p->pid);
	int rc = t->maps_text ? -ENOTTY : query_maps(t, p, path);
	if (rc == -ENOTTY)
		t->maps_text = true;
	else if (rc != -ENAMETOOLONG)
		return;
	ssize_t n = cpw_kfile_read_alloc(path, &text);
	if (n <= 0) {
		free(text);
		return;
	}
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		struct cpw_maps_line m;
		if (cpw_sample_maps_parse_line(line, &m))
			add_mapping(t, p, m.start, m.end, m.pgoff, m.path, NULL, 0, m.ino);
	}
	free(text);
}

void cpw_sample_symtab_mmap(struct cpw_symtab *t, const struct cpw_rec *r)
{
	if (!(r->prot & 4 /* PROT_EXEC */))
		return;
	struct proc *p = find_proc(t, (pid_t)r->pid, true);
	if (!p || r->len == 0 || r->addr + r->len < r->addr)
		return;
	add_mapping(t, p, r->addr, r->addr + r->len, r->pgoff, r->filename, r->build_id, r->build_id_len, r->ino);
}

void cpw_sample_symtab_comm(struct cpw_symtab *t, const struct cpw_rec *r)
{
	if (r->pid != r->tid)
		return; /* a thread's name: the process keeps its main thread's */
	struct proc *p = find_proc(t, (pid_t)r->pid, true);
	if (!p)
		return;
	snprintf(p->comm, sizeof(p->comm), "%s", r->comm);
	if (r->misc & PERF_RECORD_MISC_COMM_EXEC) {
		/* A new program: its mappings follow as MMAP2 records. */
		p->nmaps = 0;
		p->maps_read = true;
		t->ndead -= p->dead;
		p->dead = false;
		cpw_elf_symbols_perf_map_free(&p->jit);
		p->jit_read_s = 0;
	}
}

void cpw_sample_symtab_fork(struct cpw_symtab *t, const struct cpw_rec *r)
{
	if (r->pid == r->ppid)
		return; /* a new thread shares its process's mappings */
	struct proc *parent = find_proc(t, (pid_t)r->ppid, false);
	struct proc *child = find_proc(t, (pid_t)r->pid, true);
	if (!child)
		return;
	if (child->dead) { /* a reused pid */
		pid_t pid = child->pid;
		proc_clear(child);
		child->used = true;
		child->pid = pid;
		t->ndead--;
	}
	if (!parent || parent == child)
		return;
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	child->maps_read = true;
	if (parent->nmaps && !child->maps) {
		child->maps = malloc(MAPS_MAX * sizeof(*child->maps));
		if (!child->maps)
			return;
	}
	if (parent->nmaps)
		memcpy(child->maps, parent->maps, parent->nmaps * sizeof(*parent->maps));
	child->nmaps = parent->nmaps;
}

void cpw_sample_symtab_exit(struct cpw_symtab *t, const struct cpw_rec *r)
{
	if (r->pid != r->tid)
		return;
	struct proc *p = find_proc(t, (pid_t)r->pid, false);
	if (p && !p->dead) {
		p->dead = true;
		t->ndead++;
	}
}

void cpw_sample_symtab_end_drain(struct cpw_symtab *t)
{
	/* Removing from open addressing: the table is rebuilt without the dead ones. */
	if (t->ndead == 0)
		return;
	struct proc *old = t->procs;
	struct proc *fresh = calloc(PROCS_MAX, sizeof(*fresh));
	if (!fresh)
		return;
	t->procs = fresh;
	size_t nold = t->nused;
	uint16_t old_slots[PROCS_MAX];
	memcpy(old_slots, t->used_slots, nold * sizeof(*old_slots));
	t->nused = t->ndead = 0;
	for (size_t i = 0; i < nold; i++) {
		struct proc *o = &old[old_slots[i]];
		if (o->dead) {
			proc_clear(o);
			continue;
		}
		struct proc *p = find_proc(t, o->pid, true);
		if (p)
			*p = *o;
	}
	free(old);
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const struct mapping *find_mapping(const struct proc *p, uint64_t addr)
{
	size_t lo = cpw_elf_symbols_sorted_upper(p->maps, p->nmaps, sizeof(*p->maps), offsetof(struct mapping, start), addr);
	if (lo > 0 && addr < p->maps[lo - 1].end)
		return &p->maps[lo - 1];
	return NULL;
}

/* The index of the root directory of process pid, held open where it is not cperfwatch's
 * own (a container, a chroot); -1 where it is the same, or cannot be held. */
static int8_t hold_root(struct cpw_symtab *t, pid_t pid)
{
	if (!t->own_root_known) {
		t->own_root_known = true;
		if (stat("/", &t->own_root) < 0)
			memset(&t->own_root, 0, sizeof(t->own_root));
	}
	char path[128];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%d/root", t->proc_root, (int)pid);
	if (stat(path, &st) < 0 || (st.st_dev == t->own_root.st_dev && st.st_ino == t->own_root.st_ino))
		return -1;
	for (size_t i = 0; i < t->nroots; i++)
		if (t->roots[i].dev == st.st_dev && t->roots[i].ino == st.st_ino)
			return (int8_t)i;
	if (t->nroots == ROOTS_MAX)
		return -1;
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	t->roots[t->nroots] = (struct held_root){ st.st_dev, st.st_ino, fd };
	return (int8_t)t->nroots++;
}

/* Reads the vDSO of mapping m of process p from its memory, or, where it has ended (its
 * last samples drained after its exit), from cperfwatch's own: the kernel maps the same
 * image into every process of an architecture, and one of another (a 32-bit process's)
 * has another size, which the read or the parse refuses. */
static int load_vdso(struct cpw_symtab *t, const struct proc *p, const struct mapping *m, struct cpw_elf_info *elf,
		     char *why, size_t len)
{
	uint64_t size = m->end - m->start + m->pgoff;
	if (cpw_elf_file_load_memory(t->proc_root, p->pid, m->start - m->pgoff, size, elf, why, len) == 0)
		return 0;
	unsigned long own = getauxval(AT_SYSINFO_EHDR);
	if (!own || strcmp(t->proc_root, "/proc") != 0)
		return -1;
	return cpw_elf_file_load_memory("/proc", getpid(), own, size, elf, why, len);
}

/* Reads the file of mapping m of process p. The vDSO, which no file holds, is read from
 * memory (load_vdso()), once. */
static void load_file(struct cpw_symtab *t, struct mapped_file *f, const struct proc *p, const struct mapping *m)
{
	char why[600];
	if (strcmp(f->path, "[vdso]") == 0)
		f->state = load_vdso(t, p, m, &f->elf, why, sizeof(why)) == 0 ? 1 : -1;
	else
		f->state = cpw_elf_file_load(t->proc_root, f->reader, f->path, f->build_id, f->build_id_len, f->ino,
					     &f->elf, why, sizeof(why)) == 0 ? 1 : -1;
	if (f->state < 0) {
		t->unreadable++;
	} else if (f->elf.has_debug_info || f->elf.build_id_len) {
		f->root = hold_root(t, f->reader);
		/* Its lines are read through the held root, maybe after the process ended: by the
		 * path below that root where the kernel wrote it from cperfwatch's side. */
		if (f->root >= 0)
			f->below_root = (uint16_t)cpw_elf_file_root_prefix(t->proc_root, f->reader, f->path);
	}
}

/* Names the frame at addr (a return address when caller: looked up one byte before, inside
 * the call). False when no mapping holds it. */
static bool name_frame(struct cpw_symtab *t, struct proc *p, uint64_t addr, bool caller, struct cpw_frame *fr,
		       char *scratch, size_t len)
{
	uint64_t look = caller && addr ? addr - 1 : addr;
	const struct mapping *m = p ? find_mapping(p, look) : NULL;
	if (!m)
		return false;
	if (m->file < 0) {
		double now = mono_now();
		if (p->jit_read_s == 0 || now - p->jit_read_s >= JIT_REREAD_S) {
			/* The last map read stays until a newer one is: a JIT may remove its map
			 * as it exits, before its last samples are named. */
			struct cpw_perf_map fresh;
			if (cpw_elf_file_perf_map_load(t->proc_root, p->pid, JIT_SYMS_MAX, &fresh) >= 0) {
				cpw_elf_symbols_perf_map_free(&p->jit);
				p->jit = fresh;
			} else {
				cpw_elf_symbols_perf_map_free(&fresh);
			}
			p->jit_read_s = now;
		}
		const struct cpw_jit_sym *js = cpw_elf_symbols_perf_map_lookup(&p->jit, look);
		fr->kind = CPW_CODE_JIT;
		fr->file = "[jit]";
		if (js) {
			fr->func = p->jit.names + js->name;
		} else {
			fr->func = "[jit]"; /* no name for it: JIT code as one (see below) */
		}
		return true;
	}
	struct mapped_file *f = &t->files[m->file];
	if (f->state == 0)
		load_file(t, f, p, m);
	uint64_t off = look - m->start + m->pgoff, vaddr;
	fr->kind = f->kind;
	fr->file = f->base;
	const struct cpw_elf_sym *s = NULL;
	if (f->state > 0 && cpw_elf_offset_to_vaddr(&f->elf, off, &vaddr))
		s = cpw_elf_symbols_lookup(&f->elf, vaddr);
	if (s) {
		fr->func = cpw_elf_sym_name(&f->elf, s);
	} else {
		/* No symbol holds it: the file's code without symbols, one frame per file
		 * ("[libz.so.1.2.13]", as stackcollapse-perf names it), never the nearest name.
		 * Per address, a stripped library's time came apart into rows of 2-9% each, and
		 * the advice named a 12% function over a library that took 43%. */
		snprintf(scratch, len, f->base[0] == '[' ? "%s" : "[%s]", f->base);
		fr->func = scratch;
	}
	return true;
}

void cpw_sample_symtab_prime(struct cpw_symtab *t, pid_t pid)
{
	struct proc *p = find_proc(t, pid, true);
	if (p && !p->maps_read)
		read_maps(t, p);
}

bool cpw_sample_symtab_resolve(struct cpw_symtab *t, const struct cpw_rec *r, struct cpw_stack *st)
{
	struct proc *p = find_proc(t, (pid_t)r->pid, true);
	if (p && !p->maps_read)
		read_maps(t, p);
	st->pid = (pid_t)r->pid;
	st->tid = (pid_t)r->tid;
	st->comm = p && p->comm[0] ? p->comm : "?";
	st->mono_s = (double)r->time / 1e9;
	st->nframes = 0;
	st->cut_short = false;
	bool in_kernel = false, kernel_frame_added = false, user_seen = false;
	int user_frames = 0;
	/* The chain holds the sampled address first; without one, the sample's own ip. */
	uint64_t n = r->nr ? r->nr : 1;
	for (uint64_t i = 0; i < n && st->nframes < CPW_STACK_MAX; i++) {
		uint64_t ip = r->nr ? cpw_sample_rec_ip(r, i) : r->ip;
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			in_kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		struct cpw_frame *fr = &st->frames[st->nframes];
		if (in_kernel || (int64_t)ip < 0) {
			if (!kernel_frame_added) { /* the kernel's frames are one: where it ran for the task */
				/* The table costs ~2.5 MB and ~80 ms (a 6.x kernel's 64,000
				 * functions, most of it the kernel's making of the file's text):
				 * read once the tree has spent half a second in the kernel (at the
				 * default 99 Hz), not for a few wake-ups; the samples before it
				 * stay [kernel]. */
				if (!t->kernel_read && ++t->kernel_samples >= KALLSYMS_AFTER_SAMPLES) {
					t->kernel_read = true;
					cpw_kallsyms_load(t->proc_root, &t->kernel); /* empty where hidden */
				}
				const char *name = cpw_kallsyms_lookup(&t->kernel, ip);
				if (!name)
					t->kernel_unnamed++;
				fr->func = name ? name : "[kernel]";
				fr->file = "[kernel]";
				fr->kind = CPW_CODE_KERNEL;
				st->nframes++;
				kernel_frame_added = true;
			}
			continue;
		}
		bool caller = user_seen;
		user_seen = true;
		if (!name_frame(t, p, ip, caller, fr, t->scratch[st->nframes], sizeof(t->scratch[0]))) {
			if (user_frames == 0) {
				t->unresolved++;
				fr->func = "[unknown]";
				fr->file = "[unknown]";
				fr->kind = CPW_CODE_UNKNOWN;
				st->nframes++;
				user_frames++;
			} else if (ip != 0) {
				st->cut_short = true;
			}
			break; /* a frame pointer that led nowhere: what follows is not a chain */
		}
		st->nframes++;
		user_frames++;
	}
	if (st->cut_short)
		t->cut_short++;
	else if (user_frames == 1)
		t->leaf_only++;
	return st->nframes > 0;
}

void cpw_sample_symtab_lines_done(struct cpw_symtab *t)
{
	cpw_dwarf_lines_close(t->dwarf);
	t->dwarf = NULL;
	t->dwarf_file = -1;
}

bool cpw_sample_symtab_source_line(struct cpw_symtab *t, const char *func, const char *file, char *out, size_t len)
{
	for (size_t i = 0; i < t->nfiles; i++) {
		struct mapped_file *f = &t->files[i];
		if (f->state <= 0 || f->no_lines || strcmp(f->base, file) != 0)
			continue;
		const struct cpw_elf_sym *s = NULL;
		for (size_t k = 0; k < f->elf.nsyms && !s; k++)
			if (strcmp(cpw_elf_sym_name(&f->elf, &f->elf.syms[k]), func) == 0)
				s = &f->elf.syms[k];
		if (!s)
			continue;
		if (t->dwarf_file != (int)i) { /* one file's at a time: its functions come in a row */
			cpw_sample_symtab_lines_done(t);
			int rc = cpw_dwarf_lines_open(f->root >= 0 ? t->roots[f->root].fd : -1, t->proc_root,
						      f->reader, f->path + f->below_root, f->elf.build_id,
						      f->elf.build_id_len, f->elf.has_debug_info, &t->dwarf);
			if (rc < 0) {
				f->no_lines = true;
				t->lines_no_libdw |= rc == -ENOSYS;
				continue;
			}
			t->dwarf_file = (int)i;
		}
		return cpw_dwarf_lines_decl(t->dwarf, s->value, out, len);
	}
	return false;
}

void cpw_sample_symtab_stats(const struct cpw_symtab *t, struct cpw_sampler_stats *out)
{
	out->cut_short = t->cut_short;
	out->leaf_only = t->leaf_only;
	out->unresolved = t->unresolved;
	out->kernel_unnamed = t->kernel_unnamed;
	out->kernel_read = t->kernel_read;
	out->kernel_hidden = t->kernel_read && t->kernel.n == 0;
	out->kernel_names_after = KALLSYMS_AFTER_SAMPLES;
	out->unreadable = t->unreadable;
	out->lines_why = t->lines_no_libdw ? cpw_dwarf_lines_why() : NULL;
}
