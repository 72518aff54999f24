/*
 * python_layout.c: CPython's layouts (python_layout.h). Pure.
 *
 * Where the table's figures come from: offsetof() on the structures of each version's
 * Include/internal headers (pycore_runtime.h _PyRuntimeState, pycore_interp.h
 * PyInterpreterState, cpython/pystate.h PyThreadState and _PyCFrame, pycore_frame.h
 * _PyInterpreterFrame, cpython/code.h PyCodeObject, cpython/unicodeobject.h PyASCIIObject),
 * compiled with Py_BUILD_CORE on x86-64 against Debian 12's python3.11-dev (3.11.2; the
 * same figures from pyenv's 3.11.7) and pyenv's 3.12.1. CPython keeps these structures
 * within a minor version; tests/unit/test_python_stacks.c holds the figures, and the
 * integration test reads real 3.11 and 3.12 processes with them.
 */
#include "config.h"
#include "source/python/python_layout.h"

#include <stdio.h>
#include <string.h>

static const struct cpw_py_layout TABLE[] = {
	{
		.major = 3, .minor = 11,
		.runtime_interpreters_head = 40,
		.interp_next = 0, .interp_threads_head = 16,
		.tstate_next = 8, .tstate_native_thread_id = 160,
		.tstate_cframe = 56, .cframe_current_frame = 8, .has_cframe = true,
		.frame_code = 32, .frame_previous = 48, .frame_owner = 69, .frame_instr = 56,
		.code_filename = 112, .code_name = 120, .code_qualname = 128, .code_firstlineno = 72,
		.code_linetable = 136, .code_adaptive = 184,
		.ob_type = 8, .unicode_state = 32, .unicode_length = 16, .unicode_ascii_size = 48,
		.bytes_size = 16, .bytes_sval = 32,
	},
	{
		.major = 3, .minor = 12,
		.runtime_interpreters_head = 40,
		.interp_next = 0, .interp_threads_head = 72,
		.tstate_next = 8, .tstate_native_thread_id = 144,
		.tstate_cframe = 56, .cframe_current_frame = 0, .has_cframe = true,
		.frame_code = 0, .frame_previous = 8, .frame_owner = 70, .frame_instr = 56,
		.code_filename = 112, .code_name = 120, .code_qualname = 128, .code_firstlineno = 68,
		.code_linetable = 136, .code_adaptive = 192,
		.ob_type = 8, .unicode_state = 32, .unicode_length = 16, .unicode_ascii_size = 40,
		.bytes_size = 16, .bytes_sval = 32,
	},
};

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a > b ? a : b;
	return m > c ? m : c;
}

/* How many bytes of a frame and of a code object hold the fields read. */
static void sizes(struct cpw_py_layout *l)
{
	l->frame_size = max3(max3(l->frame_code, l->frame_previous, l->frame_instr) + 8, l->frame_owner + 1, 0);
	l->code_size = max3(max3(max3(l->code_filename, l->code_name, l->code_qualname), l->code_linetable,
				 l->ob_type) + 8,
			    l->code_firstlineno + 4, 0);
}

bool cpw_python_layout_for(int major, int minor, struct cpw_py_layout *out, char *why, size_t len)
{
	for (size_t i = 0; i < sizeof(TABLE) / sizeof(TABLE[0]); i++) {
		if (TABLE[i].major == major && TABLE[i].minor == minor) {
			*out = TABLE[i];
			sizes(out);
			return true;
		}
	}
	if (major == 3 && minor < 11)
		snprintf(why, len, "its frame layout differs before 3.11 (3.11 to 3.13 are read)");
	else
		snprintf(why, len, "no layout known for it and no _Py_DebugOffsets found (3.11 to 3.13 are read)");
	return false;
}

void cpw_python_layout_version(uint64_t hex, int *major, int *minor)
{
	*major = (int)((hex >> 24) & 0xff);
	*minor = (int)((hex >> 16) & 0xff);
}

bool cpw_python_layout_compact_ascii(uint32_t state)
{
	/* interned:2, kind:3, compact:1, ascii:1 (3.11 to 3.13) */
	return ((state >> 2) & 7) == 1 && ((state >> 5) & 1) && ((state >> 6) & 1);
}

/* ---- _Py_DebugOffsets (3.13: Include/internal/pycore_runtime.h), 64-bit fields ---- */

enum {
	DO_VERSION = 1,
	DO_RUNTIME = 3,       /* size, finalizing, interpreters_head */
	DO_INTERP = 6,        /* size, id, next, threads_head, ... (13 fields in 3.13) */
	DO_TSTATE = 19,       /* size, prev, next, interp, current_frame, thread_id, native_thread_id, ... (9) */
	DO_FRAME = 28,        /* size, previous, executable, instr_ptr, localsplus, owner */
	DO_CODE = 34,         /* size, filename, name, qualname, linetable, firstlineno, ... (10) */
	DO_PYOBJECT = 44,     /* size, ob_type */
	DO_BYTES = 46 + 4 + 3 + 3 + 3 + 2 + 3, /* size, ob_size, ob_sval: after type(4), tuple, list, dict, float(2), long */
	DO_UNICODE = DO_BYTES + 3,
	DO_FIELDS = DO_UNICODE + 4,
};

bool cpw_python_layout_from_debug(const uint8_t *buf, size_t len, struct cpw_py_layout *out, char *why,
				  size_t wlen)
{
	uint64_t f[DO_FIELDS];
	if (len < sizeof(f)) {
		snprintf(why, wlen, "_Py_DebugOffsets cut short (%zu bytes)", len);
		return false;
	}
	if (memcmp(buf, "xdebugpy", 8) != 0) {
		snprintf(why, wlen, "_PyRuntime does not start with the _Py_DebugOffsets cookie");
		return false;
	}
	memcpy(f, buf, sizeof(f));
	int major, minor;
	cpw_python_layout_version(f[DO_VERSION], &major, &minor);
	if (major != 3 || minor != 13) {
		snprintf(why, wlen, "its _Py_DebugOffsets (version %d.%d) is laid out as this reader does not know "
			 "(3.13's is read)", major, minor);
		return false;
	}
	memset(out, 0, sizeof(*out));
	out->major = major;
	out->minor = minor;
	out->runtime_interpreters_head = f[DO_RUNTIME + 2];
	out->interp_next = f[DO_INTERP + 2];
	out->interp_threads_head = f[DO_INTERP + 3];
	out->tstate_next = f[DO_TSTATE + 2];
	out->tstate_current_frame = f[DO_TSTATE + 4];
	out->tstate_native_thread_id = f[DO_TSTATE + 6];
	out->frame_previous = f[DO_FRAME + 1];
	out->frame_code = f[DO_FRAME + 2];
	out->frame_owner = f[DO_FRAME + 5];
	out->frame_instr = f[DO_FRAME + 3];
	out->code_filename = f[DO_CODE + 1];
	out->code_name = f[DO_CODE + 2];
	out->code_qualname = f[DO_CODE + 3];
	out->code_firstlineno = f[DO_CODE + 5];
	out->code_linetable = f[DO_CODE + 4];
	out->code_adaptive = f[DO_CODE + 9];
	out->ob_type = f[DO_PYOBJECT + 1];
	out->unicode_state = f[DO_UNICODE + 1];
	out->unicode_length = f[DO_UNICODE + 2];
	out->unicode_ascii_size = f[DO_UNICODE + 3];
	out->bytes_size = f[DO_BYTES + 1];
	out->bytes_sval = f[DO_BYTES + 2];
	/* Each offset must lie inside its structure as the same table sizes it. */
	struct { uint64_t off, size; } chk[] = {
		{ out->runtime_interpreters_head, f[DO_RUNTIME] }, { out->interp_threads_head, f[DO_INTERP] },
		{ out->interp_next, f[DO_INTERP] }, { out->tstate_next, f[DO_TSTATE] },
		{ out->tstate_current_frame, f[DO_TSTATE] }, { out->tstate_native_thread_id, f[DO_TSTATE] },
		{ out->frame_previous, f[DO_FRAME] }, { out->frame_code, f[DO_FRAME] }, { out->frame_owner, f[DO_FRAME] },
		{ out->code_filename, f[DO_CODE] }, { out->code_name, f[DO_CODE] }, { out->code_qualname, f[DO_CODE] },
		{ out->code_firstlineno, f[DO_CODE] }, { out->unicode_length, f[DO_UNICODE] },
		{ out->unicode_state, f[DO_UNICODE] }, { out->unicode_ascii_size, f[DO_UNICODE] + 1 },
		{ out->frame_instr, f[DO_FRAME] }, { out->code_linetable, f[DO_CODE] },
		{ out->code_adaptive, f[DO_CODE] }, { out->bytes_size, f[DO_BYTES] },
		{ out->bytes_sval, f[DO_BYTES] + 1 },
	};
	for (size_t i = 0; i < sizeof(chk) / sizeof(chk[0]); i++) {
		if (chk[i].size == 0 || chk[i].size > (1u << 20) || chk[i].off >= chk[i].size) {
			snprintf(why, wlen, "its _Py_DebugOffsets holds an offset outside its structure");
			return false;
		}
	}
	sizes(out);
	return true;
}
