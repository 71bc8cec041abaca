/* Element records of the compiled model, shared by identical elements (model_body.h). */
#include <stdlib.h>
#include <string.h>

#include "model_body.h"

/* Index of an existing identical props record, or a new one (model_body.h). */
int model_find_or_add_prop(kd_model* m, int* cap, kd_element_kind kind, const kd_element_consts* c, double L,
                           kd_status* st) {
    for (int i = 0; i < m->nprop; i++) {
        const kd_element_props* p = &m->prop[i];
        if (p->L == L && memcmp(&p->kind, &kind, sizeof(kind)) == 0 && memcmp(&p->c, c, sizeof(*c)) == 0) return i;
    }
    if (m->nprop == *cap) {
        const int ncap = *cap ? 2 * *cap : 4;
        kd_element_props* np = realloc(m->prop, (size_t)ncap * sizeof(*np));
        if (!np) {
            *st = KD_ERR_NOMEM;
            return -1;
        }
        m->prop = np;
        *cap = ncap;
    }
    *st = kd_element_props_init(&m->prop[m->nprop], kind, c, L);
    return *st ? -1 : m->nprop++;
}
