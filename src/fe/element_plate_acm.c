/* The ACM rectangle (Adini, Clough, Melosh; kedyn/element.h; theory.md
 * sec. 10.4): 12 DOFs, w, theta_x = w,y, theta_y = -w,x at the corners, w the
 * 12-term polynomial (complete cubic + x^3 y + x y^3). Non-conforming (the
 * normal slope jumps across sides) but passes the patch test and converges.
 * Geometry, constants, w field and evaluation: element_plate_rect.c. */
#include "element_family_list.h"
#include "kedyn/element.h"

const kd_element_family element_family_plate_acm = {
    .name = "plate-acm",
    .domain = KD_DOMAIN_QUADRILATERAL,
    .nnode = 4,
    .node_xi = node_xi_quad4,
    .ntrans = 1,
    .trans_dir = {{0.0, 0.0, 1.0}},  /* thickness z */
    .node_dofs = plate_node_dofs,
    .init = kirchhoff_rect_init,
    .quadrature = kirchhoff_rect_quadrature,
    .eval = kirchhoff_rect_eval,
    .prestress_basis = NULL,
};
