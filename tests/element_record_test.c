/* Element records sized by their own DOFs (kedyn/element.h,
 * src/fe/element_integrate.c; docs/performance.md, "Element records sized
 * by their DOFs"): 1 600 distinct 4-node shells (a Gmsh-like mesh whose
 * interior corners are moved at random) cost far less than one record of
 * KD_ELEM_DOF_MAX^2 matrices each, and every record still carries its own
 * element's invariants: the masses sum to rho t a b, a rigid translation
 * has kinetic energy mass / 2 and no strain energy. The 9-node shell
 * (54 DOFs, the largest element) the same. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "kedyn/element.h"

#define NX 40
#define NY 40
static const double A = 0.2, B = 0.16, T = 0.001, E = 210e9, NU = 0.3, RHO = 7800;

static long peak_rss_kb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* The grid's node (i, j), interior ones moved by up to +-0.1 of a cell (a fixed LCG). */
static void grid_node(int i, int j, double x[3]) {
    const double hx = A / NX, hy = B / NY;
    uint32_t s = (uint32_t)(i * 7919 + j * 104729 + 12345);
    double r[2];
    for (int k = 0; k < 2; k++) {
        s = s * 1664525u + 1013904223u;
        r[k] = (s >> 8) / (double)(1u << 24) - 0.5;  /* [-0.5, 0.5) */
    }
    const int inner = i > 0 && i < NX && j > 0 && j < NY;
    x[0] = i * hx + (inner ? 0.2 * r[0] * hx : 0.0);
    x[1] = j * hy + (inner ? 0.2 * r[1] * hy : 0.0);
    x[2] = 0.0;
}

static kd_element_consts consts(void) {
    kd_element_consts c;
    memset(&c, 0, sizeof(c));
    c.E = E, c.G = E / (2 * (1 + NU)), c.rho = RHO, c.t = T;
    return c;
}

/* u^T M u and max |K u| / max |K| of a unit rigid translation along `dir`
 * (shell DOFs u, v, w, rx, ry, rz per node). */
static void rigid_translation(const kd_element_props* p, int dir, double* ke, double* ku) {
    const int n = p->ndof;
    double mm = 0.0, kmax = 0.0, kres = 0.0;
    for (int a = 0; a < n; a++) {
        double row = 0.0;
        for (int b = 0; b < n; b++) {
            const double m = p->m_ij[0][0][a * n + b] + p->m_ij[1][1][a * n + b] + p->m_ij[2][2][a * n + b];
            if (a % 6 == dir && b % 6 == dir) mm += m;
            if (b % 6 == dir) row += p->k[a * n + b];
            kmax = fmax(kmax, fabs(p->k[a * n + b]));
        }
        kres = fmax(kres, fabs(row));
    }
    *ke = mm, *ku = kres / kmax;
}

static void test_distinct_q4_records(void** state) {
    (void)state;
    const kd_element_kind q4 = {KD_THEORY_SHELL, KD_INTERP_MITC4, 0};
    const kd_element_consts c = consts();
    const int ne = NX * NY;
    kd_element_props* rec = calloc((size_t)ne, sizeof(*rec));
    assert_non_null(rec);
    const long rss0 = peak_rss_kb();
    double mass = 0.0;
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++) {
            double g[4][3], x[4][3];
            grid_node(i, j, g[0]), grid_node(i + 1, j, g[1]), grid_node(i + 1, j + 1, g[2]), grid_node(i, j + 1, g[3]);
            for (int a = 0; a < 4; a++)
                for (int k = 0; k < 3; k++) x[a][k] = g[a][k] - g[0][k];
            kd_element_props* p = &rec[i * NY + j];
            assert_int_equal(kd_element_props_init_nodes(p, q4, &c, (const double(*)[3])x), KD_OK);
            assert_int_equal(p->ndof, 24);
            mass += p->mass;
        }
    const double per_kb = (double)(peak_rss_kb() - rss0) / ne;
    /* one record of KD_ELEM_DOF_MAX^2 matrices: 13 * 54^2 doubles = 303 kB; sized by 24 DOFs:
     * 10 * 24^2 + 12 * 24 doubles = 48 kB (no g_k for shells) and the 3.7 kB header */
    print_message("1 600 distinct Q4 shell records: peak RSS +%.1f kB per record\n", per_kb);
    assert_true(per_kb < 100.0);
    /* the masses: rho t a b (the moved corners keep the plate's area) */
    assert_true(fabs(mass - RHO * T * A * B) < 1e-12 * RHO * T * A * B);
    /* each record its own: rigid translations carry its mass, strain nothing */
    double worst_m = 0.0, worst_k = 0.0;
    for (int e = 0; e < ne; e++)
        for (int dir = 0; dir < 3; dir++) {
            double ke, ku;
            rigid_translation(&rec[e], dir, &ke, &ku);
            worst_m = fmax(worst_m, fabs(ke - rec[e].mass) / rec[e].mass), worst_k = fmax(worst_k, ku);
        }
    print_message("total mass rel. error %.1e; rigid translations: u^T M u / mass - 1 <= %.1e, "
                  "|K u| / max |K| <= %.1e\n",
                  fabs(mass / (RHO * T * A * B) - 1), worst_m, worst_k);
    assert_true(worst_m < 1e-12 && worst_k < 1e-12);
    /* a record filled again after its release is the same to the bit */
    kd_element_props again;
    double x[4][3], g[4][3];
    grid_node(7, 9, g[0]), grid_node(8, 9, g[1]), grid_node(8, 10, g[2]), grid_node(7, 10, g[3]);
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) x[a][k] = g[a][k] - g[0][k];
    assert_int_equal(kd_element_props_init_nodes(&again, q4, &c, (const double(*)[3])x), KD_OK);
    assert_memory_equal(again.k, rec[7 * NY + 9].k, sizeof(double) * 24 * 24);
    assert_memory_equal(again.x_ik[2][1], rec[7 * NY + 9].x_ik[2][1], sizeof(double) * 24);
    assert_true(again.k != rec[7 * NY + 9].k);
    kd_element_props_free(&again);
    for (int e = 0; e < ne; e++) kd_element_props_free(&rec[e]);
    free(rec);
}

/* The largest element: a 9-node shell on a moved cell (straight sides, mid-side nodes at the
 * midpoints, the centre at the corners' mean): mass rho t (shoelace area), rigid modes. */
static void test_q9_record(void** state) {
    (void)state;
    const kd_element_kind q9 = {KD_THEORY_SHELL, KD_INTERP_Q9, 0};
    const kd_element_consts c = consts();
    double g[4][3], x[9][3];
    grid_node(11, 5, g[0]), grid_node(12, 5, g[1]), grid_node(12, 6, g[2]), grid_node(11, 6, g[3]);
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) {
            x[a][k] = g[a][k] - g[0][k];
            x[4 + a][k] = 0.5 * (g[a][k] + g[(a + 1) % 4][k]) - g[0][k];
        }
    for (int k = 0; k < 3; k++) x[8][k] = 0.25 * (g[0][k] + g[1][k] + g[2][k] + g[3][k]) - g[0][k];
    double area = 0.0;
    for (int a = 0; a < 4; a++) area += 0.5 * (g[a][0] * g[(a + 1) % 4][1] - g[(a + 1) % 4][0] * g[a][1]);
    kd_element_props p;
    assert_int_equal(kd_element_props_init_nodes(&p, q9, &c, (const double(*)[3])x), KD_OK);
    assert_int_equal(p.ndof, KD_ELEM_DOF_MAX);
    assert_true(fabs(p.mass - RHO * T * area) < 1e-12 * p.mass);
    double worst_m = 0.0, worst_k = 0.0;
    for (int dir = 0; dir < 3; dir++) {
        double ke, ku;
        rigid_translation(&p, dir, &ke, &ku);
        worst_m = fmax(worst_m, fabs(ke - p.mass) / p.mass), worst_k = fmax(worst_k, ku);
    }
    print_message("9-node shell: mass rel. error %.1e; u^T M u / mass - 1 <= %.1e, |K u| / max |K| <= %.1e\n",
                  fabs(p.mass / (RHO * T * area) - 1), worst_m, worst_k);
    assert_true(worst_m < 1e-12 && worst_k < 1e-12);
    kd_element_props_free(&p);
    /* a failed init leaves nothing to release */
    x[2][0] = -x[2][0], x[2][1] = -x[2][1];
    assert_int_equal(kd_element_props_init_nodes(&p, q9, &c, (const double(*)[3])x), KD_ERR_INPUT);
    assert_null(p.store);
    kd_element_props_free(&p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distinct_q4_records),
        cmocka_unit_test(test_q9_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
