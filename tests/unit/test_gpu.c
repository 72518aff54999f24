/*
 * test_gpu.c: the DRM fdinfo parser on amdgpu, i915 and xe fixtures and hostile lines,
 * busy shares between two readings, and the DRM reader on a fixture proc root.
 */
#include "config.h"
#include "source/gpu/cuda_users.h"
#include "source/gpu/drm_fdinfo.h"
#include "source/gpu/drm_reader.h"
#include "source/waits/wait_kind.h"
#include "source/waits/wait_parse.h"
#include "model/gpu.h"
#include "cunit_tap.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static size_t load(const char *name, char *buf, size_t size)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/drm/%s", FIXTURES, name);
	FILE *f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	size_t n = fread(buf, 1, size, f);
	fclose(f);
	return n;
}

static void parse(const char *name, struct cpw_drm_client *c, int want)
{
	char buf[4096];
	size_t n = load(name, buf, sizeof(buf));
	CU_ASSERT_EQUAL(cpw_drm_fdinfo_parse(buf, n, c), want);
}

static const struct cpw_drm_engine *eng(const struct cpw_drm_client *c, const char *name)
{
	for (int i = 0; i < c->nengines; i++)
		if (strcmp(c->engine[i].name, name) == 0)
			return &c->engine[i];
	return NULL;
}

static void test_amdgpu(void)
{
	struct cpw_drm_client a, b;
	parse("amdgpu.fdinfo", &a, 0);
	CU_ASSERT_STRING_EQUAL(a.driver, "amdgpu");
	CU_ASSERT_STRING_EQUAL(a.pdev, "0000:03:00.0");
	CU_ASSERT(a.has_client_id && a.client_id == 12);
	CU_ASSERT_EQUAL(a.nengines, 3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(eng(&a, "gfx"));
	CU_ASSERT_EQUAL(eng(&a, "gfx")->ns, 5000000000ULL);
	/* drm-memory-*: vram + gtt + cpu, in bytes */
	CU_ASSERT_EQUAL(a.memory_bytes, (1048576ULL + 2048) * 1024);
	CU_ASSERT_EQUAL(a.lines_skipped, 0);
	parse("amdgpu.later.fdinfo", &b, 0);
	/* 0.8 s of gfx in 1 s */
	CU_ASSERT_DOUBLE_EQUAL(cpw_drm_fdinfo_busy_share(&a, &b, 1.0), 0.8, 1e-9);
	CU_ASSERT(isnan(cpw_drm_fdinfo_busy_share(&a, &b, 0)));
	/* backwards: nothing told */
	CU_ASSERT_DOUBLE_EQUAL(cpw_drm_fdinfo_busy_share(&b, &a, 1.0), 0.0, 1e-9); /* dec 0 -> 0 */
}

static void test_i915(void)
{
	struct cpw_drm_client a;
	parse("i915.fdinfo", &a, 0);
	CU_ASSERT_STRING_EQUAL(a.driver, "i915");
	/* drm-resident-* wins over drm-total-*: 12 MiB resident */
	CU_ASSERT_EQUAL(a.memory_bytes, 12ULL << 20);
	CU_ASSERT_EQUAL(a.total_bytes, 16ULL << 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(eng(&a, "video"));
	CU_ASSERT_EQUAL(eng(&a, "video")->capacity, 2);
	CU_ASSERT_PTR_NOT_NULL(eng(&a, "video-enhance"));
	struct cpw_drm_client b = a;
	for (int i = 0; i < b.nengines; i++)
		if (strcmp(b.engine[i].name, "video") == 0)
			b.engine[i].ns += 1000000000ULL; /* 1 s busy of 2 engines */
	CU_ASSERT_DOUBLE_EQUAL(cpw_drm_fdinfo_busy_share(&a, &b, 1.0), 0.5, 1e-9);
}

static void test_xe(void)
{
	struct cpw_drm_client a, b;
	parse("xe.fdinfo", &a, 0);
	parse("xe.later.fdinfo", &b, 0);
	CU_ASSERT_STRING_EQUAL(a.driver, "xe");
	CU_ASSERT_EQUAL(a.memory_bytes, (4ULL + 200) << 20);
	CU_ASSERT(eng(&a, "rcs") && eng(&a, "rcs")->has_cycles && eng(&a, "rcs")->has_total);
	/* rcs: 3.8e9 cycles of 5e9 */
	CU_ASSERT_DOUBLE_EQUAL(cpw_drm_fdinfo_busy_share(&a, &b, 1.0), 0.76, 1e-9);
}

static void test_not_drm(void)
{
	struct cpw_drm_client a;
	parse("notdrm.fdinfo", &a, -ENOENT);
	CU_ASSERT_EQUAL(cpw_drm_fdinfo_parse("", 0, &a), -ENOENT);
	/* len stops the parser: the driver line is past it */
	const char *t = "pos: 0\ndrm-driver: amdgpu\n";
	CU_ASSERT_EQUAL(cpw_drm_fdinfo_parse(t, 7, &a), -ENOENT);
}

static void test_hostile(void)
{
	struct cpw_drm_client a;
	parse("hostile.fdinfo", &a, 0);
	CU_ASSERT_STRING_EQUAL(a.driver, "amd\033[31mgpu"); /* raw: writers escape it */
	CU_ASSERT_FALSE(a.has_client_id);
	CU_ASSERT_EQUAL(a.memory_bytes, ~0ULL); /* saturated, not wrapped */
	const struct cpw_drm_engine *g = eng(&a, "gfx");
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->ns, ~0ULL);
	CU_ASSERT_EQUAL(g->capacity, 1);
	CU_ASSERT_PTR_NULL(eng(&a, "y")); /* 5 ms: not ns */
	CU_ASSERT(a.lines_skipped >= 8);
	/* cycles past total: the share is capped, never above 1 */
	struct cpw_drm_client b = a;
	for (int i = 0; i < b.nengines; i++)
		if (strcmp(b.engine[i].name, "rcs") == 0) {
			b.engine[i].cycles += 100;
			b.engine[i].total_cycles += 10;
		}
	double s = cpw_drm_fdinfo_busy_share(&a, &b, 1.0);
	CU_ASSERT(s >= 0 && s <= 1);
}

static void test_reader(void)
{
	struct cpw_drm_reader *r = cpw_drm_reader_new(FIXTURES "/drm/procroot", FIXTURES "/drm");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	pid_t pids[] = { 100, 101 };
	struct cpw_gpu_reading g;
	CU_ASSERT_EQUAL(cpw_drm_reader_read(r, pids, 2, 1.0, &g), 1);
	CU_ASSERT_STRING_EQUAL(g.dev[0].name, "amdgpu 0000:03:00.0");
	CU_ASSERT_EQUAL(g.nproc, 1); /* two descriptors, one client */
	CU_ASSERT_EQUAL(g.proc[0].pid, 100);
	CU_ASSERT(isnan(g.proc[0].sm)); /* the first reading tells no share */
	CU_ASSERT_DOUBLE_EQUAL(g.proc[0].mem_b, (1048576.0 + 2048) * 1024, 1);
	CU_ASSERT_EQUAL(cpw_drm_reader_read(r, pids, 2, 2.0, &g), 1);
	CU_ASSERT_DOUBLE_EQUAL(g.proc[0].sm, 0.0, 1e-9); /* the same figures a second later */
	cpw_drm_reader_free(r);
	CU_ASSERT_PTR_NULL(cpw_drm_reader_new(NULL, FIXTURES "/drm/no-such-dir"));
}

static void test_wait_kind(void)
{
	unsigned long ino;
	const struct cpw_syscall_info *io = cpw_wait_kind_syscall_by_name("ioctl");
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("/dev/nvidiactl", &ino), CPW_FD_GPU);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("/dev/nvidia0", &ino), CPW_FD_GPU);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("/dev/dri/renderD128", &ino), CPW_FD_GPU);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("/dev/kfd", &ino), CPW_FD_GPU);
	CU_ASSERT_EQUAL(cpw_wait_kind_fd_link_type("/dev/kfdx", &ino), CPW_FD_FILE);
	CU_ASSERT_STRING_EQUAL(cpw_wait_kind_name(CPW_WAIT_GPU), "gpu");
	CU_ASSERT_EQUAL(cpw_wait_kind_from_name("gpu"), CPW_WAIT_GPU);
#if defined(__x86_64__) || defined(__aarch64__)
	CU_ASSERT_PTR_NOT_NULL_FATAL(io);
	/* a blocking synchronize: an ioctl on the driver's device */
	CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "0", io->nr, CPW_FD_GPU), CPW_WAIT_GPU);
	CU_ASSERT_EQUAL(cpw_wait_kind_classify('D', "", io->nr, CPW_FD_GPU), CPW_WAIT_GPU);
	/* an ioctl on anything else: the wait channel, as before */
	CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "pipe_read", io->nr, CPW_FD_FILE), CPW_WAIT_PIPE);
	CU_ASSERT_EQUAL(cpw_wait_kind_classify('S', "0", io->nr, CPW_FD_TTY), CPW_WAIT_OTHER);
#else
	(void)io;
#endif
}

static void test_model_devices(void)
{
	struct cpw_gpu g;
	struct cpw_gpu_reading r;
	memset(&r, 0, sizeof(r));
	r.dev[0].sm_active = r.dev[0].sm_occupancy = NAN; /* as the readers leave them */
	cpw_gpu_init(&g);
	r.ndev = 1;
	snprintf(r.dev[0].name, sizeof(r.dev[0].name), "NVIDIA Fake");
	r.dev[0].busy = 0.9;
	r.dev[0].mem_used_b = 1e9;
	r.dev[0].mem_total_b = 8e9;
	r.nproc = 1;
	r.proc[0].pid = 999999; /* not of the tree: not kept */
	r.proc[0].dev = 0;
	r.proc[0].sm = 0.5;
	cpw_gpu_fold(&g, &r, NULL);
	r.dev[0].busy = NAN; /* an unread busy share is no zero */
	r.dev[0].mem_used_b = 3e9;
	cpw_gpu_fold(&g, &r, NULL);
	CU_ASSERT_EQUAL(g.readings, 2);
	CU_ASSERT_EQUAL(g.ndev, 1);
	CU_ASSERT_EQUAL(g.nproc, 0);
	CU_ASSERT_FALSE(g.dev[0].held);
	CU_ASSERT_DOUBLE_EQUAL(cpw_gpu_device_busy(&g.dev[0]), 0.9, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(g.dev[0].mem_used_max_b, 3e9, 1);
	/* GPM: the mean over the readings that had it; none, NAN. */
	CU_ASSERT_TRUE(isnan(cpw_gpu_device_sm_active(&g.dev[0])));
	r.dev[0].sm_active = 0.4;
	r.dev[0].sm_occupancy = 0.2;
	cpw_gpu_fold(&g, &r, NULL);
	r.dev[0].sm_active = 0.2;
	r.dev[0].sm_occupancy = NAN; /* one without the other: not counted */
	cpw_gpu_fold(&g, &r, NULL);
	r.dev[0].sm_occupancy = 0.1;
	cpw_gpu_fold(&g, &r, NULL);
	CU_ASSERT_DOUBLE_EQUAL(cpw_gpu_device_sm_active(&g.dev[0]), 0.3, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cpw_gpu_device_sm_occupancy(&g.dev[0]), 0.15, 1e-9);
}

/* The timeline's GPU figure: the busy share of the devices the tree holds, in the latest
 * reading; none held, or none read, is NAN. */
static void test_busy_held(void)
{
	struct cpw_gpu g;
	struct cpw_gpu_reading r;
	memset(&r, 0, sizeof(r));
	cpw_gpu_init(&g);
	r.ndev = 2;
	r.dev[0].busy = 0.9;
	r.dev[1].busy = 0.3;
	cpw_gpu_fold(&g, &r, NULL);
	CU_ASSERT_TRUE(isnan(cpw_gpu_busy_held(&g, &r))); /* none held */
	g.dev[1].held = true;
	CU_ASSERT_DOUBLE_EQUAL(cpw_gpu_busy_held(&g, &r), 0.3, 1e-9);
	g.dev[0].held = true;
	CU_ASSERT_DOUBLE_EQUAL(cpw_gpu_busy_held(&g, &r), 0.6, 1e-9);
	r.dev[0].busy = NAN; /* not read: not a zero */
	CU_ASSERT_DOUBLE_EQUAL(cpw_gpu_busy_held(&g, &r), 0.3, 1e-9);
}

/* A process that maps the CUDA driver, from its /proc/PID/maps: the file name, not a path
 * that merely holds the word. */
static void test_cuda_maps(void)
{
	static const char with[] =
		"55d0c0000000-55d0c0021000 r-xp 00000000 08:01 131 /usr/bin/python3.12\n"
		"7f2a00000000-7f2a01000000 r-xp 00000000 08:01 777 /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n"
		"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n";
	static const char without[] =
		"55d0c0000000-55d0c0021000 r-xp 00000000 08:01 131 /opt/libcuda.so.dir/python3\n"
		"7f2a00000000-7f2a01000000 r-xp 00000000 08:01 778 /usr/lib/libcudart.so.13\n"
		"7f2a02000000-7f2a03000000 r-xp 00000000 08:01 779 /usr/lib/libcuda";
	CU_ASSERT_TRUE(cpw_cuda_users_maps_have_cuda(with, sizeof(with) - 1));
	CU_ASSERT_FALSE(cpw_cuda_users_maps_have_cuda(without, sizeof(without) - 1));
	CU_ASSERT_FALSE(cpw_cuda_users_maps_have_cuda("", 0));
	pid_t pids[1] = { 999999999 }, out[1];
	CU_ASSERT_EQUAL(cpw_cuda_users_find("/proc", pids, 1, out, 1), 0); /* no such process */
}

/* CUDA's blocking sync sleeps on a futex inside libcuda: the span of libcuda's executable
 * mappings, and a stack with a return address into it. */
static void test_driver_text(void)
{
	static const char maps[] =
		"55d0c0000000-55d0c0021000 r-xp 00000000 08:01 131 /usr/bin/python3.11\n"
		"7f2a02000000-7f2a02100000 r--p 00000000 08:01 779 /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n"
		"7f2a02100000-7f2a02900000 r-xp 00100000 08:01 779 /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n"
		"7f2a02900000-7f2a02a00000 rw-p 00900000 08:01 779 /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n"
		"7f2a03000000-7f2a03100000 r-xp 00000000 08:01 780 /usr/lib/libcudart.so.13\n"
		"garbage line\n"
		"7f2a04000000-7f2a03000000 r-xp 00000000 08:01 781 /usr/lib/libcuda.so.1\n"; /* end before start */
	uint64_t lo, hi;
	CU_ASSERT_TRUE(cpw_cuda_users_driver_text(maps, sizeof(maps) - 1, &lo, &hi));
	CU_ASSERT_EQUAL(lo, 0x7f2a02100000ull);
	CU_ASSERT_EQUAL(hi, 0x7f2a02900000ull);
	static const char none[] = "7f2a03000000-7f2a03100000 r-xp 00000000 08:01 780 /usr/lib/libcudart.so.13\n"
				   "7f2a02000000-7f2a02100000 r--p 00000000 08:01 779 /usr/lib/libcuda.so.1\n";
	CU_ASSERT_FALSE(cpw_cuda_users_driver_text(none, sizeof(none) - 1, &lo, &hi));
	CU_ASSERT_FALSE(cpw_cuda_users_driver_text("", 0, &lo, &hi));
	CU_ASSERT_FALSE(cpw_cuda_users_read_driver_text("/proc", 999999999, &lo, &hi));

	/* libc's futex wrapper, then the driver's frame: a return address into its text. */
	uint64_t stack[64] = { 0 };
	stack[3] = 0x7f2a01234567ull;  /* libc */
	stack[9] = 0x7ffd00001000ull;  /* a saved frame pointer */
	CU_ASSERT_FALSE(cpw_wait_parse_stack_has_return(stack, sizeof(stack), 0x7f2a02100000ull, 0x7f2a02900000ull));
	stack[12] = 0x7f2a02345678ull; /* libcuda */
	CU_ASSERT_TRUE(cpw_wait_parse_stack_has_return(stack, sizeof(stack), 0x7f2a02100000ull, 0x7f2a02900000ull));
	CU_ASSERT_FALSE(cpw_wait_parse_stack_has_return(stack, 12 * sizeof(uint64_t), 0x7f2a02100000ull,
							0x7f2a02900000ull)); /* not read that far */
	stack[12] = 0x7f2a02900000ull; /* the end is outside */
	CU_ASSERT_FALSE(cpw_wait_parse_stack_has_return(stack, sizeof(stack), 0x7f2a02100000ull, 0x7f2a02900000ull));
	CU_ASSERT_FALSE(cpw_wait_parse_stack_has_return(stack, sizeof(stack), 5, 5)); /* no span */
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("gpu", NULL, NULL);
	CU_add_test(s, "amdgpu fdinfo and its busy share", test_amdgpu);
	CU_add_test(s, "i915 fdinfo, resident memory and capacity", test_i915);
	CU_add_test(s, "xe fdinfo: cycles over total cycles", test_xe);
	CU_add_test(s, "not a DRM descriptor", test_not_drm);
	CU_add_test(s, "hostile lines skipped, numbers saturated", test_hostile);
	CU_add_test(s, "reader on a fixture proc root", test_reader);
	CU_add_test(s, "the gpu wait kind: an ioctl on a GPU device", test_wait_kind);
	CU_add_test(s, "the model: devices over readings, other processes left out", test_model_devices);
	CU_add_test(s, "the busy share of the devices held", test_busy_held);
	CU_add_test(s, "a process that maps the CUDA driver", test_cuda_maps);
	CU_add_test(s, "the driver's code, and a stack that returns into it", test_driver_text);
	return cpw_cunit_run_tap();
}
