/*
 * sleeper: sleeps in short naps with a sliver of work between them, like a poller. The
 * process is asleep in S state almost all of its life. Ground truth for "waiting".
 *
 *   sleeper [SECONDS=1.5] [NAP_MS=20]
 */
#include "workload.h"

int main(int argc, char **argv)
{
	static const char usage[] = "sleeper [SECONDS] [NAP_MS]";
	double secs = wl_arg_double(argc, argv, 1, 1.5, usage);
	long nap_ms = wl_arg_long(argc, argv, 2, 20, usage);
	struct timespec nap = { .tv_sec = nap_ms / 1000, .tv_nsec = (nap_ms % 1000) * 1000000L };
	double deadline = wl_now() + secs;

	while (wl_now() < deadline) {
		/* About 1% of each nap in work, so the process is not entirely idle. */
		wl_spin_until(wl_now() + (double)nap_ms / 1e5);
		nanosleep(&nap, NULL);
	}
	return 0;
}
