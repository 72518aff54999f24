/*
 * test_kernel_live.c: the kernel-interface sources against the real kernel: a cgroup of our
 * own (create, move a child in, read, destroy, and nothing left behind; a memory limit set
 * above us binds the child; a launched child starts inside without a migration, making its
 * v1 groups itself), taskstats queries and exit records, and the reasons given to an
 * unprivileged user. Plain TAP (not CUnit) because these tests must be able to SKIP,
 * saying why, where there is no root or no writable cgroupfs.
 */
#include "config.h"
#include "source/cgroup/cgroup.h"
#include "modes/launch.h"
#include "source/kernel/taskstats.h"
#include "live_tap.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* A child blocked on a pipe until released, then touching mib MiB and sleeping. */
static pid_t gated_child(int gate[2], size_t mib)
{
	if (pipe(gate) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(gate[1]);
		if (read(gate[0], &c, 1) != 1)
			_exit(1);
		char *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (p != MAP_FAILED)
			memset(p, 1, mib << 20);
		raise(SIGSTOP); /* says it has touched its memory: its parent waits for the stop */
		pause();
		_exit(0);
	}
	close(gate[0]);
	return pid;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* The path of our group in the v1 memory hierarchy, "" when there is none. */
static void v1_memory_dir(char *out, size_t size)
{
	char text[4096], rel[1024];
	out[0] = '\0';
	FILE *f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return;
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	if (cpw_cgroup_self_path(text, n, "memory", rel, sizeof rel, NULL, 0) == 0 &&
	    exists("/sys/fs/cgroup/memory/memory.usage_in_bytes"))
		snprintf(out, size, "/sys/fs/cgroup/memory%s", strcmp(rel, "/") ? rel : "");
}

static void test_cgroup_lifecycle(void)
{
	struct cpw_cgroup *cg;
	char why[512];
	int err = cpw_cgroup_create(&cg, "/sys/fs/cgroup", why, sizeof why);
	if (err == -EACCES || err == -EPERM || err == -EROFS || err == -ENOENT) {
		char r[600];
		snprintf(r, sizeof r, "cannot make a cgroup here: %s", why);
		skip(8, r);
		return;
	}
	ok(err == 0, "cgroup created (%s)", err ? why : cpw_cgroup_describe(cg));
	if (err) {
		skip(7, "no cgroup");
		return;
	}
	if (why[0])
		diag("note", why);
	char desc[512];
	snprintf(desc, sizeof desc, "%s", cpw_cgroup_describe(cg));

	int gate[2];
	pid_t child = gated_child(gate, 64);
	ok(cpw_cgroup_add_pid(cg, child, why, sizeof why) == 0, "child %ld moved in at the gate",
	   (long)child);
	/* A first reading opens the files that the second one re-reads (source/kernel/kfile.h). */
	struct cpw_cgroup_stats s0;
	cpw_cgroup_read(cg, &s0);
	if (write(gate[1], "x", 1) != 1)
		perror("write");
	close(gate[1]);
	/* Until it has touched its 64 MiB and stopped: where page faults are slow that takes
	 * longer than any fixed sleep would safely allow. */
	int wst;
	waitpid(child, &wst, WUNTRACED);

	pid_t pids[16];
	int n = cpw_cgroup_pids(cg, pids, 16);
	ok(n == 1 && pids[0] == child, "membership is exactly the child (%d pids)", n);
	struct cpw_cgroup_stats s;
	cpw_cgroup_read(cg, &s);
	if (s0.memory_available && !isnan(s0.mem_peak_kib)) {
		/* Where the first reading worked, the re-read must too, with fresh figures. */
		double want = 64.0 * 1024;
		double peak = s.mem_peak_kib;
		ok(s.memory_available && peak >= want && peak < want * 2 && s0.mem_peak_kib < want / 2,
		   "memory peak %.0f KiB for a 64 MiB child (%.0f KiB before it ran), re-read "
		   "through the held file", peak, s0.mem_peak_kib);
	} else {
		skip(1, s0.memory_reason);
	}
	printf("# psi of the group: %s some io %llu mem %llu\n", s.psi.available ? "yes" : s.psi.reason,
	       (unsigned long long)s.psi.io_some_us, (unsigned long long)s.psi.mem_some_us);

	/* Destroy with the child still inside: it is moved out, then the directories go. */
	cpw_cgroup_destroy(cg);
	bool gone = true;
	char *save, *tok = strtok_r(desc, " ", &save);
	for (; tok; tok = strtok_r(NULL, " ", &save))
		if (tok[0] == '/' && exists(tok)) {
			gone = false;
			diag("left behind", tok);
		}
	ok(gone, "no directory left behind after destroy");
	ok(kill(child, 0) == 0, "the leftover child survived the move back");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* clone3 exists (ENOSYS before 5.3 and under container seccomp filters; EINVAL for the
 * empty arguments otherwise). */
static bool have_clone3(void)
{
#ifdef SYS_clone3
	return syscall(SYS_clone3, NULL, 0) < 0 && errno != ENOSYS;
#else
	return false;
#endif
}

/* How many directories a cgroup description ("v2 PATH v1-memory PATH ...") names. */
static int described_dirs(const char *desc)
{
	int dirs = 0;
	for (const char *p = desc; (p = strchr(p, '/')); p = strchr(p, ' ')) {
		dirs++;
		if (!strchr(p, ' '))
			break;
	}
	return dirs;
}

/* Makes the file named by the template out (mkstemp) and the shell text that copies the
 * command's /proc/self/cgroup into it. */
static void copy_cgroup_script(char *out, char *script, size_t size)
{
	int fd = mkstemp(out);
	if (fd >= 0)
		close(fd);
	snprintf(script, size, "cat /proc/self/cgroup > %s", out);
}

/* How many lines of the /proc/self/cgroup copy at path name our cperfwatch-PID groups. */
static int groups_inside(const char *path, char *text, size_t size)
{
	char mark[64];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(text, 1, size - 1, f) : 0;
	if (f)
		fclose(f);
	text[n] = '\0';
	snprintf(mark, sizeof mark, "/cperfwatch-%ld\n", (long)getpid());
	int inside = 0;
	for (const char *p = text; (p = strstr(p, mark)); p += strlen(mark))
		inside++;
	return inside;
}

/* The launcher puts the command's child in its groups before it runs, and does so without
 * the parent migrating it (a cgroup.procs write waits for an RCU grace period): cloned into
 * the v2 group, writing "0" into the v1 groups' tasks files itself. With a clone that
 * cannot go in (blocked: a descriptor that is no cgroup), the parent migrates it instead. */
static void placement_case(bool blocked)
{
	const char *how = blocked ? "clone blocked: " : "";
	struct cpw_cgroup *cg;
	char why[512];
	int err = cpw_cgroup_create(&cg, "/sys/fs/cgroup", why, sizeof why);
	if (err) {
		char r[600];
		snprintf(r, sizeof r, "cannot make a cgroup here: %s", why);
		skip(6, r);
		return;
	}
	const char *desc = cpw_cgroup_describe(cg);
	bool v2 = strncmp(desc, "v2 ", 3) == 0, mem1 = strstr(desc, "v1-memory ") != NULL;
	int dirs = described_dirs(desc);
	char out[] = "/tmp/cpw-live-cgroupXXXXXX", script[600];
	copy_cgroup_script(out, script, sizeof script);
	char sh[] = "/bin/sh", dash_c[] = "-c";
	char *argv[] = { sh, dash_c, script, NULL };

	/* With a v2 group for the membership, the v1 memory group is made by the child. */
	char mem1_dir[1200] = "";
	const char *m = strstr(desc, "v1-memory ");
	if (m)
		sscanf(m + strlen("v1-memory "), "%1199s", mem1_dir);
	if (!blocked && v2 && mem1)
		ok(!exists(mem1_dir), "the v1 memory group %s is left to the child to make", mem1_dir);

	struct cpw_cgroup_placement *pl = cpw_cgroup_placement(cg);
	if (blocked && pl && pl->v2_dir_fd >= 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		dup2(null, pl->v2_dir_fd); /* keeps its close-on-exec off: harmless here */
		close(null);
	}
	struct cpw_launch l;
	ok(pl && cpw_launch_prepare(argv, pl, true, &l) == 0, "%schild forked with a placement (%s)",
	   how, desc);
	ok(cpw_launch_placed(&l) == 0, "%sthe child reported the groups it joined", how);
	if (!v2)
		skip(1, "no cgroup v2 hierarchy");
	else if (blocked)
		ok(!pl->v2_done, "%snot counted as cloned into the v2 group", how);
	/* cppcheck-suppress knownConditionTrueFalse ; SYS_clone3 comes from system headers */
	else if (!have_clone3())
		skip(1, "no clone3 here (old kernel or a seccomp filter): the parent migrates");
	else
		ok(pl->v2_done, "cloned straight into the v2 group");
	if (mem1)
		ok(pl->v1_done[0], "%sjoined the v1 memory group by itself", how);
	else
		skip(1, "no v1 memory hierarchy");
	ok(cpw_cgroup_add_pid(cg, l.pid, why, sizeof why) == 0 && cpw_launch_release(&l) == 0,
	   "%sthe rest migrated, the command released", how);
	int status = -1;
	waitpid(l.pid, &status, 0);

	char text[4096];
	int inside = groups_inside(out, text, sizeof text);
	ok(status == 0 && inside == dirs, "%sthe command ran inside all %d group(s): %d", how,
	   dirs, inside);
	if (inside != dirs)
		diag("its /proc/self/cgroup", text);
	unlink(out);
	cpw_cgroup_destroy(cg);
}

/* Moves pid into the group at dir (cgroup.procs). */
static bool move_into(const char *dir, pid_t pid)
{
	char path[1300];
	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	FILE *f = fopen(path, "w");
	bool moved = f && fprintf(f, "%ld", (long)pid) > 0;
	if (f && fclose(f) != 0)
		moved = false;
	return moved;
}

/* The v1 memory group left to the child cannot be made: a busy group of the same name is
 * there (a crashed earlier run with our pid, its command still running). The run goes on
 * without it, says why, and leaves that group and its process alone. And a launch given up
 * before the parent saw the child's group still removes it. */
static void test_cgroup_child_made_groups(void)
{
	char mine[1024], stale[1200];
	v1_memory_dir(mine, sizeof mine);
	if (!mine[0] || geteuid() != 0 || !exists("/sys/fs/cgroup/unified/cgroup.procs")) {
		skip(7, "needs root and a hybrid layout (v1 memory beside a v2 hierarchy)");
		return;
	}
	snprintf(stale, sizeof stale, "%s/cperfwatch-%ld", mine, (long)getpid());
	int gate[2];
	pid_t squatter = -1;
	if (mkdir(stale, 0755) == 0 && (squatter = gated_child(gate, 0)) > 0 &&
	    !move_into(stale, squatter)) {
		kill(squatter, SIGKILL);
		waitpid(squatter, NULL, 0);
		squatter = -1;
	}
	if (squatter <= 0) {
		rmdir(stale);
		skip(7, "cannot make a busy v1 memory group");
		return;
	}
	struct cpw_cgroup *cg;
	char why[1024];
	char t[] = "true";
	char *argv[] = { t, NULL };
	struct cpw_launch l;
	int err = cpw_cgroup_create(&cg, "/sys/fs/cgroup", why, sizeof why);
	ok(err == 0, "cgroup created beside a busy group of the same name (%s)", why);
	if (err == 0) {
		struct cpw_cgroup_placement *pl = cpw_cgroup_placement(cg);
		ok(cpw_launch_prepare(argv, pl, true, &l) == 0 && cpw_launch_placed(&l) == 0 &&
		   !pl->v1_done[0], "the child could not make the v1 memory group, and said so");
		err = cpw_cgroup_add_pid(cg, l.pid, why, sizeof why);
		ok(err < 0 && strstr(why, "cannot create") && strstr(why, "File exists") &&
		   strstr(why, "memory figures of the group are not measured"),
		   "the parent could not either: %d, %s", err, why);
		ok(cpw_launch_release(&l) == 0, "the command still runs, in the v2 group");
		waitpid(l.pid, NULL, 0);
		struct cpw_cgroup_stats st;
		cpw_cgroup_read(cg, &st);
		ok(!st.memory_available && st.memory_reason[0], "no memory figures, with a reason: %s",
		   st.memory_reason);
		cpw_cgroup_destroy(cg);
	} else {
		skip(4, why);
	}
	ok(exists(stale) && kill(squatter, 0) == 0, "the busy group and its process were left alone");
	kill(squatter, SIGKILL);
	waitpid(squatter, NULL, 0);
	close(gate[1]);
	for (int i = 0; i < 100 && rmdir(stale) < 0 && errno == EBUSY; i++)
		sleep_ms(20);

	/* Given up after the child made its group: destroy still removes it. */
	err = cpw_cgroup_create(&cg, "/sys/fs/cgroup", why, sizeof why);
	if (err == 0) {
		char made[1200];
		snprintf(made, sizeof made, "%s/cperfwatch-%ld", mine, (long)getpid());
		struct cpw_cgroup_placement *pl = cpw_cgroup_placement(cg);
		bool joined = cpw_launch_prepare(argv, pl, true, &l) == 0 && cpw_launch_placed(&l) == 0 &&
			      pl->v1_done[0] && exists(made);
		cpw_launch_abort(&l);
		cpw_cgroup_destroy(cg);
		ok(joined && !exists(made), "a launch given up: the child's group is removed too");
	} else {
		skip(1, why);
	}
}

static double mono_s(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

/* With nothing to arm on it (no counters to open), the child is not gated: it is held only
 * until cpw_launch_go() (run mode: until exit records are listened for), then goes on to
 * exec once in its groups and says when; a failed exec still says why; a launch given up
 * before the release never runs the command, and one given up after it kills a child that
 * may be running the command already. No root needed without a placement; with root the
 * child also joins its groups first. */
static void test_launch_not_gated(void)
{
	char sh[] = "/bin/sh", dash_c[] = "-c", script[] = "exit 7";
	char *argv[] = { sh, dash_c, script, NULL };
	struct cpw_launch l;
	struct timespec before, after, pause = { 0, 100 * 1000 * 1000 };
	int status = -1;
	int rc = cpw_launch_prepare(argv, NULL, false, &l);
	nanosleep(&pause, NULL);
	ok(rc == 0 && waitpid(l.pid, &status, WNOHANG) == 0,
	   "not gated: the child is held until released (0.1 s on, it has not run 'exit 7')");
	clock_gettime(CLOCK_MONOTONIC, &before);
	if (rc == 0)
		cpw_launch_go(&l);
	ok(rc == 0 && cpw_launch_placed(&l) == 0 && l.released_known,
	   "once released, it reported when it went on to exec");
	clock_gettime(CLOCK_MONOTONIC, &after);
	ok(mono_s(&l.released) >= mono_s(&before) && mono_s(&l.released) <= mono_s(&after),
	   "its release time lies between the release and the report (%.6f s after the release)",
	   mono_s(&l.released) - mono_s(&before));
	ok(rc == 0 && cpw_launch_exec_result(&l) == 0 && waitpid(l.pid, &status, 0) == l.pid &&
	   WIFEXITED(status) && WEXITSTATUS(status) == 7, "it ran the command");

	/* Asked for its report before any release, the child is released first: no deadlock. */
	rc = cpw_launch_prepare(argv, NULL, false, &l);
	ok(rc == 0 && cpw_launch_placed(&l) == 0 && l.released_known &&
	   cpw_launch_release(&l) == 0 && waitpid(l.pid, &status, 0) == l.pid &&
	   WIFEXITED(status) && WEXITSTATUS(status) == 7,
	   "not gated: asking for the report releases a child still held");

	char touch[] = "touch", marker[] = "/tmp/cpw-live-heldXXXXXX";
	int mfd = mkstemp(marker);
	if (mfd >= 0) {
		close(mfd);
		unlink(marker);
	}
	char *argv_touch[] = { touch, marker, NULL };
	rc = cpw_launch_prepare(argv_touch, NULL, false, &l);
	if (rc == 0)
		cpw_launch_abort(&l);
	ok(mfd >= 0 && rc == 0 && access(marker, F_OK) < 0,
	   "not gated: a launch given up before the release never runs the command");
	unlink(marker);

	char missing[] = "/nonexistent/cpw-no-such-command";
	char *argv2[] = { missing, NULL };
	rc = cpw_launch_prepare(argv2, NULL, false, &l);
	int err = rc == 0 ? cpw_launch_exec_result(&l) : -1;
	if (rc == 0)
		waitpid(l.pid, &status, 0);
	ok(err == ENOENT && WIFEXITED(status) && WEXITSTATUS(status) == 127,
	   "not gated: a missing command is ENOENT, exit 127 (%d)", err);

	char sleep_cmd[] = "sleep", five[] = "5";
	char *argv3[] = { sleep_cmd, five, NULL };
	rc = cpw_launch_prepare(argv3, NULL, false, &l);
	if (rc == 0)
		cpw_launch_placed(&l);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rc == 0)
		cpw_launch_abort(&l);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ok(rc == 0 && kill(l.pid, 0) < 0 && mono_s(&t1) - mono_s(&t0) < 2,
	   "not gated: a launch given up kills the running command and reaps it");

	struct cpw_cgroup *cg;
	char why[512];
	if (cpw_cgroup_create(&cg, "/sys/fs/cgroup", why, sizeof why) != 0) {
		skip(1, "no cgroup of our own here: the joining half needs root");
		return;
	}
	const char *desc = cpw_cgroup_describe(cg);
	char out[] = "/tmp/cpw-live-ungatedXXXXXX", cat[600];
	copy_cgroup_script(out, cat, sizeof cat);
	char *argv4[] = { sh, dash_c, cat, NULL };
	struct cpw_cgroup_placement *pl = cpw_cgroup_placement(cg);
	rc = cpw_launch_prepare(argv4, pl, false, &l);
	bool placed = rc == 0 && cpw_launch_placed(&l) == 0 &&
		      cpw_cgroup_add_pid(cg, l.pid, why, sizeof why) == 0 &&
		      cpw_launch_release(&l) == 0;
	if (rc == 0)
		waitpid(l.pid, &status, 0);
	char text[4096];
	int inside = groups_inside(out, text, sizeof text), dirs = described_dirs(desc);
	ok(placed && inside == dirs, "not gated: the command ran inside all %d group(s): %d",
	   dirs, inside);
	unlink(out);
	cpw_cgroup_destroy(cg);

	/* The clone into the v2 group refused (a descriptor that is not a cgroup, as for an old
	 * kernel or a seccomp filter): the parent must move the child first, so a launch asked
	 * not to gate holds it anyway, and the command still runs inside all its groups. */
	if (cpw_cgroup_create(&cg, "/sys/fs/cgroup", why, sizeof why) != 0) {
		skip(2, "no cgroup of our own here");
		return;
	}
	desc = cpw_cgroup_describe(cg);
	pl = cpw_cgroup_placement(cg);
	if (!pl || pl->v2_dir_fd < 0) {
		skip(2, "no cgroup v2 group here: nothing to clone into");
		cpw_cgroup_destroy(cg);
		return;
	}
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	dup2(null, pl->v2_dir_fd);
	close(null);
	copy_cgroup_script(out, cat, sizeof cat);
	rc = cpw_launch_prepare(argv4, pl, false, &l);
	nanosleep(&pause, NULL);
	ok(rc == 0 && l.gated && !pl->v2_done && waitpid(l.pid, &status, WNOHANG) == 0,
	   "clone refused: gated anyway, the child held (v2_done %d)", pl->v2_done);
	placed = rc == 0 && cpw_launch_placed(&l) == 0 &&
		 cpw_cgroup_add_pid(cg, l.pid, why, sizeof why) == 0 && cpw_launch_release(&l) == 0;
	if (rc == 0)
		waitpid(l.pid, &status, 0);
	inside = groups_inside(out, text, sizeof text);
	dirs = described_dirs(desc);
	ok(placed && inside == dirs, "clone refused: moved in first, the command ran inside all %d "
	   "group(s): %d", dirs, inside);
	unlink(out);
	cpw_cgroup_destroy(cg);
}

static void test_cgroup_placement(void)
{
	placement_case(false);
	placement_case(true);
	test_cgroup_child_made_groups();
	test_launch_not_gated();
}

/* A memory limit on the cgroup we are in must bind the command's group and be reported. */
static void test_cgroup_inherits_limit(void)
{
	char mine[1024], box[1200], path[1300];
	v1_memory_dir(mine, sizeof mine);
	if (!mine[0] || geteuid() != 0) {
		skip(2, "needs root and a v1 memory hierarchy");
		return;
	}
	snprintf(box, sizeof box, "%s/cpw-livetest-%ld", mine, (long)getpid());
	if (mkdir(box, 0755) < 0) {
		skip(2, "cannot make a v1 memory cgroup");
		return;
	}
	snprintf(path, sizeof path, "%s/memory.limit_in_bytes", box);
	FILE *f = fopen(path, "w");
	bool set = f && fprintf(f, "%d", 256 << 20) > 0;
	if (f && fclose(f) != 0)
		set = false;
	char pid[32];
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	snprintf(path, sizeof path, "%s/cgroup.procs", box);
	f = fopen(path, "w");
	bool moved = set && f && fputs(pid, f) >= 0;
	if (f && fclose(f) != 0)
		moved = false;
	if (moved) {
		struct cpw_cgroup *cg;
		char why[512];
		struct cpw_cgroup_stats s;
		int err = cpw_cgroup_create(&cg, "/sys/fs/cgroup", why, sizeof why);
		ok(err == 0, "cgroup created under a limited parent");
		if (err == 0) {
			cpw_cgroup_read(cg, &s);
			ok(fabs(s.mem_limit_kib - 262144.0) < 1, "effective limit %.0f KiB (parent's 256 MiB)",
			   s.mem_limit_kib);
			cpw_cgroup_destroy(cg);
		} else {
			skip(1, why);
		}
	} else {
		skip(2, "cannot set a limit or move ourselves");
	}
	/* Back to where we were, and clean up. */
	snprintf(path, sizeof path, "%s/cgroup.procs", mine);
	f = fopen(path, "w");
	if (f) {
		fputs(pid, f);
		fclose(f);
	}
	if (rmdir(box) < 0)
		diag("could not remove", box);
}

/* Spins until this thread has used ms of CPU: by its own CPU clock, not the wall's, so
 * that other load on the machine (which stretches a wall-clock spin's CPU thin) cannot
 * make the records' CPU figures fall short of what the tests expect. */
static void spin_ms(long ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/* This thread's CPU clock, in us. */
static long long clock_cpu_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static void test_taskstats_query(void)
{
	if (geteuid() != 0) {
		skip(4, "taskstats needs root (CAP_NET_ADMIN)");
		return;
	}
	struct cpw_taskstats *ts;
	char why[256];
	int err = cpw_taskstats_new(&ts, why, sizeof why);
	if (err < 0) {
		skip(4, why);
		return;
	}
	spin_ms(50);
	struct cpw_taskstats_rec r;
	pid_t tid = gettid();
	err = cpw_taskstats_query(ts, tid, false, &r, why, sizeof why);
	long long clock = clock_cpu_us();
	ok(err == 0 && r.pid == (uint32_t)tid && r.id == (uint32_t)tid,
	   "query own tid %ld: pid %u, version %u", (long)tid, r.pid, r.version);
	/* The exact CPU time (sum_exec_runtime) is the thread's CPU clock; utime + stime are
	 * scheduler ticks, which under load fall anywhere from 0 (seen here, beside three busy
	 * loops) to the clock and a tick or two: CI once saw 11 ms for this spin, when the
	 * check was on them, and once 70.7 ms against a clock of 62.3 (a tick charges a whole
	 * 4 ms to the thread that runs at it: a thread switched in and out, 73 times here, can
	 * be charged several it only partly ran). Bounded only against nonsense. */
	unsigned long long exact = r.cpu_run_virtual_total_ns / 1000, ticks = r.utime_us + r.stime_us;
	ok(err == 0 && exact >= 50000 && exact <= (unsigned long long)clock + 1000 &&
		   ticks <= (unsigned long long)clock * 3 / 2 + 8000 && strcmp(r.comm, "test_kernel_liv") == 0,
	   "own CPU time %llu us after a 50 ms spin (its CPU clock %lld us; ticks %llu us), comm %s", exact, clock,
	   ticks, r.comm);
	printf("# cpu_delay %llu ns (%llu), blkio_delay %llu ns, hiwater_rss %llu KiB\n",
	       (unsigned long long)r.cpu_delay_total_ns, (unsigned long long)r.cpu_count,
	       (unsigned long long)r.blkio_delay_total_ns, (unsigned long long)r.hiwater_rss_kib);
	err = cpw_taskstats_query(ts, getpid(), true, &r, why, sizeof why);
	ok(err == 0 && r.is_tgid && r.id == (uint32_t)getpid(), "query own process (tgid)");
	/* A pid that cannot exist (above pid_max's ceiling). */
	err = cpw_taskstats_query(ts, 4194305 + 7, false, &r, why, sizeof why);
	ok(err == -ESRCH || err == -EINVAL, "query of a missing task fails: %s", why);
	cpw_taskstats_free(ts);
}

static void test_taskstats_exit_listener(void)
{
	if (geteuid() != 0) {
		skip(3, "taskstats needs root (CAP_NET_ADMIN)");
		return;
	}
	struct cpw_taskstats_listener *l;
	char why[256];
	int err = cpw_taskstats_listen(&l, why, sizeof why);
	ok(err == 0, "exit listener registered%s%s", err ? ": " : "", err ? why : "");
	if (err) {
		skip(2, why);
		return;
	}
	/* The child says what its CPU clock read at the end of its spin. */
	int fds[2];
	long long counted = -1;
	if (pipe(fds) < 0) {
		skip(2, "pipe failed");
		cpw_taskstats_unlisten(l);
		return;
	}
	pid_t child = fork();
	if (child == 0) {
		spin_ms(30);
		long long c = clock_cpu_us();
		_exit(write(fds[1], &c, sizeof(c)) == (ssize_t)sizeof(c) ? 3 : 4);
	}
	close(fds[1]);
	if (read(fds[0], &counted, sizeof(counted)) != (ssize_t)sizeof(counted))
		counted = -1;
	close(fds[0]);
	waitpid(child, NULL, 0);
	struct cpw_taskstats_rec recs[64];
	bool found = false;
	struct cpw_taskstats_rec mine;
	memset(&mine, 0, sizeof mine);
	for (int tries = 0; tries < 100 && !found; tries++) {
		int n = cpw_taskstats_poll(l, recs, 64);
		for (int i = 0; i < n; i++)
			if (!recs[i].is_tgid && recs[i].pid == (uint32_t)child) {
				mine = recs[i];
				found = true;
			}
		if (!found)
			sleep_ms(20);
	}
	ok(found, "exit record of child %ld found", (long)child);
	/* The exact CPU time: the clock's at the end of the spin and what its exit took. */
	unsigned long long exact = mine.cpu_run_virtual_total_ns / 1000;
	ok(found && mine.ppid == (uint32_t)getpid() && counted >= 30000 && exact >= (unsigned long long)counted &&
		   exact <= (unsigned long long)counted + 20000,
	   "record: ppid %u, cpu %llu us (its CPU clock %lld us at the end of a 30 ms spin), exit code %u",
	   mine.ppid, exact, counted, mine.exitcode);
	cpw_taskstats_unlisten(l);
}

/* As nobody: taskstats says EPERM and why; a cgroup cannot be made, and says why. */
static void test_unprivileged_reasons(void)
{
	if (geteuid() != 0) {
		skip(2, "already unprivileged: covered by the skips above");
		return;
	}
	int fds[2];
	if (pipe(fds) < 0) {
		skip(2, "no pipe");
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		char out[1200] = "";
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		struct cpw_taskstats *ts;
		char why[256] = "";
		int err = cpw_taskstats_new(&ts, why, sizeof why);
		if (err == 0) {
			struct cpw_taskstats_rec r;
			err = cpw_taskstats_query(ts, getpid(), false, &r, why, sizeof why);
			cpw_taskstats_free(ts);
		}
		struct cpw_cgroup *cg;
		char cwhy[512] = "";
		int cerr = cpw_cgroup_create(&cg, "/sys/fs/cgroup", cwhy, sizeof cwhy);
		if (cerr == 0)
			cpw_cgroup_destroy(cg);
		snprintf(out, sizeof out, "%d\n%s\n%d\n%s\n", err, why, cerr, cwhy);
		if (write(fds[1], out, strlen(out)) < 0)
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	char buf[1200] = "";
	ssize_t n = read(fds[0], buf, sizeof buf - 1);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	buf[n > 0 ? n : 0] = '\0';
	/* Four lines: taskstats error, its reason, cgroup error, its reason. */
	char *line[4] = { NULL, NULL, NULL, NULL };
	char *save, *tok = strtok_r(buf, "\n", &save);
	for (int i = 0; i < 4 && tok; i++, tok = strtok_r(NULL, "\n", &save))
		line[i] = tok;
	int err = line[0] ? atoi(line[0]) : 0;
	int cerr = line[2] ? atoi(line[2]) : 0;
	ok(err == -EPERM && line[1] && strstr(line[1], "root"), "taskstats as nobody: %d, %s",
	   err, line[1] ? line[1] : "");
	ok((cerr == -EACCES || cerr == -EPERM) && line[3] && strstr(line[3], "not root"),
	   "cgroup as nobody: %d, %s", cerr, line[3] ? line[3] : "");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_cgroup_lifecycle();
	test_cgroup_placement();
	test_cgroup_inherits_limit();
	test_taskstats_query();
	test_taskstats_exit_listener();
	test_unprivileged_reasons();
	printf("1..%d\n", tap_tests);
	return tap_failures ? 1 : 0;
}
