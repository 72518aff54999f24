/*
 * python_layout.h: where CPython keeps what a stack reader needs (python_layout.c), pure:
 * the offsets of the runtime, interpreter, thread state, frame, code and string fields per
 * version. 3.11 and 3.12 from a table (their structures are internal and publish nothing);
 * from 3.13 from the _Py_DebugOffsets structure that starts _PyRuntime, as the process
 * itself publishes it.
 */
#ifndef CPW_SOURCE_PYTHON_PYTHON_LAYOUT_H
#define CPW_SOURCE_PYTHON_PYTHON_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpw_py_layout {
	int major, minor;
	/* _PyRuntimeState */
	uint64_t runtime_interpreters_head;
	/* PyInterpreterState */
	uint64_t interp_next, interp_threads_head;
	/* PyThreadState */
	uint64_t tstate_next, tstate_native_thread_id;
	uint64_t tstate_cframe;        /* 3.11, 3.12: the _PyCFrame pointer (0: none) */
	uint64_t cframe_current_frame; /* ... and its current_frame */
	uint64_t tstate_current_frame; /* 3.13: the frame pointer in the thread state itself */
	bool has_cframe;
	/* _PyInterpreterFrame; frame_instr: the instruction it is at (3.11, 3.12: prev_instr,
	 * 3.13: instr_ptr; both the one running, or the call it is in) */
	uint64_t frame_code, frame_previous, frame_owner, frame_instr, frame_size;
	/* PyCodeObject; code_adaptive: where its instructions start (co_code_adaptive) */
	uint64_t code_filename, code_name, code_qualname, code_firstlineno, code_linetable, code_adaptive,
		code_size;
	/* PyObject, PyASCIIObject, PyBytesObject */
	uint64_t ob_type, unicode_state, unicode_length, unicode_ascii_size, bytes_size, bytes_sval;
};

/* Frames owned by the C stack (3.12: an entry shim) carry no Python function. */
#define CPW_PY_FRAME_OWNED_BY_CSTACK 3

/* The table's layout of major.minor (3.11, 3.12). False with why filled otherwise. */
bool cpw_python_layout_for(int major, int minor, struct cpw_py_layout *out, char *why, size_t len);

/* The bytes of _Py_DebugOffsets read from the start of _PyRuntime (3.13): checks the cookie
 * "xdebugpy" and the version (a PY_VERSION_HEX), and that every offset is plausible. False
 * with why filled when it is not a layout this reader knows (another major version of the
 * structure: 3.14 grew it). */
#define CPW_PY_DEBUG_OFFSETS_READ 1024
bool cpw_python_layout_from_debug(const uint8_t *buf, size_t len, struct cpw_py_layout *out, char *why,
				  size_t wlen);

/* A PY_VERSION_HEX (Py_Version) split: 0x030B02F0 is 3.11. */
void cpw_python_layout_version(uint64_t hex, int *major, int *minor);

/* A string object's state field: whether it is compact ASCII (the only kind the reader
 * copies out; names and file names of other kinds are shown as "?"). */
bool cpw_python_layout_compact_ascii(uint32_t state);

#endif
