/*
 * fuzz_drm.c: fuzz target for cpw_drm_fdinfo_parse (/proc/PID/fdinfo/N of a /dev/dri
 * descriptor) and cpw_drm_fdinfo_busy_share between two parses of halves of the input.
 */
#include "config.h"
#include "fuzz.h"

#include <math.h>
#include "source/gpu/drm_fdinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpw_drm_client a, b;
	char *buf = fuzz_copy(data, size, 0);
	int rc = cpw_drm_fdinfo_parse(buf, size, &a);
	FUZZ_ASSERT(rc == 0 || rc == -2);
	FUZZ_ASSERT(rc != 0 || a.driver[0] != '\0');
	FUZZ_ASSERT(a.nengines >= 0 && a.nengines <= CPW_DRM_ENGINES_MAX);
	FUZZ_ASSERT(memchr(a.driver, '\0', sizeof(a.driver)) && memchr(a.pdev, '\0', sizeof(a.pdev)));
	for (int i = 0; i < a.nengines; i++)
		FUZZ_ASSERT(a.engine[i].capacity >= 1 && a.engine[i].name[0] != '\0');
	size_t half = size / 2;
	cpw_drm_fdinfo_parse(buf, half, &b);
	double share = cpw_drm_fdinfo_busy_share(&b, &a, 1.0);
	FUZZ_ASSERT(isnan(share) || (share >= 0 && share <= 1));
	free(buf);
	return 0;
}
