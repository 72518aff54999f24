/*
 * fdlimit.c: cperfwatch's open-files limit raised, the command's put back (fdlimit.h).
 */
#include "config.h"
#include "source/kernel/fdlimit.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>

static struct rlimit given;
static bool raised;

long cpw_fdlimit_raise(char *err, size_t errlen)
{
	struct rlimit now;
	if (getrlimit(RLIMIT_NOFILE, &now) < 0)
		return 1024; /* cannot be read: work as if the usual limit were in force */
	if (now.rlim_max != RLIM_INFINITY && now.rlim_max < CPW_FDLIMIT_MIN) {
		snprintf(err, errlen, "too few open files allowed (ulimit -n is %llu, hard limit %llu): "
			 "cperfwatch needs at least %d", (unsigned long long)now.rlim_cur,
			 (unsigned long long)now.rlim_max, CPW_FDLIMIT_MIN);
		return -EMFILE;
	}
	if (!raised) {
		given = now;
		raised = true;
	}
	if (now.rlim_cur < now.rlim_max) {
		struct rlimit want = now;
		want.rlim_cur = now.rlim_max > 65536 ? 65536 : now.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			now = want;
	}
	return now.rlim_cur == RLIM_INFINITY ? 65536 : (long)now.rlim_cur;
}

void cpw_fdlimit_restore(void)
{
	if (raised)
		setrlimit(RLIMIT_NOFILE, &given);
}
