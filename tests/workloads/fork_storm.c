/*
 * fork_storm: runs a short program COUNT times, one after the other (fork, exec, wait),
 * as a shell loop calling `true` does. The time goes to creating processes: fork's
 * page-table copies and copy-on-write faults, exec, the dynamic loader. Ground truth for
 * "process creation" (issue 30 item 13: it was called memory-bound, "use less space").
 *
 *   fork_storm [COUNT=3000] [PROGRAM=true]
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char **argv)
{
	static const char usage[] = "fork_storm [COUNT] [PROGRAM]";
	long count = wl_arg_long(argc, argv, 1, 3000, usage);
	const char *prog = argc > 2 ? argv[2] : "true";
	/* A parent with some memory, as a shell or a script has: fork copies its page tables. */
	size_t ballast = 16u << 20;
	char *mem = malloc(ballast);

	if (mem == NULL) {
		fprintf(stderr, "fork_storm: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < ballast; i += 4096)
		mem[i] = (char)i;
	for (long i = 0; i < count; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("fork_storm: fork");
			return 1;
		}
		if (pid == 0) {
			execlp(prog, prog, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0) {
			perror("fork_storm: waitpid");
			return 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "fork_storm: %s failed\n", prog);
			return 1;
		}
	}
	free(mem);
	return 0;
}
