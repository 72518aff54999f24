/*
 * sample_private.h: the inside of the sampler (source/sample/), for its files and its unit
 * tests: the record parser (sample_parse.c, pure), the processes' mappings and the files
 * they map (sample_maps.c).
 */
#ifndef CPW_SOURCE_SAMPLE_SAMPLE_PRIVATE_H
#define CPW_SOURCE_SAMPLE_SAMPLE_PRIVATE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "source/sample/sampler.h"

/* What the events ask of every sample, and of every other record (sample_id_all). */
#define CPW_SAMPLE_TYPE \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN)

/* One record, parsed. Pointers point into the record's bytes. */
struct cpw_rec {
	uint32_t type;
	uint16_t misc;
	uint64_t time;      /* ns, CLOCK_MONOTONIC; 0 where the record carries none */
	uint32_t pid, tid;
	/* PERF_RECORD_SAMPLE */
	uint64_t ip;
	uint64_t nr;                /* callchain entries */
	const unsigned char *ips;   /* nr little u64s, unaligned */
	/* PERF_RECORD_MMAP2 */
	uint64_t addr, len, pgoff;
	uint64_t ino;               /* 0 with a build-id */
	uint8_t build_id[20];
	uint8_t build_id_len;
	uint32_t prot;
	const char *filename;
	/* PERF_RECORD_COMM */
	const char *comm;
	/* PERF_RECORD_FORK, PERF_RECORD_EXIT */
	uint32_t ppid;
	/* PERF_RECORD_LOST */
	uint64_t lost;
};

/* Parses one record of len bytes (its header included). Returns 0, 1 for a record of a
 * type not used here, or -EINVAL when it does not hold what its type says. */
int cpw_sample_parse(const void *rec, size_t len, struct cpw_rec *out);
/* Callchain entry i of a parsed sample. */
uint64_t cpw_sample_rec_ip(const struct cpw_rec *r, uint64_t i);

/* One executable line of /proc/PID/maps: false for any other line. path points into line. */
struct cpw_maps_line {
	uint64_t start, end, pgoff, ino;
	const char *path; /* "" for an anonymous mapping */
};
bool cpw_sample_maps_parse_line(const char *line, struct cpw_maps_line *out);
/* What kind of code a file of this path holds (the base name decides). */
enum cpw_code_kind cpw_sample_code_kind_of_path(const char *path);

/* ---- the processes and their mappings (sample_maps.c) ---- */

struct cpw_symtab;
struct cpw_symtab *cpw_sample_symtab_new(const char *proc_root);
void cpw_sample_symtab_free(struct cpw_symtab *t);
/* Records. */
void cpw_sample_symtab_mmap(struct cpw_symtab *t, const struct cpw_rec *r);
void cpw_sample_symtab_comm(struct cpw_symtab *t, const struct cpw_rec *r);
void cpw_sample_symtab_fork(struct cpw_symtab *t, const struct cpw_rec *r);
void cpw_sample_symtab_exit(struct cpw_symtab *t, const struct cpw_rec *r);
/* Processes that exited before this drain are forgotten (their last samples may come in
 * another CPU's buffer in the same drain). */
void cpw_sample_symtab_end_drain(struct cpw_symtab *t);
/* Reads now what pid mapped before the events were armed, and its name, where nothing did
 * yet (those are otherwise read at its first sample, which a process that ends before the
 * next drain no longer has). */
void cpw_sample_symtab_prime(struct cpw_symtab *t, pid_t pid);
/* Turns a sample into a stack; false when it is not one (no frames). */
bool cpw_sample_symtab_resolve(struct cpw_symtab *t, const struct cpw_rec *r, struct cpw_stack *st);
/* Where function func (a frame's name) of file (a frame's file) is declared: "file.c:LINE"
 * from the DWARF of a file the processes map of that base name that has the symbol. The
 * debug information of one file is held open at a time, until another's is asked for or
 * cpw_sample_symtab_lines_done(). */
bool cpw_sample_symtab_source_line(struct cpw_symtab *t, const char *func, const char *file, char *out, size_t len);
void cpw_sample_symtab_lines_done(struct cpw_symtab *t);
/* Samples whose chain ended early, had one frame, or whose own address was not mapped;
 * files unread. */
void cpw_sample_symtab_stats(const struct cpw_symtab *t, struct cpw_sampler_stats *out);

/* ---- reading a mapped file (source/elf/elf_file.c) is declared in elf_file.h ---- */

#endif
