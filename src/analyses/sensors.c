/* Sensors on a compiled model and the results of record analyses (kedyn/measure.h). */
#include <stdlib.h>
#include <string.h>

#include "kedyn/measure.h"

kd_status kd_sensors_place(const kd_desc* d, const kd_model* m, const int* sensors, int n, kd_sensor_place* out,
                           kd_error* err) {
    memset(out, 0, sizeof(*out));
    out->eq = malloc(sizeof(int) * 3 * (size_t)(n ? n : 1));
    out->w = calloc(3 * (size_t)(n ? n : 1), sizeof(double));
    out->node = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!out->eq || !out->w || !out->node) {
        kd_sensor_place_free(out);
        return kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");
    }
    out->n = n;
    static const kd_dof_name trans[3] = {KD_DOF_U, KD_DOF_V, KD_DOF_W};
    for (int k = 0; k < n; k++) {
        const kd_sensor_desc* s = &d->sensors[sensors[k]];
        const int b = kd_model_find_body(m, d->bodies[s->body].name);
        if (b < 0 || s->node < 1 || s->node > m->body[b].node_num) {
            kd_sensor_place_free(out);
            return kd_error_set(err, KD_ERR_INPUT, d->file, s->loc, "sensor '%s': no such node", s->name);
        }
        const int node = m->body[b].node_adr + s->node - 1;
        out->node[k] = node;
        for (int j = 0; j < 3; j++) {
            out->eq[3 * k + j] = -1;
            if (s->direction[j] == 0.0) continue;
            int found = 0;
            for (int q = 0; q < m->node_dof_num[node]; q++) {
                const int dof = m->node_dof_adr[node] + q;
                if (m->dof_name[dof] == trans[j]) {
                    out->eq[3 * k + j] = m->dof_eq[dof];  /* -1 when fixed: reads nothing */
                    out->w[3 * k + j] = s->direction[j];
                    found = 1;
                }
            }
            if (!found && (s->direction[j] > 1e-12 || s->direction[j] < -1e-12)) {
                kd_sensor_place_free(out);
                return kd_error_set(err, KD_ERR_INPUT, d->file, s->loc,
                                    "sensor '%s' measures along %c, a translation its node does not have", s->name,
                                    "xyz"[j]);
            }
        }
    }
    return KD_OK;
}

void kd_sensor_place_free(kd_sensor_place* p) {
    free(p->eq);
    free(p->w);
    free(p->node);
    memset(p, 0, sizeof(*p));
}

void kd_sensors_read(const kd_sensor_place* p, const double* x, double* y) {
    for (int k = 0; k < p->n; k++) {
        double s = 0;
        for (int j = 0; j < 3; j++)
            if (p->eq[3 * k + j] >= 0) s += p->w[3 * k + j] * x[p->eq[3 * k + j]];
        y[k] = s;
    }
}

void kd_measure_result_free(kd_measure_result** rp) {
    if (!rp || !*rp) return;
    kd_measure_result* r = *rp;
    kd_record_free(&r->record);
    kd_frf_free(&r->frf);
    kd_modal_fit_free(&r->fit);
    free(r->mac);
    free(r);
    *rp = NULL;
}
