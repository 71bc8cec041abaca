/* Model-file loader tests (src/io/yaml_model.c): a full valid model with
 * defaults, points, laws, motion and analyses; a valid model file with
 * resolved names, points and source locations; and each class of error at
 * its exact line and column (the files in tests/models/bad_*.yaml). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_model),
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_not_a_model),
        cmocka_unit_test(test_moving_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
