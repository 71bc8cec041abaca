/* The strip [x0, x0 + L] x [-b/2, b/2] of thickness t as a shell mesh of nx x ny cells of the given
 * interpolation, node sets root (x = x0, the support) and tip (x = x0 + L), for the tests of plate
 * links (cmocka asserts the set-up; include <cmocka.h> before). */
#ifndef KEDYN_TESTS_PLATE_STRIP_H
#define KEDYN_TESTS_PLATE_STRIP_H

#include <stdio.h>
#include <stdlib.h>

#include "kedyn/desc.h"
#include "kedyn/element.h"

static inline kd_body_desc* plate_strip(double x0, double L, double b, double t, int nx, int ny, kd_interp interp) {
    kd_body_desc* p = calloc(1, sizeof(*p));
    p->type = KD_BODY_PLATE, p->theory = KD_THEORY_SHELL, p->interpolation = interp, p->thickness = t;
    p->mesh.source = KD_MESH_RECTANGLE, p->mesh.size[0] = L, p->mesh.size[1] = b;
    p->mesh.divisions[0] = nx, p->mesh.divisions[1] = ny;
    const kd_element_kind kind = {KD_THEORY_SHELL, interp, 0};
    assert_int_equal(kd_mesh_rectangle(&p->mesh, kd_element_family_of(kind)->nnode), KD_OK);
    for (int i = 0; i < p->mesh.nnodes; i++) p->mesh.node_x[3 * i] += x0, p->mesh.node_x[3 * i + 1] -= 0.5 * b;
    const char* names[2] = {"root", "tip"};
    for (int k = 0; k < 2; k++) {
        kd_node_set_desc* s = kd_body_add_node_set(p);
        snprintf(s->name, sizeof(s->name), "%s", names[k]);
        s->axes = 1, s->lo[0] = s->hi[0] = x0 + k * L;
        assert_int_equal(kd_node_set_select(&p->mesh, s), KD_OK);
    }
    return p;
}

static inline void plate_strip_free(kd_body_desc* p) {
    kd_mesh_clear(&p->mesh);
    for (int k = 0; k < p->nnode_sets; k++) free(p->node_sets[k].nodes);
    free(p->node_sets), free(p);
}

#endif
