/* Figures, animation data and report (src/report/plot*.c, write_animation.c,
 * report_html.c). References independent of the code under test: the
 * Hermite interpolants reproduce polynomials of their degree exactly; the
 * animation of a cantilever's first mode, drawn through the elements' own
 * shape functions, follows the closed-form Euler-Bernoulli mode shape; the
 * recorded frame of a body spinning at a constant rate is Rz(omega t); the
 * figures are real PNG files of the requested size; analyses with nothing
 * to draw are skipped with a note. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>
#include <cmocka.h>

#include "kedyn/kedyn.h"
#include "kedyn/load_yaml.h"
#include "kedyn/plot.h"
#include "kedyn/report.h"
#include "kedyn/run.h"
#include "plot_internal.h"

char* mkdtemp(char* tmpl);

static char* slurp(const char* path) {
    FILE* fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    const long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char* s = malloc((size_t)n + 1);
    const size_t got = s ? fread(s, 1, (size_t)n, fp) : 0;
    if (s) s[got] = '\0';
    fclose(fp);
    return s;
}

static void write_text(const char* dir, const char* name, const char* text) {
    char path[1200];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE* fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* Width and height of a PNG from its IHDR chunk; 0 when not a PNG. */
static int png_size(const char* path, int* w, int* h) {
    unsigned char b[24];
    FILE* fp = fopen(path, "rb");
    if (!fp) return 0;
    const size_t n = fread(b, 1, sizeof(b), fp);
    fclose(fp);
    if (n < 24 || memcmp(b, "\x89PNG\r\n\x1a\n", 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0) return 0;
    *w = (b[16] << 24) | (b[17] << 16) | (b[18] << 8) | b[19];
    *h = (b[20] << 24) | (b[21] << 16) | (b[22] << 8) | b[23];
    return 1;
}

/* Cubic Hermite reproduces a cubic, quintic Hermite a quintic, from their
 * values, slopes and curvatures at the element ends. */
static void test_hermite_exact(void** state) {
    (void)state;
    const double a = 0.3, h = 0.7;
    double err3 = 0, err5 = 0;
    for (int j = 0; j <= 20; j++) {
        const double t = j / 20.0, x = a + t * h;
#define P3(x) (1 + 2 * (x) - 3 * (x) * (x) + 0.5 * (x) * (x) * (x))
#define D3(x) (2 - 6 * (x) + 1.5 * (x) * (x))
#define P5(x) (P3(x) + 0.8 * pow(x, 4) - 0.25 * pow(x, 5))
#define D5(x) (D3(x) + 3.2 * pow(x, 3) - 1.25 * pow(x, 4))
#define C5(x) (-6 + 3 * (x) + 9.6 * (x) * (x) - 5 * pow(x, 3))
        const double c3 = plot_hermite(t, h, P3(a), D3(a), NAN, P3(a + h), D3(a + h), NAN);
        const double c5 = plot_hermite(t, h, P5(a), D5(a), C5(a), P5(a + h), D5(a + h), C5(a + h));
        err3 = fmax(err3, fabs(c3 - P3(x)));
        err5 = fmax(err5, fabs(c5 - P5(x)));
    }
    print_message("hermite: cubic error %.1e, quintic error %.1e\n", err3, err5);
    assert_true(err3 < 1e-13);
    assert_true(err5 < 1e-13);
    /* without slopes: the chord */
    assert_true(fabs(plot_hermite(0.25, 1.0, 1.0, NAN, NAN, 3.0, NAN, NAN) - 1.5) < 1e-15);
}

static void test_csv_read(void** state) {
    (void)state;
    char dir[] = "/tmp/kd_plot_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_text(dir, "a.csv", "hub_m,length_m,omega_cr_rad_s\n0,0.3,inf\n0.1,0.5,16317.5\r\n\nblade,x,-2e-3\n");
    char path[1200];
    snprintf(path, sizeof(path), "%s/a.csv", dir);
    csv_table t;
    kd_error err;
    assert_int_equal(csv_read(path, &t, &err), KD_OK);
    assert_int_equal(t.ncol, 3);
    assert_int_equal(t.nrow, 3);
    assert_int_equal(csv_col(&t, "omega_cr_rad_s"), 2);
    assert_true(isnan(t.val[2]));             /* inf: not drawn */
    assert_true(t.val[5] == 16317.5);
    assert_string_equal(t.text[6], "blade");
    assert_true(isnan(t.val[6]) && t.val[8] == -2e-3);
    csv_free(&t);
    remove(path);
    snprintf(path, sizeof(path), "%s/missing.csv", dir);
    assert_int_equal(csv_read(path, &t, &err), KD_ERR_IO);
    rmdir(dir);
}

static const char cantilever[] =
    "kedyn: 1\n"
    "title: Clamped blade\n"
    "materials:\n"
    "  steel: {E: 210e9, rho: 7800, nu: 0.3}\n"
    "sections:\n"
    "  blade: {shape: rectangle, b: 0.040, h: 0.004}\n"
    "bodies:\n"
    "  - {name: blade, type: beam, material: steel, section: blade, length: 0.5, elements: 8}\n"
    "supports:\n"
    "  - {body: blade, node: 1, fix: all}\n"
    "analyses:\n"
    "  - {type: modes, count: 3}\n";

/* Closed-form first mode of a clamped-free Euler-Bernoulli beam. */
static double cantilever_mode1(double x, double L) {
    const double b = 1.87510406871196 / L;
    const double s = (cosh(b * L) + cos(b * L)) / (sinh(b * L) + sin(b * L));
    return cosh(b * x) - cos(b * x) - s * (sinh(b * x) - sin(b * x));
}

static kd_status run_text(const char* text, const char* dir, int animation, kd_run_report* rep) {
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    assert_int_equal(kd_load_yaml_string(text, strlen(text), "<test>", &d, &err), KD_OK);
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    const kd_run_options o = {NULL, NULL, animation, 0, 0, NULL};
    const kd_status st = kd_run_with(d, m, "<test>", dir, &o, rep, &err);
    kd_model_free(&m);
    kd_desc_free(&d);
    return st;
}

/* animation.json of a cantilever: points inside the elements follow the
 * closed-form mode shape (scaled to the tip) to the discretisation error. */
static void test_animation_mode_shape(void** state) {
    (void)state;
    char dir[] = "/tmp/kd_plot_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    kd_run_report rep;
    assert_int_equal(run_text(cantilever, dir, 1, &rep), KD_OK);
    assert_int_equal(rep.animation, 1);
    kd_run_report_free(&rep);
    char path[1200];
    snprintf(path, sizeof(path), "%s/animation.json", dir);
    char* text = slurp(path);
    assert_non_null(text);
    cJSON* a = cJSON_Parse(text);
    free(text);
    assert_non_null(a);
    const cJSON* body = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "bodies"), 0);
    const cJSON* pts = cJSON_GetObjectItem(body, "points");
    const int np = cJSON_GetArraySize(pts);
    assert_int_equal(np, 8 * 6 + 1);  /* 6 points per element and the tip */
    const cJSON* set = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "sets"), 0);
    assert_string_equal(cJSON_GetObjectItem(set, "type")->valuestring, "modes");
    const cJSON* disp = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(set, "modes"), 0), "disp"), 0);
    assert_int_equal(cJSON_GetArraySize(disp), 3 * np);
    const double tip = cJSON_GetArrayItem(disp, 3 * (np - 1) + 1)->valuedouble;
    double worst = 0;
    for (int p = 0; p < np; p++) {
        const double x = cJSON_GetArrayItem(cJSON_GetArrayItem(pts, p), 0)->valuedouble;
        const double v = cJSON_GetArrayItem(disp, 3 * p + 1)->valuedouble;
        worst = fmax(worst, fabs(v / tip - cantilever_mode1(x, 0.5) / cantilever_mode1(0.5, 0.5)));
    }
    print_message("animation mode 1 vs closed form: max error %.2e of the tip amplitude\n", worst);
    assert_true(worst < 2e-4);
    cJSON_Delete(a);
    const char* names[] = {"animation.json", "modes.csv", "summary.json"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        remove(path);
    }
    rmdir(dir);
}

/* A body spinning at 100 rad/s: the recorder keeps equally spaced instants
 * and the frame at each is Rz(100 t). */
static void test_recorder_frames(void** state) {
    (void)state;
    const char* text =
        "kedyn: 1\n"
        "materials:\n  steel: {E: 210e9, rho: 7800}\n"
        "sections:\n  blade: {shape: rectangle, b: 0.004, h: 0.040}\n"
        "bodies:\n  - {name: blade, type: beam, material: steel, section: blade, length: 0.5, elements: 4}\n"
        "supports:\n  - {body: blade, node: 1, fix: all}\n"
        "motion:\n  - {body: blade, rotation: {axis: z, law: {speed: 100}}}\n"
        "analyses:\n  - {type: modes, count: 2}\n";
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    assert_int_equal(kd_load_yaml_string(text, strlen(text), "<test>", &d, &err), KD_OK);
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    kd_anim_recorder* r = NULL;
    assert_int_equal(kd_anim_recorder_new(m, 0.1, &r, &err), KD_OK);
    double* q = calloc((size_t)m->neq, sizeof(double));
    for (int k = 0; k <= 3000; k++) kd_anim_record(r, k * (0.1 / 3000), q);
    assert_int_equal(kd_anim_recorder_frames(r), KD_ANIM_FRAMES_MAX);
    char dir[] = "/tmp/kd_plot_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[1200];
    snprintf(path, sizeof(path), "%s/animation.json", dir);
    const kd_anim_set set = {0, "dynamics", NULL, 0.0, r, NULL};
    assert_int_equal(kd_write_animation(path, m, "spin", &set, 1, &err), KD_OK);
    char* json = slurp(path);
    cJSON* a = cJSON_Parse(json);
    free(json);
    assert_non_null(a);
    const cJSON* s = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "sets"), 0);
    const cJSON* t = cJSON_GetObjectItem(s, "t");
    const cJSON* frames = cJSON_GetObjectItem(s, "frames");
    double worst_t = 0, worst_r = 0;
    for (int f = 0; f < cJSON_GetArraySize(t); f++) {
        const double tf = cJSON_GetArrayItem(t, f)->valuedouble;
        worst_t = fmax(worst_t, fabs(tf - f * 0.1 / (KD_ANIM_FRAMES_MAX - 1)));
        const cJSON* pose = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(frames, f), "pose"), 0);
        /* rotation part, row-major: [cos -sin 0; sin cos 0; 0 0 1] */
        const double c = cos(100 * tf), sn = sin(100 * tf);
        worst_r = fmax(worst_r, fabs(cJSON_GetArrayItem(pose, 3)->valuedouble - c));
        worst_r = fmax(worst_r, fabs(cJSON_GetArrayItem(pose, 6)->valuedouble - sn));
    }
    print_message("recorder: time grid error %.1e s, rotation error %.1e\n", worst_t, worst_r);
    assert_true(worst_t <= 0.1 / 3000 + 1e-6);  /* the first output at or after each instant */
    assert_true(worst_r < 1e-5);                      /* 6 significant digits in the file */
    cJSON_Delete(a);
    remove(path);
    rmdir(dir);
    free(q);
    kd_anim_recorder_free(&r);
    assert_null(r);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* kd_plot_outdir on a hand-written run: the generic time histories of a
 * type it does not know, frequencies along a motion, and notes (never
 * errors) for what it cannot draw. */
static void test_plot_outdir(void** state) {
    (void)state;
    char gp[1024];
    if (!kd_plot_find_gnuplot(gp, (int)sizeof(gp))) skip();
    char dir[] = "/tmp/kd_plot_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_text(dir, "summary.json",
               "{\"title\": \"Crank\", \"complete\": true, \"analyses\": [\n"
               " {\"type\": \"inverse_dynamics\", \"status\": \"ok\", \"files\": [\"inverse_dynamics.csv\"]},\n"
               " {\"type\": \"modes_along_motion\", \"status\": \"ok\", \"files\": [\"modes_along_motion.csv\"]},\n"
               " {\"type\": \"compare\", \"status\": \"ok\", \"files\": [\"compare.csv\"]},\n"
               " {\"type\": \"sweep\", \"status\": \"ok\", \"files\": []}]}\n");
    char path[1200];
    snprintf(path, sizeof(path), "%s/inverse_dynamics.csv", dir);
    FILE* fp = fopen(path, "w");
    fprintf(fp, "t,crank.x,crank.y,crank.phi,A.Fx,A.Fy,A.M\n");
    for (int i = 0; i <= 10000; i++) {  /* long: drawn as an envelope */
        const double t = i * 1e-4;
        fprintf(fp, "%g,%g,%g,%g,%g,%g,%g\n", t, cos(t), sin(t), t, 10 * cos(60 * t), 3.0, -t);
    }
    fclose(fp);
    write_text(dir, "modes_along_motion.csv", "t,link.omega_1,link.omega_2\n0,10,30\n0.5,12,33\n1,10,30\n");
    write_text(dir, "compare.csv", "formalism,omega_1\nlagrange,10\nkane,10\n");
    kd_plot_result res;
    kd_error err;
    assert_int_equal(kd_plot_outdir(dir, &res, &err), KD_OK);
    /* crank (x, y, phi), A (Fx, Fy, M), link omegas */
    assert_int_equal(res.nfigures, 3);
    assert_int_equal(res.nnotes, 2);  /* compare.csv without t; sweep without files */
    assert_non_null(strstr(res.notes[0], "compare.csv"));
    assert_non_null(strstr(res.notes[1], "sweep"));
    /* the report embeds them and needs nothing from the network */
    assert_int_equal(kd_write_report_html(dir, "", &err), KD_OK);
    snprintf(path, sizeof(path), "%s/report.html", dir);
    char* html = slurp(path);
    assert_non_null(html);
    assert_non_null(strstr(html, "<svg"));
    assert_null(strstr(html, "src=\"http"));
    assert_null(strstr(html, "href=\"http"));
    free(html);
    const char* figs[] = {"inverse_dynamics_crank", "inverse_dynamics_A", "modes_along_motion_link"};
    for (int i = 0; i < 3; i++) {
        int w = 0, h = 0;
        snprintf(path, sizeof(path), "%s/figures/%s.png", dir, figs[i]);
        assert_true(png_size(path, &w, &h));
        assert_int_equal(w, 900);
        assert_true(h >= 500);
        remove(path);
        snprintf(path, sizeof(path), "%s/figures/%s.svg", dir, figs[i]);
        char* svg = slurp(path);
        assert_non_null(svg);
        assert_non_null(strstr(svg, "<svg"));
        assert_non_null(strstr(svg, "<path"));
        /* long histories are reduced: at most two points per bucket */
        assert_true(strlen(svg) < 400000);
        free(svg);
        remove(path);
    }
    const char* rest[] = {"report.html", "figures/figures.json", "summary.json", "inverse_dynamics.csv",
                          "modes_along_motion.csv", "compare.csv", "figures"};
    for (int i = 0; i < 7; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, rest[i]);
        remove(path);
    }
    rmdir(dir);
}

/* ---- mechanisms ------------------------------------------------------------ */

static const cJSON* jitem(const cJSON* o, const char* k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static double jat(const cJSON* a, int i) { return cJSON_GetArrayItem(a, i)->valuedouble; }

/* Index of the named body in animation.json. */
static int anim_body(const cJSON* bodies, const char* name) {
    for (int b = 0; b < cJSON_GetArraySize(bodies); b++)
        if (strcmp(jitem(cJSON_GetArrayItem(bodies, b), "name")->valuestring, name) == 0) return b;
    fail_msg("no body %s", name);
    return -1;
}

static void remove_tree(const char* dir) {
    char cmd[1400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The slider-crank of examples/slider_crank.yaml (r = 0.1 m, l = 0.3 m,
 * crank at omega = 10 rad/s from phi0 = 0.3) recorded for the animation by
 * its kinematics and inverse dynamics: at every recorded instant the crank's
 * frame is Rz(phi0 + omega t) about the pivot and the slider sits at
 * x = r cos phi + sqrt(l^2 - r^2 sin^2 phi), y = 0 (closed form of the
 * slider-crank); the rod's frame origin (its point A) is the crank's point B.
 * The outlines: the crank and rod are bars through their joints, the slider
 * a block, the ground a hatched pivot and a rail. Then kedyn plot draws the
 * mechanism figures. */
static void test_mech_animation(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_TEST_MODELS_DIR "/../../examples/slider_crank.yaml", &d, &err)) fail_msg("%s", err.msg);
    d->analyses[0].kinematics.points = 1;  /* kinematics of the named points too: trajectories */
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    char dir[] = "/tmp/kd_plot_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    kd_run_options opts = {NULL, NULL, 1, 0, 0, NULL};
    kd_run_report rep;
    assert_int_equal(kd_run_with(d, m, "slider_crank.yaml", dir, &opts, &rep, &err), KD_OK);
    kd_run_report_free(&rep);
    char path[1200];
    snprintf(path, sizeof(path), "%s/animation.json", dir);
    char* json = slurp(path);
    assert_non_null(json);
    cJSON* a = cJSON_Parse(json);
    free(json);
    assert_non_null(a);
    const cJSON* bodies = jitem(a, "bodies");
    const int bg = anim_body(bodies, "ground"), bc = anim_body(bodies, "crank"), br = anim_body(bodies, "rod"),
              bs = anim_body(bodies, "slider");
    /* outlines */
    const cJSON* crank = cJSON_GetArrayItem(bodies, bc);
    assert_string_equal(jitem(crank, "type")->valuestring, "rigid");
    assert_int_equal(cJSON_GetArraySize(jitem(crank, "joints")), 2);  /* O and A */
    assert_int_equal(cJSON_GetArraySize(cJSON_GetArrayItem(jitem(crank, "paths"), 0)), 2);
    const cJSON* slider = cJSON_GetArrayItem(bodies, bs);
    assert_true(cJSON_IsTrue(jitem(slider, "closed")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetArrayItem(jitem(slider, "paths"), 0)), 4);
    const cJSON* ground = cJSON_GetArrayItem(bodies, bg);
    assert_string_equal(jitem(ground, "type")->valuestring, "ground");
    assert_int_equal(cJSON_GetArraySize(jitem(ground, "hatch")), 1);  /* the pivot O */
    assert_int_equal(cJSON_GetArraySize(jitem(ground, "paths")), 1);  /* the slider's rail */
    /* poses against the closed form */
    const double r = 0.1, l = 0.3, omega = 10.0, phi0 = 0.3;
    const cJSON* sets = jitem(a, "sets");
    assert_int_equal(cJSON_GetArraySize(sets), 2);
    for (int k = 0; k < 2; k++) {
        const cJSON* s = cJSON_GetArrayItem(sets, k);
        assert_string_equal(jitem(s, "type")->valuestring, k == 0 ? "kinematics" : "inverse_dynamics");
        const cJSON* t = jitem(s, "t");
        const cJSON* frames = jitem(s, "frames");
        assert_int_equal(cJSON_GetArraySize(t), 101);  /* every step of 100 (fewer than 401) */
        double e_phi = 0, e_x = 0, e_y = 0, e_joint = 0;
        for (int f = 0; f < cJSON_GetArraySize(t); f++) {
            const double tf = jat(t, f), phi = phi0 + omega * tf;
            const cJSON* pose = jitem(cJSON_GetArrayItem(frames, f), "pose");
            const cJSON* pc = cJSON_GetArrayItem(pose, bc);
            const cJSON* pr = cJSON_GetArrayItem(pose, br);
            const cJSON* ps = cJSON_GetArrayItem(pose, bs);
            const double phic = atan2(jat(pc, 6), jat(pc, 3));
            e_phi = fmax(e_phi, fabs(remainder(phic - phi, 2 * 3.14159265358979323846)));
            e_phi = fmax(e_phi, hypot(jat(pc, 0), jat(pc, 1)));  /* the crank turns about O */
            const double xs = r * cos(phi) + sqrt(l * l - r * r * sin(phi) * sin(phi));
            e_x = fmax(e_x, fabs(jat(ps, 0) - xs));
            e_y = fmax(e_y, fabs(jat(ps, 1)));
            /* crank's B = origin + R (0.1, 0); rod's A = its origin */
            e_joint = fmax(e_joint, hypot(jat(pc, 0) + r * jat(pc, 3) - jat(pr, 0), jat(pc, 1) + r * jat(pc, 6) - jat(pr, 1)));
        }
        print_message("slider-crank animation (%s): |phi - omega t| %.1e rad, |x - closed form| %.1e m, |y| %.1e m, "
                      "joint A gap %.1e m\n", k ? "inverse_dynamics" : "kinematics", e_phi, e_x, e_y, e_joint);
        assert_true(e_phi < 2e-6);   /* 6 significant digits of cos, sin */
        assert_true(e_x < 2e-6);
        assert_true(e_y < 1e-9);
        assert_true(e_joint < 2e-6);
    }
    cJSON_Delete(a);

    /* mechanism figures */
    char gp[1024];
    if (kd_plot_find_gnuplot(gp, (int)sizeof(gp))) {
        kd_plot_result res;
        assert_int_equal(kd_plot_outdir(dir, &res, &err), KD_OK);
        const char* figs[] = {"kinematics_positions", "kinematics_velocities", "kinematics_accelerations",
                              "kinematics_trajectories", "kinematics_condition", "inverse_dynamics_jO",
                              "inverse_dynamics_jA", "inverse_dynamics_jB", "inverse_dynamics_jS",
                              "inverse_dynamics_drive", "inverse_dynamics_energy"};
        const int nfig = (int)(sizeof(figs) / sizeof(figs[0]));
        assert_int_equal(res.nfigures, nfig);
        for (int i = 0; i < nfig; i++) {
            int w = 0, h = 0;
            snprintf(path, sizeof(path), "%s/figures/%s.png", dir, figs[i]);
            if (!png_size(path, &w, &h)) fail_msg("%s: no PNG", figs[i]);
            assert_true(w >= 900 && h >= 280);
        }
        /* the trajectory of the crank's B is drawn, the fixed O is not; the
         * rod's A is named with it */
        snprintf(path, sizeof(path), "%s/figures/kinematics_trajectories.svg", dir);
        char* svg = slurp(path);
        assert_non_null(svg);
        assert_non_null(strstr(svg, "crank.A = rod.A"));
        assert_null(strstr(svg, "crank.O"));
        free(svg);
    }
    remove_tree(dir);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* Forward dynamics of the driven four-bar (examples/four_bar_dynamics.yaml,
 * Runge-Kutta only): the recorded crank frame follows its driver
 * phi = 0.5 + 5 t, the rocker turns about its ground pivot D = (0.4, 0), and
 * kedyn plot draws positions, energy balance and constraint drift. */
static void test_mech_dynamics_animation(void** state) {
    (void)state;
    char* text = slurp(KD_TEST_MODELS_DIR "/../../examples/four_bar_dynamics.yaml");
    assert_non_null(text);
    char* an = strstr(text, "analyses:");
    assert_non_null(an);
    strcpy(an, "analyses:\n  - {type: dynamics, t_end: 1.2566370614359172, dt: 0.00062831853071796, output_every: 4}\n");
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "four_bar_dynamics.yaml", &d, &err)) fail_msg("%s", err.msg);
    free(text);
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    char dir[] = "/tmp/kd_plot_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    kd_run_options opts = {NULL, NULL, 1, 0, 0, NULL};
    kd_run_report rep;
    assert_int_equal(kd_run_with(d, m, "four_bar_dynamics.yaml", dir, &opts, &rep, &err), KD_OK);
    kd_run_report_free(&rep);
    char path[1200];
    snprintf(path, sizeof(path), "%s/animation.json", dir);
    char* json = slurp(path);
    cJSON* a = cJSON_Parse(json);
    free(json);
    assert_non_null(a);
    const cJSON* bodies = jitem(a, "bodies");
    const int bc = anim_body(bodies, "crank"), bk = anim_body(bodies, "rocker");
    const cJSON* s = cJSON_GetArrayItem(jitem(a, "sets"), 0);
    assert_string_equal(jitem(s, "type")->valuestring, "dynamics");
    const cJSON* t = jitem(s, "t");
    const int nf = cJSON_GetArraySize(t);
    assert_int_equal(nf, 401);  /* 500 outputs, thinned to 401 instants */
    double e_phi = 0, e_d = 0;
    for (int f = 0; f < nf; f++) {
        const cJSON* pose = jitem(cJSON_GetArrayItem(jitem(s, "frames"), f), "pose");
        const cJSON* pc = cJSON_GetArrayItem(pose, bc);
        const cJSON* pk = cJSON_GetArrayItem(pose, bk);
        e_phi = fmax(e_phi, fabs(remainder(atan2(jat(pc, 6), jat(pc, 3)) - (0.5 + 5 * jat(t, f)),
                                           2 * 3.14159265358979323846)));
        e_d = fmax(e_d, hypot(jat(pk, 0) - 0.4, jat(pk, 1)));  /* the rocker's frame origin is its point D */
    }
    print_message("four-bar forward dynamics animation: |phi - (0.5 + 5 t)| %.1e rad, rocker pivot %.1e m\n", e_phi,
                  e_d);
    assert_true(e_phi < 2e-6);
    assert_true(e_d < 2e-6);
    cJSON_Delete(a);
    char gp[1024];
    if (kd_plot_find_gnuplot(gp, (int)sizeof(gp))) {
        kd_plot_result res;
        assert_int_equal(kd_plot_outdir(dir, &res, &err), KD_OK);
        assert_int_equal(res.nfigures, 3);
        const char* figs[] = {"dynamics_positions", "dynamics_energy", "dynamics_drift"};
        for (int i = 0; i < 3; i++) {
            int w = 0, h = 0;
            snprintf(path, sizeof(path), "%s/figures/%s.png", dir, figs[i]);
            if (!png_size(path, &w, &h)) fail_msg("%s: no PNG", figs[i]);
        }
    }
    remove_tree(dir);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* A run of an elastic slider-crank example with its analyses replaced, into a new directory. */
static void run_example_with(const char* file, const char* analyses, char* dir, kd_desc** d, kd_model** m) {
    char path[600];
    snprintf(path, sizeof(path), KD_TEST_MODELS_DIR "/../../examples/%s", file);
    char* text = slurp(path);
    assert_non_null(text);
    char* an = strstr(text, "analyses:");
    assert_non_null(an);
    char* full = malloc(strlen(text) + strlen(analyses) + 16);
    assert_non_null(full);
    sprintf(full, "%.*sanalyses:\n%s", (int)(an - text), text, analyses);
    free(text);
    kd_error err;
    if (kd_load_yaml_string(full, strlen(full), file, d, &err)) fail_msg("%s", err.msg);
    free(full);
    assert_int_equal(kd_model_compile(*d, m, &err), KD_OK);
    assert_non_null(mkdtemp(dir));
    kd_run_options opts = {NULL, NULL, 1, 0, 0, NULL};
    kd_run_report rep;
    if (kd_run_with(*d, *m, file, dir, &opts, &rep, &err)) fail_msg("%s", err.msg);
    kd_run_report_free(&rep);
}

/* Index of the animation point of body b at node n (its "node" list). */
static int anim_node_point(const cJSON* body, int node) {
    const cJSON* nodes = jitem(body, "node");
    for (int p = 0; p < cJSON_GetArraySize(nodes); p++)
        if ((int)jat(nodes, p) == node) return p;
    fail_msg("no drawing point at node %d", node);
    return -1;
}

/* The CSV row whose t is nearest to t. */
static int csv_row_at(const csv_table* c, double t) {
    int best = 0;
    for (int r = 1; r < c->nrow; r++)
        if (fabs(c->val[(size_t)r * c->ncol] - t) < fabs(c->val[(size_t)best * c->ncol] - t)) best = r;
    return best;
}

/* The elastic slider-crank (examples/slider_crank_elastic.yaml: r = 0.15 m, l = 0.30 m, crank at
 * 150 rad/s from phi = 0, slider on y = 0), one-way dynamics recorded for the animation: at every
 * recorded instant the rod's frame is the rigid chord frame, origin at the crank pin
 * A = r (cos phi, sin phi) and angle psi = -asin(r sin phi / l) (closed form of the slider-crank),
 * the crank's frame turns by phi = 150 t, and the rod's recorded midspan displacement equals
 * dynamics.csv's rod.6.u, rod.6.v at that instant. The inverse dynamics set draws the rod in the
 * same chord frame (as a rigid body). kedyn plot draws the link's figures. */
static void test_ked_animation(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_model* m = NULL;
    char dir[] = "/tmp/kd_plot_test_XXXXXX";
    run_example_with("slider_crank_elastic.yaml",
                     "  - {type: inverse_dynamics, t_end: 0.0419, steps: 100}\n"
                     "  - {type: dynamics, t_end: 0.0419, dt: 1.0e-5, steps: 200, output_every: 10}\n",
                     dir, &d, &m);
    char path[1200];
    snprintf(path, sizeof(path), "%s/animation.json", dir);
    char* json = slurp(path);
    cJSON* a = cJSON_Parse(json);
    free(json);
    assert_non_null(a);
    const cJSON* bodies = jitem(a, "bodies");
    const int bc = anim_body(bodies, "crank"), br = anim_body(bodies, "rod");
    const int pmid = anim_node_point(cJSON_GetArrayItem(bodies, br), 6);
    csv_table c;
    kd_error err;
    snprintf(path, sizeof(path), "%s/dynamics.csv", dir);
    assert_int_equal(csv_read(path, &c, &err), KD_OK);
    const int ju = csv_col(&c, "rod.6.u"), jv = csv_col(&c, "rod.6.v");
    assert_true(ju > 0 && jv > 0);
    const double r = 0.15, l = 0.30, omega = 150.0;
    const cJSON* sets = jitem(a, "sets");
    assert_int_equal(cJSON_GetArraySize(sets), 2);
    for (int k = 0; k < 2; k++) {
        const cJSON* s = cJSON_GetArrayItem(sets, k);
        assert_string_equal(jitem(s, "type")->valuestring, k ? "dynamics" : "inverse_dynamics");
        const cJSON* t = jitem(s, "t");
        const int nf = cJSON_GetArraySize(t);
        assert_true(nf >= (k ? 300 : 101) && nf <= KD_ANIM_FRAMES_MAX);
        double e_origin = 0, e_psi = 0, e_phi = 0, e_disp = 0, vmax = 0, dt_row = 0;
        for (int f = 0; f < nf; f++) {
            const double tf = jat(t, f), phi = omega * tf, psi = -asin(r * sin(phi) / l);
            const cJSON* frame = cJSON_GetArrayItem(jitem(s, "frames"), f);
            const cJSON* pc = cJSON_GetArrayItem(jitem(frame, "pose"), bc);
            const cJSON* pr = cJSON_GetArrayItem(jitem(frame, "pose"), br);
            e_origin = fmax(e_origin, hypot(jat(pr, 0) - r * cos(phi), jat(pr, 1) - r * sin(phi)));
            e_psi = fmax(e_psi, fabs(remainder(atan2(jat(pr, 6), jat(pr, 3)) - psi, 2 * 3.14159265358979323846)));
            e_phi = fmax(e_phi, fabs(remainder(atan2(jat(pc, 6), jat(pc, 3)) - phi, 2 * 3.14159265358979323846)));
            if (!k) continue;
            const cJSON* disp = cJSON_GetArrayItem(jitem(frame, "disp"), br);
            const int row = csv_row_at(&c, tf);
            dt_row = fmax(dt_row, fabs(c.val[(size_t)row * c.ncol] - tf));
            const double u = c.val[(size_t)row * c.ncol + ju], v = c.val[(size_t)row * c.ncol + jv];
            vmax = fmax(vmax, fabs(v));
            e_disp = fmax(e_disp, fmax(fabs(jat(disp, 3 * pmid) - u), fabs(jat(disp, 3 * pmid + 1) - v)));
        }
        print_message("elastic slider-crank animation (%s, %d instants): rod origin - A %.1e m, rod angle - "
                      "closed form %.1e rad, crank angle - 150 t %.1e rad; midspan displacement - CSV %.1e m "
                      "(|v| up to %.2e m, instants %.1e s apart)\n",
                      k ? "one-way dynamics" : "inverse_dynamics", nf, e_origin, e_psi, e_phi, e_disp, vmax, dt_row);
        assert_true(e_origin < 3e-6);  /* 6 significant digits */
        assert_true(e_psi < 3e-6);
        assert_true(e_phi < 3e-6);
        if (k) {
            assert_true(dt_row < 1e-9);       /* every instant recorded is a CSV row */
            assert_true(vmax > 1e-3);         /* the rod visibly bends (2.4 mm) */
            assert_true(e_disp < 1e-5 * vmax);
        }
    }
    csv_free(&c);
    cJSON_Delete(a);
    char gp[1024];
    if (kd_plot_find_gnuplot(gp, (int)sizeof(gp))) {
        kd_plot_result res;
        assert_int_equal(kd_plot_outdir(dir, &res, &err), KD_OK);
        const char* figs[] = {"dynamics_rod_deflection", "dynamics_rod_forces", "dynamics_frames", "dynamics_joints"};
        for (int i = 0; i < 4; i++) {
            int w = 0, h = 0;
            snprintf(path, sizeof(path), "%s/figures/%s.png", dir, figs[i]);
            if (!png_size(path, &w, &h)) fail_msg("%s: no PNG", figs[i]);
        }
        snprintf(path, sizeof(path), "%s/figures/dynamics_rod.6.png", dir);  /* no figure per node */
        assert_false(png_size(path, &(int){0}, &(int){0}));
    }
    remove_tree(dir);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* The two-way coupled slider-crank (examples/slider_crank_flexible.yaml), recorded for the
 * animation: the rod's floating frame starts at the crank pin, which the crank's recorded frame
 * (centre-of-mass coordinates of the coupled system) puts at origin + R (0.15, 0): the joint
 * closes to the solver's drift; the slider stays on y = 0; the rod's recorded nodal
 * displacements are dynamics.csv's. */
static void test_two_way_animation(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_model* m = NULL;
    char dir[] = "/tmp/kd_plot_test_XXXXXX";
    run_example_with("slider_crank_flexible.yaml",
                     "  - {type: dynamics, coupling: two-way, formulation: augmented, stabilization: projection,\n"
                     "     t_end: 0.008, dt: 8.0e-6, output_every: 10}\n",
                     dir, &d, &m);
    char path[1200];
    snprintf(path, sizeof(path), "%s/animation.json", dir);
    char* json = slurp(path);
    cJSON* a = cJSON_Parse(json);
    free(json);
    assert_non_null(a);
    const cJSON* bodies = jitem(a, "bodies");
    const int bc = anim_body(bodies, "crank"), br = anim_body(bodies, "rod"), bs = anim_body(bodies, "slider");
    const int p3 = anim_node_point(cJSON_GetArrayItem(bodies, br), 3);
    csv_table c;
    kd_error err;
    snprintf(path, sizeof(path), "%s/dynamics.csv", dir);
    assert_int_equal(csv_read(path, &c, &err), KD_OK);
    const int jv = csv_col(&c, "rod.3.v");
    assert_true(jv > 0);
    const cJSON* s = cJSON_GetArrayItem(jitem(a, "sets"), 0);
    assert_string_equal(jitem(s, "type")->valuestring, "dynamics");
    const cJSON* t = jitem(s, "t");
    const int nf = cJSON_GetArraySize(t);
    assert_true(nf >= 90);
    double e_joint = 0, e_slider = 0, e_disp = 0, vmax = 0;
    for (int f = 0; f < nf; f++) {
        const cJSON* frame = cJSON_GetArrayItem(jitem(s, "frames"), f);
        const cJSON* pc = cJSON_GetArrayItem(jitem(frame, "pose"), bc);
        const cJSON* pr = cJSON_GetArrayItem(jitem(frame, "pose"), br);
        const cJSON* ps = cJSON_GetArrayItem(jitem(frame, "pose"), bs);
        e_joint = fmax(e_joint, hypot(jat(pc, 0) + 0.15 * jat(pc, 3) - jat(pr, 0), jat(pc, 1) + 0.15 * jat(pc, 6) - jat(pr, 1)));
        e_slider = fmax(e_slider, fabs(jat(ps, 1)));
        const int row = csv_row_at(&c, jat(t, f));
        const double v = c.val[(size_t)row * c.ncol + jv];
        vmax = fmax(vmax, fabs(v));
        e_disp = fmax(e_disp, fabs(jat(cJSON_GetArrayItem(jitem(frame, "disp"), br), 3 * p3 + 1) - v));
    }
    print_message("two-way slider-crank animation (%d instants): joint A gap %.1e m, slider |y| %.1e m, "
                  "midspan v - CSV %.1e m (|v| up to %.2e m)\n", nf, e_joint, e_slider, e_disp, vmax);
    assert_true(e_joint < 3e-6);
    assert_true(e_slider < 3e-6);
    assert_true(vmax > 1e-4);
    assert_true(e_disp < 1e-5 * vmax);
    csv_free(&c);
    cJSON_Delete(a);
    remove_tree(dir);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* Without gnuplot: a clear error, nothing half-written. */
static void test_plot_without_gnuplot(void** state) {
    (void)state;
    char dir[] = "/tmp/kd_plot_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_text(dir, "summary.json", "{\"title\": \"x\", \"analyses\": []}\n");
    setenv("KEDYN_GNUPLOT", "/nonexistent/gnuplot", 1);
    kd_plot_result res;
    kd_error err;
    assert_int_equal(kd_plot_outdir(dir, &res, &err), KD_ERR_IO);
    assert_non_null(strstr(err.msg, "gnuplot-nox"));
    unsetenv("KEDYN_GNUPLOT");
    write_text(dir, "summary.json", "{\"title\": \"x\", \"analyses\": [\n");
    assert_int_equal(kd_plot_outdir(dir, &res, &err), KD_ERR_INPUT);
    char path[1200];
    snprintf(path, sizeof(path), "%s/summary.json", dir);
    remove(path);
    assert_int_equal(kd_plot_outdir(dir, &res, &err), KD_ERR_IO);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hermite_exact),
        cmocka_unit_test(test_csv_read),
        cmocka_unit_test(test_animation_mode_shape),
        cmocka_unit_test(test_recorder_frames),
        cmocka_unit_test(test_plot_outdir),
        cmocka_unit_test(test_mech_animation),
        cmocka_unit_test(test_mech_dynamics_animation),
        cmocka_unit_test(test_ked_animation),
        cmocka_unit_test(test_two_way_animation),
        cmocka_unit_test(test_plot_without_gnuplot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
