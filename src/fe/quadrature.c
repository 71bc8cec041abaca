/* Quadrature rules shared by the element families (element_family_list.h). */
#include "element_family_list.h"

/* 6-point Gauss-Legendre rule on [0, 1]: exact to degree 11, enough for the
 * products of quintic shape functions (degree 10) in the mass invariants. */
static const double gauss6_xi[6][3] = {{0.033765242898423986, 0, 0}, {0.16939530676686776, 0, 0},
                                       {0.38069040695840156, 0, 0},  {0.61930959304159844, 0, 0},
                                       {0.83060469323313224, 0, 0},  {0.96623475710157601, 0, 0}};
static const double gauss6_w[6] = {0.085662246189585178, 0.18038078652406930, 0.23395696728634552,
                                   0.23395696728634552,  0.18038078652406930, 0.085662246189585178};
const kd_quadrature quadrature_line_gauss6 = {6, gauss6_xi, gauss6_w};
