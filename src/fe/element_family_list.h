/* The element families and the quadrature rules they share (internal to
 * src/fe). A new family: one file src/fe/element_<name>.c defining its
 * kd_element_family table, declared here, listed in element_families.c under
 * a new kd_family value (kedyn/element.h). */
#ifndef KEDYN_FE_ELEMENT_FAMILY_LIST_H
#define KEDYN_FE_ELEMENT_FAMILY_LIST_H

#include "kedyn/element.h"

extern const kd_element_family element_family_beam;     /* element_beam.c */

/* Quadrature rules (element_families.c). */
extern const kd_quadrature quadrature_line_gauss6;       /* 6-point Gauss-Legendre on [0, 1] */

#endif
