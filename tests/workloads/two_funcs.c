/*
 * two_funcs: two functions that split the CPU 3 to 1, hot_path and cold_path, both called
 * from main. Built with frame pointers, so that their samples' stacks reach main: the
 * ground truth of --flame's picture (tests/integration/test_flame.sh).
 *
 *   two_funcs [SECONDS=2]
 */
#include "workload.h"

static volatile unsigned long sink;

/* Called by both before their loop: neither is a leaf, so each sets up its frame pointer
 * first (GCC drops a leaf's, whatever -mno-omit-leaf-frame-pointer says), and a sample in
 * it shows its caller. */
__attribute__((noinline, noclone)) static unsigned long seed(void)
{
	return sink;
}

__attribute__((noinline, noclone)) static void hot_path(unsigned long n)
{
	unsigned long x = seed();
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + i;
	sink = x;
}

__attribute__((noinline, noclone)) static void cold_path(unsigned long n)
{
	unsigned long x = seed();
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + (i ^ 7);
	sink = x;
}

int main(int argc, char **argv)
{
	double end = wl_now() + wl_arg_double(argc, argv, 1, 2, "two_funcs [SECONDS]");

	while (wl_now() < end) {
		hot_path(75000);
		cold_path(25000);
	}
	return 0;
}
