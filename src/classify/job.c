/*
 * job.c: a job's ranks gathered from what their reports say (see job.h): each rank once,
 * its class known, and every file left out accounted for: the first CPW_JOB_NOTES_MAX by
 * name, the rest counted ("... and 9,983 more files cut short"), so that none goes
 * unmentioned. A hash index over the ranks keeps the check of a rank given twice constant
 * in time: a job of 100,000 ranks is merged in O(n).
 */
#include "config.h"
#include "classify/job.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"

void cpw_job_init(struct cpw_job *job)
{
	memset(job, 0, sizeof(*job));
	job->straggler = job->cpu_min_i = job->cpu_max_i = -1;
}

void cpw_job_free(struct cpw_job *job)
{
	free(job->ranks);
	free(job->index);
	job->ranks = NULL;
	job->index = NULL;
	job->nranks = job->cap = job->index_cap = 0;
}

void cpw_job_rank_name(const struct cpw_job_rank *r, char *buf, size_t len)
{
	if (r->said.rank >= 0 && r->said.host[0])
		snprintf(buf, len, "rank %d (%s)", r->said.rank, r->said.host);
	else if (r->said.rank >= 0)
		snprintf(buf, len, "rank %d", r->said.rank);
	else
		snprintf(buf, len, "%s", r->said.file);
}

uint64_t cpw_job_hash(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
	return h;
}

/* 9983 as "9,983". */
static void grouped(size_t n, char *buf, size_t len)
{
	char digits[32];
	int nd = snprintf(digits, sizeof(digits), "%zu", n);
	size_t o = 0;
	for (int i = 0; i < nd && o + 2 < len; i++) {
		if (i && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/* The closing lines after the named notes: how many more files were left out, by why. */
static void close_notes(struct cpw_job *job)
{
	static const char *const more[CPW_JOB_WHYS] = {
		[CPW_JOB_CUT_SHORT] = "cut short",
		[CPW_JOB_AGAIN] = "of a rank (or a file) already merged",
	};
	job->nnotes = job->nnamed;
	for (int w = 0; w < CPW_JOB_WHYS; w++) {
		char n[32];
		if (!job->unnamed[w])
			continue;
		grouped(job->unnamed[w], n, sizeof(n));
		snprintf(job->notes[job->nnotes++], CPW_JOB_NOTE_LEN, "... and %s more file%s %s: left out of the merge",
			 n, job->unnamed[w] == 1 ? "" : "s", more[w]);
	}
}

/* Notes a file left out: by name while there is room, else counted. */
static void left_out(struct cpw_job *job, enum cpw_job_left_out_why why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void left_out(struct cpw_job *job, enum cpw_job_left_out_why why, const char *fmt, ...)
{
	job->left_out[why]++;
	if (job->nnamed < CPW_JOB_NOTES_MAX) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(job->notes[job->nnamed++], CPW_JOB_NOTE_LEN, fmt, ap);
		va_end(ap);
	} else {
		job->unnamed[why]++;
	}
	close_notes(job);
}

void cpw_job_cut_short(struct cpw_job *job, const char *file)
{
	left_out(job, CPW_JOB_CUT_SHORT, "%s is cut short (not a whole JSON document): left out of the merge", file);
}

/* What tells a rank from another: its rank and host, or its file where it has no rank. */
static uint64_t rank_key(const struct cpw_rank_report *r)
{
	if (r->rank < 0)
		return cpw_job_hash(r->file, CPW_JOB_HASH_START);
	char rank[16];
	snprintf(rank, sizeof(rank), "%d", r->rank);
	return cpw_job_hash(r->host, cpw_job_hash("\n", cpw_job_hash(rank, CPW_JOB_HASH_START)));
}

static bool same_rank(const struct cpw_rank_report *a, const struct cpw_rank_report *b)
{
	if (a->rank != b->rank)
		return false;
	return a->rank >= 0 ? strcmp(a->host, b->host) == 0 : strcmp(a->file, b->file) == 0;
}

/* The slot of the index where r is, or the free slot where it would go. */
static size_t index_slot(const struct cpw_job *job, const struct cpw_rank_report *r)
{
	size_t mask = job->index_cap - 1, i = (size_t)rank_key(r) & mask;
	while (job->index[i] && !same_rank(&job->ranks[job->index[i] - 1].said, r))
		i = (i + 1) & mask;
	return i;
}

/* Room for one more rank, in the array and in the index (kept at most half full). */
static bool grow(struct cpw_job *job)
{
	if (job->nranks == job->cap) {
		size_t cap = job->cap ? job->cap * 2 : 16;
		struct cpw_job_rank *more = realloc(job->ranks, cap * sizeof(*more));
		if (!more)
			return false;
		job->ranks = more;
		job->cap = cap;
	}
	if (2 * (job->nranks + 1) <= job->index_cap)
		return true;
	size_t cap = job->index_cap ? job->index_cap * 2 : 64;
	size_t *index = calloc(cap, sizeof(*index));
	if (!index)
		return false;
	free(job->index);
	job->index = index;
	job->index_cap = cap;
	for (size_t i = 0; i < job->nranks; i++)
		job->index[index_slot(job, &job->ranks[i].said)] = i + 1;
	return true;
}

enum cpw_job_add cpw_job_add(struct cpw_job *job, const struct cpw_rank_report *said, char *why,
			     size_t whylen)
{
	char file[512];
	int cls = cpw_verdict_class_from_name(said->cls);
	cpw_escape_for_terminal(said->file, file, sizeof(file));
	if (cls < 0) {
		char safe[4 * sizeof(said->cls)];
		cpw_escape_for_terminal(said->cls, safe, sizeof(safe));
		snprintf(why, whylen, "%s: verdict.class is '%s', not a class this cperfwatch knows", file, safe);
		return CPW_JOB_REFUSED;
	}
	if (!grow(job)) {
		snprintf(why, whylen, "%s: out of memory", file);
		return CPW_JOB_REFUSED;
	}
	/* The same rank twice (a file given twice, two jobs' reports in one glob) would count
	 * its figures twice and repeat its series: the first one stands. */
	size_t slot = index_slot(job, said);
	if (job->index[slot]) {
		const struct cpw_rank_report *first = &job->ranks[job->index[slot] - 1].said;
		if (said->rank >= 0)
			left_out(job, CPW_JOB_AGAIN, "%s is rank %d of %s again (as %s): left out of the merge",
				 said->file, said->rank, said->host[0] ? said->host : "an unnamed host", first->file);
		else
			left_out(job, CPW_JOB_AGAIN, "%s is given again: left out of the merge", said->file);
		return CPW_JOB_LEFT_OUT;
	}
	struct cpw_job_rank *r = &job->ranks[job->nranks];
	r->said = *said;
	r->cls = (enum cpw_class)cls;
	job->index[slot] = ++job->nranks;
	return CPW_JOB_ADDED;
}
