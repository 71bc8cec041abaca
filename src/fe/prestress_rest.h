/* The in-plane pre-stress of two-dimensional bodies at rest under gravity
 * (internal to src/fe; theory.md sec. 11.2). */
#ifndef KEDYN_FE_PRESTRESS_REST_H
#define KEDYN_FE_PRESTRESS_REST_H

#include "kedyn/model.h"

/* Fill m->rest_adr and m->rest_S (kedyn/model.h) when gravity acts on a 2D
 * body with geometric stiffness; leaves them NULL otherwise. */
kd_status model_rest_prestress(kd_model* m, kd_error* err);

#endif
