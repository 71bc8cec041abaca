/* The small run of seed 001 (bench/startup_bar.yaml: the rotating bar, 25 elements, 10 000
 * generalized-alpha steps, the energy balance at every step) against independent evaluations:
 *   - the energy terms T, V, W and the balance that src/analyses/dynamics.c writes (by one pass
 *     over the diagonals of M, K0, K, with the frames of a steady rotation held from step to step,
 *     src/fe/system.c) equal, bit for bit, those of the general formulas of docs/theory.md
 *     (T = v'Mv/2, V = q'K0q/2, P = v'(f - Cv - (K - K0)q), W by the trapezoidal rule) evaluated
 *     with the band products of kd_gband_matvec on a second system whose frames are evaluated
 *     afresh at each instant; and the balance closes (|E_balance| below 1e-6 of T + V: the
 *     trapezoidal rule's work of the sine force at dt = 1e-5 s);
 *   - dynamics.csv written by kd_run_with (rows in blocks, numbers by src/output/fmt_num.c) equals,
 *     byte for byte, the rows printed by fprintf ("%.10g" of t, "%.10e" of each value, "%.4e" of
 *     the balance: the CSV's contract, docs/model-format.md) from the same integration. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kedyn/analysis.h"
#include "kedyn/kedyn.h"
#include "kedyn/load_yaml.h"
#include "kedyn/run.h"
#include "kedyn/system.h"

#define BAR_MODEL KD_TEST_MODELS_DIR "/../../bench/startup_bar.yaml"

typedef struct ref_energy {
    kd_system s;                  /* the reference system: frames evaluated at every instant */
    kd_gband C, K;
    double *f, *w1, *w2;
    double e0, work, p_prev, t_prev;
    int started, rows, differ;
    double emax, balance;
    FILE* csv;                    /* rows by fprintf */
    const kd_model* m;
    int eq[3];                    /* the equations of the output nodes 6, 16, 26 (u) */
} ref_energy;

static double dot(const double* a, const double* b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

static int ref_out(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)a;
    ref_energy* r = ctx;
    kd_system* s = &r->s;
    const int n = s->n;
    int changed;
    s->have_frames = 0;  /* the frames of this instant, evaluated */
    kd_system_matrices(s, t, &r->C, &r->K, &changed);
    kd_system_force(s, t, r->f);
    kd_gband_matvec(&s->M, v, r->w1);
    const double T = 0.5 * dot(v, r->w1, n);
    kd_gband_matvec(&s->K0, q, r->w1);
    const double V = 0.5 * dot(q, r->w1, n);
    kd_gband_matvec(&r->K, q, r->w2);
    for (int i = 0; i < n; i++) r->w2[i] -= r->w1[i];
    kd_gband_matvec(&r->C, v, r->w1);
    double P = 0;
    for (int i = 0; i < n; i++) P += v[i] * (r->f[i] - r->w1[i] - r->w2[i]);
    if (!r->started) r->e0 = T + V, r->started = 1;
    else r->work += 0.5 * (P + r->p_prev) * (t - r->t_prev);
    r->p_prev = P, r->t_prev = t;
    const double want[4] = {T, V, r->work, T + V - r->e0 - r->work};
    if (!e || memcmp(want, e, sizeof(want)) != 0) {
        if (r->differ++ < 5)
            print_error("t = %.10g: kedyn %a %a %a %a, reference %a %a %a %a\n", t, e ? e[0] : 0, e ? e[1] : 0,
                        e ? e[2] : 0, e ? e[3] : 0, want[0], want[1], want[2], want[3]);
    }
    r->emax = fmax(r->emax, fmax(T + V, fabs(r->work)));
    r->balance = fmax(r->balance, fabs(want[3]));
    fprintf(r->csv, "%.10g", t);
    for (int k = 0; k < 3; k++) fprintf(r->csv, ",%.10e", q[r->eq[k]]);
    fprintf(r->csv, ",%.10e,%.10e,%.10e,%.4e\n", want[0], want[1], want[2], want[3]);
    r->rows++;
    return 0;
}

/* The equation of DOF u of node `node` (1-based) of body 0. */
static int u_equation(const kd_model* m, int node) {
    const int nd = m->body[0].node_adr + node - 1;
    for (int i = m->node_dof_adr[nd]; i < m->node_dof_adr[nd] + m->node_dof_num[nd]; i++)
        if (m->dof_name[i] == KD_DOF_U) return m->dof_eq[i];
    return -1;
}

static char* slurp(const char* path, size_t* n) {
    FILE* fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    const long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char* buf = malloc((size_t)len + 1);
    *n = buf ? fread(buf, 1, (size_t)len, fp) : 0;
    if (buf) buf[*n] = '\0';
    fclose(fp);
    return buf;
}

static void test_energy_and_rows(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    assert_int_equal(kd_load_yaml_file(BAR_MODEL, &d, &err), KD_OK);
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    assert_int_equal(d->nanalyses, 1);

    /* the library's run: OUTDIR/dynamics.csv */
    char dir[] = "/tmp/kd_steady_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    const kd_run_options o = {NULL, NULL, 0, 1, 0, NULL};
    kd_run_report rep;
    assert_int_equal(kd_run_with(d, m, BAR_MODEL, dir, &o, &rep, &err), KD_OK);
    kd_run_report_free(&rep);

    /* the same integration, its energy checked against the reference and its rows printed */
    static ref_energy r;
    memset(&r, 0, sizeof(r));
    assert_int_equal(kd_system_init(&r.s, m, &err), KD_OK);
    assert_int_equal(kd_gband_init(&r.C, r.s.n, r.s.kd, r.s.kd), KD_OK);
    assert_int_equal(kd_gband_init(&r.K, r.s.n, r.s.kd, r.s.kd), KD_OK);
    r.f = calloc(3 * (size_t)r.s.n, sizeof(double));
    assert_non_null(r.f);
    r.w1 = r.f + r.s.n, r.w2 = r.w1 + r.s.n;
    r.m = m;
    r.eq[0] = u_equation(m, 6), r.eq[1] = u_equation(m, 16), r.eq[2] = u_equation(m, 26);
    char* printed = NULL;
    size_t nprinted = 0;
    r.csv = open_memstream(&printed, &nprinted);
    assert_non_null(r.csv);
    kd_integrate_stats stats;
    assert_int_equal(kd_dynamics_run(m, &d->analyses[0], ref_out, &r, &stats, NULL, 0, &err), KD_OK);
    fclose(r.csv);
    print_message("bar, 25 elements: %d outputs, %d energy rows differing from the reference; balance %.2e of %.2e J\n",
                  r.rows, r.differ, r.balance, r.emax);
    assert_int_equal(r.rows, 10001);
    assert_int_equal(r.differ, 0);
    assert_true(r.balance < 1e-6 * r.emax);  /* the balance closes (trapezoidal work: 4.6e-8 measured) */
    assert_int_equal(stats.factorizations, 1);

    /* dynamics.csv after its header = the printed rows */
    char path[1200];
    snprintf(path, sizeof(path), "%s/dynamics.csv", dir);
    size_t nfile = 0;
    char* file = slurp(path, &nfile);
    assert_non_null(file);
    const char* body = strchr(file, '\n');
    assert_non_null(body);
    body++;
    assert_int_equal(nfile - (size_t)(body - file), nprinted);
    assert_memory_equal(body, printed, nprinted);

    free(file);
    free(printed);
    free(r.f);
    kd_gband_free(&r.C);
    kd_gband_free(&r.K);
    kd_system_free(&r.s);
    kd_model_free(&m);
    kd_desc_free(&d);
    unlink(path);
    snprintf(path, sizeof(path), "%s/summary.json", dir);
    unlink(path);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_energy_and_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
