/*
 * arith.h: the few functions of libm that cperfwatch needs, without libm.
 *
 * The binary loads no libm (~0.3 MB resident and one library less to map at every start;
 * tests/integration/test_startup_libs.sh checks it): the maximum and minimum of two
 * doubles, a square root and the power of ten at or below a number. Rounding is in
 * round.h. All are pure and exact enough for what cperfwatch prints (12 significant
 * digits or better).
 */
#ifndef CPW_UTIL_ARITH_H
#define CPW_UTIL_ARITH_H

/* The larger (smaller) of a and b; b when a is NAN (comparisons with NAN are false). */
static inline double cpw_max(double a, double b) { return a > b ? a : b; }
static inline double cpw_min(double a, double b) { return a < b ? a : b; }

/* The square root of x >= 0 (0 for x <= 0 or NAN): x is scaled into [0.25, 4] by powers
 * of four, where six Newton steps from 1 reach full precision. */
static inline double cpw_sqrt(double x)
{
	double scale = 1;

	if (!(x > 0) || x > 1e300)
		return x > 1e300 ? x : 0;
	while (x > 4) {
		x /= 4;
		scale *= 2;
	}
	while (x < 0.25) {
		x *= 4;
		scale /= 2;
	}
	double r = 1;
	for (int i = 0; i < 6; i++)
		r = 0.5 * (r + x / r);
	return r * scale;
}

/* The largest power of ten at or below x > 0 (1e-300 .. 1e300); 1 for anything else. */
static inline double cpw_decade_below(double x)
{
	double d = 1;

	if (!(x > 1e-300) || x > 1e300)
		return 1;
	while (d * 10 <= x)
		d *= 10;
	while (d > x)
		d /= 10;
	return d;
}

#endif
