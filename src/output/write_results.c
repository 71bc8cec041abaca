/* Result writers: mode shapes, Campbell diagrams and stability maps as CSV
 * (kedyn/run.h). summary.json is written by run.c, which knows the whole
 * run. */
#include <math.h>

#include "kedyn/atomic_file.h"
#include "kedyn/run.h"
#include "stability_rows.h"

kd_status kd_write_modes_csv(const char* path, const kd_model* m, const kd_modes* r, kd_error* err) {
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    fprintf(f.fp, "body,node,dof,x,y,z");
    for (int k = 0; k < r->count; k++) fprintf(f.fp, ",mode_%d", k + 1);
    fputc('\n', f.fp);
    for (int n = 0; n < m->nnode; n++) {
        double x[3];
        kd_model_node_position(m, n, x);
        const kd_body* b = &m->body[m->node_body[n]];
        for (int a = 0; a < m->node_dof_num[n]; a++) {
            const int i = m->node_dof_adr[n] + a, eq = m->dof_eq[i];
            fprintf(f.fp, "%s,%d,%s,%.9g,%.9g,%.9g", b->name, n - b->node_adr + 1, kd_dof_name_str(m->dof_name[i]),
                    x[0], x[1], x[2]);
            for (int k = 0; k < r->count; k++)
                fprintf(f.fp, ",%.10e", eq < 0 ? 0.0 : r->shape[(size_t)k * (size_t)r->neq + (size_t)eq]);
            fputc('\n', f.fp);
        }
    }
    return kd_atomic_commit(&f, err);
}

kd_status kd_write_campbell_csv(const char* path, const kd_campbell* c, kd_error* err) {
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    fprintf(f.fp, "speed_rad_s");
    for (int k = 0; k < c->count; k++) fprintf(f.fp, ",omega_%d", k + 1);
    fprintf(f.fp, ",unstable\n");
    for (int i = 0; i < c->nspeeds; i++) {
        fprintf(f.fp, "%.10g", c->speed[i]);
        for (int k = 0; k < c->count; k++) fprintf(f.fp, ",%.10g", c->omega[(size_t)i * c->count + k]);
        fprintf(f.fp, ",%d\n", c->unstable[i]);
    }
    return kd_atomic_commit(&f, err);
}

kd_status kd_write_stability_csv(const char* path, const kd_stability_map* s, kd_error* err) {
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    /* the rows as a parallel study streams them (stability_rows.h) */
    fputs(io_stability_csv_head(s), f.fp);
    const size_t n = (size_t)s->nhubs * (size_t)s->nlengths * (size_t)(s->nthick > 0 ? s->nthick : 1);
    char row[IO_STABILITY_ROW_MAX];
    for (size_t i = 0; i < n; i++) fwrite(row, 1, (size_t)io_stability_csv_row(row, s, i, s->omega_cr[i]), f.fp);
    return kd_atomic_commit(&f, err);
}
