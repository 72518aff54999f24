/*
 * elf_file.h: reading the files a watched process maps (elf_file.c): an ELF file through
 * /proc/PID/root (a process in a container maps its own files), checked to be the file that
 * was mapped (its build-id, or its inode where the kernel gave no build-id); a JIT perf map.
 */
#ifndef CPW_SOURCE_ELF_ELF_FILE_H
#define CPW_SOURCE_ELF_ELF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "source/elf/elf_symbols.h"

/* Opens path (read-only) as process pid sees it: PROC_ROOT/PID/root/PATH (or the part of
 * PATH below the process's root where PATH starts above it: cpw_elf_file_root_prefix()),
 * else the path itself (the process has ended); the caller checks it is the file meant.
 * -1 with errno. */
int cpw_elf_file_open(const char *proc_root, pid_t pid, const char *path);
/* Opens path under a root directory held open (root_fd, an O_PATH descriptor of a
 * container's root taken while a process of it lived), else as cpw_elf_file_open() does. */
int cpw_elf_file_open_in(int root_fd, const char *proc_root, pid_t pid, const char *path);
/* How many leading characters of path (a mapped file's, from /proc/PID/maps or an MMAP2
 * record) name process pid's root as cperfwatch sees it: 0 where its root is cperfwatch's
 * own or path does not start below it. Where cperfwatch runs in a chroot and the process in
 * a container of its own, the kernel writes both its root and its files' paths from
 * cperfwatch's side ("/var/tmp/r" and "/var/tmp/r/usr/bin/x"): the rest of the path is the
 * file as the process sees it. */
size_t cpw_elf_file_root_prefix(const char *proc_root, pid_t pid, const char *path);
/* The separate debug file of a build-id, /usr/lib/debug/.build-id/XX/REST.debug (Debian's
 * dbgsym packages, Fedora's debuginfo), into buf. False for a build-id under 2 bytes. */
bool cpw_elf_file_debug_path(const uint8_t *build_id, size_t build_id_len, char *buf, size_t len);
/* Loads the symbols of path as process pid sees it (through PROC_ROOT/PID/root, else the
 * path itself). build_id (len > 0) or ino (non-zero) say which file was mapped: another
 * file found there now (replaced since) is refused. A file without .symtab (stripped) takes
 * the .symtab of its build-id's debug file where there is one. Returns 0, or -errno with
 * why filled. */
int cpw_elf_file_load(const char *proc_root, pid_t pid, const char *path, const uint8_t *build_id,
		 size_t build_id_len, uint64_t ino, struct cpw_elf_info *out, char *why, size_t len);
/* Loads the symbols of an ELF image mapped whole in process pid's memory at addr (len
 * bytes, at most 1 MiB): the vDSO, which no file holds. Read through PROC_ROOT/PID/mem (the
 * rights of ptrace). Returns 0, or -errno with why filled. */
int cpw_elf_file_load_memory(const char *proc_root, pid_t pid, uint64_t addr, uint64_t len,
			     struct cpw_elf_info *out, char *why, size_t wlen);
/* The wanted symbols of path as process pid sees it (cpw_elf_symbols_find). Returns how many
 * were found, or -errno with why filled. */
int cpw_elf_file_find(const char *proc_root, pid_t pid, const char *path, struct cpw_elf_wanted *w,
			 size_t n, uint64_t *load0, char *why, size_t len);
/* Reads /tmp/perf-PID.map as process pid sees it (at most max_syms entries). Returns 0 or
 * -errno (-ENOENT: the process writes none). */
int cpw_elf_file_perf_map_load(const char *proc_root, pid_t pid, size_t max_syms, struct cpw_perf_map *out);

#endif
