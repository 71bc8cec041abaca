/* kedyn: pairs of doubles for loops that GCC does not vectorise by itself (not public). GCC's
 * vector extension (SSE2 on x86-64): each lane is the IEEE operation of the scalar code, so the
 * same bits; KD_V2 is 0 on other compilers, whose callers keep their scalar loops. */
#ifndef KEDYN_NUMERICS_PAIR_H
#define KEDYN_NUMERICS_PAIR_H

#include <string.h>

#if defined(__GNUC__)
#define KD_V2 1
typedef double kd_v2 __attribute__((vector_size(16)));
static inline kd_v2 ld2(const double* p) {
    kd_v2 x;
    memcpy(&x, p, sizeof x);
    return x;
}
static inline void st2(double* p, kd_v2 x) { memcpy(p, &x, sizeof x); }
#else
#define KD_V2 0
#endif

#endif
