/* The a-priori round-off error of the computed frequencies (kedyn/modes.h, kd_modes_roundoff),
 * shared by the modal solvers' results and the model's warning (src/fe/model_compile.c). */
#include <math.h>

#include "kedyn/modes.h"

/* Measured constants of the round-off estimate (docs/validation.md, "Round-off in the lowest
 * modes"; theory.md sec. 3.6), with kappa_k^2 = lambda_max / lambda_k:
 *   - Cholesky of the assembled K - sigma M: C eps kappa_k^2 (the eigenvalue itself; with the
 *     Rayleigh quotient an upper bound);
 *   - QR of the square root, eigenvalue as solved: C eps kappa_k;
 *   - QR of the square root and Rayleigh quotient: the shape's error squared, summed over the
 *     neq modes that contaminate it, C neq (eps kappa_k)^2, never below 2 eps. */
#define ROUNDOFF_CHOLESKY 1e-3
#define ROUNDOFF_QR 0.3
#define ROUNDOFF_QR_RAYLEIGH 4e-6

double kd_modes_roundoff(kd_eigen_factor factor, int rayleigh, int neq, double lambda_max, double lambda) {
    const double eps = 2.220446049250313e-16;
    if (!(lambda > 0) || !(lambda_max > lambda)) return 2 * eps;
    const double k2 = lambda_max / lambda;
    double e;
    if (factor != KD_FACTOR_QR) e = ROUNDOFF_CHOLESKY * eps * k2;
    else if (!rayleigh) e = ROUNDOFF_QR * eps * sqrt(k2);
    else e = ROUNDOFF_QR_RAYLEIGH * neq * eps * eps * k2;
    return fmax(e, 2 * eps);
}
