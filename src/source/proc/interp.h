/*
 * interp.h: which interpreter a process runs (interp.c). Today one question: is it Python,
 * whose threads take turns on the GIL? Answered from /proc/PID/exe and, only when the
 * executable is not python itself (an embedding program: uwsgi, blender, gdb), from the
 * libpython mapped in /proc/PID/maps. The parsers are pure and fed text by the tests.
 */
#ifndef CPW_SOURCE_PROC_INTERP_H
#define CPW_SOURCE_PROC_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* True when the file name of an executable path is a CPython or PyPy interpreter:
 * python, python3, python3.11, python3.13d, python2.7, pypy3, pypy3.9. Pure. */
bool cpw_interp_exe_is_python(const char *exe_path);

/* True when a /proc/PID/maps text maps a libpython (libpython3.11.so.1.0,
 * libpython3.13d.so, libpypy3-c.so). Reads whole lines only; a last line without its
 * newline is still read. Pure. */
bool cpw_interp_maps_have_libpython(const char *buf, size_t len);

/* 1 when process pid (below proc_root, normally "/proc") runs Python, 0 when it does not,
 * -errno when neither could be read (another user's process, or it ended). The maps file
 * is read in pieces only when the executable's name does not already say python. */
int cpw_interp_process_is_python(const char *proc_root, pid_t pid);

#endif
