/* A shell link as a floating-frame body of a spatial mechanism (kedyn/ffr3d.h; theory.md sec. 22,
 * SL6): the body invariants of sec. 17 F1 summed once from the shell elements' own inertia
 * invariants (sec. 10.7, 10.8), each element about its origin r0 (its first node, body frame);
 * the frame is the body frame with the nodes of the link's support set clamped to it. F3-F5
 * (floating_body3d.c) are then evaluated unchanged. Dense storage: n_f elastic coordinates cost
 * 9 n_f^2 doubles and O(9 n_f^2) per evaluation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "floating3d_internal.h"
#include "kedyn/model.h"

static int dof_index(kd_dof_name n) {
    switch (n) {
    case KD_DOF_U: return 0;
    case KD_DOF_V: return 1;
    case KD_DOF_W: return 2;
    case KD_DOF_RX: return 3;
    case KD_DOF_RY: return 4;
    case KD_DOF_RZ: return 5;
    default: return -1;
    }
}

kd_status f3_body_init_shell(f3_body* b, const kd_model* md, kd_error* err) {
    const int nn = md->nnode, nf = md->neq;
    /* SL8: a shell to be reduced (b->shell_modes > 0) keeps no dense n_f^2 block (floating_shell3d_modal.c) */
    const int dense = b->shell_modes == 0;
    if (nf < 1 || (dense && nf > KD_FFR3D_SHELL_MAX) || md->elem_rot)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                            "shell body '%s': %d elastic coordinates (unreduced two-way shells take 1 to %d, dense "
                            "storage; `modes` reduces larger ones)",
                            b->name, nf, KD_FFR3D_SHELL_MAX);
    const size_t nf2 = dense ? (size_t)nf * nf : 0;
    b->elastic = 1, b->shell = 1;
    b->nodes = nn, b->nf = nf, b->size = KD_FFR3D_POSE + nf;
    b->node_coord = malloc(sizeof(int) * 6 * (size_t)nn);
    b->node_x = malloc(sizeof(double) * 3 * (size_t)nn);
    b->SN = calloc(3 * (size_t)nf, sizeof(double));
    b->X = calloc(9 * (size_t)nf, sizeof(double));
    b->Mij = calloc(9 * nf2 + 1, sizeof(double));
    b->Mff = calloc(nf2 + 1, sizeof(double));
    b->K = calloc(nf2 + 1, sizeof(double));
    if (!b->node_coord || !b->node_x || !b->SN || !b->X || !b->Mij || !b->Mff || !b->K)
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    memcpy(b->node_x, md->node_x, sizeof(double) * 3 * (size_t)nn);
    for (int k = 0; k < 6 * nn; k++) b->node_coord[k] = -1;
    for (int n = 0; n < nn; n++)
        for (int a = 0; a < md->node_dof_num[n]; a++) {
            const int d = dof_index(md->dof_name[md->node_dof_adr[n] + a]);
            if (d >= 0) b->node_coord[6 * n + d] = md->dof_eq[md->node_dof_adr[n] + a];
        }
    b->m = 0;
    memset(b->St0, 0, sizeof(b->St0));
    memset(b->P0, 0, sizeof(b->P0));
    for (int e = 0; e < md->nelem; e++) {
        const kd_element_props* p = &md->prop[md->elem_prop[e]];
        const int* enode = md->elem_node + md->elem_node_adr[e];
        const double* r0 = md->node_x + 3 * enode[0];
        int eqs[KD_ELEM_DOF_MAX];
        const int nd = kd_model_elem_eqs(md, e, eqs);
        /* the rigid fields in element DOFs: tr[k] the translation e_k, rot[j] the rotation e_j about
         * the body origin (u = e_j x x_node, theta = e_j) */
        double tr[3][KD_ELEM_DOF_MAX], rot[3][KD_ELEM_DOF_MAX];
        for (int k = 0, a = 0; k < md->elem_node_adr[e + 1] - md->elem_node_adr[e]; k++) {
            const int node = enode[k];
            const double* x = md->node_x + 3 * node;
            for (int c = 0; c < md->node_dof_num[node]; c++, a++) {
                const int d = dof_index(md->dof_name[md->node_dof_adr[node] + c]);
                for (int j = 0; j < 3; j++) {
                    const double ej[3] = {j == 0, j == 1, j == 2};
                    const double exr[3] = {ej[1] * x[2] - ej[2] * x[1], ej[2] * x[0] - ej[0] * x[2],
                                           ej[0] * x[1] - ej[1] * x[0]};
                    tr[j][a] = d == j ? 1.0 : 0.0;
                    rot[j][a] = d < 0 ? 0.0 : d < 3 ? exr[d] : d - 3 == j ? 1.0 : 0.0;
                }
            }
        }
        /* F1 about the body origin: X_ki = x_ik + r0_k s_i (element components are the body's) */
        for (int a = 0; a < nd; a++) {
            double Xe[9];
            for (int k = 0; k < 3; k++)
                for (int i = 0; i < 3; i++) Xe[3 * k + i] = p->x_ik[i][k][a] + r0[k] * p->s_i[i][a];
            /* the rigid invariants of the same fields: m = int rho, S_t0 = int rho u0,
             * P0_kl = int rho u0_k u0_l with u0_l = (e_j x u0)_i, (i, j, l) cyclic */
            b->m += p->s_i[0][a] * tr[0][a];
            for (int k = 0; k < 3; k++) {
                b->St0[k] += Xe[3 * k] * tr[0][a];
                b->P0[3 * k] += Xe[3 * k + 1] * rot[2][a];
                b->P0[3 * k + 1] += Xe[3 * k + 2] * rot[0][a];
                b->P0[3 * k + 2] += Xe[3 * k] * rot[1][a];
            }
            const int A = eqs[a];
            if (A < 0) continue;
            for (int i = 0; i < 3; i++) {
                b->SN[(size_t)i * nf + A] += p->s_i[i][a];
                for (int k = 0; k < 3; k++) b->X[(size_t)(3 * k + i) * nf + A] += Xe[3 * k + i];
            }
            for (int c = 0; c < nd && dense; c++) {
                const int B = eqs[c];
                if (B < 0) continue;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        b->Mij[(size_t)(3 * i + j) * nf2 + (size_t)A * nf + B] += p->m_ij[i][j][a * nd + c];
                b->K[(size_t)A * nf + B] += p->k[a * nd + c];
            }
        }
    }
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < k; l++) b->P0[3 * k + l] = b->P0[3 * l + k] = 0.5 * (b->P0[3 * k + l] + b->P0[3 * l + k]);
    for (int i = 0; i < 3; i++)
        for (size_t k = 0; k < nf2; k++) b->Mff[k] += b->Mij[(size_t)(4 * i) * nf2 + k];
    b->creg = 4.0 * 2.0 * (b->P0[0] + b->P0[4] + b->P0[8]) / 3.0;   /* 4 tr(I_theta) / 3 (F4) */
    b->omega_max = dense ? sqrt(kd_model_lambda_max(md)) : 0.0;   /* bounds rk4's step (run_spatial_two_way.c) */
    return KD_OK;
}
