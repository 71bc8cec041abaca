/* The model-file key of elastic links of mechanisms (kedyn/ked.h,
 * docs/model-format.md "Elastic links"): a beam's floating `frame`. The
 * `coupling` of a dynamics analysis and the `modes_along_motion` analysis are
 * read through their key tables (src/load/yaml_analysis.c). Called from
 * src/load/yaml_model.c. */
#include <string.h>

#include "yaml_schema.h"

/* `frame: chord` (default), `frame: root` (node 1), `frame: N` or `frame: {node: N}`. */
kd_status yaml_read_beam_frame(loader* ld, const node_t* v, kd_body_desc* b) {
    b->loc_frame = loc_of(v);
    if (v->type == YAML_SCALAR_NODE && scalar(v) && scalar(v)[0] >= '0' && scalar(v)[0] <= '9')
        return get_int(ld, v, "frame node", 1, &b->frame_node);
    if (v->type == YAML_SCALAR_NODE) {
        static const char* const frames[] = {"chord", "root"};
        int c = 0;
        kd_status st = get_choice(ld, v, "frame", frames, 2, &c);
        b->frame_node = c == 1 ? 1 : 0;
        return st;
    }
    int nt = 0;
    const kd_field* table = kd_frame_fields(&nt);
    field f[4];
    kd_status st = read_table(ld, v, "frame", table, nt, 0, b, f, 4);
    if (st) return st;
    b->loc_frame = loc_of(field_value(f, "node"));
    return KD_OK;
}
