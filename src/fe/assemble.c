/* Assembly of the global elastic stiffness K and consistent mass M in band storage
 * (kedyn/model.h); an element with its own axes (kd_model.elem_rot) enters in
 * body DOFs, T^T k T (kedyn/inertia.h). */
#include <string.h>

#include "kedyn/inertia.h"
#include "kedyn/model.h"

/* Scatter the upper triangle of a row-major element matrix into the band. */
static void scatter(kd_band* a, const double* ke, const int* eqs, int n) {
    const int ld = a->kd + 1;
    for (int p = 0; p < n; p++) {
        if (eqs[p] < 0) continue;
        for (int q = 0; q < n; q++) {
            const int i = eqs[p], j = eqs[q];
            if (j < 0 || i > j) continue;
            a->ab[a->kd + i - j + (size_t)j * (size_t)ld] += ke[p * n + q];
        }
    }
}

void kd_assemble_stiffness_mass(const kd_model* m, kd_band* K, kd_band* M) {
    kd_band_zero(K);
    kd_band_zero(M);
    double me[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    int last_prop = -1;
    for (int e = 0; e < m->nelem; e++) {
        int eqs[KD_ELEM_DOF_MAX];
        const int n = kd_model_elem_eqs(m, e, eqs);
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        if (m->elem_prop[e] != last_prop) {
            kd_element_mass(p, me);
            last_prop = m->elem_prop[e];
        }
        kd_element_place at;
        if (m->elem_rot && (kd_model_elem_place(m, e, &at), at.rotated)) {
            double kr[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], mr[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
            memcpy(kr, p->k, sizeof(double) * (size_t)n * (size_t)n);
            memcpy(mr, me, sizeof(double) * (size_t)n * (size_t)n);
            kd_element_place_matrix(p, &at, kr);
            kd_element_place_matrix(p, &at, mr);
            scatter(K, kr, eqs, n);
            scatter(M, mr, eqs, n);
            continue;
        }
        scatter(K, p->k, eqs, n);
        scatter(M, me, eqs, n);
    }
}
