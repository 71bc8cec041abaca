/* Small helpers shared by every layer (internal, not part of the public API):
 * 3-vector algebra, a monotonic clock, JSON numbers, a re-entrant splitter. */
#ifndef KEDYN_CORE_UTIL_H
#define KEDYN_CORE_UTIL_H

#include <stdio.h>
#include <string.h>

/* out = a x b (out may not alias a or b). */
static inline void util_cross3(double out[3], const double a[3], const double b[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* a . b */
static inline double util_dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* M = [v], the row-major skew matrix with [v] b = v x b. */
static inline void util_skew3(double M[9], const double v[3]) {
    const double S[9] = {0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0};
    memcpy(M, S, sizeof(S));
}

/* Seconds on the monotonic clock (for durations). */
double util_now_s(void);

/* v printed with the printf format fmt (one double, e.g. "%.12g"); when v is not finite,
 * the text `nonfinite` instead (e.g. "null"), or v with fmt all the same if nonfinite is NULL. */
void util_json_number(FILE* fp, const char* fmt, double v, const char* nonfinite);

/* [v0<sep>v1<sep>...] with util_json_number for each value. */
void util_json_numbers(FILE* fp, const char* fmt, const char* sep, const double* v, int n, const char* nonfinite);

/* The next token of *rest, delimited by any character of delims, skipping empty tokens as
 * strtok does but re-entrant: the token is terminated in place and *rest moves past it.
 * Returns NULL when no token is left. */
char* util_next_token(char** rest, const char* delims);

#endif
