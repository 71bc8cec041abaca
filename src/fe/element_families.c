/* The registry of element families and their shared quadrature rules
 * (kedyn/element.h). */
#include <stddef.h>

#include "element_family_list.h"

/* 6-point Gauss-Legendre rule on [0, 1]: exact to degree 11, enough for the
 * products of quintic shape functions (degree 10) in the mass invariants. */
static const double gauss6_xi[6][3] = {{0.033765242898423986, 0, 0}, {0.16939530676686776, 0, 0},
                                       {0.38069040695840156, 0, 0},  {0.61930959304159844, 0, 0},
                                       {0.83060469323313224, 0, 0},  {0.96623475710157601, 0, 0}};
static const double gauss6_w[6] = {0.085662246189585178, 0.18038078652406930, 0.23395696728634552,
                                   0.23395696728634552,  0.18038078652406930, 0.085662246189585178};
const kd_quadrature quadrature_line_gauss6 = {6, gauss6_xi, gauss6_w};

/* One entry per kd_family. */
static const kd_element_family* const families[KD_FAMILIES] = {
    [KD_FAMILY_BEAM] = &element_family_beam,
};

const kd_element_family* kd_element_family_get(kd_family f) {
    return (unsigned)f < (unsigned)KD_FAMILIES ? families[f] : NULL;
}

/* The family of each theory (kd_theory, kedyn/desc.h). */
kd_family kd_element_kind_family(kd_element_kind kind) {
    switch (kind.theory) {
    case KD_THEORY_BAR:
    case KD_THEORY_EULER_BERNOULLI:
    case KD_THEORY_RAYLEIGH:
    case KD_THEORY_TIMOSHENKO: return KD_FAMILY_BEAM;
    }
    return KD_FAMILIES;
}

const kd_element_family* kd_element_family_of(kd_element_kind kind) {
    return kd_element_family_get(kd_element_kind_family(kind));
}

int kd_element_node_dofs_at(kd_element_kind kind, int node, kd_dof_name dofs[KD_NODE_DOF_MAX]) {
    const kd_element_family* fam = kd_element_family_of(kind);
    return fam ? fam->node_dofs(kind, node, dofs) : 0;
}

int kd_element_node_dofs(kd_element_kind kind, kd_dof_name dofs[KD_NODE_DOF_MAX]) {
    return kd_element_node_dofs_at(kind, 0, dofs);
}
