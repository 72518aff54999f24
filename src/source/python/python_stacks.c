/*
 * python_stacks.c: the Python stacks of the tree's CPython processes (python_stacks.h).
 *
 * Bounds: 64 processes (an ended one's record reused), 256 threads, 128 readings per thread
 * (6.4 s at the default 20 a second, 0.5 s at --freq 2000: a drain comes every
 * --interval), 48 Python frames per reading, 4,096 distinct functions; the thread's own
 * walk stops at 48 frames (the root end of a deeper stack is left out), at 8
 * interpreters per process and 256 threads per interpreter. Functions are named by their
 * qualified name and "file:first line" (co_qualname, co_filename's base name,
 * co_firstlineno): the line a function starts at, not the line running, so that a
 * function's samples add up under one name (the line table is not decoded); a module's
 * code by its file alone (its first line is always 1).
 */
#define _GNU_SOURCE
#include "config.h"
#include "source/python/python_stacks.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "source/elf/elf_file.h"
#include "source/kernel/kfile.h"
#include "source/python/python_frames.h"
#include "source/python/python_layout.h"
#include "source/python/python_lines.h"
#include "util/tick_grid.h"

#define PROCS_MAX 64
#define THREADS_MAX 256
#define RING 128
#define PY_DEPTH 48
#define FN_MAX 4096
#define FN_HASH 8192
#define CODE_CACHE 4096
/* The lines of waits told (fn_at_line): a pool's handler threads wake every 0.1 s and wait
 * again at the same instruction, and read its location table each time (+110 reads in a 1 s
 * run of a 4-process pool). */
#define LINE_CACHE 256
/* A code object whose bytes matched its cached name within this long is named from the
 * cache by its address alone, unread. A frame holds a reference to its code object, so the
 * address is a live code object; only one freed and another made at the same address in
 * that second would take the old name, for at most that second (echion trusts the address
 * for good). Reading each frame's code object at each reading was most of a reading's cost:
 * a pool worker's 14 frames, 14 more pages pinned (issue 26). */
#define CODE_TRUST_S 1.0
#define NAME_LEN 128
#define FILE_LEN 160
#define INTERPS_MAX 8
#define TSTATES_MAX 256
#define NOTES_MAX 8
#define BLOCK_MAX 512 /* bytes of a frame, code object or thread state read at once */
#define NAMES_AHEAD (2 * PY_DEPTH) /* strings read ahead of naming (struct names_ahead) */
#define NAME_AHEAD_MAX 256         /* characters of one such string, at most */
#define STR_HEADER_MAX 128         /* bytes of a string object's header, at most */

enum proc_state { P_READING, P_NOT_PYTHON, P_UNSUPPORTED, P_REFUSED, P_GONE };

struct pyproc {
	pid_t pid;
	double listed_at;     /* when its thread list was last walked */
	bool need_list;       /* a thread ran that the list did not hold */
	char comm[16];        /* its name when last taken on */
	double tried_at;      /* then (the samples' clock) */
	enum proc_state state;
	struct cpw_py_layout l;
	uint64_t runtime, code_type, unicode_type;
	/* Its exec's fingerprint (a hash of /proc/PID/auxv; 0: unread), and 8 bytes of its
	 * interpreter that say where it is mapped (_Py_DebugOffsets' cookie or Py_Version) with
	 * their address: a process forked from it without an exec maps it at the same place. */
	uint64_t exec_id, mark_addr, mark;
};

struct reading {
	double t;
	uint8_t n;
	uint16_t fn[PY_DEPTH];
};

struct pythread {
	pid_t pid, tid;
	int fd;               /* its schedstat, kept open; -1 where none is (see fds_max) */
	bool by_path;         /* no descriptor kept: its schedstat is opened when read */
	uint64_t ran_ns;
	bool ran_known;       /* ran_ns was read at the last look (not taken on trust) */
	uint8_t streak;       /* looks in a row that found it ran a whole period (at most RUN_STREAK) */
	uint8_t part_streak;  /* looks in a row that found it ran at all (at most RUN_STREAK) */
	uint8_t unchecked;    /* looks since schedstat was last read */
	uint64_t tstate;      /* its PyThreadState (0: not listed yet) */
	uint64_t read_ns;     /* its run time (schedstat) when the newest reading was taken */
	bool have_read;       /* read_ns is set: ring[head - 1] is that reading */
	uint64_t wait_ns;     /* the same for wait_fn, the frames read for a wait */
	bool have_wait;       /* wait_ns and wait_fn are set */
	uint8_t wait_n;       /* 0, 1 or 2 frames in wait_fn, innermost first */
	uint16_t wait_fn[2];
	uint16_t wait_at[2];  /* the same with the line each is at (0: not known) */
	/* The code objects and instructions of its last reading's two innermost frames. */
	uint8_t top_n;
	uint64_t top_code[2], top_instr[2];
	double seen;          /* when an interpreter last listed it */
	double hot_until;     /* read while samples say it runs: until then */
	unsigned head, count;
	struct reading *ring; /* RING readings, made at the first (a thread only seen waiting
			       * never needs them) */
	/* Where its last reading found its stack (0: nowhere): read ahead at the next. */
	uint64_t g_cframe, g_frame, g_lo; /* g_lo: the lowest frame its window held */
	uint8_t g_ncodes;
	uint64_t g_code[PY_DEPTH];
};

struct pyfn {
	char name[NAME_LEN];
	char file[FILE_LEN];
};

struct line_ent {
	pid_t pid;
	uint64_t code, instr;
	uint16_t fn, at; /* fn at its line (at), 0 where it could not be told */
};

struct code_ent {
	uint64_t addr, name_p, file_p;
	uint64_t table_p; /* its location table (co_linetable), for the waits' lines */
	int32_t first;
	uint16_t fn;
	pid_t pid;
	double checked_s; /* when its bytes last matched (mono_now()) */
};

struct note {
	char text[300];
	unsigned n;
};

struct cpw_python_stacks {
	char proc_root[256];
	uint64_t period_ns;     /* between readings */
	struct timespec origin; /* of the grid they are taken on (CLOCK_MONOTONIC) */
	pthread_mutex_t lock;
	pthread_t thread;
	bool started;
	atomic_bool stop;
	struct pyproc procs[PROCS_MAX];
	size_t nprocs;
	double reclaimed_at;     /* when the table, full, was last searched for ended processes */
	struct pythread *threads[THREADS_MAX];
	size_t nthreads;
	struct pyfn *fns;        /* [0] is "[python]": a table full */
	size_t nfns;
	uint16_t fn_hash[FN_HASH];
	struct code_ent code[CODE_CACHE];
	struct line_ent lines[LINE_CACHE];
	struct note notes[NOTES_MAX];
	size_t nnotes;
	struct cpw_python_stacks_stats stats;
	/* Descriptors kept for the threads' schedstat: at most fds_max, an eighth of what the
	 * open-files limit leaves past 128 (the tree's reader keeps its own): 200 waiting
	 * threads under a limit of 40 had taken every descriptor the reader needed. */
	size_t fds_kept, fds_max;
	/* What a stack's reads copy into (read under the lock): the window read ahead and the
	 * one walked, the code objects read ahead and those read after. */
	uint8_t win_ahead[CPW_PY_WINDOW_MAX], win_walk[CPW_PY_WINDOW_MAX];
	uint8_t codes_ahead[PY_DEPTH * BLOCK_MAX], codes_read[PY_DEPTH * BLOCK_MAX];
	/* And the names read ahead of naming (struct names_ahead): their headers, their texts. */
	uint8_t names_headers[NAMES_AHEAD * STR_HEADER_MAX];
	char names_text[NAMES_AHEAD * NAME_AHEAD_MAX];
};

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads n bytes at addr of pid: 0, or -errno (-EFAULT: not all of it). */
static int rd(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };
	ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (got < 0)
		return -errno;
	return (size_t)got == n ? 0 : -EFAULT;
}

static uint64_t u64_at(const uint8_t *b, uint64_t off)
{
	uint64_t v;
	memcpy(&v, b + off, sizeof(v));
	return v;
}

static void add_note(struct cpw_python_stacks *ps, const char *text)
{
	for (size_t i = 0; i < ps->nnotes; i++) {
		if (strcmp(ps->notes[i].text, text) == 0) {
			ps->notes[i].n++;
			return;
		}
	}
	if (ps->nnotes == NOTES_MAX)
		return;
	snprintf(ps->notes[ps->nnotes].text, sizeof(ps->notes[0].text), "%s", text);
	ps->notes[ps->nnotes++].n = 1;
}

struct cpw_python_stacks *cpw_python_stacks_new(const char *proc_root, uint64_t period_ns, struct timespec origin,
					       char *why, size_t len)
{
	struct cpw_python_stacks *ps = calloc(1, sizeof(*ps));
	if (ps)
		ps->fns = calloc(FN_MAX, sizeof(*ps->fns));
	if (!ps || !ps->fns) {
		free(ps);
		snprintf(why, len, "out of memory");
		return NULL;
	}
	snprintf(ps->proc_root, sizeof(ps->proc_root), "%s", proc_root);
	ps->period_ns = period_ns > 0 ? period_ns : 40000000u;
	ps->origin = origin;
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY)
		ps->fds_max = nofile.rlim_cur > 128 ? (size_t)(nofile.rlim_cur - 128) / 8 : 0;
	else
		ps->fds_max = THREADS_MAX;
	pthread_mutex_init(&ps->lock, NULL);
	snprintf(ps->fns[0].name, NAME_LEN, "[python]");
	ps->nfns = 1;
	atomic_init(&ps->stop, false);
	return ps;
}

/* ---- a process taken on: its interpreter, version and layout ---- */

/* The interpreter file the process maps: libpython3.X.so, else a python executable; the
 * start of its mapping at file offset 0. 0, -ENOENT (none), or -errno of its maps (EACCES:
 * a process that is not ours to read, or that made itself non-dumpable). */
static int find_interpreter(const char *proc_root, pid_t pid, char *path, size_t plen, uint64_t *start)
{
	char p[300];
	snprintf(p, sizeof(p), "%s/%d/maps", proc_root, (int)pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return -errno;
	char line[4608];
	bool lib = false, found = false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		int name_at = 0;
		/* Only an interpreter's lines are parsed: 5 of a Python process's ~45 (sscanf took
		 * ~1 us a line). */
		if (!strstr(line, "python"))
			continue;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &off, &name_at) < 3 || name_at == 0 ||
		    off != 0)
			continue;
		char *name = line + name_at;
		name[strcspn(name, "\n")] = '\0';
		if (name[0] != '/')
			continue;
		const char *base = strrchr(name, '/') + 1;
		bool is_lib = strncmp(base, "libpython3", 10) == 0;
		bool is_exe = strncmp(base, "python", 6) == 0;
		if ((is_lib && !lib) || (is_exe && !found)) {
			snprintf(path, plen, "%s", name);
			*start = lo;
			found = true;
			lib = lib || is_lib;
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

/* 3.X from a file name: python3.12, libpython3.12.so.1.0. */
static bool version_from_name(const char *path, int *major, int *minor)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *v = strstr(base, "python");
	return v && sscanf(v + 6, "%d.%d", major, minor) == 2;
}

static void unsupported(struct cpw_python_stacks *ps, struct pyproc *pr, int major, int minor, const char *why)
{
	char text[300];
	if (major)
		snprintf(text, sizeof(text), "Python %d.%d: stacks not read: %s", major, minor, why);
	else
		snprintf(text, sizeof(text), "Python: stacks not read: %s", why);
	pr->state = P_UNSUPPORTED;
	add_note(ps, text);
}

static void refused(struct cpw_python_stacks *ps, struct pyproc *pr)
{
	pr->state = P_REFUSED;
	ps->stats.refused++;
	add_note(ps, "Python stacks not read: reading the process's memory was refused (process_vm_readv, "
		     "/proc/PID/maps: EPERM, EACCES): it needs the rights of ptrace (the same user, a process that did not make itself "
		     "non-dumpable, and where kernel.yama.ptrace_scope is 1 a descendant of cperfwatch; else "
		     "CAP_SYS_PTRACE)");
}

/* A process read until now that ended (-ESRCH), or whose memory became refused (-EPERM: it
 * made itself non-dumpable, or changed its user): noted as a refusal taken on would be. */
static void lost(struct cpw_python_stacks *ps, struct pyproc *pr, int rc)
{
	if (rc == -EPERM)
		refused(ps, pr);
	else
		pr->state = P_GONE;
}

/* A read of the process as it is taken on: false when refused (noted) or ended. */
static bool first_read(struct cpw_python_stacks *ps, struct pyproc *pr, uint64_t addr, void *buf, size_t n)
{
	int rc = rd(pr->pid, addr, buf, n);
	if (rc == -EPERM)
		refused(ps, pr);
	else if (rc < 0)
		pr->state = P_GONE;
	return rc == 0;
}

/* A fingerprint of pid's exec: an FNV-1a hash of its auxiliary vector, which the kernel
 * writes at exec and a fork copies. It holds the addresses the exec drew at random (its
 * stack's random bytes, the vDSO, the program headers, the dynamic linker), so two
 * processes with the same one were forked from one exec and map their files at the same
 * places. 0 where it cannot be read. */
static uint64_t exec_id(const char *proc_root, pid_t pid)
{
	char p[300], buf[1024];
	snprintf(p, sizeof(p), "%s/%d/auxv", proc_root, (int)pid);
	ssize_t n = cpw_kfile_read(p, buf, sizeof(buf));
	if (n <= 0)
		return 0;
	uint64_t h = 14695981039346656037ull;
	for (ssize_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)buf[i]) * 1099511628211ull;
	return h ? h : 1;
}

/* Takes pr on as its twin was (same exec, a fork of it or forked from the same process):
 * the same interpreter at the same addresses, checked by the twin's mark read again in pr.
 * Finding the interpreter costs a read of the maps and of its ELF symbols (~300 us here);
 * a pool's workers are each a twin of the pool. */
static bool take_on_as_twin(struct cpw_python_stacks *ps, struct pyproc *pr)
{
	const struct pyproc *twin = NULL;
	for (size_t i = 0; i < ps->nprocs && !twin; i++)
		if (&ps->procs[i] != pr && ps->procs[i].state == P_READING && ps->procs[i].exec_id == pr->exec_id &&
		    ps->procs[i].mark_addr)
			twin = &ps->procs[i];
	uint64_t mark = 0;
	if (!twin || rd(pr->pid, twin->mark_addr, &mark, sizeof(mark)) < 0 || mark != twin->mark)
		return false;
	pr->l = twin->l;
	pr->runtime = twin->runtime;
	pr->code_type = twin->code_type;
	pr->unicode_type = twin->unicode_type;
	pr->mark_addr = twin->mark_addr;
	pr->mark = twin->mark;
	pr->state = P_READING;
	ps->stats.processes++;
	ps->stats.twins++;
	return true;
}

static void take_on(struct cpw_python_stacks *ps, struct pyproc *pr)
{
	char path[4096], why[300] = "";
	uint64_t start = 0;
	pr->state = P_NOT_PYTHON;
	pr->exec_id = exec_id(ps->proc_root, pr->pid);
	if (pr->exec_id && take_on_as_twin(ps, pr))
		return;
	int rc = find_interpreter(ps->proc_root, pr->pid, path, sizeof(path), &start);
	if (rc == -EACCES || rc == -EPERM) {
		refused(ps, pr);
		return;
	}
	if (rc < 0)
		return;
	struct cpw_elf_wanted w[] = { { "_PyRuntime", 0, false }, { "Py_Version", 0, false },
				      { "PyCode_Type", 0, false }, { "PyUnicode_Type", 0, false } };
	uint64_t load0 = 0;
	int major = 0, minor = 0;
	bool named = version_from_name(path, &major, &minor);
	if (cpw_elf_file_find(ps->proc_root, pr->pid, path, w, 4, &load0, why, sizeof(why)) < 0) {
		if (named && major == 3)
			unsupported(ps, pr, major, minor, why);
		return;
	}
	if (!w[0].found) {
		if (named && major == 3)
			unsupported(ps, pr, major, minor, "no _PyRuntime symbol in its interpreter");
		return;
	}
	uint64_t bias = start - load0;
	if (w[1].found) {
		uint64_t hex = 0;
		if (!first_read(ps, pr, bias + w[1].value, &hex, sizeof(hex)))
			return;
		cpw_python_layout_version(hex, &major, &minor);
		pr->mark_addr = bias + w[1].value;
		pr->mark = hex;
	}
	if (!w[2].found || !w[3].found) {
		unsupported(ps, pr, major, minor, "no PyCode_Type or PyUnicode_Type symbol to check objects by");
		return;
	}
	uint8_t dbg[CPW_PY_DEBUG_OFFSETS_READ];
	if (!first_read(ps, pr, bias + w[0].value, dbg, sizeof(dbg)))
		return;
	bool ok;
	if (memcmp(dbg, "xdebugpy", 8) == 0) {
		ok = cpw_python_layout_from_debug(dbg, sizeof(dbg), &pr->l, why, sizeof(why));
		pr->mark_addr = bias + w[0].value;
		memcpy(&pr->mark, dbg, sizeof(pr->mark));
	} else {
		ok = cpw_python_layout_for(major, minor, &pr->l, why, sizeof(why));
	}
	if (!ok || pr->l.frame_size > BLOCK_MAX || pr->l.code_size > BLOCK_MAX) {
		unsupported(ps, pr, major, minor, why[0] ? why : "a layout larger than the reader reads");
		return;
	}
	pr->runtime = bias + w[0].value;
	pr->code_type = bias + w[2].value;
	pr->unicode_type = bias + w[3].value;
	pr->state = P_READING;
	ps->stats.processes++;
}

/* ---- the reader's thread ---- */

/* The header h of a string object: its length into *n; 1 for a compact ASCII string, 0 for
 * another kind (named "?"), -EFAULT where it is not a str of at most 4,096 characters. */
static int str_header(const struct pyproc *pr, const uint8_t *h, uint64_t *n)
{
	const struct cpw_py_layout *l = &pr->l;
	uint32_t state;
	memcpy(&state, h + l->unicode_state, sizeof(state));
	*n = u64_at(h, l->unicode_length);
	if (u64_at(h, l->ob_type) != pr->unicode_type || *n > 4096)
		return -EFAULT;
	return cpw_python_layout_compact_ascii(state) ? 1 : 0;
}

/* A name's n characters s into out (cap bytes with the NUL): -EFAULT where one is not
 * printable (ASCII says the state, printable says a name). */
static int str_text(const char *s, uint64_t n, char *out, size_t cap)
{
	for (uint64_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return -EFAULT;
	snprintf(out, cap, "%.*s", (int)n, s);
	return 0;
}

/* A compact ASCII string object at p, copied into out (cap bytes with the NUL). */
static int read_str(const struct pyproc *pr, uint64_t p, char *out, size_t cap)
{
	const struct cpw_py_layout *l = &pr->l;
	uint8_t h[STR_HEADER_MAX];
	if (!cpw_python_frames_plausible(p) || l->unicode_ascii_size > sizeof(h))
		return -EFAULT;
	int rc = rd(pr->pid, p, h, l->unicode_ascii_size);
	if (rc < 0)
		return rc;
	uint64_t n;
	int kind = str_header(pr, h, &n);
	if (kind <= 0) {
		if (kind == 0)
			snprintf(out, cap, "?");
		return kind;
	}
	char s[4097];
	rc = rd(pr->pid, p + l->unicode_ascii_size, s, n);
	return rc < 0 ? rc : str_text(s, n, out, cap);
}

/* The names of the code objects a walk did not know, read ahead of code_fn: the strings'
 * headers in one process_vm_readv, their texts in a second, where each string alone takes
 * two (a pool worker's first reading names ~15 functions: 60 reads). A string not read
 * whole, longer than NAME_AHEAD_MAX or not compact ASCII is left to read_str. */
struct names_ahead {
	size_t n;
	uint64_t addr[NAMES_AHEAD];
	int len[NAMES_AHEAD]; /* the text's length where read whole, else -1 */
	char *text;           /* NAMES_AHEAD texts of NAME_AHEAD_MAX bytes */
};

static void name_ahead(struct names_ahead *na, uint64_t p)
{
	if (!cpw_python_frames_plausible(p) || na->n == NAMES_AHEAD)
		return;
	for (size_t i = 0; i < na->n; i++)
		if (na->addr[i] == p)
			return;
	na->len[na->n] = -1;
	na->addr[na->n++] = p;
}

/* How many of the n iovecs in v a read of got bytes copied whole. */
static size_t copied_whole(const struct iovec *v, size_t n, ssize_t got)
{
	size_t done = 0;
	for (size_t left = got > 0 ? (size_t)got : 0; done < n && left >= v[done].iov_len; done++)
		left -= v[done].iov_len;
	return done;
}

static void read_names_ahead(const struct pyproc *pr, uint8_t *headers, struct names_ahead *na)
{
	const struct cpw_py_layout *l = &pr->l;
	size_t hs = l->unicode_ascii_size;
	struct iovec local[NAMES_AHEAD], remote[NAMES_AHEAD];
	if (na->n == 0 || hs > STR_HEADER_MAX)
		return;
	for (size_t i = 0; i < na->n; i++) {
		local[i] = (struct iovec){ headers + i * hs, hs };
		remote[i] = (struct iovec){ (void *)(uintptr_t)na->addr[i], hs };
	}
	size_t whole = copied_whole(local, na->n, process_vm_readv(pr->pid, local, na->n, remote, na->n, 0));
	size_t nt = 0, of[NAMES_AHEAD] = { 0 };
	for (size_t i = 0; i < whole; i++) {
		uint64_t len;
		if (str_header(pr, headers + i * hs, &len) != 1 || len > NAME_AHEAD_MAX)
			continue;
		local[nt] = (struct iovec){ na->text + i * NAME_AHEAD_MAX, (size_t)len };
		remote[nt] = (struct iovec){ (void *)(uintptr_t)(na->addr[i] + hs), (size_t)len };
		of[nt++] = i;
	}
	whole = nt ? copied_whole(local, nt, process_vm_readv(pr->pid, local, nt, remote, nt, 0)) : 0;
	for (size_t k = 0; k < whole; k++)
		na->len[of[k]] = (int)local[k].iov_len;
}

/* The string at p from what was read ahead, else read now. */
static int name_str(const struct pyproc *pr, const struct names_ahead *na, uint64_t p, char *out, size_t cap)
{
	for (size_t i = 0; na && i < na->n; i++)
		if (na->addr[i] == p && na->len[i] >= 0)
			return str_text(na->text + i * NAME_AHEAD_MAX, (uint64_t)na->len[i], out, cap);
	return read_str(pr, p, out, cap);
}

static uint32_t hash_str(const char *s, uint32_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static uint16_t intern_fn(struct cpw_python_stacks *ps, const char *name, const char *file)
{
	uint32_t k = hash_str(file, hash_str(name, 2166136261u));
	for (size_t i = 0; i < FN_HASH; i++) {
		uint16_t *slot = &ps->fn_hash[(k + i) % FN_HASH];
		if (*slot == 0) {
			if (ps->nfns == FN_MAX)
				return 0;
			snprintf(ps->fns[ps->nfns].name, NAME_LEN, "%s", name);
			snprintf(ps->fns[ps->nfns].file, FILE_LEN, "%s", file);
			*slot = (uint16_t)ps->nfns;
			return (uint16_t)ps->nfns++;
		}
		if (strcmp(ps->fns[*slot].name, name) == 0 && strcmp(ps->fns[*slot].file, file) == 0)
			return *slot;
	}
	return 0;
}

static struct code_ent *code_slot(struct cpw_python_stacks *ps, pid_t pid, uint64_t code)
{
	/* The pid in the slot's hash: a pool's workers, forked, hold their code objects at the
	 * same addresses, and one slot for all of them had each evict the others' names. */
	return &ps->code[((code >> 4) ^ ((uint64_t)(uint32_t)pid * 0x9E3779B97F4A7C15ull >> 40)) % CODE_CACHE];
}

/* The cached entry that names code unread (CODE_TRUST_S), or NULL. */
static const struct code_ent *trusted_code(struct cpw_python_stacks *ps, pid_t pid, uint64_t code, double now)
{
	const struct code_ent *c = code_slot(ps, pid, code);
	return c->addr == code && c->pid == pid && now - c->checked_s < CODE_TRUST_S ? c : NULL;
}

/* What the code object's bytes b say: its name's and file's string objects, its first line.
 * -EFAULT where b is not a code object. */
static int code_fields(const struct pyproc *pr, const uint8_t *b, uint64_t *name_p, uint64_t *file_p, int32_t *first)
{
	const struct cpw_py_layout *l = &pr->l;
	if (u64_at(b, l->ob_type) != pr->code_type)
		return -EFAULT;
	*name_p = u64_at(b, l->code_qualname);
	*file_p = u64_at(b, l->code_filename);
	memcpy(first, b + l->code_firstlineno, sizeof(*first));
	return *first < 0 || *first > 10000000 ? -EFAULT : 0;
}

/* The cached entry of code where its bytes still say what they said when it was named. */
static struct code_ent *code_known(struct cpw_python_stacks *ps, pid_t pid, uint64_t code, uint64_t name_p,
				   uint64_t file_p, int32_t first)
{
	struct code_ent *c = code_slot(ps, pid, code);
	return c->addr == code && c->pid == pid && c->name_p == name_p && c->file_p == file_p && c->first == first
		       ? c
		       : NULL;
}

/* The function of the code object at code, whose code_size bytes are in b where the caller
 * read them (NULL: named from the cache where trusted, else read here), its strings from na
 * where read ahead: 0 and *fn, or -errno (-EFAULT: not a code object). */
static int code_fn(struct cpw_python_stacks *ps, const struct pyproc *pr, uint64_t code, const uint8_t *b,
		   const struct names_ahead *na, double now, uint16_t *fn)
{
	const struct cpw_py_layout *l = &pr->l;
	uint8_t own[BLOCK_MAX];
	if (!cpw_python_frames_plausible(code))
		return -EFAULT;
	const struct code_ent *t = b ? NULL : trusted_code(ps, pr->pid, code, now);
	if (t) {
		*fn = t->fn;
		return 0;
	}
	if (!b) {
		int rc = rd(pr->pid, code, own, l->code_size);
		if (rc < 0)
			return rc;
		b = own;
	}
	uint64_t name_p, file_p;
	int32_t first;
	if (code_fields(pr, b, &name_p, &file_p, &first) < 0)
		return -EFAULT;
	struct code_ent *c = code_known(ps, pr->pid, code, name_p, file_p, first);
	if (c) {
		c->checked_s = now;
		c->table_p = u64_at(b, pr->l.code_linetable);
		*fn = c->fn;
		return 0;
	}
	char name[NAME_LEN], file[1024], where[FILE_LEN];
	int rc;
	if ((rc = name_str(pr, na, name_p, name, sizeof(name))) < 0 ||
	    (rc = name_str(pr, na, file_p, file, sizeof(file))) < 0)
		return rc;
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	/* A module's code starts at its line 1 whatever runs: "job.py:1" would send a reader
	 * to the top of the file, so a module is named by its file alone. */
	if (strcmp(name, "<module>") == 0)
		snprintf(where, sizeof(where), "%s", base);
	else
		snprintf(where, sizeof(where), "%s:%d", base, (int)first);
	*fn = intern_fn(ps, name, where);
	c = code_slot(ps, pr->pid, code);
	*c = (struct code_ent){ code, name_p, file_p, u64_at(b, l->code_linetable), first, *fn, pr->pid, now };
	return 0;
}

/* Reads the window of frame memory under frame (python_frames.h) into buf: 0 and w, or
 * -errno (-EFAULT: the frame itself could not be read). One process_vm_readv. */
static int read_window(pid_t pid, uint64_t frame, uint64_t frame_size, uint8_t *buf, struct cpw_py_window *w)
{
	struct cpw_py_piece pieces[CPW_PY_WINDOW_PIECES];
	uint64_t base;
	size_t n = cpw_python_frames_plan(frame, frame_size, 0, &base, pieces);
	struct iovec local[CPW_PY_WINDOW_PIECES], remote[CPW_PY_WINDOW_PIECES];
	for (size_t i = 0; i < n; i++) {
		local[i] = (struct iovec){ buf + (pieces[i].addr - base), pieces[i].len };
		remote[i] = (struct iovec){ (void *)(uintptr_t)pieces[i].addr, pieces[i].len };
	}
	ssize_t got = process_vm_readv(pid, local, n, remote, n, 0);
	if (got < 0)
		return -errno;
	w->buf = buf;
	return cpw_python_frames_window(pieces, n, base, (size_t)got, w) ? 0 : -EFAULT;
}

/* What a thread's reading took ahead, in the process_vm_readv that read its thread state:
 * the window under the frame its last reading started from, and that reading's code
 * objects (struct pythread's guess). */
struct ahead {
	struct cpw_py_window w; /* len 0: none */
	int ncodes;
	uint64_t code[PY_DEPTH];
	const uint8_t *bytes[PY_DEPTH];
};

/* The functions of the code objects codes[0, n) into fn: those read ahead from there, the
 * rest in one process_vm_readv (one read each of those it did not reach). 0, or -errno
 * (-EFAULT: one is not a code object). */
static int codes_fn(struct cpw_python_stacks *ps, const struct pyproc *pr, const uint64_t *codes, int n,
		    const struct ahead *ah, uint16_t *fn)
{
	_Static_assert(PY_DEPTH <= 1024, "one iovec per code object (IOV_MAX)");
	uint64_t size = pr->l.code_size;
	uint8_t *buf = ps->codes_read;
	double now = mono_now();
	struct iovec local[PY_DEPTH], remote[PY_DEPTH];
	const uint8_t *bytes[PY_DEPTH];
	int uniq[PY_DEPTH], nu = 0; /* each distinct object once: recursion reads its code once */
	int slot[PY_DEPTH], nread = 0;
	for (int i = 0; i < n; i++) {
		int j = 0;
		while (j < nu && codes[uniq[j]] != codes[i])
			j++;
		slot[i] = j;
		if (j < nu)
			continue;
		uniq[nu] = i;
		bytes[nu] = NULL;
		for (int k = 0; ah && k < ah->ncodes && !bytes[nu]; k++)
			if (ah->code[k] == codes[i])
				bytes[nu] = ah->bytes[k];
		/* An implausible address is not read (code_fn refuses it), nor a trusted one
		 * (code_fn names it unread); the batch reads the others, in order, so that what
		 * it copied is known whole. */
		if (!bytes[nu] && cpw_python_frames_plausible(codes[i]) && !trusted_code(ps, pr->pid, codes[i], now)) {
			local[nread] = (struct iovec){ buf + (size_t)nread * size, size };
			remote[nread] = (struct iovec){ (void *)(uintptr_t)codes[i], size };
			nread++;
		}
		nu++;
	}
	ssize_t got = nread ? process_vm_readv(pr->pid, local, (unsigned long)nread, remote, (unsigned long)nread, 0) : 0;
	if (got < 0 && (errno == ESRCH || errno == EPERM))
		return -errno;
	size_t whole = got > 0 ? (size_t)got / size : 0;
	for (int j = 0, k = 0; j < nu; j++) {
		if (bytes[j] || !cpw_python_frames_plausible(codes[uniq[j]]) || trusted_code(ps, pr->pid, codes[uniq[j]], now))
			continue;
		bytes[j] = (size_t)k < whole ? buf + (size_t)k * size : NULL; /* NULL: code_fn reads it */
		k++;
	}
	/* The names of those whose bytes are here and not what the cache knows, read ahead. */
	struct names_ahead na = { .text = ps->names_text };
	for (int j = 0; j < nu; j++) {
		uint64_t name_p, file_p;
		int32_t first;
		if (bytes[j] && code_fields(pr, bytes[j], &name_p, &file_p, &first) == 0 &&
		    !code_known(ps, pr->pid, codes[uniq[j]], name_p, file_p, first)) {
			name_ahead(&na, name_p);
			name_ahead(&na, file_p);
		}
	}
	read_names_ahead(pr, ps->names_headers, &na);
	for (int i = 0; i < n; i++) {
		int rc = code_fn(ps, pr, codes[i], bytes[slot[i]], &na, now, &fn[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One thread's frame chain from frame, leaf first, at most depth Python frames: the frames
 * read a window at a time (from ah where it holds them), then their code objects at once
 * (those ah holds from there); their code objects into codes, r->n of them, and into *lo
 * the lowest frame the innermost frame's window held. 0, or -errno (-EFAULT: torn). */
static int walk(struct cpw_python_stacks *ps, const struct pyproc *pr, uint64_t frame, struct reading *r,
		int depth, const struct ahead *ah, uint64_t *codes, uint64_t *instrs, uint64_t *lo)
{
	*lo = frame;
	const struct cpw_py_layout *l = &pr->l;
	int nc = 0;
	r->n = 0;
	for (int steps = 0; frame && steps < 2 * PY_DEPTH && nc < depth;) {
		struct cpw_py_window w;
		if (!cpw_python_frames_plausible(frame))
			return -EFAULT;
		if (ah && cpw_python_frames_in_window(&ah->w, frame, l->frame_size)) {
			w = ah->w;
		} else {
			int rc = read_window(pr->pid, frame, l->frame_size, ps->win_walk, &w);
			if (rc < 0)
				return rc;
		}
		struct cpw_py_frame_rec recs[2 * PY_DEPTH];
		int got = cpw_python_frames_walk(l, &w, &frame, recs, 2 * PY_DEPTH - steps, depth - nc);
		if (got <= 0)
			return -EFAULT; /* torn (the window holds the frame read: at least it) */
		for (int i = 0; i < got; i++) {
			if (recs[i].owner != CPW_PY_FRAME_OWNED_BY_CSTACK) {
				instrs[nc] = recs[i].instr;
				codes[nc++] = recs[i].code;
			}
			if (steps == 0 && recs[i].addr < *lo)
				*lo = recs[i].addr;
		}
		steps += got;
	}
	int rc = codes_fn(ps, pr, codes, nc, ah, r->fn);
	if (rc < 0)
		return rc;
	r->n = (uint8_t)nc;
	return 0;
}

static struct pythread *thread_of(struct cpw_python_stacks *ps, pid_t pid, pid_t tid, bool add)
{
	for (size_t i = 0; i < ps->nthreads; i++)
		if (ps->threads[i]->tid == tid && ps->threads[i]->pid == pid)
			return ps->threads[i];
	if (!add || ps->nthreads == THREADS_MAX)
		return NULL;
	struct pythread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->seen = mono_now();
	char p[320];
	snprintf(p, sizeof(p), "%s/%d/task/%d/schedstat", ps->proc_root, (int)pid, (int)tid);
	t->fd = -1;
	if (ps->fds_kept < ps->fds_max) {
		t->fd = open(p, O_RDONLY | O_CLOEXEC);
		ps->fds_kept += t->fd >= 0;
	}
	t->by_path = t->fd < 0 && (ps->fds_kept >= ps->fds_max || errno == EMFILE || errno == ENFILE);
	ps->threads[ps->nthreads++] = t;
	return t;
}

/* Closes what thread t keeps open. */
static void drop_fd(struct cpw_python_stacks *ps, struct pythread *t)
{
	if (t->fd >= 0) {
		close(t->fd);
		ps->fds_kept--;
	}
	t->fd = -1;
}

/* The thread's run time from its schedstat: true and *ns, false where it cannot be read
 * (no schedstat: CONFIG_SCHEDSTATS off, or the thread ended). */
static bool run_time(const struct cpw_python_stacks *ps, const struct pythread *t, uint64_t *ns)
{
	char b[96];
	ssize_t n = -1;
	if (t->fd >= 0) {
		n = pread(t->fd, b, sizeof(b) - 1, 0);
	} else if (t->by_path) { /* no descriptor to spare: opened for this read */
		char p[320];
		snprintf(p, sizeof(p), "%s/%d/task/%d/schedstat", ps->proc_root, (int)t->pid, (int)t->tid);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = pread(fd, b, sizeof(b) - 1, 0);
			close(fd);
		}
	}
	if (n <= 0)
		return false;
	b[n] = '\0';
	*ns = strtoull(b, NULL, 10);
	return true;
}

/* A thread that ran a whole period at each of its last RUN_STREAK looks is taken to run on
 * between them: its schedstat is read at every RUN_EVERY-th look only (a read of schedstat
 * cost as much as the stack's own read), until a look finds it did not run. A thread that
 * stops running is read at most RUN_EVERY - 1 times more: its stack as it stopped. One that
 * ran part of each of its last RUN_STREAK looks (a pool's workers sharing too few cores,
 * threads taking turns on the GIL) is taken to run on part of the time: read at every other
 * look, as read_due() would read it, its schedstat too at every RUN_EVERY-th. */
#define RUN_STREAK 8
#define RUN_EVERY 8

/* Whether a thread that ran since the last look is read at this one: one that ran most of
 * a period (3/4 of the reader's) is; one on a CPU part of the time (a pool's workers sharing
 * too few cores, threads taking turns on the GIL) is read once it has run that long since
 * its last reading, or when that reading is 1.5 periods old. The readings then come at the
 * same rate per second of its CPU as a busy thread's, and at least every other look, so that
 * each sample has one within nearest()'s tolerance (two periods). Pure: the run times in ns,
 * ran_ns since the last look, since_read_ns since the last reading (UINT64_MAX: unknown). */
static bool read_due(uint64_t period_ns, uint64_t ran_ns, uint64_t since_read_ns, double reading_age_s)
{
	uint64_t most = period_ns / 4 * 3;
	return ran_ns >= most || since_read_ns >= most || reading_age_s * 1e9 >= 1.5 * (double)period_ns;
}

/* Whether thread t is read at this look (see read_due()); t->ran_known says whether ran_ns is
 * its run time now. */
static bool ran(const struct cpw_python_stacks *ps, struct pythread *t, double now)
{
	t->ran_known = false;
	if (t->fd < 0 && !t->by_path)
		return true; /* no schedstat (CONFIG_SCHEDSTATS off): every look reads */
	const struct reading *last = t->count ? &t->ring[(t->head + RING - 1) % RING] : NULL;
	bool whole = t->streak >= RUN_STREAK;
	if ((whole || t->part_streak >= RUN_STREAK) && ++t->unchecked < RUN_EVERY)
		return whole || read_due(ps->period_ns, 0, 0, last ? now - last->t : 1e9);
	/* The looks its run time now covers: RUN_EVERY after a run of unchecked ones. */
	uint64_t looks = t->unchecked ? t->unchecked : 1;
	t->unchecked = 0;
	uint64_t ns;
	if (!run_time(ps, t, &ns) || ns == t->ran_ns) {
		t->streak = t->part_streak = 0;
		return false;
	}
	uint64_t period = ps->period_ns, step = ns - t->ran_ns;
	t->ran_ns = ns;
	t->ran_known = true;
	if (step / looks < period / 4 * 3)
		t->streak = 0;
	else if (t->streak < RUN_STREAK)
		t->streak++;
	if (t->part_streak < RUN_STREAK)
		t->part_streak++;
	return read_due(period, step, t->have_read ? ns - t->read_ns : UINT64_MAX, last ? now - last->t : 1e9);
}

/* Reads the stack of thread t into r, at most depth frames: its thread state (still its
 * own: the tid checked), the frame chain from its current frame. The same process_vm_readv
 * that reads the thread state reads ahead where its last reading found the stack (t's
 * guess: its _PyCFrame's current frame, the window under its innermost frame, its code
 * objects but those trusted unread), so that a stack that stayed in place costs one read.
 * 0; -ESRCH when the process is gone (marked); -EAGAIN when the state is not the thread's (listed again);
 * -EFAULT when torn (counted); -ENODATA when it has no frame yet. */
static int read_stack(struct cpw_python_stacks *ps, struct pyproc *pr, struct pythread *t, uint64_t ts_size,
		      struct reading *r, int depth)
{
	const struct cpw_py_layout *l = &pr->l;
	uint8_t ts[BLOCK_MAX], *win = ps->win_ahead, *cbuf = ps->codes_ahead;
	uint64_t cf_frame = 0;
	struct iovec local[2 + CPW_PY_WINDOW_PIECES + PY_DEPTH], remote[2 + CPW_PY_WINDOW_PIECES + PY_DEPTH];
	size_t n = 0;
#define AHEAD(buf, addr, len) \
	(local[n] = (struct iovec){ (buf), (len) }, remote[n++] = (struct iovec){ (void *)(uintptr_t)(addr), (len) })
	AHEAD(ts, t->tstate, ts_size);
	bool cf_ahead = l->has_cframe && t->g_cframe;
	if (cf_ahead)
		AHEAD(&cf_frame, t->g_cframe + l->cframe_current_frame, sizeof(cf_frame));
	/* The window's first piece (the innermost frame's), the code objects, then the pages
	 * below: a piece not mapped stops the read there, and keeps what came before. */
	struct cpw_py_piece pieces[CPW_PY_WINDOW_PIECES];
	uint64_t base = 0;
	size_t np = t->g_frame ? cpw_python_frames_plan(t->g_frame, l->frame_size, t->g_lo, &base, pieces) : 0;
	size_t piece0_at = n;
	if (np)
		AHEAD(win + (pieces[0].addr - base), pieces[0].addr, pieces[0].len);
	/* The code objects not trusted unread (CODE_TRUST_S): in a steady stack, none. */
	size_t codes_at = n;
	double now = mono_now();
	uint64_t g_code[PY_DEPTH];
	unsigned g_ncodes = 0;
	for (unsigned k = 0; k < t->g_ncodes; k++)
		if (!trusted_code(ps, pr->pid, t->g_code[k], now)) {
			AHEAD(cbuf + (size_t)g_ncodes * l->code_size, t->g_code[k], l->code_size);
			g_code[g_ncodes++] = t->g_code[k];
		}
	size_t below_at = n;
	for (size_t i = 1; i < np; i++)
		AHEAD(win + (pieces[i].addr - base), pieces[i].addr, pieces[i].len);
#undef AHEAD
	ssize_t got = process_vm_readv(pr->pid, local, n, remote, n, 0);
	int rc = got < 0 ? -errno : 0;
	size_t done = copied_whole(local, n, got);
	t->g_frame = 0;
	t->g_ncodes = 0;
	if (rc == -ESRCH || rc == -EPERM) {
		lost(ps, pr, rc);
		return rc;
	}
	if (done == 0 || u64_at(ts, l->tstate_native_thread_id) != (uint64_t)t->tid) {
		t->tstate = 0; /* ended, or its state freed: the next list says */
		pr->need_list = true;
		return -EAGAIN;
	}
	uint64_t frame, cf = 0;
	if (l->has_cframe) {
		cf = u64_at(ts, l->tstate_cframe);
		if (cf == 0)
			return -ENODATA; /* no frame yet: nothing to read */
		if (cf_ahead && done > 1 && cf == t->g_cframe)
			frame = cf_frame;
		else if (!cpw_python_frames_plausible(cf) || rd(pr->pid, cf + l->cframe_current_frame, &frame, sizeof(frame)) < 0) {
			ps->stats.torn++;
			return -EFAULT;
		}
	} else {
		frame = u64_at(ts, l->tstate_current_frame);
	}
	struct ahead ah = { .w = { 0, win, 0 } };
	if (np && done > piece0_at) {
		size_t wgot = pieces[0].len;
		for (size_t i = 1; i < np && below_at + i - 1 < done; i++)
			wgot += pieces[i].len;
		cpw_python_frames_window(pieces, np, base, wgot, &ah.w);
	}
	for (size_t k = 0; k < g_ncodes && codes_at + k < done; k++) {
		ah.code[ah.ncodes] = g_code[k];
		ah.bytes[ah.ncodes++] = cbuf + k * l->code_size;
	}
	uint64_t codes[PY_DEPTH], instrs[PY_DEPTH], lo;
	rc = walk(ps, pr, frame, r, depth, &ah, codes, instrs, &lo);
	if (rc == -ESRCH || rc == -EPERM) {
		lost(ps, pr, rc);
		return rc;
	}
	if (rc < 0) {
		ps->stats.torn++;
		return -EFAULT;
	}
	/* The guess for the next reading: where this one found the stack. */
	t->g_cframe = cf;
	t->g_frame = frame;
	t->g_lo = lo;
	/* Where its two innermost frames were, for the lines of a wait (wait_frames). */
	t->top_n = r->n < 2 ? r->n : 2;
	memcpy(t->top_code, codes, t->top_n * sizeof(codes[0]));
	memcpy(t->top_instr, instrs, t->top_n * sizeof(instrs[0]));
	for (int i = 0; i < r->n; i++) {
		unsigned k = 0;
		while (k < t->g_ncodes && t->g_code[k] != codes[i])
			k++;
		if (k == t->g_ncodes && cpw_python_frames_plausible(codes[i]))
			t->g_code[t->g_ncodes++] = codes[i];
	}
	return 0;
}

/* Reads one hot thread's stack into its ring, where it ran since the last look. */
static void read_thread(struct cpw_python_stacks *ps, struct pyproc *pr, struct pythread *t, uint64_t ts_size,
			double now)
{
	if (!ran(ps, t, now) || (!t->ring && !(t->ring = calloc(RING, sizeof(*t->ring)))))
		return;
	struct reading *r = &t->ring[t->head];
	if (read_stack(ps, pr, t, ts_size, r, PY_DEPTH) < 0)
		return;
	r->t = now;
	t->head = (t->head + 1) % RING;
	if (t->count < RING)
		t->count++;
	t->read_ns = t->ran_ns;
	t->have_read = t->ran_known;
	ps->stats.readings++;
}

static uint64_t tstate_size(const struct cpw_py_layout *l)
{
	uint64_t size = l->tstate_native_thread_id + 8;
	const uint64_t more[] = { l->tstate_next + 8, l->tstate_cframe + 8, l->tstate_current_frame + 8 };
	for (size_t i = 0; i < 3; i++)
		if (more[i] > size)
			size = more[i];
	return size;
}

/* Walks the interpreters' thread lists: each thread's tid and state. */
static void list_threads(struct cpw_python_stacks *ps, struct pyproc *pr, uint64_t ts_size, double now)
{
	const struct cpw_py_layout *l = &pr->l;
	pr->listed_at = now;
	pr->need_list = false;
	uint64_t interp;
	int rc = rd(pr->pid, pr->runtime + l->runtime_interpreters_head, &interp, sizeof(interp));
	if (rc < 0) {
		if (rc == -ESRCH || rc == -EPERM)
			lost(ps, pr, rc);
		return;
	}
	for (int ni = 0; interp && ni < INTERPS_MAX; ni++) {
		uint64_t ts_p;
		if (!cpw_python_frames_plausible(interp) || rd(pr->pid, interp + l->interp_threads_head, &ts_p, sizeof(ts_p)) < 0)
			goto torn;
		for (int nt = 0; ts_p && nt < TSTATES_MAX; nt++) {
			uint8_t ts[BLOCK_MAX];
			if (!cpw_python_frames_plausible(ts_p) || rd(pr->pid, ts_p, ts, ts_size) < 0)
				goto torn;
			uint64_t tid = u64_at(ts, l->tstate_native_thread_id);
			struct pythread *t = tid && tid <= (uint64_t)INT32_MAX ? thread_of(ps, pr->pid, (pid_t)tid, true)
									: NULL;
			if (t) {
				t->tstate = ts_p;
				t->seen = now;
			}
			ts_p = u64_at(ts, l->tstate_next);
		}
		if (rd(pr->pid, interp + l->interp_next, &interp, sizeof(interp)) < 0)
			goto torn;
	}
	return;
torn: /* the lists changed while read (or the process is ending): counted with the stacks */
	ps->stats.torn++;
}

/* How often the thread lists are walked (threads come and go), and how long a thread is read
 * after a sample saw it run: only threads that run cost a read at each tick. A thread a
 * sample shows that no list held, or whose state the reading found freed, is listed within
 * LIST_AGAIN_S: the walk each LIST_S only keeps the others from being forgotten (FORGET_S),
 * and costs a read per thread (four walks a second were 5 % of the reader's CPU). */
#define LIST_S 1.0
#define LIST_AGAIN_S 0.025
#define HOT_S 1.0

static void read_proc(struct cpw_python_stacks *ps, struct pyproc *pr)
{
	uint64_t ts_size = tstate_size(&pr->l);
	if (ts_size > BLOCK_MAX)
		return;
	double now = mono_now();
	if ((pr->need_list && now - pr->listed_at > LIST_AGAIN_S) || now - pr->listed_at > LIST_S)
		list_threads(ps, pr, ts_size, now);
	for (size_t i = 0; i < ps->nthreads && pr->state == P_READING; i++) {
		struct pythread *t = ps->threads[i];
		if (t->pid == pr->pid && t->tstate && now < t->hot_until)
			read_thread(ps, pr, t, ts_size, now);
	}
}

/* Threads no interpreter listed for FORGET_S (ended, or their process did): their last
 * readings wait that long for the samples of the next drain. */
#define FORGET_S 2.0
static void forget_threads(struct cpw_python_stacks *ps, double now)
{
	for (size_t i = 0; i < ps->nthreads;) {
		struct pythread *t = ps->threads[i];
		if (now - t->seen < FORGET_S) {
			i++;
			continue;
		}
		drop_fd(ps, t);
		free(t->ring);
		free(t);
		ps->threads[i] = ps->threads[--ps->nthreads];
	}
}

static void *reader(void *arg)
{
	struct cpw_python_stacks *ps = arg;
	while (!atomic_load(&ps->stop)) {
		pthread_mutex_lock(&ps->lock);
		for (size_t i = 0; i < ps->nprocs; i++)
			if (ps->procs[i].state == P_READING)
				read_proc(ps, &ps->procs[i]);
		forget_threads(ps, mono_now());
		pthread_mutex_unlock(&ps->lock);
		/* The next point of the grid after now (behind: no burst to catch up), which the
		 * session's samples share: one wake-up for both where they meet. */
		struct timespec now, next;
		clock_gettime(CLOCK_MONOTONIC, &now);
		next = cpw_tick_grid_next(ps->origin, ps->period_ns, now);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

/* ---- the samples ---- */

#define RETRY_S 1.0

/* A record of an ended process, for a new one when the table is full (a long run starts
 * many Python processes: a test runner's, a pool's that are replaced): one marked gone, else,
 * at most once a second, those whose /proc/PID is no more are marked so. NULL when every
 * process kept still runs. */
#define RECLAIM_S 1.0
static struct pyproc *reclaim(struct cpw_python_stacks *ps)
{
	double now = mono_now();
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < ps->nprocs; i++)
			if (ps->procs[i].state == P_GONE)
				return &ps->procs[i];
		if (pass == 1 || now - ps->reclaimed_at < RECLAIM_S)
			break;
		ps->reclaimed_at = now;
		for (size_t i = 0; i < ps->nprocs; i++) {
			char p[300];
			snprintf(p, sizeof(p), "%s/%d", ps->proc_root, (int)ps->procs[i].pid);
			if (access(p, F_OK) != 0 && errno == ENOENT)
				ps->procs[i].state = P_GONE;
		}
	}
	return NULL;
}

/* The record of pid; a process seen for the first time is taken on (retry: one seen before
 * is taken on again). NULL when the table is full. The lock is held. */
static struct pyproc *proc_of(struct cpw_python_stacks *ps, pid_t pid, const char *comm, double when,
			      bool (*retry)(const struct pyproc *pr, const char *comm, double when))
{
	struct pyproc *pr = NULL;
	for (size_t i = 0; i < ps->nprocs && !pr; i++)
		if (ps->procs[i].pid == pid)
			pr = &ps->procs[i];
	if (pr && !retry(pr, comm, when))
		return pr;
	if (!pr) {
		if (ps->nprocs < PROCS_MAX)
			pr = &ps->procs[ps->nprocs++];
		else if (!(pr = reclaim(ps)))
			return NULL;
	}
	*pr = (struct pyproc){ .pid = pid, .tried_at = when };
	snprintf(pr->comm, sizeof(pr->comm), "%s", comm);
	take_on(ps, pr);
	return pr;
}

static bool renamed(const struct pyproc *pr, const char *comm)
{
	return strncmp(pr->comm, comm, sizeof(pr->comm) - 1) != 0;
}

/* A sample in the interpreter of a process that was not Python, or had ended: looked at
 * again under a new name or a second later. */
static bool retry_in_interp(const struct pyproc *pr, const char *comm, double when)
{
	return (pr->state == P_NOT_PYTHON || pr->state == P_GONE) &&
	       (renamed(pr, comm) || when - pr->tried_at > RETRY_S);
}

static bool retry_never(const struct pyproc *pr, const char *comm, double when)
{
	(void)pr, (void)comm, (void)when;
	return false;
}

/* Whether pid's stacks are read; the lock is held on return. A process seen for the first
 * time is taken on (its maps, its interpreter's symbols, a read of its memory: a few ms once
 * per process, the reader's thread waiting); one that was not Python is looked at again
 * when it runs in an interpreter under a new name (it exec'd: a shell script's python) or a
 * second later, and one that had ended when its pid runs again in an interpreter. The
 * reader's thread starts with the first process read. */
static bool lock_reading(struct cpw_python_stacks *ps, const struct cpw_stack *st, bool in_interp)
{
	pthread_mutex_lock(&ps->lock);
	struct pyproc *pr = proc_of(ps, st->pid, st->comm ? st->comm : "", st->mono_s,
				    in_interp ? retry_in_interp : retry_never);
	if (!pr || pr->state != P_READING)
		return false;
	if (!ps->started)
		ps->started = pthread_create(&ps->thread, NULL, reader, ps) == 0;
	return true;
}

static void mark_need_list(struct cpw_python_stacks *ps, pid_t pid)
{
	for (size_t i = 0; i < ps->nprocs; i++)
		if (ps->procs[i].pid == pid)
			ps->procs[i].need_list = true;
}

static const struct reading *nearest(const struct pythread *t, double when, double tol)
{
	const struct reading *best = NULL;
	double best_d = tol;
	for (unsigned i = 0; i < t->count; i++) {
		const struct reading *r = &t->ring[i];
		double d = r->t > when ? r->t - when : when - r->t;
		if (d <= best_d) {
			best = r;
			best_d = d;
		}
	}
	return best;
}

/* Thread t runs: it is read from now on (its state found by the next list walk). */
static void read_from_now(struct cpw_python_stacks *ps, struct pythread *t)
{
	t->hot_until = mono_now() + HOT_S;
	if (!t->tstate)
		mark_need_list(ps, t->pid);
}

void cpw_python_stacks_prime(struct cpw_python_stacks *ps, pid_t pid, const char *comm)
{
	if (!ps)
		return;
	const struct cpw_stack st = { .pid = pid, .tid = pid, .comm = comm, .mono_s = mono_now() };
	struct pythread *t = lock_reading(ps, &st, true) ? thread_of(ps, pid, pid, true) : NULL;
	if (t)
		read_from_now(ps, t);
	pthread_mutex_unlock(&ps->lock);
}

void cpw_python_stacks_resolve(struct cpw_python_stacks *ps, struct cpw_stack *st)
{
	if (!ps || st->nframes <= 0)
		return;
	/* The native frames above the interpreter stay (a C extension, libz called from Python);
	 * from the first interpreter frame on, the Python frames take the place of its own. A
	 * chain cut short (no frame pointers) gets them after what it has. */
	int keep = -1;
	for (int i = 0; i < st->nframes && keep < 0; i++)
		if (st->frames[i].kind == CPW_CODE_INTERPRETER)
			keep = i;
	if (keep < 0) {
		if (!st->cut_short && st->nframes > 1)
			return;
		keep = st->nframes;
	}
	bool reading = lock_reading(ps, st, keep < st->nframes);
	/* A process that ended before this drain is no longer read, but the readings taken
	 * while it ran still serve its last samples (a command's last 0.1 s, all of a short
	 * one's). */
	struct pythread *t = thread_of(ps, st->pid, st->tid, reading);
	if (!reading && (!t || t->count == 0)) {
		pthread_mutex_unlock(&ps->lock);
		return;
	}
	if (reading && t)
		read_from_now(ps, t);
	const struct reading *r = t ? nearest(t, st->mono_s, 2e-9 * (double)ps->period_ns + 0.002) : NULL;
	if (!r || r->n == 0) {
		if (keep < st->nframes) /* in the interpreter: its own frames stand, counted */
			ps->stats.unmatched++;
		pthread_mutex_unlock(&ps->lock);
		return;
	}
	int n = keep;
	for (int i = 0; i < r->n && n < CPW_STACK_MAX; i++, n++) {
		const struct pyfn *f = &ps->fns[r->fn[i]];
		st->frames[n] = (struct cpw_frame){ f->name, f->file, CPW_CODE_PYTHON };
	}
	st->nframes = n;
	st->cut_short = false;
	ps->stats.matched++;
	pthread_mutex_unlock(&ps->lock);
}

/* ---- the waits ---- */

/* A process seen waiting that was not Python, or had ended: looked at again under a new
 * name only (it exec'd), so that a process that is not Python costs one look. */
static bool retry_renamed(const struct pyproc *pr, const char *comm, double when)
{
	(void)when;
	return (pr->state == P_NOT_PYTHON || pr->state == P_GONE) && renamed(pr, comm);
}

/* The function fn (of the code object at code) named with the line its frame is at, the
 * instruction at instr (frame_instr): "fetch" at "netwait.py:23", where its first line was
 * "netwait.py:20". Its location table is read (one small process_vm_readv, the code
 * object's fields as code_fn() found them): once for each wait at a line not told before,
 * never for a sample. 0 where it cannot be told
 * (the table unreadable, the code object not fn's any more, the function table full). */
#define LINETABLE_MAX 8192
#define LINETABLE_AHEAD 512
/* The reading of the table for fn_at_line (below), which keeps what it told: the code object's
 * table and first line as code_fn() found them (its bytes read no more than a second ago),
 * and the table's bytes object read with its header and the first LINETABLE_AHEAD bytes of
 * the table, in one process_vm_readv (a second only for a longer table: a function's is
 * ~100-600 bytes). */
static uint16_t line_read(struct cpw_python_stacks *ps, const struct pyproc *pr, const struct code_ent *c,
			  uint64_t instr, uint16_t fn)
{
	const struct cpw_py_layout *l = &pr->l;
	uint64_t table = c->table_p, start = c->addr + l->code_adaptive;
	uint8_t bytes[64 + LINETABLE_MAX];
	if (instr < start || instr - start > (1u << 24) || !cpw_python_frames_plausible(table) ||
	    l->bytes_sval > 64 || l->bytes_size + sizeof(int64_t) > l->bytes_sval)
		return 0;
	/* A read that meets an unmapped page stops there (what it got is used). */
	struct iovec local = { bytes, l->bytes_sval + LINETABLE_AHEAD };
	struct iovec remote = { (void *)(uintptr_t)table, local.iov_len };
	ssize_t got = process_vm_readv(pr->pid, &local, 1, &remote, 1, 0);
	if (got < (ssize_t)l->bytes_sval)
		return 0;
	int64_t len;
	memcpy(&len, bytes + l->bytes_size, sizeof(len));
	if (len <= 0)
		return 0;
	size_t want = LINETABLE_MAX, have = (size_t)got - l->bytes_sval;
	if ((uint64_t)len < want)
		want = (size_t)len;
	if (have < want && rd(pr->pid, table + l->bytes_sval + have, bytes + l->bytes_sval + have, want - have) < 0)
		return 0;
	int line = cpw_python_lines_at(bytes + l->bytes_sval, want, c->first, instr - start);
	if (line <= 0)
		return 0;
	/* The function's file without its first line: "netwait.py:20" -> "netwait.py". */
	char base[FILE_LEN], where[FILE_LEN + 16];
	snprintf(base, sizeof(base), "%s", ps->fns[fn].file);
	char *colon = strrchr(base, ':');
	if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1))
		*colon = '\0';
	snprintf(where, sizeof(where), "%s:%d", base, line);
	return intern_fn(ps, ps->fns[fn].name, where);
}

static uint16_t fn_at_line(struct cpw_python_stacks *ps, const struct pyproc *pr, uint64_t code, uint64_t instr,
			   uint16_t fn)
{
	uint16_t now_fn;
	if (fn == 0 || !cpw_python_frames_plausible(code) ||
	    code_fn(ps, pr, code, NULL, NULL, mono_now(), &now_fn) < 0 || now_fn != fn)
		return 0;
	/* The same code object (still fn's) at the same instruction: the same line. */
	struct line_ent *e = &ps->lines[((code >> 4) ^ (instr * 0x9E3779B97F4A7C15ull >> 40) ^
					 (uint64_t)(uint32_t)pr->pid) % LINE_CACHE];
	if (e->pid == pr->pid && e->code == code && e->instr == instr && e->fn == fn)
		return e->at;
	/* code_fn() has just left code's entry in its slot, checked or trusted. */
	const struct code_ent *c = code_slot(ps, pr->pid, code);
	uint16_t at = c->addr == code && c->pid == pr->pid ? line_read(ps, pr, c, instr, fn) : 0;
	*e = (struct line_ent){ pr->pid, code, instr, fn, at };
	return at;
}

/* The innermost two Python frames of waiting thread tid into out: how many. The newest
 * reading serves where the thread has not run since it was taken (its schedstat run time
 * did not move: its frames cannot have changed), else two frames are read now; the
 * answer is kept for the next question in the same manner. */
static int wait_frames(struct cpw_python_stacks *ps, struct pyproc *pr, pid_t tid, uint64_t run_ns, double now,
		       struct cpw_python_frame out[2])
{
	uint64_t ts_size = tstate_size(&pr->l);
	if (ts_size > BLOCK_MAX)
		return 0;
	if (!ps->started)
		forget_threads(ps, now); /* else the reader's thread does */
	struct pythread *t = thread_of(ps, pr->pid, tid, true);
	if (!t)
		return 0;
	if (!t->tstate && now - pr->listed_at > LIST_AGAIN_S)
		list_threads(ps, pr, ts_size, now);
	if (!t->tstate || pr->state != P_READING)
		return 0; /* not a Python thread (or not yet one) */
	uint64_t ns = run_ns;
	bool timed = run_ns > 0 || run_time(ps, t, &ns);
	if (!timed || !t->have_wait || t->wait_ns != ns) {
		struct reading fresh;
		const struct reading *r = &fresh;
		if (timed && t->have_read && t->read_ns == ns && t->count)
			r = &t->ring[(t->head + RING - 1) % RING];
		else if (read_stack(ps, pr, t, ts_size, &fresh, 2) < 0)
			return 0;
		t->wait_n = r->n < 2 ? r->n : 2;
		memcpy(t->wait_fn, r->fn, t->wait_n * sizeof(t->wait_fn[0]));
		for (int i = 0; i < t->wait_n; i++)
			t->wait_at[i] = t->top_n > i ? fn_at_line(ps, pr, t->top_code[i], t->top_instr[i], t->wait_fn[i])
						     : 0;
		t->wait_ns = ns;
		t->have_wait = timed;
	}
	for (int i = 0; i < t->wait_n; i++) {
		uint16_t f = t->wait_at[i] ? t->wait_at[i] : t->wait_fn[i];
		out[i] = (struct cpw_python_frame){ ps->fns[f].name, ps->fns[f].file };
	}
	return t->wait_n;
}

int cpw_python_stacks_waiting(struct cpw_python_stacks *ps, pid_t pid, pid_t tid, const char *comm,
			      uint64_t run_ns, struct cpw_python_frame out[2])
{
	if (!ps)
		return 0;
	pthread_mutex_lock(&ps->lock);
	double now = mono_now();
	struct pyproc *pr = proc_of(ps, pid, comm ? comm : "", now, retry_renamed);
	int n = pr && pr->state == P_READING ? wait_frames(ps, pr, tid, run_ns, now, out) : 0;
	pthread_mutex_unlock(&ps->lock);
	return n;
}

void cpw_python_stacks_get_stats(struct cpw_python_stacks *ps, struct cpw_python_stacks_stats *out)
{
	pthread_mutex_lock(&ps->lock);
	*out = ps->stats;
	pthread_mutex_unlock(&ps->lock);
}

void cpw_python_stacks_notes(struct cpw_python_stacks *ps, cpw_python_note_fn fn, void *ctx)
{
	pthread_mutex_lock(&ps->lock);
	for (size_t i = 0; i < ps->nnotes; i++) {
		char line[360];
		if (ps->notes[i].n > 1)
			snprintf(line, sizeof(line), "%s (%u processes)", ps->notes[i].text, ps->notes[i].n);
		else
			snprintf(line, sizeof(line), "%s", ps->notes[i].text);
		fn(ctx, line);
	}
	pthread_mutex_unlock(&ps->lock);
}

void cpw_python_stacks_free(struct cpw_python_stacks *ps)
{
	if (!ps)
		return;
	if (ps->started) {
		atomic_store(&ps->stop, true);
		pthread_join(ps->thread, NULL);
	}
	for (size_t i = 0; i < ps->nthreads; i++) {
		drop_fd(ps, ps->threads[i]);
		free(ps->threads[i]->ring);
		free(ps->threads[i]);
	}
	pthread_mutex_destroy(&ps->lock);
	free(ps->fns);
	free(ps);
}
