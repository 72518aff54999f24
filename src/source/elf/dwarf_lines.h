/*
 * dwarf_lines.h: where a native function is declared ("file.c:LINE"), from the DWARF of
 * the file that holds it or of its /usr/lib/debug/.build-id/XX/REST.debug file, read with
 * elfutils' libdw (libdw.so.1), opened with dlopen the first time a file has debug
 * information to read (dwarf_lines.c).
 *
 * libdw is optional: without it (or without debug information) a function keeps its file's
 * name. The line is the function's declaration line (DW_AT_decl_line of its subprogram), as
 * a Python function shows the first line of its code object.
 */
#ifndef CPW_SOURCE_ELF_DWARF_LINES_H
#define CPW_SOURCE_ELF_DWARF_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CPW_DWARF_LINES_SONAME "libdw.so.1"

struct cpw_dwarf_lines;

/* Opens the debug information of path as process pid sees it (under root_fd where it is
 * not -1: a container's root held open, so that its files are found after its processes
 * ended; else PROC_ROOT/PID/root; else the path itself): the file's own .debug_info where has_debug (the ELF reader saw one),
 * else /usr/lib/debug/.build-id/XX/REST.debug of build_id (the process's, then ours), whose
 * build-id must match. libdw is loaded only when one of the two exists. Returns 0 with *out,
 * -ENODATA where there is no debug information, or -ENOSYS where there is but libdw cannot
 * be used (cpw_dwarf_lines_why() says why). */
int cpw_dwarf_lines_open(int root_fd, const char *proc_root, pid_t pid, const char *path, const uint8_t *build_id,
			 size_t build_id_len, bool has_debug, struct cpw_dwarf_lines **out);
/* "base.c:LINE" of the function (DW_TAG_subprogram) whose code holds vaddr (the file's
 * virtual address, as its symbols give it). False where no subprogram holds it or it has
 * no declaration line. */
bool cpw_dwarf_lines_decl(struct cpw_dwarf_lines *d, uint64_t vaddr, char *out, size_t len);
void cpw_dwarf_lines_close(struct cpw_dwarf_lines *d);
/* Why libdw could not be used ("libdw.so.1 not found"), or NULL while it could or was
 * never needed. */
const char *cpw_dwarf_lines_why(void);

#endif
