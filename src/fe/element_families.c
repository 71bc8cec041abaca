/* The registry of element families (kedyn/element.h). */
#include <stddef.h>

#include "element_family_list.h"

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
