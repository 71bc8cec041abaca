/* The first clamped-free mode of a uniform beam, phi(x) = cosh bx - cos bx - s (sinh bx - sin bx),
 * for the closed-form references of the shell and plate tests (Rayleigh quotients of a load that
 * stiffens the beam: gravity along it, spin about its root). */
#ifndef KEDYN_TESTS_CANTILEVER_MODE_H
#define KEDYN_TESTS_CANTILEVER_MODE_H

#include <math.h>

/* Root of cos x cosh x + 1 near 1.8751 by Newton. */
static inline long double cantilever_beta1(void) {
    long double x = 1.875L;
    for (int i = 0; i < 50; i++) {
        const long double f = cosl(x) * coshl(x) + 1, df = -sinl(x) * coshl(x) + cosl(x) * sinhl(x);
        x -= f / df;
    }
    return x;
}

/* int weight(x, L) phi'^2 dx / int phi^2 dx over [0, L] (Simpson, 4000 intervals). */
static inline double cantilever_mode_ratio(double L, long double (*weight)(long double x, long double L)) {
    const long double bl = cantilever_beta1(), b = bl / L, s = (coshl(bl) + cosl(bl)) / (sinhl(bl) + sinl(bl));
    long double num = 0, den = 0;
    const int n = 4000;
    for (int i = 0; i <= n; i++) {
        const long double x = L * i / n, w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
        const long double phi = coshl(b * x) - cosl(b * x) - s * (sinhl(b * x) - sinl(b * x));
        const long double dphi = b * (sinhl(b * x) + sinl(b * x) - s * (coshl(b * x) - cosl(b * x)));
        num += w * weight(x, L) * dphi * dphi;
        den += w * phi * phi;
    }
    return (double)(num / den);
}

/* The weight of a unit axial load per length along the beam toward its free end: N(x) = L - x. */
static inline long double cantilever_gravity_weight(long double x, long double L) { return L - x; }

/* The weight of a unit spin about the root: N(x) = (L^2 - x^2) / 2. */
static inline long double cantilever_spin_weight(long double x, long double L) { return 0.5L * (L * L - x * x); }

#endif
