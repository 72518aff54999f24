/*
 * test_outname.c: the -o file name of one rank of a job (util/outname.c): every %
 * sequence, the rank variables in their order, and each refusal as one sentence, from a
 * fake environment.
 */
#include "config.h"

#include <CUnit/CUnit.h>
#include <string.h>

#include "util/outname.h"
#include "cunit_tap.h"

/* A fake environment: NAME=VALUE pairs, NULL-terminated. */
static const char *fake_getvar(const char *name, const void *ctx)
{
	for (const char *const *kv = ctx; *kv; kv++) {
		size_t n = strlen(name);
		if (strncmp(*kv, name, n) == 0 && (*kv)[n] == '=')
			return *kv + n + 1;
	}
	return NULL;
}

static char out[64], err[256];

static int expand(const char *pattern, const char *const *vars)
{
	struct cpw_outname_env env = { fake_getvar, (const void *)vars, "node7", 4242 };
	out[0] = err[0] = '\0';
	return cpw_outname_expand(pattern, &env, out, sizeof(out), err, sizeof(err));
}

#define VARS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NOVARS ((const char *const[]){ NULL })

static void test_sequences(void)
{
	CU_ASSERT_EQUAL(expand("report.json", NOVARS), 0);
	CU_ASSERT_STRING_EQUAL(out, "report.json");
	CU_ASSERT_EQUAL(expand("r.%r.%h.%p.json", VARS("OMPI_COMM_WORLD_RANK=3")), 0);
	CU_ASSERT_STRING_EQUAL(out, "r.3.node7.4242.json");
	CU_ASSERT_EQUAL(expand("%q{JOB}-%q{STEP}.%%r", VARS("JOB=77", "STEP=")), 0);
	CU_ASSERT_STRING_EQUAL(out, "77-.%r");
	CU_ASSERT_EQUAL(expand("100%%", NOVARS), 0);
	CU_ASSERT_STRING_EQUAL(out, "100%");
}

/* OpenMPI first, then PMIx, PMI, Slurm: mpirun under Slurm sets several. */
static void test_rank_order(void)
{
	const char *var;
	struct cpw_outname_env env = { fake_getvar, NULL, "h", 1 };
	const char *const all[] = { "SLURM_PROCID=9", "PMI_RANK=8", "PMIX_RANK=7", "OMPI_COMM_WORLD_RANK=6", NULL };
	env.ctx = (const void *)all;
	CU_ASSERT_EQUAL(cpw_outname_rank(&env, &var), 6);
	CU_ASSERT_STRING_EQUAL(var, "OMPI_COMM_WORLD_RANK");
	const char *const slurm_pmi[] = { "SLURM_PROCID=9", "PMI_RANK=8", NULL };
	env.ctx = (const void *)slurm_pmi;
	CU_ASSERT_EQUAL(cpw_outname_rank(&env, &var), 8);
	const char *const slurm[] = { "SLURM_PROCID=0", NULL };
	env.ctx = (const void *)slurm;
	CU_ASSERT_EQUAL(cpw_outname_rank(&env, &var), 0);
	CU_ASSERT_STRING_EQUAL(var, "SLURM_PROCID");
	const char *const bad[] = { "PMIX_RANK=-1", NULL };
	env.ctx = (const void *)bad;
	CU_ASSERT_EQUAL(cpw_outname_rank(&env, &var), -2);
	const char *const none[] = { NULL };
	env.ctx = (const void *)none;
	CU_ASSERT_EQUAL(cpw_outname_rank(&env, &var), -1);
	CU_ASSERT_PTR_NULL(var);
}

static void refused(const char *pattern, const char *const *vars, const char *fragment)
{
	CU_ASSERT_EQUAL(expand(pattern, vars), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, fragment));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
}

static void test_refusals(void)
{
	refused("r.%r.json", NOVARS, "no rank variable is set");
	refused("r.%r.json", VARS("SLURM_PROCID=x1"), "SLURM_PROCID is not a rank");
	refused("r.%q{JOB_ID}.json", NOVARS, "JOB_ID is not set");
	refused("r.%q{JOB_ID.json", NOVARS, "%q needs a variable name in braces");
	refused("r.%q{}.json", NOVARS, "%q needs a variable name in braces");
	refused("r.%qJOB", NOVARS, "%q needs a variable name in braces");
	refused("r.%x", NOVARS, "unknown %x");
	refused("r.%", NOVARS, "lone %");
	refused("%q{LONG}", VARS("LONG=0123456789012345678901234567890123456789012345678901234567890123456789"),
		"too long");
	struct cpw_outname_env env = { fake_getvar, (const void *)NOVARS, NULL, 1 };
	CU_ASSERT_EQUAL(cpw_outname_expand("%h", &env, out, sizeof(out), err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "host name is unknown"));
}

/* The pattern is echoed in the sentence escaped, as the reports escape a name: no control
 * byte of it reaches the terminal. */
static void test_refusals_escaped(void)
{
	refused("r\033]2;PWNED\a.%x", NOVARS, "'r\\x1b]2;PWNED\\x07.%x': unknown %x");
	refused("r.%\033", NOVARS, "unknown %\\x1b");
	refused("r.%q{J\nB}", NOVARS, "%q{J\\x0aB}, but J\\x0aB is not set");
	refused("r\n.%r", NOVARS, "'r\\x0a.%r': %r, but no rank variable");
	for (const char *c = err; *c; c++)
		CU_ASSERT(*c >= 0x20 && *c != 0x7f);
}

static void test_short_hostname(void)
{
	char host[256];
	cpw_outname_short_hostname(host, sizeof(host));
	CU_ASSERT_PTR_NULL(strchr(host, '.'));
}

int main(void)
{
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("outname", NULL, NULL);
	CU_add_test(s, "%r %h %p %q{VAR} %% expand", test_sequences);
	CU_add_test(s, "the rank: OpenMPI, PMIx, PMI, then Slurm", test_rank_order);
	CU_add_test(s, "unset variables and unknown sequences: one sentence", test_refusals);
	CU_add_test(s, "the pattern is echoed escaped in a refusal", test_refusals_escaped);
	CU_add_test(s, "the short host name has no domain", test_short_hostname);
	return cpw_cunit_run_tap();
}
