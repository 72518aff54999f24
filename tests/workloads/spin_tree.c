/*
 * spin_tree: a parent that forks N spinning children and waits for them. Ground truth
 * for "cpu-bound" over a process tree, and for tree-wide accounting (the tree's user+sys
 * is the children's, the parent only waits).
 *
 *   spin_tree [N=2] [SECONDS=1.5]
 */
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char **argv)
{
	static const char usage[] = "spin_tree [N] [SECONDS]";
	long n = wl_arg_long(argc, argv, 1, 2, usage);
	double secs = wl_arg_double(argc, argv, 2, 1.5, usage);
	double deadline = wl_now() + secs;
	int status, rc = 0;

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("spin_tree: fork");
			rc = 1;
			break;
		}
		if (pid == 0) {
			wl_spin_until(deadline);
			_exit(0);
		}
	}
	/* Reap every child, including after a failed fork, so none is left behind. */
	while (wait(&status) > 0) {
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			rc = 1;
	}
	return rc;
}
