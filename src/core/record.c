/* Measured records (kedyn/record.h): allocation and lookups. The readers are in src/load, the
 * writers in src/output. */
#include "kedyn/record.h"

#include <stdlib.h>
#include <string.h>

kd_record* kd_record_new(void) { return calloc(1, sizeof(kd_record)); }

void kd_record_free(kd_record** rp) {
    if (!rp || !*rp) return;
    kd_record* r = *rp;
    for (int i = 0; i < r->nchannels; i++) {
        free(r->channels[i].x);
        free(r->channels[i].re);
        free(r->channels[i].im);
    }
    free(r->channels);
    free(r->node_label);
    free(r->node_x);
    for (int i = 0; i < r->nmodes; i++) {
        free(r->modes[i].node);
        free(r->modes[i].value);
    }
    free(r->modes);
    free(r);
    *rp = NULL;
}

kd_channel* kd_record_add_channel(kd_record* r, int n, int complex_data) {
    if (n < 0) return NULL;
    kd_channel* c = realloc(r->channels, sizeof(*c) * (size_t)(r->nchannels + 1));
    if (!c) return NULL;
    r->channels = c;
    c = &r->channels[r->nchannels];
    memset(c, 0, sizeof(*c));
    c->re = calloc((size_t)(n ? n : 1), sizeof(double));
    c->im = complex_data ? calloc((size_t)(n ? n : 1), sizeof(double)) : NULL;
    if (!c->re || (complex_data && !c->im)) {
        free(c->re);
        free(c->im);
        return NULL;
    }
    c->n = n;
    c->function = KD_FUNCTION_TIME;
    c->precision = complex_data ? 6 : 4;
    r->nchannels++;
    return c;
}

kd_status kd_record_add_node(kd_record* r, int label, const double x[3]) {
    int* l = realloc(r->node_label, sizeof(int) * (size_t)(r->nnodes + 1));
    if (!l) return KD_ERR_NOMEM;
    r->node_label = l;
    double* p = realloc(r->node_x, sizeof(double) * 3 * (size_t)(r->nnodes + 1));
    if (!p) return KD_ERR_NOMEM;
    r->node_x = p;
    l[r->nnodes] = label;
    memcpy(p + 3 * r->nnodes, x, 3 * sizeof(double));
    r->nnodes++;
    return KD_OK;
}

kd_record_mode* kd_record_add_mode(kd_record* r, int nnodes, int ndv) {
    if (nnodes < 0 || ndv < 1) return NULL;
    kd_record_mode* m = realloc(r->modes, sizeof(*m) * (size_t)(r->nmodes + 1));
    if (!m) return NULL;
    r->modes = m;
    m = &r->modes[r->nmodes];
    memset(m, 0, sizeof(*m));
    m->node = calloc((size_t)(nnodes ? nnodes : 1), sizeof(int));
    m->value = calloc((size_t)(nnodes ? nnodes : 1) * (size_t)ndv, sizeof(double));
    if (!m->node || !m->value) {
        free(m->node);
        free(m->value);
        return NULL;
    }
    m->nnodes = nnodes;
    m->ndv = ndv;
    r->nmodes++;
    return m;
}

int kd_record_find_channel(const kd_record* r, const char* name) {
    for (int i = 0; i < r->nchannels; i++)
        if (strcmp(r->channels[i].name, name) == 0) return i;
    return -1;
}

double kd_channel_x(const kd_channel* c, int i) { return c->x ? c->x[i] : c->x0 + i * c->dx; }
