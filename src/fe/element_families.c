/* The registry of element families (kedyn/element.h): a family is a set of
 * tables, one per element formulation (a membrane's CST, T6, Q4...), chosen
 * by the kind's theory (the family) and interpolation (the table). */
#include <stddef.h>

#include "element_family_list.h"

/* The default table of each kd_family. */
static const kd_element_family* const families[KD_FAMILIES] = {
    [KD_FAMILY_BEAM] = &element_family_beam,
    [KD_FAMILY_MEMBRANE] = &element_family_membrane_q4,
    [KD_FAMILY_PLATE] = &element_family_plate_mitc4,
    [KD_FAMILY_SHELL] = &element_family_shell_q4,
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
    case KD_THEORY_MEMBRANE: return KD_FAMILY_MEMBRANE;
    case KD_THEORY_KIRCHHOFF:
    case KD_THEORY_MINDLIN: return KD_FAMILY_PLATE;
    case KD_THEORY_SHELL: return KD_FAMILY_SHELL;
    case KD_THEORIES: break;
    }
    return KD_FAMILIES;
}

/* The table of a two-dimensional kind: one per (theory, interpolation). */
static const kd_element_family* table_2d(kd_element_kind kind) {
    if (kind.theory == KD_THEORY_MEMBRANE) {
        switch (kind.interp) {
        case KD_INTERP_CST: return &element_family_membrane_cst;
        case KD_INTERP_T6: return &element_family_membrane_t6;
        case KD_INTERP_Q4: return &element_family_membrane_q4;
        case KD_INTERP_Q8: return &element_family_membrane_q8;
        case KD_INTERP_Q9: return &element_family_membrane_q9;
        default: return NULL;
        }
    }
    if (kind.theory == KD_THEORY_KIRCHHOFF) {
        switch (kind.interp) {
        case KD_INTERP_DKT: return &element_family_plate_dkt;
        case KD_INTERP_ACM: return &element_family_plate_acm;
        case KD_INTERP_BFS: return &element_family_plate_bfs;
        default: return NULL;
        }
    }
    if (kind.theory == KD_THEORY_MINDLIN) return kind.interp == KD_INTERP_MITC4 ? &element_family_plate_mitc4 : NULL;
    if (kind.theory == KD_THEORY_SHELL) {
        switch (kind.interp) {
        case KD_INTERP_MITC4: return &element_family_shell_q4;
        case KD_INTERP_DKT: return &element_family_shell_tri;
        case KD_INTERP_T6: return &element_family_shell_t6;
        case KD_INTERP_Q8: return &element_family_shell_q8;
        case KD_INTERP_Q9: return &element_family_shell_q9;
        default: return NULL;
        }
    }
    return NULL;
}

const kd_element_family* kd_element_family_of(kd_element_kind kind) {
    const kd_family f = kd_element_kind_family(kind);
    if (f == KD_FAMILY_BEAM) return kind.interp == KD_INTERP_CUBIC || kind.interp == KD_INTERP_QUINTIC
                                        ? families[f] : NULL;
    return f == KD_FAMILIES ? NULL : table_2d(kind);
}

int kd_element_kinds(kd_element_kind* kinds, int max) {
    int n = 0;
    for (int planar = 1; planar >= 0; planar--)
        for (int t = 0; t < KD_THEORIES; t++)
            for (int i = 0; i < KD_INTERPS; i++) {
                const kd_element_kind k = {(kd_theory)t, (kd_interp)i, planar};
                const kd_family f = kd_element_kind_family(k);
                if (f != KD_FAMILY_BEAM && planar) continue;  /* 2D kinds once */
                if (!kd_element_family_of(k)) continue;
                if (f == KD_FAMILY_BEAM && i == KD_INTERP_QUINTIC &&
                    !(t == KD_THEORY_EULER_BERNOULLI || t == KD_THEORY_RAYLEIGH))
                    continue;
                if (n < max) kinds[n] = k;
                n++;
            }
    return n;
}

int kd_element_node_dofs_at(kd_element_kind kind, int node, kd_dof_name dofs[KD_NODE_DOF_MAX]) {
    const kd_element_family* fam = kd_element_family_of(kind);
    return fam ? fam->node_dofs(kind, node, dofs) : 0;
}

int kd_element_node_dofs(kd_element_kind kind, kd_dof_name dofs[KD_NODE_DOF_MAX]) {
    return kd_element_node_dofs_at(kind, 0, dofs);
}
