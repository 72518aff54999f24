/*
 * spin: a spinning loop, pure user CPU. Ground truth for "cpu-bound".
 *
 *   spin [SECONDS=1.5]
 */
#include "workload.h"

int main(int argc, char **argv)
{
	double secs = wl_arg_double(argc, argv, 1, 1.5, "spin [SECONDS]");

	wl_spin_until(wl_now() + secs);
	return 0;
}
