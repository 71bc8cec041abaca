/* The BFS rectangle (Bogner, Fox, Schmit 1965; kedyn/element.h; theory.md
 * sec. 10.5): 16 DOFs, w, theta_x = w,y, theta_y = -w,x and the twist
 * w,xy at the corners, w bicubic (the products of cubic Hermite
 * polynomials in x and y): C1-conforming on rectangular meshes. Geometry,
 * constants, w field and evaluation are the Kirchhoff rectangle's
 * (element_plate_rect.c). */

#include "element_family_list.h"
#include "kedyn/element.h"

static int bfs_node_dofs(kd_element_kind kind, int node, kd_dof_name dofs[KD_NODE_DOF_MAX]) {
    (void)kind, (void)node;
    dofs[0] = KD_DOF_W;
    dofs[1] = KD_DOF_RX;
    dofs[2] = KD_DOF_RY;
    dofs[3] = KD_DOF_WXY;
    return 4;
}

const kd_element_family element_family_plate_bfs = {
    .name = "plate-bfs",
    .domain = KD_DOMAIN_QUADRILATERAL,
    .nnode = 4,
    .node_xi = node_xi_quad4,
    .ntrans = 1,
    .trans_dir = {{0.0, 0.0, 1.0}},  /* thickness z */
    .node_dofs = bfs_node_dofs,
    .init = kirchhoff_rect_init,
    .quadrature = kirchhoff_rect_quadrature,
    .eval = kirchhoff_rect_eval,
    .prestress_basis = NULL,
};
