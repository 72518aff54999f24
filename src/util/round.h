/*
 * round.h: rounding a double to the nearest integer, halves away from zero, as lround does.
 *
 * With arith.h, they stand in for libm in the binary, which then does not load libm at all
 * (~0.3 MB resident and one library less to map at every start).
 */
#ifndef CPW_UTIL_ROUND_H
#define CPW_UTIL_ROUND_H

/* v must be finite and within the range of long long. */
static inline long long cpw_round(double v)
{
	return v < 0 ? -(long long)(-v + 0.5) : (long long)(v + 0.5);
}

#endif
