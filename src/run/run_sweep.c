/* The `sweep` analysis (docs/model-format.md, "Sweeps"): an inner analysis once per value of
 * model or analysis numbers. The inner analysis runs through the dispatcher it is given
 * (run_context.dispatch), so this file does not depend on the table of analyses. */
#include "run_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "kedyn/kedyn.h"
#include "output/output_util.h"

/* Each run on a copy of the description with its values, recompiled; run k of sweep s writes its
 * files as sweep[s]_vK_NAME.csv. Stops at the first failure. */
static kd_status run_sweep(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a, kd_error* err) {
    const kd_sweep_desc* sw = &ad->sweep;
    a->sweep = ad;
    a->sub = calloc((size_t)sw->nruns, sizeof(*a->sub));
    if (!a->sub) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_status st = KD_OK;
    for (int i = 0; i < sw->nruns && !st && !kd_interrupted(); i++) {  /* SIGINT: no next run */
        kd_analysis_report* r = &a->sub[a->nsub++];
        r->type = sw->inner->type;
        r->sweep = ad;
        r->value = sw->values + (size_t)i * sw->nset;
        if (c->ordinal == 1) snprintf(r->prefix, sizeof(r->prefix), "sweep_v%d_", i + 1);
        else snprintf(r->prefix, sizeof(r->prefix), "sweep%d_v%d_", c->ordinal, i + 1);
        const double t0 = util_now_s();
        kd_desc dv;
        kd_model* mv = NULL;
        st = kd_desc_with_param(c->d, sw->nset, sw->set, r->value, &dv, err);
        if (st) {
            r->status = st;
            break;
        }
        kd_analysis_desc inner;  /* the analysis with its own swept numbers (analysis.KEY) */
        st = kd_analysis_with_param(sw->inner, sw->nset, sw->set, r->value, &inner, err);
        if (!st) st = kd_desc_check(&dv, err);
        if (!st) st = kd_model_compile(&dv, &mv, err);
        /* no progress or animation per run */
        const run_context rc = {&dv, mv, c->outdir, 1, NULL, NULL, 0, 0, c->dispatch, NULL};
        if (!st) st = c->dispatch(&rc, &inner, r, err);
        if (st) {
            /* say which value failed */
            char msg[sizeof(err->msg) + 200];
            snprintf(msg, sizeof(msg), "%s = %g%s: %s", sw->set[0], r->value[0], sw->nset > 1 ? ", ..." : "", err->msg);
            memcpy(err->msg, msg, sizeof(err->msg) - 1);  /* a long message is cut */
            err->msg[sizeof(err->msg) - 1] = '\0';
            snprintf(r->message, sizeof(r->message), "%s", err->msg);
        }
        r->status = st;
        r->wall_s = util_now_s() - t0;
        kd_model_free(&mv);
        kd_desc_with_param_free(&dv);
    }
    return st;
}

/* The swept parameters and the runs made, also after a failure. */
static void write_sweep_summary(FILE* fp, const kd_analysis_report* a, run_entry_writer entry) {
    if (!a->nsub) return;
    fprintf(fp, ", \"set\": [");
    for (int k = 0; k < a->sweep->sweep.nset; k++) {
        fprintf(fp, "%s", k ? ", " : "");
        io_json_string(fp, a->sweep->sweep.set[k]);
    }
    fprintf(fp, "],\n      \"runs\": [\n");
    for (int i = 0; i < a->nsub; i++) {
        fprintf(fp, "  ");
        entry(fp, &a->sub[i]);
        fprintf(fp, "%s\n", i + 1 < a->nsub ? "," : "");
    }
    fprintf(fp, "      ]");
}

const run_analysis run_sweep_entry = {KD_ANALYSIS_SWEEP, run_sweep, write_sweep_summary, 0, NULL};
