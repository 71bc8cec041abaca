/* Campbell diagram: frequencies of a moving system versus the speed of one
 * spinning body (kedyn/analysis.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/analysis.h"

void kd_campbell_free(kd_campbell* c) {
    free(c->speed);
    free(c->omega);
    free(c->growth);
    free(c->unstable);
    memset(c, 0, sizeof(*c));
}

kd_status kd_campbell_run(const kd_model* m, int body, const double* speeds, int nspeeds, int count,
                          kd_campbell* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    if (count > m->neq) count = m->neq;
    out->nspeeds = nspeeds;
    out->count = count;
    out->speed = malloc(sizeof(double) * (size_t)nspeeds);
    out->omega = calloc((size_t)nspeeds * (size_t)count, sizeof(double));
    out->growth = calloc((size_t)nspeeds * (size_t)count, sizeof(double));
    out->unstable = calloc((size_t)nspeeds, sizeof(int));
    kd_system s;
    kd_status st = kd_system_init(&s, m, err);
    if (st || !out->speed || !out->omega || !out->growth || !out->unstable) {
        if (!st) kd_system_free(&s);
        kd_campbell_free(out);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the Campbell diagram");
    }
    /* The spinning body follows a copy of its motion with a constant-speed
     * law (no tables in it, so a shallow copy is safe). */
    kd_motion spin = m->body[body].motion;
    spin.angle = kd_law_constant(0.0);
    spin.angle.type = KD_LAW_SPEED;
    s.motion[body] = &spin;
    for (int i = 0; i < nspeeds && !st; i++) {
        spin.angle.value = speeds[i];
        s.have_frames = 0;  /* the motion changed under the same t */
        out->speed[i] = speeds[i];
        kd_modes r;
        st = kd_modes_state_space(&s, 0.0, count, &r, err);
        if (st) break;
        for (int k = 0; k < r.count; k++) {
            out->omega[(size_t)i * count + k] = r.omega[k];
            out->growth[(size_t)i * count + k] = r.growth[k];
        }
        out->unstable[i] = r.unstable;
        kd_modes_free(&r);
    }
    kd_system_free(&s);
    if (st) kd_campbell_free(out);
    return st;
}
