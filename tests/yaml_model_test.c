/* Model-file loader tests (src/load/yaml_model.c): a full valid model with
 * defaults, points, laws, motion and analyses; a valid model file with
 * resolved names, points and source locations; and each class of error at
 * its exact line and column (the files in tests/models/bad_*.yaml). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/desc_fields.h"
#include "kedyn/load_yaml.h"
#include "test_util.h"

static const char good[] =
    "kedyn: 1\n"
    "title: A rotating blade\n"
    "materials:\n"
    "  al: {E: 70e9, rho: 2700, nu: 0.33}\n"
    "sections:\n"
    "  s: {shape: rectangle, b: 0.03, h: 0.004, shear: 0.85}\n"
    "bodies:\n"
    "  - {name: hub, type: ground, points: {O: [0, 0]}}\n"
    "  - name: blade\n"
    "    type: beam\n"
    "    material: al\n"
    "    section: s\n"
    "    points: {root: [0.1, 0], mid: [0.35, 0], tip: [0.6, 0]}\n"
    "    elements: 10\n"
    "    theory: rayleigh\n"
    "    interpolation: quintic\n"
    "supports:\n"
    "  - {body: blade, node: 1, fix: all}\n"
    "motion:\n"
    "  - {body: blade, rotation: {axis: z, law: {spin_up: {omega: 6, T: 15}}}, hub: 0.05}\n"
    "damping:\n"
    "  - {body: blade, rayleigh: {alpha: 0.1, beta: 1.0e-5}}\n"
    "forces:\n"
    "  - {type: nodal, body: blade, node: 11, dof: v, value: {sine: {amplitude: 2, omega: 200}}}\n"
    "  - {type: gravity, g: [0, -9.81]}\n"
    "analyses:\n"
    "  - {type: modes, count: 4, at: 20}\n"
    "  - {type: campbell, speeds: [0, 10, 20], count: 3}\n"
    "  - {type: stability, hubs: [0, 0.1], lengths: [0.5, 1.0], omega_max: 1e4}\n"
    "output:\n"
    "  nodes: {blade: [6, 11]}\n";

static void test_good_model(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(good, strlen(good), "<good>", &d, &err)) fail_msg("%s:%d:%d %s", err.file, err.loc.line, err.loc.col, err.msg);
    assert_string_equal(d->title, "A rotating blade");
    assert_int_equal(d->nbodies, 2);
    const kd_body_desc* b = &d->bodies[1];
    assert_int_equal(b->type, KD_BODY_BEAM);
    assert_int_equal(b->npoints, 3);
    assert_true(fabs(b->length - 0.5) < 1e-15);
    assert_int_equal(b->theory, KD_THEORY_RAYLEIGH);
    assert_int_equal(b->interpolation, KD_INTERP_QUINTIC);
    assert_int_equal(b->planar, 1);                /* default */
    assert_int_equal(b->geometric_stiffness, 1);   /* default */
    assert_true(d->materials[0].nu == 0.33);
    assert_true(d->sections[0].shear_y == 0.85 && d->sections[0].shear_z == 0.85);
    assert_int_equal(d->supports[0].fix, KD_FIX_ALL);
    assert_int_equal(d->nmotions, 1);
    assert_int_equal(d->motions[0].motion.type, KD_MOTION_ROTATION);
    assert_true(d->motions[0].motion.axis[2] == 1.0 && d->motions[0].motion.hub == 0.05);
    assert_int_equal(d->motions[0].motion.angle.type, KD_LAW_SPIN_UP);
    assert_true(d->dampings[0].beta == 1.0e-5);
    assert_int_equal(d->nloads, 2);
    assert_int_equal(d->loads[0].value.type, KD_LAW_SINE);
    assert_true(d->loads[1].g[1] == -9.81);
    assert_int_equal(d->nanalyses, 3);
    assert_true(d->analyses[0].modes.at == 20.0);
    assert_int_equal(d->analyses[1].campbell.nspeeds, 3);
    assert_int_equal(d->analyses[2].stability.nlengths, 2);
    assert_int_equal(d->output_nodes[0].nnodes, 2);
    /* and it compiles */
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    kd_model_free(&m);
    kd_desc_free(&d);
}

static int loc_is(kd_loc loc, int line, int col) { return loc.line == line && loc.col == col; }

/* tests/models/good_two_beams.yaml: values, defaults, names resolved to
 * indices, points and their length, and where each item was read. */
static void test_good_file(void** state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof(path), "%s/good_two_beams.yaml", KD_TEST_MODELS_DIR);
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(path, &d, &err)) fail_msg("%s:%d:%d %s", err.file, err.loc.line, err.loc.col, err.msg);
    assert_string_equal(d->file, path);
    assert_string_equal(d->title, "Mast and arm");

    /* materials: nu defaults to 0.3, G to 0 (derived) */
    assert_int_equal(d->nmaterials, 2);
    assert_true(d->materials[0].E == 210e9 && d->materials[0].rho == 7800);
    assert_true(d->materials[0].nu == 0.3 && d->materials[0].G == 0.0);
    assert_true(d->materials[1].nu == 0.33 && d->materials[1].G == 26e9);

    /* sections: `shear` sets both coefficients; generic keeps its own */
    const kd_section_desc* pipe = &d->sections[0];
    const kd_section_desc* flat = &d->sections[1];
    assert_int_equal(pipe->shape, KD_SHAPE_TUBE);
    assert_true(pipe->d == 0.02 && pipe->t == 0.002 && pipe->shear_y == 0.53 && pipe->shear_z == 0.53);
    assert_int_equal(flat->shape, KD_SHAPE_GENERIC);
    assert_true(flat->A == 1.0e-4 && flat->Iy == 2.0e-9 && flat->Iz == 8.0e-9 && flat->J == 5.0e-9);
    assert_true(flat->shear_y == 0.8 && flat->shear_z == 0.7);

    /* a ground with a 2D point: z = 0, no material or section */
    assert_int_equal(d->nbodies, 3);
    const kd_body_desc* base = &d->bodies[0];
    assert_int_equal(base->type, KD_BODY_GROUND);
    assert_int_equal(base->npoints, 1);
    assert_true(base->points[0].x[0] == 0 && base->points[0].x[1] == 0 && base->points[0].x[2] == 0);
    assert_int_equal(base->material, -1);

    /* a 3D beam by points: order kept, length first..last, every option set */
    const kd_body_desc* mast = &d->bodies[1];
    assert_int_equal(mast->material, 1);
    assert_int_equal(mast->section, 0);
    assert_int_equal(mast->npoints, 3);
    assert_string_equal(mast->points[0].name, "foot");
    assert_string_equal(mast->points[2].name, "top");
    assert_true(mast->points[1].x[0] == 1 && mast->points[1].x[2] == 0.5);
    assert_true(fabs(mast->length - 1.0) < 1e-15);
    assert_int_equal(mast->elements, 8);
    assert_int_equal(mast->theory, KD_THEORY_TIMOSHENKO);
    assert_int_equal(mast->interpolation, KD_INTERP_CUBIC);
    assert_int_equal(mast->planar, 0);
    assert_int_equal(mast->geometric_stiffness, 0);
    assert_true(mast->y_axis[0] == 0 && mast->y_axis[1] == 1 && mast->y_axis[2] == 0);
    assert_true(loc_is(mast->loc, 14, 5) && loc_is(mast->loc_material, 16, 15) && loc_is(mast->loc_section, 17, 14));
    assert_true(loc_is(mast->points[2].loc, 18, 49));

    /* a beam by length: the defaults */
    const kd_body_desc* arm = &d->bodies[2];
    assert_int_equal(arm->material, 0);
    assert_int_equal(arm->section, 1);
    assert_int_equal(arm->npoints, 0);
    assert_true(arm->length == 0.4);
    assert_int_equal(arm->theory, KD_THEORY_EULER_BERNOULLI);
    assert_int_equal(arm->interpolation, KD_INTERP_CUBIC);
    assert_int_equal(arm->planar, 1);
    assert_int_equal(arm->geometric_stiffness, 1);

    /* supports: `all`, and a list with a repeated name as a bit mask */
    assert_int_equal(d->nsupports, 2);
    assert_int_equal(d->supports[0].body, 1);
    assert_int_equal(d->supports[0].fix, KD_FIX_ALL);
    assert_int_equal(d->supports[1].body, 2);
    assert_int_equal(d->supports[1].node, 1);
    assert_int_equal(d->supports[1].fix, (1u << KD_DOF_U) | (1u << KD_DOF_V));
    assert_true(loc_is(d->supports[1].loc, 28, 5) && loc_is(d->supports[1].loc_node, 28, 23) &&
                loc_is(d->supports[1].loc_fix, 28, 31));

    /* analyses: modes with the default count and solver, then both given */
    assert_int_equal(d->nanalyses, 2);
    assert_int_equal(d->analyses[0].type, KD_ANALYSIS_MODES);
    assert_int_equal(d->analyses[0].modes.count, 6);
    assert_int_equal(d->analyses[0].modes.solver, KD_EIGEN_AUTO);
    assert_int_equal(d->analyses[1].modes.count, 3);
    assert_int_equal(d->analyses[1].modes.solver, KD_EIGEN_LANCZOS);

    /* output nodes per body, in file order */
    assert_int_equal(d->noutput_nodes, 2);
    assert_int_equal(d->output_nodes[0].body, 1);
    assert_int_equal(d->output_nodes[0].nnodes, 2);
    assert_int_equal(d->output_nodes[0].nodes[1], 9);
    assert_int_equal(d->output_nodes[1].body, 2);
    assert_int_equal(d->output_nodes[1].nodes[0], 3);

    /* and it compiles */
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* Each bad model: the error, its line and column, a distinctive message. */
static void expect_error(const char* file, kd_status status, int line, int col, const char* text) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", KD_TEST_MODELS_DIR, file);
    kd_desc* d = NULL;
    kd_error err;
    kd_error_clear(&err);
    const kd_status st = kd_load_yaml_file(path, &d, &err);
    if (st != status || err.loc.line != line || err.loc.col != col || !strstr(err.msg, text))
        fail_msg("%s: got status %d at %d:%d '%s'; want %d at %d:%d '%s'", file, st, err.loc.line, err.loc.col, err.msg,
                 status, line, col, text);
    assert_null(d);
}

static void test_errors(void** state) {
    (void)state;
    expect_error("bad_unknown_key.yaml", KD_ERR_INPUT, 7, 60, "unknown key 'lenght'");
    expect_error("bad_wrong_type.yaml", KD_ERR_INPUT, 7, 68, "length must be a number");
    expect_error("bad_missing_key.yaml", KD_ERR_INPUT, 7, 5, "missing required key 'material' in body 'rod'");
    expect_error("bad_negative_E.yaml", KD_ERR_INPUT, 3, 14, "E must be a positive number");
    expect_error("bad_zero_rho.yaml", KD_ERR_INPUT, 3, 26, "rho must be a positive number");
    expect_error("bad_nu_range.yaml", KD_ERR_INPUT, 3, 36, "nu must lie in (-1, 0.5)");
    expect_error("bad_zero_length.yaml", KD_ERR_INPUT, 7, 68, "length must be a positive number");
    expect_error("bad_zero_elements.yaml", KD_ERR_INPUT, 7, 83, "elements must be at least 1");
    expect_error("bad_unknown_material.yaml", KD_ERR_INPUT, 7, 39, "unknown material 'steal'");
    expect_error("bad_unknown_body.yaml", KD_ERR_INPUT, 9, 12, "unknown body 'rood'");
    expect_error("bad_node_range.yaml", KD_ERR_INPUT, 9, 23, "has nodes 1..5, not 9");
    expect_error("bad_unknown_dof.yaml", KD_ERR_INPUT, 9, 38, "(got 'q')");
    expect_error("bad_dof_kind.yaml", KD_ERR_INPUT, 9, 31, "has no DOF 'kz'");
    expect_error("bad_quintic_timoshenko.yaml", KD_ERR_INPUT, 7, 5, "quintic interpolation");
    expect_error("bad_syntax.yaml", KD_ERR_INPUT, 8, 1, "YAML syntax");
    expect_error("bad_joints.yaml", KD_ERR_INPUT, 9, 5, "missing required key 'bodies' in joint 'j'");
    expect_error("bad_analysis_type.yaml", KD_ERR_INPUT, 9, 5, "kinematics applies to mechanisms");
    expect_error("bad_motion_not_smooth.yaml", KD_ERR_INPUT, 9, 5, "no acceleration");
    expect_error("bad_duplicate_body.yaml", KD_ERR_INPUT, 8, 12, "defined twice");
    expect_error("bad_initial_fixed_dof.yaml", KD_ERR_INPUT, 14, 19, "which a support fixes");
    expect_error("bad_pose_out_of_plane.yaml", KD_ERR_INPUT, 11, 5, "stay in the x-y plane");
    expect_error("bad_pose_length.yaml", KD_ERR_INPUT, 12, 34, "origin has 2 entries, t has 3");
    expect_error("bad_sweep_path.yaml", KD_ERR_INPUT, 11, 24, "has no dimension 'A'");
    expect_error("no_such_file.yaml", KD_ERR_IO, 0, 0, "cannot read");
    expect_error(".", KD_ERR_IO, 0, 0, "cannot read");   /* a directory */
}

/* Initial conditions, a 3D pose table and a two-parameter sweep. */
static const char moving[] =
    "kedyn: 1\n"
    "materials: {m: {E: 210e9, rho: 7800}}\n"
    "sections: {s: {shape: circle, d: 0.01}}\n"
    "bodies:\n"
    "  - {name: arm, type: beam, material: m, section: s, length: 1.0, elements: 4, planar: false}\n"
    "supports: [{body: arm, node: 1, fix: all}]\n"
    "motion:\n"
    "  - body: arm\n"
    "    pose: {t: [0, 1, 2], origin: [[0, 0, 0], [0.1, 0, 0], [0.2, 0, 0.01]],\n"
    "           rotation: [[0, 0, 0], [0, 0.1, 0.5], [0, 0.2, 1.0]]}\n"
    "analyses:\n"
    "  - type: dynamics\n"
    "    t_end: 0.1\n"
    "    dt: 1.0e-3\n"
    "    initial: {from: static, mode: 2, amplitude: 1.0e-3, q: [{body: arm, node: 5, dof: w, value: 0.002}],\n"
    "              qdot: [{body: arm, node: 3, dof: ry, value: -0.5}]}\n"
    "  - type: sweep\n"
    "    set: [materials.m.E, sections.s.d]\n"
    "    values: [[200e9, 0.01], [210e9, 0.012]]\n"
    "    analysis: {type: modes, count: 2}\n";

static void test_moving_keys(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(moving, strlen(moving), "<moving>", &d, &err))
        fail_msg("%d:%d %s", err.loc.line, err.loc.col, err.msg);
    const kd_motion* mo = &d->motions[0].motion;
    assert_int_equal(mo->type, KD_MOTION_POSE);
    assert_int_equal(mo->pose[0].n, 3);
    assert_true(mo->pose[0].f[2] == 0.2 && mo->pose[2].f[2] == 0.01 && mo->pose[4].f[1] == 0.1 && mo->pose[5].f[2] == 1.0);
    const kd_dynamics_desc* a = &d->analyses[0].dynamics;
    assert_int_equal(a->initial_static, 1);
    assert_int_equal(a->initial_mode, 2);
    assert_true(a->initial_amplitude == 1e-3);
    assert_int_equal(a->ninitial, 2);
    assert_true(a->initial[0].node == 5 && a->initial[0].dof == KD_DOF_W && !a->initial[0].velocity && a->initial[0].value == 0.002);
    assert_true(a->initial[1].node == 3 && a->initial[1].dof == KD_DOF_RY && a->initial[1].velocity && a->initial[1].value == -0.5);
    assert_int_equal(d->analyses[1].type, KD_ANALYSIS_SWEEP);
    const kd_sweep_desc* sw = &d->analyses[1].sweep;
    assert_int_equal(sw->nset, 2);
    assert_string_equal(sw->set[1], "sections.s.d");
    assert_int_equal(sw->nruns, 2);
    assert_true(sw->values[2] == 210e9 && sw->values[3] == 0.012);
    assert_int_equal(sw->inner->type, KD_ANALYSIS_MODES);
    assert_int_equal(sw->inner->modes.count, 2);
    /* the parameters by path, on a copy */
    kd_desc dv;
    assert_int_equal(kd_desc_with_param(d, sw->nset, sw->set, sw->values + 2, &dv, &err), KD_OK);
    assert_true(dv.materials[0].E == 210e9 && dv.sections[0].d == 0.012 && d->sections[0].d == 0.01);
    kd_desc_with_param_free(&dv);
    char why[256];
    assert_null(kd_desc_param(d, "motion.arm.hub", why, sizeof why));  /* a pose has no hub */
    assert_null(kd_desc_param(d, "forces.1.value.speed", why, sizeof why));
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* Strings that are not models at all. */
static void test_not_a_model(void** state) {
    (void)state;
    const char* texts[] = {"", "- 1\n- 2\n", "kedyn: 2\nbodies: []\n", "kedyn: 1\nbodies: {a: 1}\n", "kedyn: 1\n"};
    const int lines[] = {0, 1, 1, 2, 1};
    for (int i = 0; i < 5; i++) {
        kd_desc* d = NULL;
        kd_error err;
        kd_error_clear(&err);
        assert_int_equal(kd_load_yaml_string(texts[i], strlen(texts[i]), "<t>", &d, &err), KD_ERR_INPUT);
        if (lines[i]) assert_int_equal(err.loc.line, lines[i]);
        assert_null(d);
    }
}


/* ---- the key tables (kedyn/desc_fields.h) ------------------------------- */

/* Models the analyses of the table tests are added to: an elastic beam with
 * a rotating frame, a driven rigid pendulum, a slider-crank with an elastic
 * rod (examples/slider_crank_elastic.yaml). */
static const char model_rotating[] =
    "kedyn: 1\n"
    "materials: {steel: {E: 2.1e11, rho: 7850}}\n"
    "sections: {s: {shape: rectangle, b: 0.02, h: 0.005}}\n"
    "bodies:\n"
    "  - {name: blade, type: beam, material: steel, section: s, length: 1.0, elements: 4}\n"
    "supports:\n"
    "  - {body: blade, node: 1, fix: all}\n"
    "motion:\n"
    "  - {body: blade, rotation: {axis: z, law: {speed: 10}}}\n"
    "analyses:\n";
/* a spinning plate: the stability map's keys include a plate's thicknesses */
static const char model_rotating_plate[] =
    "kedyn: 1\n"
    "materials: {steel: {E: 2.1e11, rho: 7850}}\n"
    "bodies:\n"
    "  - {name: blade, type: plate, theory: kirchhoff, interpolation: acm, material: steel, thickness: 0.001,\n"
    "     mesh: {rectangle: [0.2, 0.1], divisions: [2, 1]}}\n"
    "motion:\n"
    "  - {body: blade, rotation: {axis: y, law: {speed: 10}}}\n"
    "analyses:\n";
static const char model_rigid[] =
    "kedyn: 1\n"
    "bodies:\n"
    "  - {name: ground, type: ground, points: {O: [0, 0]}}\n"
    "  - {name: arm, type: rigid, mass: 1.5, inertia: 0.02, com: [0.4, 0], points: {O: [0, 0]}}\n"
    "joints:\n"
    "  - {name: pivot, type: revolute, bodies: [ground, arm], points: [O, O]}\n"
    "drivers:\n"
    "  - {joint: pivot, law: {speed: 2.0}}\n"
    "analyses:\n";
static const char model_links[] =
    "kedyn: 1\n"
    "materials: {aluminium: {E: 7.0e10, rho: 2700}}\n"
    "sections: {rod: {shape: rectangle, b: 0.006, h: 0.02}}\n"
    "bodies:\n"
    "  - {name: ground, type: ground, points: {O: [0, 0], S: [0, 0]}}\n"
    "  - {name: crank, type: rigid, mass: 0.2, inertia: 4.0e-4, com: [0.075, 0], points: {O: [0, 0], A: [0.15, 0]}}\n"
    "  - {name: rod, type: beam, material: aluminium, section: rod, elements: 4, points: {A: [0.15, 0], B: [0.45, 0]}}\n"
    "  - {name: slider, type: rigid, mass: 0.03, inertia: 1.0e-6, points: {B: [0, 0]}, position: [0.45, 0]}\n"
    "joints:\n"
    "  - {name: jO, type: revolute, bodies: [ground, crank], points: [O, O]}\n"
    "  - {name: jA, type: revolute, bodies: [crank, rod], points: [A, A]}\n"
    "  - {name: jB, type: revolute, bodies: [rod, slider], points: [B, B]}\n"
    "  - {name: jS, type: prismatic, bodies: [ground, slider], points: [S, B], axis: [1, 0]}\n"
    "drivers:\n"
    "  - {joint: jO, law: {speed: 150.0}}\n"
    "analyses:\n";

/* A value of field t other than its default and within its range, as YAML
 * text, and as the number the struct should hold (lists: their first item;
 * choices: the enum value). `pick` names a choice or a body ("" = the last
 * choice). */
static double key_value(const kd_field* t, const char* pick, char* text, size_t n) {
    double x = 0;
    switch (t->type) {
    case KD_FIELD_NUMBER:
        if (t->range == KD_RANGE_CLOSED || t->range == KD_RANGE_OPEN) x = isinf(t->hi) ? t->lo + 2 : 0.5 * (t->lo + t->hi);
        else x = t->def + 1.5;
        snprintf(text, n, "%.17g", x);
        return x;
    case KD_FIELD_INT: snprintf(text, n, "%d", (int)t->lo + 2); return t->lo + 2;
    case KD_FIELD_BOOL: snprintf(text, n, "%s", t->def ? "false" : "true"); return t->def ? 0 : 1;
    case KD_FIELD_LIST: snprintf(text, n, "[1.5, 2.5]"); return 1.5;
    case KD_FIELD_BODY: snprintf(text, n, "%s", pick); return 0;
    case KD_FIELD_CHOICE: {
        int i = t->nnames - 1;
        for (int k = 0; k < t->nnames && pick[0]; k++)
            if (strcmp(t->names[k], pick) == 0) i = k;
        snprintf(text, n, "%s", t->names[i]);
        return t->first + i;
    }
    case KD_FIELD_CUSTOM: break;
    }
    text[0] = '\0';
    return 0;
}

/* The pick for key in "key=value;key=value", or "". */
static const char* pick_of(const char* picks, const char* key, char* out, size_t n) {
    out[0] = '\0';
    char pat[64];
    snprintf(pat, sizeof pat, "%s=", key);
    const char* p = strstr(picks, pat);
    if (p && (p == picks || p[-1] == ';')) snprintf(out, n, "%.*s", (int)strcspn(p + strlen(pat), ";"), p + strlen(pat));
    return out;
}

/* Every key of an analysis type set to a value other than its default, in
 * `model`: the loaded struct holds each value (every key round-trips). */
static void round_trip(const char* model, kd_analysis_type type, const char* picks) {
    int n = 0;
    const kd_field* t = kd_analysis_fields(type, &n);
    char text[4096], val[64], pick[64];
    int len = snprintf(text, sizeof text, "%s  - {type: %s", model, kd_analysis_type_name(type));
    for (int i = 0; i < n; i++) {
        if (t[i].type == KD_FIELD_CUSTOM) continue;
        key_value(&t[i], pick_of(picks, t[i].key, pick, sizeof pick), val, sizeof val);
        len += snprintf(text + len, sizeof text - (size_t)len, ", %s: %s", t[i].key, val);
    }
    snprintf(text + len, sizeof text - (size_t)len, "}\n");
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "<round-trip>", &d, &err))
        fail_msg("%s: %d:%d %s\n%s", kd_analysis_type_name(type), err.loc.line, err.loc.col, err.msg, text);
    kd_analysis_desc* a = &d->analyses[d->nanalyses - 1];
    assert_int_equal(a->type, type);
    const char* base = kd_analysis_fields_base(a);
    for (int i = 0; i < n; i++) {
        if (t[i].type == KD_FIELD_CUSTOM) continue;
        const double want = key_value(&t[i], pick_of(picks, t[i].key, pick, sizeof pick), val, sizeof val);
        const void* p = base + t[i].offset;
        double got = 0;
        if (t[i].type == KD_FIELD_NUMBER || t[i].type == KD_FIELD_LIST) got = *(const double*)p;
        else got = *(const int*)p;
        if (t[i].type == KD_FIELD_BODY) {
            got = strcmp(d->bodies[*(const int*)p].name, pick) == 0 ? 0 : 1;
        }
        if (t[i].type == KD_FIELD_LIST) assert_int_equal(*(const int*)(base + t[i].count_offset), 2);
        if (got != want) fail_msg("%s.%s: got %g, want %g", kd_analysis_type_name(type), t[i].key, got, want);
    }
    kd_desc_free(&d);
}

static void test_tables_round_trip(void** state) {
    (void)state;
    round_trip(model_rotating, KD_ANALYSIS_MODES, "");
    round_trip(model_rotating, KD_ANALYSIS_CAMPBELL, "body=blade");
    round_trip(model_rotating_plate, KD_ANALYSIS_STABILITY, "body=blade");
    round_trip(model_rigid, KD_ANALYSIS_KINEMATICS, "");
    round_trip(model_rigid, KD_ANALYSIS_INVERSE_DYNAMICS, "");
    round_trip(model_links, KD_ANALYSIS_MODES_ALONG_MOTION, "body=rod");
    round_trip(model_links, KD_ANALYSIS_DYNAMICS,
               "integrator=cvode-bdf;formalism=kane;formulation=maggi;stabilization=projection;coupling=two-way");
    /* materials and sections: every number key of the tables */
    int nm = 0, ns = 0;
    const kd_field* tm = kd_material_fields(&nm);
    const kd_field* ts = kd_section_fields(&ns);
    for (int shape = 0; shape < 4; shape++) {
        char text[4096], val[64];
        static const char* const shapes[] = {"circle", "tube", "rectangle", "generic"};
        int len = snprintf(text, sizeof text, "kedyn: 1\nmaterials:\n  m: {");
        for (int i = 0; i < nm; i++) {
            key_value(&tm[i], "", val, sizeof val);
            len += snprintf(text + len, sizeof text - (size_t)len, "%s%s: %s", i ? ", " : "", tm[i].key, val);
        }
        len += snprintf(text + len, sizeof text - (size_t)len, "}\nsections:\n  s: {shape: %s", shapes[shape]);
        for (int i = 0; i < ns; i++) {
            if (ts[i].type != KD_FIELD_NUMBER || !(ts[i].only & (1u << shape))) continue;
            /* a tube's wall within its radius */
            const double x = strcmp(ts[i].key, "t") == 0 ? 0.5 : key_value(&ts[i], "", val, sizeof val);
            len += snprintf(text + len, sizeof text - (size_t)len, ", %s: %g", ts[i].key, x);
        }
        snprintf(text + len, sizeof text - (size_t)len,
                 "}\nbodies:\n  - {name: b, type: beam, material: m, section: s, length: 1, elements: 2}\n");
        kd_desc* d = NULL;
        kd_error err;
        if (kd_load_yaml_string(text, strlen(text), "<round-trip>", &d, &err))
            fail_msg("%d:%d %s\n%s", err.loc.line, err.loc.col, err.msg, text);
        for (int i = 0; i < nm; i++)
            assert_true(*(const double*)((const char*)&d->materials[0] + tm[i].offset) == key_value(&tm[i], "", val, sizeof val));
        assert_int_equal(d->sections[0].shape, shape);
        for (int i = 0; i < ns; i++) {
            if (ts[i].type != KD_FIELD_NUMBER || !(ts[i].only & (1u << shape))) continue;
            const double x = strcmp(ts[i].key, "t") == 0 ? 0.5 : key_value(&ts[i], "", val, sizeof val);
            assert_true(*(const double*)((const char*)&d->sections[0] + ts[i].offset) == x);
            /* and the sweep path names the same number */
            char path[64], why[256];
            snprintf(path, sizeof path, "sections.s.%s", ts[i].key);
            assert_true(kd_desc_param(d, path, why, sizeof why) == (double*)((char*)&d->sections[0] + ts[i].offset));
        }
        kd_desc_free(&d);
    }
}

/* Every number, whole number, flag and choice of the body table for a beam
 * and a rigid body round-trips; the sweep paths bodies.NAME.KEY name them. */
static void test_body_keys(void** state) {
    (void)state;
    int n = 0;
    const kd_field* t = kd_body_fields(&n);
    const char* heads[2] = {"  - {name: beam, type: beam, material: m, section: s, length: 1", "  - {name: arm, type: rigid"};
    const kd_body_type types[2] = {KD_BODY_BEAM, KD_BODY_RIGID};
    char text[2048], val[64];
    int len = snprintf(text, sizeof text,
                       "kedyn: 1\nmaterials: {m: {E: 1, rho: 1}}\nsections: {s: {shape: circle, d: 0.01}}\nbodies:\n");
    for (int k = 0; k < 2; k++) {
        len += snprintf(text + len, sizeof text - (size_t)len, "%s", heads[k]);
        for (int i = 0; i < n; i++) {
            if (t[i].type == KD_FIELD_CUSTOM || !(t[i].only & (1u << types[k])) || strcmp(t[i].key, "length") == 0) continue;
            /* interpolation quintic needs euler-bernoulli or rayleigh: the table's last choices are not */
            key_value(&t[i], strcmp(t[i].key, "theory") == 0 ? "rayleigh" : "", val, sizeof val);
            len += snprintf(text + len, sizeof text - (size_t)len, ", %s: %s", t[i].key, val);
        }
        len += snprintf(text + len, sizeof text - (size_t)len, "}\n");
    }
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "<bodies>", &d, &err)) fail_msg("%d:%d %s\n%s", err.loc.line, err.loc.col, err.msg, text);
    for (int k = 0; k < 2; k++) {
        const kd_body_desc* b = &d->bodies[k];
        assert_int_equal(b->type, types[k]);
        for (int i = 0; i < n; i++) {
            if (t[i].type == KD_FIELD_CUSTOM || !(t[i].only & (1u << types[k])) || strcmp(t[i].key, "length") == 0) continue;
            const double want = key_value(&t[i], strcmp(t[i].key, "theory") == 0 ? "rayleigh" : "", val, sizeof val);
            const void* p = (const char*)b + t[i].offset;
            const double got = t[i].type == KD_FIELD_NUMBER ? *(const double*)p : *(const int*)p;
            if (got != want) fail_msg("body %s: %s = %g, want %g", b->name, t[i].key, got, want);
            if (t[i].type == KD_FIELD_NUMBER) {
                char path[96], why[256];
                snprintf(path, sizeof path, "bodies.%s.%s", b->name, t[i].key);
                assert_true(kd_desc_param(d, path, why, sizeof why) == (const double*)p);
            }
        }
    }
    kd_desc_free(&d);
}

/* The keys of a flat table as ", KEY: VALUE" (CUSTOM ones left out; body
 * references name `body`). */
static int table_text(char* text, size_t n, const kd_field* t, int nt, const char* body) {
    int len = 0;
    text[0] = '\0';
    char val[64];
    for (int i = 0; i < nt; i++) {
        if (t[i].type == KD_FIELD_CUSTOM) continue;
        key_value(&t[i], body, val, sizeof val);
        len += snprintf(text + len, n - (size_t)len, "%s%s: %s", len ? ", " : "", t[i].key, val);
    }
    return len;
}

/* The loaded struct holds every non-CUSTOM key of the table (bodies: index 0). */
static void table_values(const kd_field* t, int nt, const void* base, const char* what) {
    char val[64];
    for (int i = 0; i < nt; i++) {
        if (t[i].type == KD_FIELD_CUSTOM) continue;
        const double want = key_value(&t[i], "b", val, sizeof val);
        const void* p = (const char*)base + t[i].offset;
        const double got = t[i].type == KD_FIELD_NUMBER ? *(const double*)p : *(const int*)p;
        if (got != want) fail_msg("%s: %s = %g, want %g", what, t[i].key, got, want);
    }
}

/* Supports and dampings: every key of their tables round-trips, and the
 * sweep paths damping.BODY.rayleigh.KEY name the numbers. */
static void test_support_damping_keys(void** state) {
    (void)state;
    int ns = 0, nd = 0, nr = 0;
    const kd_field* ts = kd_support_fields(&ns);
    const kd_field* td = kd_damping_fields(&nd);
    const kd_field* tr = kd_rayleigh_fields(&nr);
    char text[2048], s1[256], s2[256], s3[256];
    table_text(s1, sizeof s1, ts, ns, "b");
    table_text(s2, sizeof s2, td, nd, "b");
    table_text(s3, sizeof s3, tr, nr, "b");
    snprintf(text, sizeof text,
             "kedyn: 1\nmaterials: {m: {E: 1, rho: 1}}\nsections: {s: {shape: circle, d: 0.01}}\n"
             "bodies:\n  - {name: b, type: beam, material: m, section: s, length: 1, elements: 2}\n"
             "supports:\n  - {%s, fix: all}\ndamping:\n  - {%s, rayleigh: {%s}}\n",
             s1, s2, s3);
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "<supports>", &d, &err)) fail_msg("%d:%d %s\n%s", err.loc.line, err.loc.col, err.msg, text);
    table_values(ts, ns, &d->supports[0], "support");
    table_values(td, nd, &d->dampings[0], "damping");
    table_values(tr, nr, &d->dampings[0], "rayleigh");
    for (int i = 0; i < nr; i++) {
        char path[96], why[256];
        snprintf(path, sizeof path, "damping.b.rayleigh.%s", tr[i].key);
        assert_true(kd_desc_param(d, path, why, sizeof why) == (double*)((char*)&d->dampings[0] + tr[i].offset));
    }
    kd_desc_free(&d);
    /* a negative coefficient is an error at the value */
    snprintf(text, sizeof text,
             "kedyn: 1\nmaterials: {m: {E: 1, rho: 1}}\nsections: {s: {shape: circle, d: 0.01}}\n"
             "bodies:\n  - {name: b, type: beam, material: m, section: s, length: 1, elements: 2}\n"
             "damping:\n  - {body: b, rayleigh: {alpha: 1, beta: -1}}\n");
    assert_int_equal(kd_load_yaml_string(text, strlen(text), "<damping>", &d, &err), KD_ERR_INPUT);
    if (!(err.loc.line == 7 && err.loc.col == 42 && strstr(err.msg, "beta must be >= 0 (got -1)")))
        fail_msg("%d:%d %s", err.loc.line, err.loc.col, err.msg);
}

/* Joints of every type and a driver: every key of their tables that the
 * type takes round-trips, the sweep paths joints.NAME.KEY and
 * drivers.JOINT.{initial, law.LAW} name the numbers, and a key of another
 * type is an error at its value. */
static void test_joint_driver_keys(void** state) {
    (void)state;
    int nj = 0, nd = 0;
    const kd_field* tj = kd_joint_fields(&nj);
    const kd_field* td = kd_driver_fields(&nd);
    const kd_field* type = kd_field_find(tj, nj, "type");
    char text[4096], val[64];
    int len = snprintf(text, sizeof text,
                       "kedyn: 1\nbodies:\n  - {name: g, type: ground, points: {O: [0, 0]}}\n"
                       "  - {name: a, type: rigid, mass: 1, inertia: 0.1, points: {P: [0.5, 0]}}\njoints:\n");
    for (int t = 0; t < type->nnames; t++) {
        len += snprintf(text + len, sizeof text - (size_t)len, "  - {name: j%s, bodies: [g, a], points: [O, P]",
                        type->names[t]);
        for (int i = 0; i < nj; i++) {
            if (tj[i].type == KD_FIELD_CUSTOM || (tj[i].only && !(tj[i].only & (1u << t)))) continue;
            key_value(&tj[i], type->names[t], val, sizeof val);
            len += snprintf(text + len, sizeof text - (size_t)len, ", %s: %s", tj[i].key, val);
        }
        len += snprintf(text + len, sizeof text - (size_t)len, "}\n");
    }
    len += snprintf(text + len, sizeof text - (size_t)len, "drivers:\n  - {joint: jrevolute, law: {speed: 2}");
    for (int i = 0; i < nd; i++) {
        if (td[i].type == KD_FIELD_CUSTOM) continue;
        key_value(&td[i], "", val, sizeof val);
        len += snprintf(text + len, sizeof text - (size_t)len, ", %s: %s", td[i].key, val);
    }
    snprintf(text + len, sizeof text - (size_t)len, "}\n");
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "<joints>", &d, &err)) fail_msg("%d:%d %s\n%s", err.loc.line, err.loc.col, err.msg, text);
    assert_int_equal(d->njoints, type->nnames);
    for (int t = 0; t < type->nnames; t++) {
        kd_joint_desc* j = &d->joints[t];
        for (int i = 0; i < nj; i++) {
            if (tj[i].type == KD_FIELD_CUSTOM || (tj[i].only && !(tj[i].only & (1u << t)))) continue;
            const double want = key_value(&tj[i], type->names[t], val, sizeof val);
            const void* p = (const char*)j + tj[i].offset;
            const double got = tj[i].type == KD_FIELD_NUMBER ? *(const double*)p : *(const int*)p;
            if (got != want) fail_msg("joint %s: %s = %g, want %g", j->name, tj[i].key, got, want);
            if (tj[i].type == KD_FIELD_NUMBER) {
                char path[96], why[256];
                snprintf(path, sizeof path, "joints.%s.%s", j->name, tj[i].key);
                assert_true(kd_desc_param(d, path, why, sizeof why) == (const double*)p);
            }
        }
    }
    for (int i = 0; i < nd; i++) {
        if (td[i].type == KD_FIELD_CUSTOM) continue;
        const void* p = (const char*)&d->drivers[0] + td[i].offset;
        assert_true(*(const double*)p == key_value(&td[i], "", val, sizeof val));
        char path[96], why[256];
        snprintf(path, sizeof path, "drivers.jrevolute.%s", td[i].key);
        assert_true(kd_desc_param(d, path, why, sizeof why) == (const double*)p);
    }
    char why[256];
    assert_true(kd_desc_param(d, "drivers.jrevolute.law.speed", why, sizeof why) == &d->drivers[0].law.value);
    assert_null(kd_desc_param(d, "joints.jrevolute.radius", why, sizeof why));
    kd_desc_free(&d);
    /* a key of another joint type: an error at its value */
    static const char bad[] = "kedyn: 1\nbodies:\n  - {name: g, type: ground, points: {O: [0, 0]}}\n"
                              "  - {name: a, type: rigid, mass: 1, inertia: 0.1, points: {P: [0.5, 0]}}\njoints:\n"
                              "  - {name: j, type: revolute, bodies: [g, a], points: [O, P], radius: 1}\n";
    assert_int_equal(kd_load_yaml_string(bad, strlen(bad), "<joints>", &d, &err), KD_ERR_INPUT);
    if (!(err.loc.line == 6 && err.loc.col == 71 && strstr(err.msg, "radius applies to rolling joints")))
        fail_msg("%d:%d %s", err.loc.line, err.loc.col, err.msg);
}

/* Forces of every type: each table is selected by `type`, its numbers
 * round-trip and the sweep paths forces.N.KEY name them. */
static void test_load_keys(void** state) {
    (void)state;
    /* the keys the tables leave to the reader's own code, per type */
    static const char* const custom[KD_LOAD_TYPES] = {
        [KD_LOAD_NODAL] = "dof: u, value: 1",
        [KD_LOAD_GRAVITY] = "g: [0, -9.81]",
        [KD_LOAD_SPRING] = "bodies: [g, a], points: [O, P]",
        [KD_LOAD_FRICTION] = "joint: jr",
        [KD_LOAD_TORQUE] = "body: a, value: 1",
        [KD_LOAD_FORCE] = "body: a, point: P, value: [1, 2]",
    };
    static const char beam[] = "kedyn: 1\nmaterials: {m: {E: 1, rho: 1}}\nsections: {s: {shape: circle, d: 0.01}}\n"
                               "bodies:\n  - {name: b, type: beam, material: m, section: s, length: 1, elements: 2}\n";
    static const char rigid[] = "kedyn: 1\nbodies:\n  - {name: g, type: ground, points: {O: [0, 0]}}\n"
                                "  - {name: a, type: rigid, mass: 1, inertia: 0.1, points: {P: [0.5, 0]}}\n"
                                "joints:\n  - {name: jr, type: revolute, bodies: [g, a], points: [O, P]}\n";
    for (int t = 0; t < KD_LOAD_TYPES; t++) {
        int n = 0;
        const kd_field* f = kd_load_fields((kd_load_type)t, &n);
        assert_non_null(f);
        char text[2048], keys[512];
        table_text(keys, sizeof keys, f, n, "b");
        snprintf(text, sizeof text, "%sforces:\n  - {type: %s, %s%s%s}\n", t <= KD_LOAD_GRAVITY ? beam : rigid,
                 kd_load_type_name((kd_load_type)t), custom[t], keys[0] ? ", " : "", keys);
        kd_desc* d = NULL;
        kd_error err;
        if (kd_load_yaml_string(text, strlen(text), "<forces>", &d, &err))
            fail_msg("%d:%d %s\n%s", err.loc.line, err.loc.col, err.msg, text);
        assert_int_equal(d->nloads, 1);
        assert_int_equal(d->loads[0].type, t);
        table_values(f, n, &d->loads[0], kd_load_type_name((kd_load_type)t));
        for (int i = 0; i < n; i++) {
            if (f[i].type != KD_FIELD_NUMBER) continue;
            char path[96], why[256];
            snprintf(path, sizeof path, "forces.1.%s", f[i].key);
            assert_true(kd_desc_param(d, path, why, sizeof why) == (double*)((char*)&d->loads[0] + f[i].offset));
        }
        kd_desc_free(&d);
    }
}

/* Laws: every key of the sine, spin_up and table forms round-trips (here the
 * value of a nodal force), and the sweep paths forces.N.value.FORM.KEY name
 * the numbers. */
static void test_law_keys(void** state) {
    (void)state;
    int nform = 0;
    const kd_field* form = kd_law_form_fields(&nform);
    for (int k = 0; k < nform; k++) {
        const kd_law_type type = (kd_law_type)(k + 1);
        int n = 0;
        const kd_field* f = kd_law_fields(type, &n);
        char text[2048], keys[512], val[64];
        if (form[k].type == KD_FIELD_NUMBER) {
            key_value(&form[k], "", val, sizeof val);
            snprintf(keys, sizeof keys, "%s", val);
        } else {
            table_text(keys, sizeof keys, f, n, "");
            if (type == KD_LAW_TABLE) snprintf(keys + strlen(keys), sizeof keys - strlen(keys), ", t: [0, 1], value: [0, 1]");
            const size_t len = strlen(keys);
            memmove(keys + 1, keys, len + 1);
            keys[0] = '{';
            snprintf(keys + len + 1, sizeof keys - len - 1, "}");
        }
        snprintf(text, sizeof text,
                 "kedyn: 1\nmaterials: {m: {E: 1, rho: 1}}\nsections: {s: {shape: circle, d: 0.01}}\n"
                 "bodies:\n  - {name: b, type: beam, material: m, section: s, length: 1, elements: 2}\n"
                 "forces:\n  - {type: nodal, body: b, node: 3, dof: u, value: {%s: %s}}\n",
                 form[k].key, keys);
        kd_desc* d = NULL;
        kd_error err;
        if (kd_load_yaml_string(text, strlen(text), "<laws>", &d, &err))
            fail_msg("%d:%d %s\n%s", err.loc.line, err.loc.col, err.msg, text);
        kd_law* l = &d->loads[0].value;
        assert_int_equal(l->type, type);
        char path[96], why[256];
        if (form[k].type == KD_FIELD_NUMBER) {
            const double* p = (const double*)((const char*)l + form[k].offset);
            assert_true(*p == key_value(&form[k], "", val, sizeof val));
            snprintf(path, sizeof path, "forces.1.value.%s", form[k].key);
            assert_true(kd_desc_param(d, path, why, sizeof why) == p);
        }
        table_values(f, n, l, form[k].key);
        for (int i = 0; i < n; i++) {
            if (f[i].type != KD_FIELD_NUMBER) continue;
            snprintf(path, sizeof path, "forces.1.value.%s.%s", form[k].key, f[i].key);
            assert_true(kd_desc_param(d, path, why, sizeof why) == (double*)((char*)l + f[i].offset));
        }
        kd_desc_free(&d);
    }
}

/* Motions: the keys of the motion table round-trip (a rotation with every
 * number), and motion.BODY.KEY names the numbers. */
static void test_motion_keys(void** state) {
    (void)state;
    int n = 0;
    const kd_field* f = kd_motion_fields(&n);
    char text[2048], keys[256];
    table_text(keys, sizeof keys, f, n, "b");
    snprintf(text, sizeof text,
             "kedyn: 1\nmaterials: {m: {E: 1, rho: 1}}\nsections: {s: {shape: circle, d: 0.01}}\n"
             "bodies:\n  - {name: b, type: beam, material: m, section: s, length: 1, elements: 2}\n"
             "motion:\n  - {%s, rotation: {axis: z, center: [0, 0], law: {speed: 1}}}\n",
             keys);
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "<motion>", &d, &err)) fail_msg("%d:%d %s\n%s", err.loc.line, err.loc.col, err.msg, text);
    table_values(f, n, &d->motions[0], "motion");
    for (int i = 0; i < n; i++) {
        if (f[i].type != KD_FIELD_NUMBER) continue;
        char path[96], why[256];
        snprintf(path, sizeof path, "motion.b.%s", f[i].key);
        assert_true(kd_desc_param(d, path, why, sizeof why) == (double*)((char*)&d->motions[0] + f[i].offset));
    }
    kd_desc_free(&d);
}

/* A dynamics' initial mapping and its q entries: every key of their tables
 * round-trips. */
static void test_initial_keys(void** state) {
    (void)state;
    int ni = 0, nv = 0;
    const kd_field* ti = kd_initial_fields(&ni);
    const kd_field* tv = kd_initial_value_fields(&nv);
    char text[2048], s1[256], s2[256];
    table_text(s1, sizeof s1, ti, ni, "b");
    table_text(s2, sizeof s2, tv, nv, "b");
    snprintf(text, sizeof text,
             "kedyn: 1\nmaterials: {m: {E: 1, rho: 1}}\nsections: {s: {shape: circle, d: 0.01}}\n"
             "bodies:\n  - {name: b, type: beam, material: m, section: s, length: 1, elements: 2}\n"
             "supports:\n  - {body: b, node: 1, fix: all}\n"
             "analyses:\n  - {type: dynamics, t_end: 1, dt: 0.1, initial: {%s, q: [{%s, dof: v}]}}\n",
             s1, s2);
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "<initial>", &d, &err)) fail_msg("%d:%d %s\n%s", err.loc.line, err.loc.col, err.msg, text);
    const kd_dynamics_desc* dy = &d->analyses[0].dynamics;
    table_values(ti, ni, dy, "initial");
    assert_int_equal(dy->ninitial, 1);
    table_values(tv, nv, &dy->initial[0], "initial q");
    kd_desc_free(&d);
}

/* UNSET choices become the documented defaults of the route that runs them. */
static void test_unset_defaults(void** state) {
    (void)state;
    kd_analysis_desc a;
    kd_analysis_desc_init(&a, KD_ANALYSIS_DYNAMICS);
    const kd_dynamics_desc unset = a.dynamics;
    assert_int_equal(unset.integrator, KD_INTEGRATOR_UNSET);
    assert_int_equal(unset.formalism, KD_DYN_FORMALISM_UNSET);
    assert_true(unset.rtol == 1e-8 && unset.atol == 1e-10 && unset.rho_inf == 0.9 && unset.hht_alpha == -0.05);
    assert_true(unset.newmark_beta == 0.25 && unset.newmark_gamma == 0.5 && unset.output_every == 1 && unset.steps == 100);
    kd_dynamics_desc r = unset;
    kd_dynamics_resolve(&r, KD_ROUTE_ELASTIC);
    assert_int_equal(r.integrator, KD_INTEGRATOR_GENERALIZED_ALPHA);
    assert_int_equal(r.formalism, KD_DYN_FORMALISM_INVARIANTS);
    r = unset, r.formalism = KD_DYN_FORMALISM_HAMILTON;
    kd_dynamics_resolve(&r, KD_ROUTE_ELASTIC);
    assert_int_equal(r.integrator, KD_INTEGRATOR_HAMILTON_CVODE);
    r = unset, r.integrator = KD_INTEGRATOR_IMPLICIT_MIDPOINT;
    kd_dynamics_resolve(&r, KD_ROUTE_ELASTIC);
    assert_int_equal(r.formalism, KD_DYN_FORMALISM_HAMILTON);
    r = unset;
    kd_dynamics_resolve(&r, KD_ROUTE_MECHANISM);
    assert_int_equal(r.integrator, KD_INTEGRATOR_RK4);
    assert_int_equal(r.formulation, KD_FORMULATION_AUGMENTED);
    assert_int_equal(r.stabilization, KD_STABILIZATION_BAUMGARTE);
    assert_int_equal(r.formalism, KD_DYN_FORMALISM_NEWTON_EULER);
    r = unset, r.formulation = KD_FORMULATION_MAGGI;
    kd_dynamics_resolve(&r, KD_ROUTE_TWO_WAY);
    assert_int_equal(r.integrator, KD_INTEGRATOR_RK4);
    assert_int_equal(r.formalism, KD_DYN_FORMALISM_MAGGI);
    r = unset;
    kd_dynamics_resolve(&r, KD_ROUTE_ONE_WAY);
    assert_int_equal(r.integrator, KD_INTEGRATOR_GENERALIZED_ALPHA);
    assert_int_equal(r.coupling, KD_COUPLING_ONE_WAY);
    kd_analysis_desc_init(&a, KD_ANALYSIS_MODES_ALONG_MOTION);
    assert_true(a.modes_along_motion.steps == 72 && a.modes_along_motion.count == 6 && a.modes_along_motion.body == -1);
    a.modes_along_motion.speed = 2.0;
    kd_modes_along_motion_resolve(&a.modes_along_motion);
    assert_int_equal(a.modes_along_motion.gyroscopic, KD_GYROSCOPIC_TRUE);
    assert_true(fabs(a.modes_along_motion.t_end - 3.14159265358979) < 1e-12);
    kd_analysis_desc_init(&a, KD_ANALYSIS_MODES);
    assert_true(a.modes.count == 6 && a.modes.solver == KD_EIGEN_AUTO && a.modes.at == 0.0);
    kd_analysis_desc_init(&a, KD_ANALYSIS_KINEMATICS);
    assert_true(a.kinematics.steps == 100 && a.kinematics.cond_max == 1e8 && a.kinematics.points == 0);
    /* a model file that omits every optional key gives the same struct */
    char text[1024];
    snprintf(text, sizeof text, "%s  - {type: dynamics, t_end: 1, dt: 0.1}\n", model_rotating);
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "<t>", &d, &err)) fail_msg("%s", err.msg);
    kd_dynamics_desc f = d->analyses[0].dynamics, c = unset;
    f.loc_integrator = f.loc_formalism = f.loc_coupling = c.loc_integrator;
    c.t_end = 1, c.dt = 0.1;
    assert_memory_equal(&f, &c, sizeof f);
    kd_desc_free(&d);
}

/* Analyses built in C from kd_analysis_desc_init pass kd_desc_check with
 * only their required values; without them the message names the field. */
static void test_built_in_code(void** state) {
    (void)state;
    const char* models[2] = {model_rotating, model_rigid};
    for (int k = 0; k < 2; k++) {
        kd_desc* d = NULL;
        kd_error err;
        const size_t len = strlen(models[k]) - strlen("analyses:\n");  /* the model without analyses */
        if (kd_load_yaml_string(models[k], len, "", &d, &err)) fail_msg("%s", err.msg);
        kd_analysis_desc* a = kd_desc_add_analysis(d, KD_ANALYSIS_DYNAMICS);
        assert_int_equal(kd_desc_check(d, &err), KD_ERR_INPUT);
        assert_non_null(strstr(err.msg, "dynamics: t_end is required"));
        a->dynamics.t_end = 1.0;
        assert_int_equal(kd_desc_check(d, &err), KD_ERR_INPUT);
        assert_non_null(strstr(err.msg, "needs dt > 0"));
        a->dynamics.dt = 1e-3;
        if (kd_desc_check(d, &err)) fail_msg("%s", err.msg);
        if (k == 0) {
            assert_non_null(kd_desc_add_analysis(d, KD_ANALYSIS_MODES));
            kd_analysis_desc* c = kd_desc_add_analysis(d, KD_ANALYSIS_CAMPBELL);
            c->campbell.nspeeds = 1, c->campbell.speeds[0] = 5;
        } else {
            kd_desc_add_analysis(d, KD_ANALYSIS_KINEMATICS)->kinematics.t_end = 1.0;
            kd_desc_add_analysis(d, KD_ANALYSIS_INVERSE_DYNAMICS)->inverse_dynamics.t_end = 1.0;
        }
        if (kd_desc_check(d, &err)) fail_msg("%s", err.msg);
        /* an integrator the route cannot honour (a moved when analyses were added) */
        a = &d->analyses[0];
        a->dynamics.integrator = k == 0 ? KD_INTEGRATOR_RK4 : KD_INTEGRATOR_GENERALIZED_ALPHA;
        assert_int_equal(kd_desc_check(d, &err), KD_ERR_INPUT);
        assert_non_null(strstr(err.msg, "does not apply to"));
        kd_desc_free(&d);
    }
}

/* An integrator a mechanism cannot honour is an error at the key, rk4 is
 * accepted; the unknown-type message lists every analysis type. */
static void test_integrator_and_types(void** state) {
    (void)state;
    char text[2048];
    kd_desc* d = NULL;
    kd_error err;
    snprintf(text, sizeof text, "%s  - {type: dynamics, t_end: 1, dt: 0.01, integrator: generalized-alpha}\n", model_rigid);
    assert_int_equal(kd_load_yaml_string(text, strlen(text), "<mech>", &d, &err), KD_ERR_INPUT);
    assert_int_equal(err.loc.line, 10);
    assert_int_equal(err.loc.col, 54);
    assert_non_null(strstr(err.msg, "integrator 'generalized-alpha' does not apply to a mechanism"));
    assert_non_null(strstr(err.msg, "rk4"));
    assert_null(d);
    snprintf(text, sizeof text, "%s  - {type: dynamics, t_end: 1, dt: 0.01, integrator: rk4}\n", model_rigid);
    if (kd_load_yaml_string(text, strlen(text), "<mech>", &d, &err)) fail_msg("%s", err.msg);
    assert_int_equal(d->analyses[0].dynamics.integrator, KD_INTEGRATOR_RK4);
    kd_desc_free(&d);
    snprintf(text, sizeof text, "%s  - {type: dynamics, t_end: 1, dt: 0.01, integrator: rk4}\n", model_rotating);
    assert_int_equal(kd_load_yaml_string(text, strlen(text), "<elastic>", &d, &err), KD_ERR_INPUT);
    assert_int_equal(err.loc.line, 11);
    assert_non_null(strstr(err.msg, "does not apply to elastic bodies"));
    snprintf(text, sizeof text, "%s  - {type: frobnicate}\n", model_rotating);
    assert_int_equal(kd_load_yaml_string(text, strlen(text), "<t>", &d, &err), KD_ERR_INPUT);
    for (int t = 0; t < KD_ANALYSIS_TYPES; t++)
        if (!strstr(err.msg, kd_analysis_type_name((kd_analysis_type)t)))
            fail_msg("the message '%s' omits %s", err.msg, kd_analysis_type_name((kd_analysis_type)t));
}

/* Sweeps of the analysis' own numbers: analysis.KEY through its key table. */
static void test_sweep_analysis_paths(void** state) {
    (void)state;
    char text[2048];
    kd_desc* d = NULL;
    kd_error err;
    snprintf(text, sizeof text,
             "%s  - {type: sweep, set: [analysis.dt, materials.steel.E], values: [[1.0e-3, 2.0e11], [2.0e-3, 2.2e11]],\n"
             "     analysis: {type: dynamics, t_end: 0.01, dt: 1.0e-4}}\n",
             model_rotating);
    if (kd_load_yaml_string(text, strlen(text), "<sweep>", &d, &err)) fail_msg("%s", err.msg);
    const kd_sweep_desc* sw = &d->analyses[0].sweep;
    kd_analysis_desc run;
    assert_int_equal(kd_analysis_with_param(sw->inner, sw->nset, sw->set, sw->values + 2, &run, &err), KD_OK);
    assert_true(run.dynamics.dt == 2.0e-3 && sw->inner->dynamics.dt == 1.0e-4);
    kd_desc dv;
    assert_int_equal(kd_desc_with_param(d, sw->nset, sw->set, sw->values + 2, &dv, &err), KD_OK);
    assert_true(dv.materials[0].E == 2.2e11);
    kd_desc_with_param_free(&dv);
    kd_desc_free(&d);
    /* a number the analysis does not have: at the path */
    snprintf(text, sizeof text, "%s  - {type: sweep, set: analysis.count, values: [1, 2],\n"
                                "     analysis: {type: dynamics, t_end: 0.01, dt: 1.0e-4}}\n", model_rotating);
    assert_int_equal(kd_load_yaml_string(text, strlen(text), "<sweep>", &d, &err), KD_ERR_INPUT);
    assert_int_equal(err.loc.line, 11);
    assert_int_equal(err.loc.col, 24);
    assert_non_null(strstr(err.msg, "a dynamics analysis has no number 'count'"));
    /* a value the analysis does not accept, before anything runs */
    snprintf(text, sizeof text, "%s  - {type: sweep, set: analysis.rho_inf, values: [0.5, 2],\n"
                                "     analysis: {type: dynamics, t_end: 0.01, dt: 1.0e-4}}\n", model_rotating);
    assert_int_equal(kd_load_yaml_string(text, strlen(text), "<sweep>", &d, &err), KD_ERR_INPUT);
    assert_non_null(strstr(err.msg, "sweep: analysis.rho_inf = 2: dynamics: rho_inf must lie in [0, 1]"));
}

/* A CSV table with an empty field is an error at its row, not a shifted column. */
static void test_csv_empty_field(void** state) {
    (void)state;
    char dir[] = "/tmp/kd_yaml_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char csv[512], text[2048];
    snprintf(csv, sizeof csv, "%s/law.csv", dir);
    FILE* fp = fopen(csv, "w");
    assert_non_null(fp);
    fprintf(fp, "t,a,b\n0,1,2\n1,,3\n2,1,4\n");
    fclose(fp);
    snprintf(text, sizeof text,
             "kedyn: 1\nmaterials: {steel: {E: 2.1e11, rho: 7850}}\nsections: {s: {shape: circle, d: 0.01}}\n"
             "bodies:\n  - {name: b, type: beam, material: steel, section: s, length: 1.0, elements: 2}\n"
             "supports:\n  - {body: b, node: 1, fix: all}\n"
             "forces:\n  - {type: nodal, body: b, node: 3, dof: v, value: {table: {file: %s, column: %s}}}\n",
             csv, "a");
    kd_desc* d = NULL;
    kd_error err;
    assert_int_equal(kd_load_yaml_string(text, strlen(text), "<t>", &d, &err), KD_ERR_INPUT);
    assert_int_equal(err.loc.line, 3);
    assert_non_null(strstr(err.msg, "column 2 of this row is empty"));
    /* column b: no empty field in it */
    snprintf(text + strlen(text) - 5, 6, "b}}}\n");
    if (kd_load_yaml_string(text, strlen(text), "<t>", &d, &err)) fail_msg("%s", err.msg);
    assert_int_equal(d->loads[0].value.n, 3);
    assert_true(d->loads[0].value.f[1] == 3.0);
    kd_desc_free(&d);
    remove(csv);
    remove(dir);
}

/* Every key of the tables is documented in docs/model-format.md. */
static void test_keys_documented(void** state) {
    (void)state;
    FILE* fp = fopen(KD_TEST_MODELS_DIR "/../../docs/model-format.md", "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    const long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char* doc = malloc((size_t)n + 1);
    assert_non_null(doc);
    assert_int_equal(fread(doc, 1, (size_t)n, fp), (size_t)n);
    doc[n] = '\0';
    fclose(fp);
    int missing = 0;
    for (int k = -21; k < KD_ANALYSIS_TYPES; k++) {
        int nf = 0;
        const kd_field* f = k == -21  ? kd_model_fields(&nf)
                            : k == -20 ? kd_initial_fields(&nf)
                            : k == -19 ? kd_initial_value_fields(&nf)
                            : k == -18 ? kd_frame_fields(&nf)
                            : k == -17 ? kd_output_fields(&nf)
                            : k == -16 ? kd_motion_fields(&nf)
                            : k == -15 ? kd_rotation_fields(&nf)
                            : k == -14 ? kd_planar_motion_fields(&nf)
                            : k == -13 ? kd_pose_fields(&nf)
                            : k == -12 ? kd_law_form_fields(&nf)
                            : k == -11 ? kd_law_fields(KD_LAW_SINE, &nf)
                            : k == -10 ? kd_law_fields(KD_LAW_SPIN_UP, &nf)
                            : k == -9  ? kd_law_fields(KD_LAW_TABLE, &nf)
                            : k == -8 ? kd_joint_fields(&nf)
                            : k == -7 ? kd_driver_fields(&nf)
                            : k == -6 ? kd_support_fields(&nf)
                            : k == -5 ? kd_damping_fields(&nf)
                            : k == -4 ? kd_rayleigh_fields(&nf)
                            : k == -3 ? kd_body_fields(&nf)
                            : k == -2 ? kd_material_fields(&nf)
                            : k == -1 ? kd_section_fields(&nf)
                                      : kd_analysis_fields((kd_analysis_type)k, &nf);
        for (int i = 0; i < nf; i++) {
            char quoted[80];
            snprintf(quoted, sizeof quoted, "`%s`", f[i].key);
            if (!strstr(doc, quoted)) print_message("docs/model-format.md does not mention the key %s\n", quoted), missing++;
            for (int c = 0; c < f[i].nnames; c++) {
                snprintf(quoted, sizeof quoted, "`%s`", f[i].names[c]);
                if (!strstr(doc, quoted))
                    print_message("docs/model-format.md does not mention %s (key %s)\n", quoted, f[i].key), missing++;
            }
        }
        if (k >= 0) {
            char quoted[80];
            snprintf(quoted, sizeof quoted, "`%s`", kd_analysis_type_name((kd_analysis_type)k));
            if (!strstr(doc, quoted)) print_message("docs/model-format.md does not mention the analysis %s\n", quoted), missing++;
        }
    }
    for (int t = 0; t < KD_LOAD_TYPES; t++) {  /* the force types and their keys */
        int nf = 0;
        const kd_field* f = kd_load_fields((kd_load_type)t, &nf);
        char quoted[80];
        snprintf(quoted, sizeof quoted, "`%s`", kd_load_type_name((kd_load_type)t));
        if (!strstr(doc, quoted)) print_message("docs/model-format.md does not mention the force type %s\n", quoted), missing++;
        for (int i = 0; i < nf; i++) {
            snprintf(quoted, sizeof quoted, "`%s`", f[i].key);
            if (!strstr(doc, quoted)) print_message("docs/model-format.md does not mention the key %s\n", quoted), missing++;
        }
    }
    free(doc);
    assert_int_equal(missing, 0);
}

/* A number that underflows is a number (5e-324, the least subnormal, kept; 1e-400 rounds to 0);
 * one that overflows is not (strtod's ERANGE means either). */
static void test_number_underflow(void** state) {
    (void)state;
    static const char* const values[] = {"5e-324", "1e-400", "1e400"};
    const double expect[] = {5e-324, 0.0, 0.0};
    for (int i = 0; i < 3; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "kedyn: 1\nmaterials: {steel: {E: 2.1e11, rho: 7850}}\nsections: {s: {shape: circle, d: 0.01}}\n"
                 "bodies:\n  - {name: b, type: beam, material: steel, section: s, length: 1.0, elements: 2, preload: %s}\n"
                 "supports:\n  - {body: b, node: 1, fix: all}\n",
                 values[i]);
        kd_desc* d = NULL;
        kd_error err;
        const kd_status st = kd_load_yaml_string(text, strlen(text), "<t>", &d, &err);
        if (i < 2) {
            if (st) fail_msg("%s: %s", values[i], err.msg);
            assert_true(d->bodies[0].preload == expect[i]);
            kd_desc_free(&d);
        } else {
            assert_int_equal(st, KD_ERR_INPUT);
            assert_non_null(strstr(err.msg, "preload is out of range"));
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_model),
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_not_a_model),
        cmocka_unit_test(test_moving_keys),
        cmocka_unit_test(test_tables_round_trip),
        cmocka_unit_test(test_body_keys),
        cmocka_unit_test(test_support_damping_keys),
        cmocka_unit_test(test_joint_driver_keys),
        cmocka_unit_test(test_load_keys),
        cmocka_unit_test(test_law_keys),
        cmocka_unit_test(test_motion_keys),
        cmocka_unit_test(test_initial_keys),
        cmocka_unit_test(test_unset_defaults),
        cmocka_unit_test(test_built_in_code),
        cmocka_unit_test(test_integrator_and_types),
        cmocka_unit_test(test_sweep_analysis_paths),
        cmocka_unit_test(test_csv_empty_field),
        cmocka_unit_test(test_keys_documented),
        cmocka_unit_test(test_number_underflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
