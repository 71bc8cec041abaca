/* Result writers: mode shapes as CSV (kedyn/run.h). summary.json is
 * written by run.c, which knows the whole run. */
#include "kedyn/atomic_file.h"
#include "kedyn/run.h"

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
