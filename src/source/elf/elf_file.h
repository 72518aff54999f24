/*
 * elf_file.h: reading the files a watched process maps (elf_file.c): an ELF file through
 * /proc/PID/root (a process in a container maps its own files), checked to be the file that
 * was mapped (its build-id, or its inode where the kernel gave no build-id); a JIT perf map.
 */
#ifndef CPW_SOURCE_ELF_ELF_FILE_H
#define CPW_SOURCE_ELF_ELF_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "source/elf/elf_symbols.h"

/* Loads the symbols of path as process pid sees it (through PROC_ROOT/PID/root, else the
 * path itself). build_id (len > 0) or ino (non-zero) say which file was mapped: another
 * file found there now (replaced since) is refused. Returns 0, or -errno with why filled. */
int cpw_elf_file_load(const char *proc_root, pid_t pid, const char *path, const uint8_t *build_id,
		 size_t build_id_len, uint64_t ino, struct cpw_elf_info *out, char *why, size_t len);
/* Reads /tmp/perf-PID.map as process pid sees it (at most max_syms entries). Returns 0 or
 * -errno (-ENOENT: the process writes none). */
int cpw_elf_file_perf_map_load(const char *proc_root, pid_t pid, size_t max_syms, struct cpw_perf_map *out);

#endif
