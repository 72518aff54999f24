/*
 * gpu_work.cu: the workloads of tests/device/gpu_check.sh, on a real NVIDIA GPU.
 *
 *   gpu_work busy SECONDS       one long kernel after another: the device busy, the host
 *                               in cudaDeviceSynchronize (CUDA's default: it spins)
 *   gpu_work blocking SECONDS   the same with cudaDeviceScheduleBlockingSync: the host
 *                               sleeps in the driver's ioctl (the gpu wait kind)
 *   gpu_work host SECONDS       a tiny kernel after 20 ms of host computing each: the
 *                               device idles, starved by the host
 *   gpu_work pipeline SECONDS   a tiny kernel per record read from 2 worker processes that
 *                               compute each record for 20 ms: starved by the input pipeline
 *
 * Built beforehand with nvcc (cudart linked statically): the machine needs only the driver.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

__global__ void spin_kernel(long long cycles, int *out)
{
	long long start = clock64();
	while (clock64() - start < cycles)
		;
	if (threadIdx.x == 0 && blockIdx.x == 0)
		*out = 1;
}

__global__ void tiny_kernel(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * 0.5f + 1.0f;
}

static void check(cudaError_t rc, const char *what)
{
	if (rc != cudaSuccess) {
		fprintf(stderr, "gpu_work: %s: %s\n", what, cudaGetErrorString(rc));
		exit(2);
	}
}

/* About ms milliseconds of host computing. */
static double host_work(double ms)
{
	double end = now() + ms / 1000, x = 0;
	while (now() < end)
		for (int i = 0; i < 10000; i++)
			x += i * 1e-9;
	return x;
}

static void busy(double secs)
{
	int *d;
	check(cudaMalloc(&d, sizeof(int)), "cudaMalloc");
	int sms = 1;
	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
	double end = now() + secs;
	while (now() < end) {
		spin_kernel<<<sms * 4, 256>>>(200000000LL, d); /* ~0.1 s at 2 GHz */
		check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
	}
}

static void tiny(float *x, int n)
{
	tiny_kernel<<<(n + 255) / 256, 256>>>(x, n);
	check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

static void host(double secs)
{
	float *x;
	int n = 1 << 16;
	check(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc");
	double end = now() + secs, sink = 0;
	while (now() < end) {
		sink += host_work(20);
		tiny(x, n);
	}
	printf("%g\n", sink);
}

static void pipeline(double secs)
{
	float *x;
	int n = 1 << 16, fds[2][2];
	check(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc");
	fflush(stdout);
	for (int w = 0; w < 2; w++) {
		if (pipe(fds[w]) != 0) {
			perror("pipe");
			exit(2);
		}
		pid_t pid = fork();
		if (pid == 0) { /* a worker: no CUDA here */
			close(fds[w][0]);
			double end = now() + secs;
			char rec[64];
			while (now() < end) {
				snprintf(rec, sizeof(rec), "%032.6f\n", host_work(20));
				if (write(fds[w][1], rec, strlen(rec)) < 0)
					break;
			}
			_exit(0);
		}
		close(fds[w][1]);
	}
	char rec[64];
	for (int open_ = 2; open_ > 0;) {
		open_ = 0;
		for (int w = 0; w < 2; w++) {
			if (fds[w][0] < 0)
				continue;
			if (read(fds[w][0], rec, 33) <= 0) {
				close(fds[w][0]);
				fds[w][0] = -1;
				continue;
			}
			open_++;
			tiny(x, n);
		}
	}
	while (wait(NULL) > 0)
		;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gpu_work busy|blocking|host|pipeline SECONDS\n");
		return 2;
	}
	double secs = atof(argv[2]);
	if (strcmp(argv[1], "blocking") == 0)
		check(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync), "cudaSetDeviceFlags");
	check(cudaFree(0), "cudaFree (context)");
	if (strcmp(argv[1], "busy") == 0 || strcmp(argv[1], "blocking") == 0)
		busy(secs);
	else if (strcmp(argv[1], "host") == 0)
		host(secs);
	else if (strcmp(argv[1], "pipeline") == 0)
		pipeline(secs);
	else {
		fprintf(stderr, "gpu_work: no mode '%s'\n", argv[1]);
		return 2;
	}
	return 0;
}
