/* Hyper-dual numbers x = r + e1 a + e2 b + e1 e2 c with e1^2 = e2^2 = 0
 * (Fike & Alonso 2011): forward-mode automatic differentiation that gives a
 * function's first derivatives along two seeds (e1, e2 parts) and the mixed
 * second derivative (e1 e2 part) exactly, without truncation error. With
 * e2 unused it is an ordinary dual number. Costs in flops (counted by the
 * routes): add 4, scale 4, mul 14. */
#ifndef KEDYN_HYPERDUAL_H
#define KEDYN_HYPERDUAL_H

typedef struct hd {
    double r, e1, e2, e12;
} hd;

enum { KD_HD_ADD_FLOPS = 4, KD_HD_SCALE_FLOPS = 4, KD_HD_MUL_FLOPS = 14 };

static inline hd hd_make(double r, double e1, double e2, double e12) {
    hd x = {r, e1, e2, e12};
    return x;
}
static inline hd hd_add(hd a, hd b) { return hd_make(a.r + b.r, a.e1 + b.e1, a.e2 + b.e2, a.e12 + b.e12); }
static inline hd hd_sub(hd a, hd b) { return hd_make(a.r - b.r, a.e1 - b.e1, a.e2 - b.e2, a.e12 - b.e12); }
static inline hd hd_scale(double s, hd a) { return hd_make(s * a.r, s * a.e1, s * a.e2, s * a.e12); }
static inline hd hd_mul(hd a, hd b) {
    return hd_make(a.r * b.r, a.r * b.e1 + a.e1 * b.r, a.r * b.e2 + a.e2 * b.r,
                      a.r * b.e12 + a.e1 * b.e2 + a.e2 * b.e1 + a.e12 * b.r);
}

/* 3-vectors of hyper-dual numbers. */
static inline void hd_cross(hd out[3], const hd a[3], const hd b[3]) {
    out[0] = hd_sub(hd_mul(a[1], b[2]), hd_mul(a[2], b[1]));
    out[1] = hd_sub(hd_mul(a[2], b[0]), hd_mul(a[0], b[2]));
    out[2] = hd_sub(hd_mul(a[0], b[1]), hd_mul(a[1], b[0]));
}
static inline hd hd_dot(const hd a[3], const hd b[3]) {
    return hd_add(hd_add(hd_mul(a[0], b[0]), hd_mul(a[1], b[1])), hd_mul(a[2], b[2]));
}
enum { KD_HD_CROSS_FLOPS = 6 * KD_HD_MUL_FLOPS + 3 * KD_HD_ADD_FLOPS,
       KD_HD_DOT_FLOPS = 3 * KD_HD_MUL_FLOPS + 2 * KD_HD_ADD_FLOPS };

#endif
