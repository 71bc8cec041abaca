/* The rows of a stability map's CSV (stability_rows.h). */
#include "stability_rows.h"

#include <math.h>
#include <string.h>

const char* io_stability_csv_head(const kd_stability_map* s) {
    /* a plate's thickness axis (theory.md sec. 14.8): a thickness_m column */
    return s->nthick > 0 ? "hub_m,length_m,thickness_m,omega_cr_rad_s\n" : "hub_m,length_m,omega_cr_rad_s\n";
}

int io_stability_csv_row(char* buf, const kd_stability_map* s, size_t i, double w) {
    const size_t nt = s->nthick > 0 ? (size_t)s->nthick : 1, hl = i / nt;
    int n = io_fmt_g(buf, s->hub[hl / (size_t)s->nlengths], 10);
    buf[n++] = ',';
    n += io_fmt_g(buf + n, s->length[hl % (size_t)s->nlengths], 10);
    buf[n++] = ',';
    if (s->nthick > 0) {
        n += io_fmt_g(buf + n, s->thickness[i % nt], 10);
        buf[n++] = ',';
    }
    if (isinf(w)) {
        memcpy(buf + n, "inf", 3);
        n += 3;
    } else {
        n += io_fmt_g(buf + n, w, 10);
    }
    buf[n++] = '\n';
    buf[n] = '\0';
    return n;
}
