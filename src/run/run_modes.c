/* The `modes` analysis of elastic bodies (docs/model-format.md, "Analyses"): natural modes of a
 * structure at rest, or the state-space modes about a moving frame (gyroscopic, damping). */
#include "run_internal.h"

#include "kedyn/kedyn.h"
#include "kedyn/modes_gyro_sparse.h"
#include "kedyn/modes_speed.h"
#include "output/output_util.h"

static int model_moves(const kd_model* m) {
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].motion.type != KD_MOTION_NONE) return 1;
    return 0;
}

static int model_has_plates(const kd_model* m) {
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].type == KD_BODY_PLATE) return 1;
    return 0;
}

/* Plates: the mode shapes for ParaView too, STEM.vtu (every mode) and STEM.pvd (a series of
 * STEM_mode_K.vtu), listed after the CSV. */
static kd_status write_modes_vtk(const run_context* c, kd_analysis_report* a, kd_error* err) {
    char stem[64];
    if (c->ordinal == 1) snprintf(stem, sizeof stem, "%smodes", a->prefix);
    else snprintf(stem, sizeof stem, "%smodes_%d", a->prefix, c->ordinal);
    kd_status st = kd_write_modes_vtk(c->outdir, stem, c->m, &a->modes, err);
    for (int k = 0; k < 2 && !st && a->nfiles < KD_RUN_FILES_MAX; k++)
        snprintf(a->files[a->nfiles++], sizeof a->files[0], "%.56s.%s", stem, k ? "pvd" : "vtu");
    return st;
}

/* Symmetric solvers for a structure at rest, the state-space solver (gyroscopic, damping) when a
 * frame moves. */
static kd_status run_modes(const run_context* c, const kd_analysis_desc* analysis, kd_analysis_report* a,
                           kd_error* err) {
    const kd_modes_desc* ad = &analysis->modes;
    const kd_model* m = c->m;
    kd_status st;
    if (model_moves(m) && m->neq > KD_GYRO_MAX) {
        /* too large for the dense state-space solver: the symmetric modes at speed through sparse
         * matrices for models without gyroscopic coupling, the sparse state-space solver for the
         * others (kedyn/modes_gyro_sparse.h) */
        st = kd_modes_speed_sparse(m, ad->at, ad->count, &a->modes, err);
        if (st == KD_ERR_USAGE) st = kd_modes_state_space_sparse(m, NULL, ad->at, ad->count, &a->modes, err);
    } else if (model_moves(m)) {
        kd_system s;
        st = kd_system_init(&s, m, err);
        if (st) return st;
        st = kd_modes_state_space(&s, ad->at, ad->count, &a->modes, err);
        kd_system_free(&s);
    } else {
        st = kd_modes_solve(m, ad->count, ad->solver, &a->modes, err);
    }
    if (st) return st;
    if (a->modes.count < ad->count)
        snprintf(a->message, sizeof(a->message), "count %d exceeds the %d modes of the model; computed %d", ad->count,
                 m->neq, a->modes.count);
    if (a->modes.unstable)
        snprintf(a->message, sizeof(a->message),
                 "unstable at t = %g s: an eigenvalue has a positive real part (above the critical speed?)", ad->at);
    char path[1200];
    io_result_path(c->outdir, "modes", c->ordinal, a, path, sizeof(path));
    st = kd_write_modes_csv(path, m, &a->modes, err);
    if (st == KD_OK) a->nfiles++;
    if (st == KD_OK && model_has_plates(m)) st = write_modes_vtk(c, a, err);
    return st;
}

static const char* solver_name(kd_eigen_solver s) {
    return s == KD_EIGEN_LANCZOS ? "lanczos" : (s == KD_EIGEN_DENSE ? "dense" : "auto");
}

static void write_modes_summary(FILE* fp, const kd_analysis_report* a, run_entry_writer entry) {
    (void)entry;
    if (a->status != KD_OK) return;
    const double pi = 3.14159265358979323846;
    const kd_modes* r = &a->modes;
    fprintf(fp, ", \"count\": %d, \"solver\": \"%s\",\n      \"omega_rad_s\": ", r->count,
            r->growth ? "state-space" : solver_name(r->solver));
    io_json_array(fp, r->omega, r->count, 1.0);
    fprintf(fp, ",\n      \"frequency_hz\": ");
    io_json_array(fp, r->omega, r->count, 0.5 / pi);
    if (r->error_estimate) {  /* symmetric solvers (docs/model-format.md, "Analyses") */
        fprintf(fp, ",\n      \"factorization\": \"%s\", \"roundoff_estimate\": ",
                r->factor == KD_FACTOR_QR ? "qr" : "cholesky");
        io_json_array(fp, r->error_estimate, r->count, 1.0);
    }
    if (r->growth) {
        fprintf(fp, ",\n      \"growth_rate_1_s\": ");
        io_json_array(fp, r->growth, r->count, 1.0);
        fprintf(fp, ", \"unstable\": %s", r->unstable ? "true" : "false");
    }
}

/* The mode shapes of a successful analysis, drawn about the instant it was computed at. */
static int modes_animation_set(const kd_analysis_report* a, const kd_analysis_desc* ad, int index, kd_anim_set* set) {
    if (a->status != KD_OK || a->modes.count <= 0) return 0;
    *set = (kd_anim_set){index, a->files[0], &a->modes, ad->modes.at, NULL, NULL};
    return 1;
}

const run_analysis run_modes_entry = {KD_ANALYSIS_MODES, run_modes, write_modes_summary, 0, modes_animation_set};
