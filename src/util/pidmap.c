/*
 * pidmap.c: pid to index, open addressing with linear probing (pidmap.h).
 */
#include "config.h"
#include "util/pidmap.h"

#include <errno.h>
#include <stdlib.h>

#define FIRST_SIZE 256

static size_t home_of(pid_t pid, size_t size)
{
	return ((size_t)pid * 2654435761u) & (size - 1);
}

/* The slot that holds pid, or the free slot where it would go. */
static size_t slot_of(const struct cpw_pidmap *m, pid_t pid)
{
	size_t h = home_of(pid, m->size);
	while (m->slot[h].idx >= 0 && m->slot[h].pid != pid)
		h = (h + 1) & (m->size - 1);
	return h;
}

void cpw_pidmap_init(struct cpw_pidmap *m)
{
	m->slot = NULL;
	m->size = 0;
	m->used = 0;
}

void cpw_pidmap_free(struct cpw_pidmap *m)
{
	free(m->slot);
	cpw_pidmap_init(m);
}

int cpw_pidmap_get(const struct cpw_pidmap *m, pid_t pid)
{
	if (!m->size)
		return -1;
	return m->slot[slot_of(m, pid)].idx;
}

static int grow(struct cpw_pidmap *m)
{
	size_t size = m->size ? m->size * 2 : FIRST_SIZE;
	struct cpw_pidmap_entry *slot = malloc(size * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < size; i++)
		slot[i].idx = -1;
	struct cpw_pidmap old = *m;
	m->slot = slot;
	m->size = size;
	for (size_t i = 0; i < old.size; i++)
		if (old.slot[i].idx >= 0)
			m->slot[slot_of(m, old.slot[i].pid)] = old.slot[i];
	free(old.slot);
	return 0;
}

int cpw_pidmap_put(struct cpw_pidmap *m, pid_t pid, int idx)
{
	if ((m->used + 1) * 2 > m->size && grow(m) < 0)
		return -ENOMEM;
	size_t h = slot_of(m, pid);
	if (m->slot[h].idx < 0)
		m->used++;
	m->slot[h].pid = pid;
	m->slot[h].idx = idx;
	return 0;
}

void cpw_pidmap_remove(struct cpw_pidmap *m, pid_t pid)
{
	if (!m->size)
		return;
	size_t mask = m->size - 1, gap = slot_of(m, pid);
	if (m->slot[gap].idx < 0)
		return;
	m->slot[gap].idx = -1;
	m->used--;
	for (size_t i = (gap + 1) & mask; m->slot[i].idx >= 0; i = (i + 1) & mask) {
		size_t home = home_of(m->slot[i].pid, m->size);
		/* Move it back when its home is not in the (cyclic) range gap+1..i. */
		if (((i - home) & mask) >= ((i - gap) & mask)) {
			m->slot[gap] = m->slot[i];
			m->slot[i].idx = -1;
			gap = i;
		}
	}
}
