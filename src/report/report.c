/*
 * report.c: what every report writer shares: notes and the choice of writer.
 */
#include "config.h"
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

void cpw_report_note(struct cpw_report *r, const char *fmt, ...)
{
	va_list ap;
	if (r->nnotes >= CPW_NOTES_MAX)
		return;
	char *note = r->notes[r->nnotes++];
	va_start(ap, fmt);
	int n = vsnprintf(note, CPW_NOTE_LEN, fmt, ap);
	va_end(ap);
	if (n >= CPW_NOTE_LEN)
		memcpy(note + CPW_NOTE_LEN - 4, "...", 4);
}

int cpw_report_write(const struct cpw_report *r, FILE *out)
{
	int rc;

	errno = 0;
	switch (r->cfg->format) {
	case CPW_FORMAT_JSON:
		rc = cpw_report_write_json(r, out);
		break;
	case CPW_FORMAT_OPENMETRICS:
		rc = cpw_report_write_openmetrics(r, out);
		break;
	case CPW_FORMAT_PROMETHEUS:
		rc = cpw_report_write_prometheus(r, out);
		break;
	default:
		rc = cpw_report_write_text(r, out);
		break;
	}
	if (rc == 0 && fflush(out) != 0)
		rc = -errno;
	if (rc == 0 && ferror(out))
		rc = -EIO;
	return rc;
}
