/* Measured records (kedyn/record.h, kedyn/measure.h):
 *   - Universal Files written and read back: binary 58b bit for bit, ASCII to the format's
 *     printed precision (E20.12: 13 significant digits, relative 5e-13; E13.5 abscissa steps
 *     and mode-shape values: 6 digits);
 *   - a Universal File from another writer (tests/data/hand_written.uff, typed from the published
 *     layout of datasets 15, 58, 58b and 55; big-endian binary) read to its literal values;
 *   - CSV records: units, time column or rate, and the located errors (ragged row, time that does
 *     not increase, uneven sampling);
 *   - the seeded noise: reproducible, standard normal;
 *   - the whole chain on the pump's connecting rod (examples/pump_rod_hammer.yaml): a virtual
 *     hammer test, H1 FRFs, LSCF, MAC pairing. References: the pinned-pinned Euler-Bernoulli beam
 *     f_n = (n pi / L)^2 sqrt(EI / rho A) / (2 pi) and the Rayleigh damping of mode n,
 *     zeta_n = alpha / (2 w_n) + beta w_n / 2 (both closed forms, not kedyn's output);
 *   - from model files: the order spectrum of a run-up against its closed-form orders, the
 *     waterfall's peak per block on a speed-stepped sine, peak picking's half-power damping on a
 *     damped sine, and correlation of closed-form pinned-pinned shapes read from dataset 55 with
 *     the computed modes; misuse of the keys located at the key. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include "kedyn/kedyn.h"

static char tmpdir[256];

static int setup(void** state) {
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kedyn_records_test_%d", (int)getpid());
    kd_error err;
    return kd_make_dirs(tmpdir, &err) ? -1 : 0;
}

static int teardown(void** state) {
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_text(const char* path, const char* text) {
    FILE* fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* A record of every kind the writer handles: nodes, a mode, an even time series, a complex FRF
 * on an uneven abscissa. */
static kd_record* sample_record(void) {
    kd_record* r = kd_record_new();
    const double x1[3] = {0.1, -2.5e-3, 1.0 / 3.0}, x2[3] = {M_PI, 0, -1e-7};
    assert_int_equal(kd_record_add_node(r, 7, x1), KD_OK);
    assert_int_equal(kd_record_add_node(r, 12, x2), KD_OK);
    kd_record_mode* m = kd_record_add_mode(r, 2, 3);
    m->number = 1, m->frequency_hz = 66.7225, m->damping_ratio = 0.01;
    m->node[0] = 7, m->node[1] = 12;
    for (int k = 0; k < 6; k++) m->value[k] = 0.125 * (k - 2);
    kd_channel* c = kd_record_add_channel(r, 1000, 0);
    snprintf(c->name, sizeof c->name, "a4");
    snprintf(c->unit, sizeof c->unit, "m/s^2");
    c->node = 6, c->dir = 2, c->ref_node = 3, c->ref_dir = 2, c->dx = 2e-4;
    for (int i = 0; i < c->n; i++) c->re[i] = sin(0.37 * i) * exp(-1e-3 * i) * 1e3 / 7.0;
    kd_channel* h = kd_record_add_channel(r, 5, 1);
    snprintf(h->name, sizeof h->name, "H6-3");
    h->function = KD_FUNCTION_FRF;
    h->x = malloc(5 * sizeof(double));
    for (int i = 0; i < 5; i++) h->x[i] = 10.0 + 2.5 * i * i, h->re[i] = 1.0 / (i + 3.0), h->im[i] = -M_PI * i;
    return r;
}

static void test_uff_round_trip(void** state) {
    (void)state;
    kd_record* r = sample_record();
    kd_error err;
    for (int binary = 0; binary < 2; binary++) {
        char path[300];
        snprintf(path, sizeof path, "%s/round%d.uff", tmpdir, binary);
        assert_int_equal(kd_uff_write(path, r, binary, &err), KD_OK);
        kd_record* b = NULL;
        if (kd_uff_read(path, &b, &err)) fail_msg("%s:%d: %s", err.file, err.loc.line, err.msg);
        assert_int_equal(b->nnodes, 2);
        for (int k = 0; k < 6; k++) assert_true(b->node_x[k] == r->node_x[k]);  /* D25.16: bit for bit */
        assert_int_equal(b->node_label[1], 12);
        assert_int_equal(b->nmodes, 1);
        assert_int_equal(b->modes[0].nnodes, 2);
        assert_float_equal(b->modes[0].frequency_hz, 66.7225, 1e-9);
        for (int k = 0; k < 6; k++) assert_true(b->modes[0].value[k] == r->modes[0].value[k]);  /* exact in 6 digits */
        assert_int_equal(b->nchannels, 2);
        const kd_channel *c = &r->channels[0], *cb = &b->channels[0];
        assert_string_equal(cb->name, "a4");
        assert_string_equal(cb->unit, "m/s^2");
        assert_int_equal(cb->node, 6);
        assert_int_equal(cb->dir, 2);
        assert_int_equal(cb->ref_node, 3);
        assert_true(cb->dx == 2e-4);  /* "2.00000E-04": the nearest double to 2e-4, as 2e-4 itself */
        double worst = 0;
        for (int i = 0; i < c->n; i++) {
            if (binary) assert_true(memcmp(&cb->re[i], &c->re[i], sizeof(double)) == 0);
            else if (c->re[i] != 0) worst = fmax(worst, fabs(cb->re[i] / c->re[i] - 1));
        }
        assert_true(worst < 5e-13);  /* E20.12: 13 significant digits */
        const kd_channel *h = &r->channels[1], *hb = &b->channels[1];
        assert_int_equal(hb->function, KD_FUNCTION_FRF);
        assert_non_null(hb->x);
        assert_non_null(hb->im);
        for (int i = 0; i < 5; i++) {
            assert_true(hb->x[i] == h->x[i]);  /* E13.5 of 10 + 2.5 i^2 is exact */
            if (binary) {
                assert_true(hb->re[i] == h->re[i] && hb->im[i] == h->im[i]);
            } else {
                assert_true(fabs(hb->re[i] - h->re[i]) <= 5e-13 * fabs(h->re[i]));
                assert_true(fabs(hb->im[i] - h->im[i]) <= 5e-13 * fabs(h->im[i]));
            }
        }
        kd_record_free(&b);
    }
    kd_record_free(&r);
}

static void test_uff_other_writer(void** state) {
    (void)state;
    kd_record* r = NULL;
    kd_error err;
    if (kd_uff_read(KD_TEST_DATA "/hand_written.uff", &r, &err)) fail_msg("%s:%d: %s", err.file, err.loc.line, err.msg);
    assert_int_equal(r->nnodes, 3);
    assert_int_equal(r->node_label[2], 3);
    assert_float_equal(r->node_x[6], 1.0, 0);
    assert_float_equal(r->node_x[7], 0.25, 0);
    assert_float_equal(r->node_x[8], -0.1, 0);
    assert_int_equal(r->nchannels, 3);
    /* 58, single precision time response */
    const kd_channel* a = &r->channels[0];
    assert_string_equal(a->name, "accel 2");
    assert_string_equal(a->unit, "m/s^2");
    assert_int_equal(a->function, KD_FUNCTION_TIME);
    assert_int_equal(a->precision, 2);
    assert_int_equal(a->node, 2);
    assert_int_equal(a->dir, 2);
    assert_int_equal(a->n, 8);
    assert_true(a->dx == 1e-3);
    const double want[8] = {0, 1.5, -2.25, 3.125, 4e-3, -550, 6, 0.775};
    for (int i = 0; i < 8; i++) assert_true(a->re[i] == want[i]);
    /* 58, complex double FRF on an uneven abscissa */
    const kd_channel* h = &r->channels[1];
    assert_int_equal(h->function, KD_FUNCTION_FRF);
    assert_int_equal(h->node, 3);
    assert_int_equal(h->dir, -3);
    assert_int_equal(h->ref_node, 1);
    assert_int_equal(h->ref_dir, 2);
    assert_non_null(h->x);
    assert_non_null(h->im);
    const double fx[3] = {10, 12.5, 20}, re[3] = {1, 0.5, -1e-3}, im[3] = {-2, 0.25, 3e-3};
    for (int i = 0; i < 3; i++) assert_true(h->x[i] == fx[i] && h->re[i] == re[i] && h->im[i] == im[i]);
    /* 58b, big-endian doubles */
    const kd_channel* f = &r->channels[2];
    assert_string_equal(f->name, "force big-endian");
    assert_int_equal(f->n, 4);
    assert_true(f->x0 == 0.5 && f->dx == 0.25);
    const double fb[4] = {1.0, -0.1, 3.0e-300, 12345.678901234567};
    for (int i = 0; i < 4; i++) assert_true(f->re[i] == fb[i]);
    /* 55 */
    assert_int_equal(r->nmodes, 1);
    assert_true(r->modes[0].frequency_hz == 12.5 && r->modes[0].damping_ratio == 0.02);
    assert_int_equal(r->modes[0].node[1], 3);
    assert_true(r->modes[0].value[2] == -0.5 && r->modes[0].value[4] == 0.75);
    kd_record_free(&r);
}

static void expect_error(const char* name, const char* text, int binary_ok, int line, const char* start) {
    char path[300];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    write_text(path, text);
    kd_record* r = NULL;
    kd_error err;
    kd_error_clear(&err);
    const kd_status st = strstr(name, ".uff") ? kd_uff_read(path, &r, &err) : kd_record_read_csv(path, "t", 0, &r, &err);
    (void)binary_ok;
    assert_int_equal(st, KD_ERR_INPUT);
    assert_null(r);
    if (err.loc.line != line || !strstr(err.msg, start)) fail_msg("%s: line %d: %s", name, err.loc.line, err.msg);
}

static void test_csv(void** state) {
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/ok.csv", tmpdir);
    write_text(path, "# a comment\nt, acc4 [m/s^2], F [N]\n0.000, 1, 2\n0.001, 3, 4\n0.002, 5, 6\n");
    kd_record* r = NULL;
    kd_error err;
    assert_int_equal(kd_record_read_csv(path, "t", 0, &r, &err), KD_OK);
    assert_int_equal(r->nchannels, 2);
    assert_string_equal(r->channels[0].name, "acc4");
    assert_string_equal(r->channels[0].unit, "m/s^2");
    assert_string_equal(r->channels[1].unit, "N");
    assert_float_equal(r->channels[1].dx, 1e-3, 1e-15);
    assert_true(r->channels[1].re[2] == 6);
    kd_record_free(&r);
    assert_int_equal(kd_record_read_csv(path, NULL, 250, &r, &err), KD_OK);  /* the rate: every column a channel */
    assert_int_equal(r->nchannels, 3);
    assert_true(r->channels[0].dx == 1.0 / 250);
    kd_record_free(&r);
    expect_error("ragged.csv", "t,a\n0,1\n1,2,3\n", 0, 3, "ragged row");
    expect_error("back.csv", "t,a\n0,1\n1,2\n0.5,3\n", 0, 4, "time 0.5 does not increase");
    expect_error("uneven.csv", "t,a\n0,1\n1,2\n3,3\n4,4\n", 0, 3, "time 1 (row 2) is not on an even grid");
    expect_error("nan.csv", "t,a\n0,1\n1,x\n", 0, 3, "'x' is not a finite number");
}

static void test_uff_errors(void** state) {
    (void)state;
    /* one value short of the 3 announced */
    expect_error("short.uff",
                 "    -1\n    58\nx\nNONE\nNONE\nNONE\nNONE\n"
                 "    1         1    0         0 NONE               2   2 NONE               1   2\n"
                 "         4         3         1  0.00000E+00  1.00000E-03  0.00000E+00\n"
                 "        17    0    0    0 Time                 s\n"
                 "         0    0    0    0 NONE                 NONE\n"
                 "         0    0    0    0 NONE                 NONE\n"
                 "         0    0    0    0 NONE                 NONE\n"
                 "  1.000000000000E+00  2.000000000000E+00\n    -1\n",
                 0, 14, "dataset 58 record 12: wrong record length: 2 values, record 7 announces 3");
    expect_error("unknown.uff", "    -1\n  2414\n    -1\n", 0, 2, "unknown Universal File dataset 2414");
    expect_error("long.uff", "    -1\n    15\n         1         0         0         0  0.00000E+00  0.00000E+00  0.00000E+00  1.0\n    -1\n",
                 0, 3, "dataset 15: wrong record length");
}

static void test_gauss(void** state) {
    (void)state;
    kd_gauss_rng a, b;
    kd_gauss_seed(&a, 42);
    kd_gauss_seed(&b, 42);
    double s = 0, s2 = 0;
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        const double x = kd_gauss_next(&a);
        assert_true(x == kd_gauss_next(&b));
        s += x, s2 += x * x;
    }
    /* mean 0 and variance 1 within 5 standard errors */
    assert_true(fabs(s / n) < 5 / sqrt((double)n));
    assert_true(fabs(s2 / n - 1) < 5 * sqrt(2.0 / n));
    kd_gauss_seed(&b, 43);
    assert_true(kd_gauss_next(&a) != kd_gauss_next(&b));
}

/* The chain on the connecting rod of the pump. */
static void test_hammer_chain(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_EXAMPLES_DIR "/pump_rod_hammer.yaml", &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    char out[300];
    snprintf(out, sizeof out, "%s/chain", tmpdir);
    kd_run_report rep;
    if (kd_run(d, m, "pump_rod_hammer.yaml", out, &rep, &err)) fail_msg("%s", err.msg);
    /* closed forms of the pinned-pinned bar: L = |BC'|, EI and rho A of the 25 x 6 mm section */
    const double L = hypot(0.5161 - 0.06, 0.0596), EI = 210e9 * 0.025 * pow(0.006, 3) / 12, rhoA = 7800 * 0.025 * 0.006;
    const double alpha = 7.54, beta = 4.77e-6;
    const kd_analysis_report* id = NULL;
    const kd_analysis_report* co = NULL;
    for (int i = 0; i < rep.nanalyses; i++) {
        if (rep.analyses[i].type == KD_ANALYSIS_IDENTIFY) id = &rep.analyses[i];
        if (rep.analyses[i].type == KD_ANALYSIS_CORRELATE) co = &rep.analyses[i];
    }
    assert_non_null(id);
    assert_non_null(co);
    const kd_modal_fit* fit = &id->measure->fit;
    assert_int_equal(fit->nmodes, 4);  /* every bending mode in the band [20, 1200] Hz */
    for (int k = 0; k < 4; k++) {
        const double n = k + 1, w = pow(n * M_PI / L, 2) * sqrt(EI / rhoA), f = w / (2 * M_PI);
        const double zeta = alpha / (2 * w) + beta * w / 2;
        /* 0.5 %: the finite elements (10 cubic elements: +0.16 % at mode 4), Newmark's period
         * error ((w dt)^2 / 12 = 0.04 % at mode 4, dt = 1e-5 s) and the identification (2 %
         * noise, 5 hits: < 0.03 % measured) */
        if (fabs(fit->f_hz[k] / f - 1) > 5e-3) fail_msg("mode %d: %.6g Hz identified, %.6g Hz exact", k + 1, fit->f_hz[k], f);
        /* 10 %: damping from 1 s records at 1 Hz lines (measured within 1 %) */
        if (fabs(fit->zeta[k] / zeta - 1) > 0.1) fail_msg("mode %d: zeta %.4g identified, %.4g exact", k + 1, fit->zeta[k], zeta);
    }
    const kd_measure_result* c = co->measure;
    assert_int_equal(c->npairs, 4);
    for (int p = 0; p < c->npairs; p++) {
        assert_int_equal(c->pair_m[p], p);
        assert_int_equal(c->pair_c[p], p);
        if (!(c->pair_mac[p] > 0.9)) fail_msg("pair %d: MAC %.4f", p + 1, c->pair_mac[p]);
        /* identified against computed: both carry the FE error, the difference is the test's */
        assert_true(fabs(c->pair_f_m[p] / c->pair_f_c[p] - 1) < 1e-3);
    }
    /* the record the test wrote reads back as the one it kept (CSV at 17 digits) */
    char path[400];
    snprintf(path, sizeof path, "%s/virtual_test.csv", out);
    kd_record* csv = NULL;
    assert_int_equal(kd_record_read_csv(path, "t", 0, &csv, &err), KD_OK);
    const kd_record* mem = rep.analyses[1].measure->record;
    assert_int_equal(csv->nchannels, mem->nchannels);
    for (int k = 0; k < mem->nchannels; k++)
        for (int i = 0; i < mem->channels[k].n; i++) assert_true(csv->channels[k].re[i] == mem->channels[k].re[i]);
    kd_record_free(&csv);
    kd_run_report_free(&rep);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* A running slider-crank (examples/slider_crank_elastic.yaml's rod: aluminium, 0.30 m, d = 8 mm,
 * pinned-pinned in its chord frame) and a record of two sines at the rod's first two pinned-pinned
 * frequencies f_n = (n pi / L)^2 sqrt(EI / rho A) / (2 pi) (177.73 and 710.9 Hz): the spectrum's
 * peaks fall on them, and each is matched to that mode's range along the cycle. */
static void test_peaks_along_motion(void** state) {
    (void)state;
    const double L = 0.30, d = 0.008, EI = 70e9 * M_PI * pow(d, 4) / 64, rhoA = 2700 * M_PI * d * d / 4;
    const double f1 = pow(M_PI / L, 2) * sqrt(EI / rhoA) / (2 * M_PI), f2 = 4 * f1;
    char csv[300], model[300];
    snprintf(csv, sizeof csv, "%s/running.csv", tmpdir);
    FILE* fp = fopen(csv, "w");
    assert_non_null(fp);
    fprintf(fp, "acc [m/s^2]\n");
    for (int i = 0; i < 16384; i++) {
        const double t = i / 4096.0;
        fprintf(fp, "%.17g\n", sin(2 * M_PI * f1 * t) + 0.5 * sin(2 * M_PI * f2 * t + 1.0));
    }
    fclose(fp);
    snprintf(model, sizeof model, "%s/running.yaml", tmpdir);
    fp = fopen(model, "w");
    assert_non_null(fp);
    fprintf(fp,
            "kedyn: 1\n"
            "materials:\n  aluminium: {E: 70e9, rho: 2700, nu: 0.33}\n"
            "sections:\n  rod: {shape: circle, d: 0.008}\n"
            "bodies:\n"
            "  - {name: ground, type: ground, points: {O: [0, 0], S: [0, 0]}}\n"
            "  - {name: crank, type: rigid, mass: 0.2, inertia: 4.0e-4, com: [0.075, 0], points: {O: [0, 0], A: [0.15, 0]}}\n"
            "  - {name: rod, type: beam, material: aluminium, section: rod, elements: 10, points: {A: [0.15, 0], B: [0.45, 0]}}\n"
            "  - {name: slider, type: rigid, mass: 0.03, inertia: 1.0e-6, points: {B: [0, 0]}, position: [0.45, 0]}\n"
            "joints:\n"
            "  - {name: jO, type: revolute, bodies: [ground, crank], points: [O, O]}\n"
            "  - {name: jA, type: revolute, bodies: [crank, rod], points: [A, A]}\n"
            "  - {name: jB, type: revolute, bodies: [rod, slider], points: [B, B]}\n"
            "  - {name: jS, type: prismatic, bodies: [ground, slider], points: [S, B], axis: [1, 0]}\n"
            "drivers:\n  - {joint: jO, law: {speed: 150.0}}\n"
            "records:\n  - {name: run, file: running.csv, rate: 4096}\n"
            "analyses:\n"
            "  - {type: modes_along_motion, t_end: 0.0419, steps: 24, count: 3}\n"
            "  - {type: spectrum, record: run, segment: 4096, overlap: 0.5}\n"
            "  - {type: correlate, measured: spectrum, computed: modes_along_motion}\n");
    fclose(fp);
    kd_desc* dsc = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_file(model, &dsc, &err)) fail_msg("%s:%d: %s", err.file, err.loc.line, err.msg);
    if (kd_model_compile(dsc, &m, &err)) fail_msg("%s", err.msg);
    char out[300];
    snprintf(out, sizeof out, "%s/running", tmpdir);
    kd_run_report rep;
    if (kd_run(dsc, m, model, out, &rep, &err)) fail_msg("%s", err.msg);
    const kd_measure_result* r = rep.analyses[2].measure;
    assert_non_null(r);
    assert_int_equal(r->npeaks, 2);
    /* 1 Hz lines; the peak between lines to a tenth of a line */
    if (fabs(r->peaks_hz[0] - f1) > 0.1 || fabs(r->peaks_hz[1] - f2) > 0.1)
        fail_msg("peaks %.4f, %.4f Hz; sines at %.4f, %.4f Hz", r->peaks_hz[0], r->peaks_hz[1], f1, f2);
    assert_string_equal(r->peak_mode[0], "rod.f_1");
    assert_string_equal(r->peak_mode[1], "rod.f_2");
    for (int p = 0; p < 2; p++) /* the unloaded rod's frequency within 2 % of the range along the cycle */
        assert_true(r->peaks_hz[p] > 0.98 * r->peak_fmin[p] && r->peaks_hz[p] < 1.02 * r->peak_fmax[p]);
    kd_run_report_free(&rep);
    kd_model_free(&m);
    kd_desc_free(&dsc);
}

/* A sensor by a named point of a beam lies on the node at that point; a point between nodes, a
 * direction along a translation the planar beam lacks, and a virtual test's record name taken
 * twice are located errors. */
static void test_sensor_places(void** state) {
    (void)state;
    const char* base = "kedyn: 1\nmaterials:\n  steel: {E: 210e9, rho: 7800}\nsections:\n  s: {shape: circle, d: 0.01}\n"
                       "bodies:\n  - {name: rod, type: beam, material: steel, section: s, elements: 4,\n"
                       "     points: {A: [0, 0], M: [0.5, 0], Q: [0.3, 0], B: [1, 0]}}\n"
                       "supports:\n  - {body: rod, node: 1, fix: all}\n";
    char text[2048];
    kd_desc* d = NULL;
    kd_error err;
    snprintf(text, sizeof text, "%ssensors:\n  - {name: m, body: rod, point: M, direction: [0, 1]}\n", base);
    if (kd_load_yaml_string(text, strlen(text), "p.yaml", &d, &err)) fail_msg("%s", err.msg);
    assert_int_equal(d->nsensors, 1);
    assert_int_equal(d->sensors[0].node, 3);  /* 0.5 m of 1 m in 4 elements: node 3 */
    assert_true(d->sensors[0].direction[1] == 1.0);
    kd_desc_free(&d);
    snprintf(text, sizeof text, "%ssensors:\n  - {name: q, body: rod, point: Q, direction: [0, 1]}\n", base);
    assert_int_equal(kd_load_yaml_string(text, strlen(text), "p.yaml", &d, &err), KD_ERR_INPUT);
    assert_int_equal(err.loc.line, 12);
    assert_non_null(strstr(err.msg, "point 'Q' is not at a node"));
    /* z on a planar beam: found when the sensor is placed on the compiled model */
    snprintf(text, sizeof text, "%ssensors:\n  - {name: z, body: rod, node: 2, direction: [0, 0, 1]}\n", base);
    if (kd_load_yaml_string(text, strlen(text), "p.yaml", &d, &err)) fail_msg("%s", err.msg);
    kd_model* m = NULL;
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_sensor_place place;
    const int which = 0;
    assert_int_equal(kd_sensors_place(d, m, &which, 1, &place, &err), KD_ERR_INPUT);
    assert_non_null(strstr(err.msg, "measures along z"));
    assert_int_equal(err.loc.line, 12);
    kd_model_free(&m);
    kd_desc_free(&d);
    snprintf(text, sizeof text,
             "%ssensors:\n  - {name: a, body: rod, node: 3, direction: [0, 1]}\nanalyses:\n"
             "  - {type: virtual_test, record: h, body: rod, node: 5, direction: [0, 1], rate: 1000, length: 0.1}\n"
             "  - {type: virtual_test, record: h, body: rod, node: 4, direction: [0, 1], rate: 1000, length: 0.1}\n",
             base);
    assert_int_equal(kd_load_yaml_string(text, strlen(text), "p.yaml", &d, &err), KD_ERR_INPUT);
    assert_int_equal(err.loc.line, 15);
    assert_non_null(strstr(err.msg, "record 'h' is made by an earlier virtual_test"));
}

/* A model file `NAME.yaml` in tmpdir of a small supported beam with `tail` (records and analyses)
 * loaded, compiled and run to tmpdir/NAME: the route of `kedyn run`. */
static void run_model(const char* name, const char* tail, kd_run_report* rep, kd_desc** d, kd_model** m) {
    char model[400], out[400];
    snprintf(model, sizeof model, "%s/%s.yaml", tmpdir, name);
    FILE* fp = fopen(model, "w");
    assert_non_null(fp);
    fprintf(fp,
            "kedyn: 1\nmaterials:\n  steel: {E: 210e9, rho: 7800}\nsections:\n  s: {shape: circle, d: 0.01}\n"
            "bodies:\n  - {name: rod, type: beam, material: steel, section: s, elements: 4, points: {A: [0, 0], B: [1, 0]}}\n"
            "supports:\n  - {body: rod, node: 1, fix: all}\n%s",
            tail);
    fclose(fp);
    kd_error err;
    if (kd_load_yaml_file(model, d, &err)) fail_msg("%s:%d: %s", err.file, err.loc.line, err.msg);
    if (kd_model_compile(*d, m, &err)) fail_msg("%s", err.msg);
    snprintf(out, sizeof out, "%s/%s", tmpdir, name);
    if (kd_run(*d, *m, model, out, rep, &err)) fail_msg("%s", err.msg);
}

/* Read tmpdir/DIR/FILE (a CSV whose first column is evenly spaced: f_hz, order) */
static kd_record* read_result(const char* dir, const char* file, const char* xcol) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s/%s", tmpdir, dir, file);
    kd_record* r = NULL;
    kd_error err;
    if (kd_record_read_csv(path, xcol, 0, &r, &err)) fail_msg("%s:%d: %s", err.file, err.loc.line, err.msg);
    return r;
}

/* Order tracking from a model file: a run-up from 100 to 160 rpm in T = 40 s (rpm(t) = 100 + 60 t / T,
 * shaft angle theta(t) = 2 pi (5 t / 3 + t^2 / (2 T)) in closed form) sampled at 1 kHz, the record
 * x = 1.0 cos(2 theta) + 0.4 sin(5.5 theta + 0.3) + 0.5 sin(2 pi 20 t): orders 2 and 5.5 of
 * amplitudes 1.0 and 0.4, and a resonance at a fixed 20 Hz that sweeps orders 12 to 7.5. The order
 * spectrum from the speed column (integrated) and from the angle column gives both orders' amplitudes
 * within 0.1 % (both on lines of the 1/8 order resolution, where the Hann correction is exact; the
 * cubic interpolation's error at 13 Hz of 1 kHz is ~1e-5 and the trapezoidal angle of a linear
 * speed is exact: measured 3e-7), and the fixed frequency smeared below 0.2 at any order. */
static void test_orders(void** state) {
    (void)state;
    const double T = 40, fs = 1000;
    char csv[300];
    snprintf(csv, sizeof csv, "%s/runup.csv", tmpdir);
    FILE* fp = fopen(csv, "w");
    assert_non_null(fp);
    fprintf(fp, "t [s],acc [m/s^2],n [rpm],theta [rad]\n");
    for (int i = 0; i < (int)(T * fs); i++) {
        const double t = i / fs, th = 2 * M_PI * (5 * t / 3 + t * t / (2 * T));
        fprintf(fp, "%.17g,%.17g,%.17g,%.17g\n", t, cos(2 * th) + 0.4 * sin(5.5 * th + 0.3) + 0.5 * sin(2 * M_PI * 20 * t),
                100 + 60 * t / T, th);
    }
    fclose(fp);
    kd_run_report rep;
    kd_desc* d = NULL;
    kd_model* m = NULL;
    run_model("orders",
              "records:\n  - {name: runup, file: runup.csv, time: t}\nanalyses:\n"
              "  - {type: spectrum, record: runup, columns: [acc], speed: n, orders: true, samples_per_rev: 32,"
              " revs_per_segment: 8}\n"
              "  - {type: spectrum, record: runup, columns: [acc], orders: true, angle: theta, samples_per_rev: 32,"
              " revs_per_segment: 8}\n",
              &rep, &d, &m);
    for (int run = 0; run < 2; run++) {
        const kd_measure_result* r = rep.analyses[run].measure;
        assert_true(fabs(r->dorder - 0.125) < 1e-12);
        assert_int_equal(r->order_lines, 32 * 8 / 2 + 1);
        kd_record* o = read_result("orders", run ? "orders_2.csv" : "orders.csv", "order");
        const kd_channel* a = &o->channels[kd_record_find_channel(o, "acc.amplitude")];
        assert_true(fabs(a->dx - 0.125) < 1e-12);
        const double a2 = a->re[16], a55 = a->re[44];
        if (fabs(a2 - 1.0) > 1e-3 || fabs(a55 / 0.4 - 1) > 1e-3)
            fail_msg("%s: order 2: %.6f (1.0), order 5.5: %.6f (0.4)", run ? "angle" : "speed", a2, a55);
        double smear = 0;
        for (int i = 50; i < a->n; i++) smear = fmax(smear, a->re[i]);
        if (smear > 0.2) fail_msg("the fixed 20 Hz: %.4f at an order line", smear); /* no order line holds it */
        printf("orders from %s: order 2 error %.2e, order 5.5 error %.2e, largest line above order 6.25 %.4f (%d segments)\n",
               run ? "angle" : "speed", a2 - 1, a55 / 0.4 - 1, smear, r->order_segments);
        kd_record_free(&o);
    }
    kd_run_report_free(&rep);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* The waterfall from a model file: a sine at order 6 of a speed that steps 100, 120, 140, 160 rpm
 * every 4 s (10, 12, 14, 16 Hz, phase continuous) at 512 Hz; 512-sample blocks without overlap
 * (1 Hz lines, 4 blocks per step): each block's largest line is the step's frequency exactly and
 * its speed the step's. */
static void test_waterfall(void** state) {
    (void)state;
    char csv[300];
    snprintf(csv, sizeof csv, "%s/steps.csv", tmpdir);
    FILE* fp = fopen(csv, "w");
    assert_non_null(fp);
    fprintf(fp, "acc [m/s^2],n [rpm]\n");
    double ph = 0;
    for (int i = 0; i < 4 * 2048; i++) {
        const double rpm = 100 + 20 * (i / 2048), f = 6 * rpm / 60;
        fprintf(fp, "%.17g,%.17g\n", sin(ph), rpm);
        ph += 2 * M_PI * f / 512;
    }
    fclose(fp);
    kd_run_report rep;
    kd_desc* d = NULL;
    kd_model* m = NULL;
    run_model("waterfall",
              "records:\n  - {name: steps, file: steps.csv, rate: 512}\nanalyses:\n"
              "  - {type: spectrum, record: steps, columns: [acc], speed: n, segment: 512, overlap: 0}\n",
              &rep, &d, &m);
    char path[400], line[256];
    snprintf(path, sizeof path, "%s/waterfall/waterfall.csv", tmpdir);
    fp = fopen(path, "r");
    assert_non_null(fp);
    assert_non_null(fgets(line, sizeof line, fp));
    assert_string_equal(line, "t_s,speed_rpm,f_hz,acc.amplitude\n");
    int blocks = 0, best_i = -1;
    double best = -1, best_f = 0, speed = 0, t;
    for (;;) {
        char* got = fgets(line, sizeof line, fp);
        double v, sp, f;
        if (got && sscanf(line, "%lf,%lf,%lf,%lf", &t, &sp, &f, &v) == 4) {
            if (v > best) best = v, best_f = f, best_i = 1, speed = sp;
            continue;
        }
        if (best_i >= 0) { /* a block ended: blocks 4 k .. 4 k + 3 are at step k */
            const double rpm = 100 + 20 * (blocks / 4);
            if (fabs(speed - rpm) > 1e-9 || fabs(best_f - 6 * rpm / 60) > 1e-9)
                fail_msg("block %d: %.4f Hz at %.4f rpm; %.4f Hz at %.1f rpm expected", blocks, best_f, speed, 6 * rpm / 60, rpm);
            if (fabs(best - 1) > 0.01) fail_msg("block %d: amplitude %.4f", blocks, best); /* on a line: Hann exact */
            blocks++, best = -1, best_i = -1;
        }
        if (!got) break;
    }
    fclose(fp);
    assert_int_equal(blocks, 16);
    kd_run_report_free(&rep);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* Peak picking from a model file on a damped sine: the impulse response
 * h(t) = exp(-zeta w t) sin(w_d t) / (m w_d) of an SDOF (f = 50 Hz, zeta = 0.02, m = 1 kg) to a unit
 * impulse, 8 s at 1 kHz; identify by peaks (displacement) gives f within 0.1 % and the
 * half-power damping within 5 % of zeta (the half-power width is 2 zeta f = 2 Hz, 16 lines). */
static void test_peak_picking(void** state) {
    (void)state;
    const double f = 50, zeta = 0.02, w = 2 * M_PI * f, wd = w * sqrt(1 - zeta * zeta), fs = 1000;
    char csv[300];
    snprintf(csv, sizeof csv, "%s/decay.csv", tmpdir);
    FILE* fp = fopen(csv, "w");
    assert_non_null(fp);
    fprintf(fp, "force [N],x [m]\n");
    for (int i = 0; i < 8000; i++) {
        const double t = i / fs;
        /* the impulse's area 1 N s as one sample of fs N */
        fprintf(fp, "%.17g,%.17g\n", i == 0 ? fs : 0.0, exp(-zeta * w * t) * sin(wd * t) / wd);
    }
    fclose(fp);
    kd_run_report rep;
    kd_desc* d = NULL;
    kd_model* m = NULL;
    run_model("peaks",
              "records:\n  - {name: decay, file: decay.csv, rate: 1000}\nanalyses:\n"
              "  - {type: frf, record: decay, force: force, responses: [x]}\n"
              "  - {type: identify, method: peaks, band: [10, 200], quantity: displacement}\n",
              &rep, &d, &m);
    const kd_modal_fit* fit = &rep.analyses[1].measure->fit;
    assert_int_equal(fit->nmodes, 1);
    printf("peak picking: f %.5f Hz (%.2e), zeta %.5f (%.2e)\n", fit->f_hz[0], fit->f_hz[0] / f - 1, fit->zeta[0],
           fit->zeta[0] / zeta - 1);
    if (fabs(fit->f_hz[0] / f - 1) > 1e-3) fail_msg("f %.5f Hz, %.5f exact", fit->f_hz[0], f);
    if (fabs(fit->zeta[0] / zeta - 1) > 0.05) fail_msg("zeta %.5f, %.5f exact", fit->zeta[0], zeta);
    kd_run_report_free(&rep);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* Correlation with mode shapes read from a Universal File (dataset 55) as the measured side: the
 * closed-form shapes sin(n pi x / L) and frequencies (n pi / L)^2 sqrt(EI / rho A) / (2 pi) of a
 * pinned-pinned steel rod (L = 1 m, d = 10 mm) at 9 sensor nodes, written in the order 2, 1, 3, 4,
 * against the model's modes at rest (20 elements): each measured mode is paired with its own
 * computed one (MAC > 0.999, frequencies within 0.1 %). */
static void test_correlate_uff55(void** state) {
    (void)state;
    const double L = 1, EI = 210e9 * M_PI * pow(0.01, 4) / 64, rhoA = 7800 * M_PI * 0.01 * 0.01 / 4;
    const int order[4] = {2, 1, 3, 4};
    kd_record* r = kd_record_new();
    for (int k = 0; k < 4; k++) {
        const int n = order[k];
        kd_record_mode* md = kd_record_add_mode(r, 9, 3);
        md->number = k + 1, md->frequency_hz = pow(n * M_PI / L, 2) * sqrt(EI / rhoA) / (2 * M_PI);
        for (int j = 0; j < 9; j++) {
            const int node = 3 + 2 * j; /* x = (node - 1) L / 20 */
            md->node[j] = node;
            md->value[3 * j + 1] = sin(n * M_PI * (node - 1) / 20.0);
        }
    }
    char path[300];
    snprintf(path, sizeof path, "%s/shapes.uff", tmpdir);
    kd_error err;
    if (kd_uff_write(path, r, 0, &err)) fail_msg("%s", err.msg);
    kd_record_free(&r);
    char tail[2048] = "records:\n  - {name: test, file: shapes.uff}\nsensors:\n";
    for (int j = 0; j < 9; j++)
        snprintf(tail + strlen(tail), sizeof tail - strlen(tail), "  - {name: s%d, body: rod, node: %d, direction: [0, 1]}\n", j,
                 3 + 2 * j);
    snprintf(tail + strlen(tail), sizeof tail - strlen(tail),
             "analyses:\n  - {type: modes, count: 4}\n  - {type: correlate, measured: record, record: test, computed: modes}\n");
    /* the model: the rod of run_model pinned at both ends instead of clamped */
    char model[400];
    snprintf(model, sizeof model, "%s/uff55.yaml", tmpdir);
    FILE* fp = fopen(model, "w");
    assert_non_null(fp);
    fprintf(fp,
            "kedyn: 1\nmaterials:\n  steel: {E: 210e9, rho: 7800}\nsections:\n  s: {shape: circle, d: 0.01}\n"
            "bodies:\n  - {name: rod, type: beam, material: steel, section: s, elements: 20, points: {A: [0, 0], B: [1, 0]}}\n"
            "supports:\n  - {body: rod, node: 1, fix: [u, v]}\n  - {body: rod, node: 21, fix: [v]}\n%s",
            tail);
    fclose(fp);
    kd_desc* d = NULL;
    kd_model* m = NULL;
    if (kd_load_yaml_file(model, &d, &err)) fail_msg("%s:%d: %s", err.file, err.loc.line, err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    char out[400];
    snprintf(out, sizeof out, "%s/uff55", tmpdir);
    kd_run_report rep;
    if (kd_run(d, m, model, out, &rep, &err)) fail_msg("%s", err.msg);
    const kd_measure_result* c = rep.analyses[1].measure;
    assert_int_equal(c->npairs, 4);
    for (int p = 0; p < 4; p++) {
        assert_int_equal(c->pair_m[p], p);
        assert_int_equal(c->pair_c[p] + 1, order[p]);
        printf("measured %d - computed %d: MAC %.6f, %.3e relative frequency difference\n", p + 1, c->pair_c[p] + 1,
               c->pair_mac[p], c->pair_f_m[p] / c->pair_f_c[p] - 1);
        if (!(c->pair_mac[p] > 0.999)) fail_msg("pair %d: MAC %.6f", p + 1, c->pair_mac[p]);
        if (fabs(c->pair_f_m[p] / c->pair_f_c[p] - 1) > 1e-3) fail_msg("pair %d: %.6g Hz against %.6g", p + 1, c->pair_f_m[p], c->pair_f_c[p]);
    }
    kd_run_report_free(&rep);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* Correlation with the modes at one instant of the motion: a slider-crank driven slowly (1 rad/s,
 * so the rod's axial preload and inertia fields are negligible) whose aluminium rod (L = 0.30 m,
 * d = 8 mm, 10 elements) is pinned-pinned in its chord frame. The measured side: the closed-form
 * shapes sin(n pi x / L) at the 9 interior nodes (sensors along the chord frame's y) written as a
 * dataset 55 record, with frequencies f_n + delta_n (f_n = (n pi / L)^2 sqrt(EI / rho A) / (2 pi),
 * delta = +1.5 Hz, -3 Hz); correlated at t = 0.2 s of the motion: each paired with its own mode
 * (MAC > 0.99) and the difference delta_n within 0.1 % of f_n. An instant outside the motion and
 * computed: modes_along_motion without instant are errors at the key's (the analysis') line. */
static void test_correlate_along_instant(void** state) {
    (void)state;
    const double L = 0.30, dd = 0.008, EI = 70e9 * M_PI * pow(dd, 4) / 64, rhoA = 2700 * M_PI * dd * dd / 4;
    const double delta[2] = {1.5, -3.0};
    double f[2];
    kd_record* r = kd_record_new();
    for (int k = 0; k < 2; k++) {
        const int n = k + 1;
        f[k] = pow(n * M_PI / L, 2) * sqrt(EI / rhoA) / (2 * M_PI);
        kd_record_mode* md = kd_record_add_mode(r, 9, 3);
        md->number = n, md->frequency_hz = f[k] + delta[k];
        for (int j = 0; j < 9; j++) {
            md->node[j] = j + 2; /* x = (node - 1) L / 10 */
            md->value[3 * j + 1] = sin(n * M_PI * (j + 1) / 10.0);
        }
    }
    char path[300];
    snprintf(path, sizeof path, "%s/rod_shapes.uff", tmpdir);
    kd_error err;
    if (kd_uff_write(path, r, 0, &err)) fail_msg("%s", err.msg);
    kd_record_free(&r);
    char head[4096];
    snprintf(head, sizeof head,
             "kedyn: 1\n"
             "materials:\n  aluminium: {E: 70e9, rho: 2700, nu: 0.33}\n"
             "sections:\n  rod: {shape: circle, d: 0.008}\n"
             "bodies:\n"
             "  - {name: ground, type: ground, points: {O: [0, 0], S: [0, 0]}}\n"
             "  - {name: crank, type: rigid, mass: 0.2, inertia: 4.0e-4, com: [0.075, 0], points: {O: [0, 0], A: [0.15, 0]}}\n"
             "  - {name: rod, type: beam, material: aluminium, section: rod, elements: 10, points: {A: [0.15, 0], B: [0.45, 0]}}\n"
             "  - {name: slider, type: rigid, mass: 0.03, inertia: 1.0e-6, points: {B: [0, 0]}, position: [0.45, 0]}\n"
             "joints:\n"
             "  - {name: jO, type: revolute, bodies: [ground, crank], points: [O, O]}\n"
             "  - {name: jA, type: revolute, bodies: [crank, rod], points: [A, A]}\n"
             "  - {name: jB, type: revolute, bodies: [rod, slider], points: [B, B]}\n"
             "  - {name: jS, type: prismatic, bodies: [ground, slider], points: [S, B], axis: [1, 0]}\n"
             "drivers:\n  - {joint: jO, law: {speed: 1.0}}\n"
             "records:\n  - {name: shapes, file: rod_shapes.uff}\n"
             "sensors:\n");
    for (int j = 0; j < 9; j++)
        snprintf(head + strlen(head), sizeof head - strlen(head), "  - {name: s%d, body: rod, node: %d, direction: [0, 1]}\n", j, j + 2);
    snprintf(head + strlen(head), sizeof head - strlen(head),
             "analyses:\n  - {type: modes_along_motion, t_end: 0.5, steps: 10, count: 3}\n"
             "  - type: correlate\n    measured: record\n    record: shapes\n    computed: modes_along_motion\n");
    int lines = 0;
    for (const char* q = head; *q; q++) lines += *q == '\n';
    char model[300], text[4300];
    snprintf(model, sizeof model, "%s/along_mac.yaml", tmpdir);
    /* the load-time errors first */
    const struct {
        const char* tail;
        int line;
        const char* msg;
    } bad[] = {{"    instant: 0.9\n", lines + 1, "outside the motion"}, {"", lines - 3, "needs instant"}};
    for (int i = 0; i < 2; i++) {
        snprintf(text, sizeof text, "%s%s", head, bad[i].tail);
        kd_desc* d = NULL;
        assert_int_equal(kd_load_yaml_string(text, strlen(text), model, &d, &err), KD_ERR_INPUT);
        assert_null(d);
        if (err.loc.line != bad[i].line || !strstr(err.msg, bad[i].msg))
            fail_msg("case %d: line %d (want %d): %s", i, err.loc.line, bad[i].line, err.msg);
    }
    snprintf(text, sizeof text, "%s    instant: 0.2\n", head);
    write_text(model, text);
    kd_desc* d = NULL;
    kd_model* m = NULL;
    if (kd_load_yaml_file(model, &d, &err)) fail_msg("%s:%d: %s", err.file, err.loc.line, err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    char out[400];
    snprintf(out, sizeof out, "%s/along_mac", tmpdir);
    kd_run_report rep;
    if (kd_run(d, m, model, out, &rep, &err)) fail_msg("%s", err.msg);
    const kd_measure_result* c = rep.analyses[1].measure;
    assert_non_null(c);
    assert_int_equal(c->npairs, 2);
    for (int p = 0; p < 2; p++) {
        assert_int_equal(c->pair_m[p], p);
        assert_int_equal(c->pair_c[p], p);
        const double diff = c->pair_f_m[p] - c->pair_f_c[p];
        printf("at t = 0.2 s: measured %d - computed %d: MAC %.6f, difference %.4f Hz (set %.2f), f %.3f Hz\n", p + 1,
               c->pair_c[p] + 1, c->pair_mac[p], diff, delta[p], c->pair_f_c[p]);
        if (!(c->pair_mac[p] > 0.99)) fail_msg("pair %d: MAC %.6f", p + 1, c->pair_mac[p]);
        if (fabs(diff - delta[p]) > 1e-3 * f[p]) fail_msg("pair %d: difference %.6g Hz, set %.6g", p + 1, diff, delta[p]);
    }
    kd_run_report_free(&rep);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* The keys of order tracking and of shapes from a record: misuse is an error at the key's line. */
static void test_new_key_errors(void** state) {
    (void)state;
    char csv[300], name[300], text[2048];
    snprintf(csv, sizeof csv, "%s/keys.csv", tmpdir);
    write_text(csv, "x,n,th\n0,100,0\n1,100,1\n2,100,2\n3,100,3\n");
    snprintf(name, sizeof name, "%s/keys.yaml", tmpdir);
    const char* base = "kedyn: 1\nmaterials:\n  steel: {E: 210e9, rho: 7800}\nsections:\n  s: {shape: circle, d: 0.01}\n"
                       "bodies:\n  - {name: rod, type: beam, material: steel, section: s, elements: 4, points: {A: [0, 0], B: [1, 0]}}\n"
                       "supports:\n  - {body: rod, node: 1, fix: all}\nsensors:\n  - {name: a, body: rod, node: 3, direction: [0, 1]}\n"
                       "records:\n  - {name: k, file: keys.csv, rate: 100}\nanalyses:\n  - {type: modes, count: 2}\n";
    const struct {
        const char* analysis;
        const char* msg;
    } cases[] = {
        {"  - {type: spectrum, record: k, columns: [x], orders: true}\n", "orders need an angle or a speed column"},
        {"  - {type: spectrum, record: k, columns: [x], angle: th}\n", "angle is for orders: true"},
        {"  - {type: spectrum, record: k, columns: [x], orders: true, angle: nope}\n", "the record has no column 'nope'"},
        {"  - {type: correlate, measured: record, record: k}\n", "holds no mode shapes"},
        {"  - {type: correlate, measured: record}\n", "needs record"},
        {"  - {type: correlate, measured: record, record: k, computed: modes_along_motion}\n", "needs instant"},
        {"  - {type: correlate, measured: record, record: k, instant: 0.1}\n", "instant goes with computed: modes_along_motion"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "%s%s", base, cases[i].analysis);
        kd_desc* d = NULL;
        kd_error err;
        assert_int_equal(kd_load_yaml_string(text, strlen(text), name, &d, &err), KD_ERR_INPUT);
        assert_null(d);
        if (err.loc.line != 16 || !strstr(err.msg, cases[i].msg)) fail_msg("case %d: line %d: %s", (int)i, err.loc.line, err.msg);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uff_round_trip), cmocka_unit_test(test_uff_other_writer), cmocka_unit_test(test_csv),
        cmocka_unit_test(test_uff_errors),     cmocka_unit_test(test_gauss),            cmocka_unit_test(test_hammer_chain),
        cmocka_unit_test(test_peaks_along_motion), cmocka_unit_test(test_sensor_places),
        cmocka_unit_test(test_orders), cmocka_unit_test(test_waterfall), cmocka_unit_test(test_peak_picking),
        cmocka_unit_test(test_correlate_uff55), cmocka_unit_test(test_correlate_along_instant),
        cmocka_unit_test(test_new_key_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
