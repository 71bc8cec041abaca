/* Cross-section properties and shear coefficients (docs/model-format.md). */
#include <math.h>

#include "kedyn/element.h"

double kd_section_shear_coefficient(kd_shape shape, double nu, double d, double t) {
    /* Cowper, "The shear coefficient in Timoshenko's beam theory", J. Appl.
     * Mech. 33 (1966), table 1. */
    switch (shape) {
    case KD_SHAPE_CIRCLE: return 6.0 * (1.0 + nu) / (7.0 + 6.0 * nu);
    case KD_SHAPE_TUBE: {
        const double m = (d - 2.0 * t) / d, m2 = m * m, q = (1.0 + m2) * (1.0 + m2);
        return 6.0 * (1.0 + nu) * q / ((7.0 + 6.0 * nu) * q + (20.0 + 12.0 * nu) * m2);
    }
    case KD_SHAPE_RECTANGLE: return 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu);
    case KD_SHAPE_GENERIC: return 0.0;
    }
    return 0.0;
}

void kd_section_properties(const kd_section_desc* s, double nu, kd_element_consts* c) {
    const double pi = 3.14159265358979323846;
    switch (s->shape) {
    case KD_SHAPE_CIRCLE: {
        const double d2 = s->d * s->d;
        c->A = pi * d2 / 4.0;
        c->Iy = c->Iz = pi * d2 * d2 / 64.0;
        c->J = 2.0 * c->Iy;
        break;
    }
    case KD_SHAPE_TUBE: {
        const double di = s->d - 2.0 * s->t, d2 = s->d * s->d, di2 = di * di;
        c->A = pi * (d2 - di2) / 4.0;
        c->Iy = c->Iz = pi * (d2 * d2 - di2 * di2) / 64.0;
        c->J = 2.0 * c->Iy;
        break;
    }
    case KD_SHAPE_RECTANGLE: {
        /* b along local z, h along local y; Saint-Venant torsion constant of
         * a solid rectangle (Roark, table 10.7) with a >= c the long side. */
        c->A = s->b * s->h;
        c->Iz = s->b * s->h * s->h * s->h / 12.0;
        c->Iy = s->h * s->b * s->b * s->b / 12.0;
        const double a = fmax(s->b, s->h), q = fmin(s->b, s->h), r = q / a;
        c->J = a * q * q * q * (1.0 / 3.0 - 0.21 * r * (1.0 - r * r * r * r / 12.0));
        break;
    }
    case KD_SHAPE_GENERIC:
        c->A = s->A;
        c->Iy = s->Iy;
        c->Iz = s->Iz;
        c->J = s->J;
        break;
    }
    const double kappa = kd_section_shear_coefficient(s->shape, nu, s->d, s->t);
    c->kappa_y = s->shear_y > 0.0 ? s->shear_y : kappa;
    c->kappa_z = s->shear_z > 0.0 ? s->shear_z : kappa;
}
