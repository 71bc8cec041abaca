/* Plate bodies of the model file (src/load/yaml_plate.h): material, mesh
 * (a structured rectangle or a Gmsh file), node sets (coordinate predicates,
 * explicit lists, Gmsh physical groups), and node references on plates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/element.h"
#include "yaml_plate.h"

/* Nodes per element of the body's element kind (its family's table). */
static int elem_nnode(const kd_body_desc* b) {
    const kd_element_kind kind = {b->theory, b->interpolation, 0};
    const kd_element_family* fam = kd_element_family_of(kind);
    return fam ? fam->nnode : 0;
}

static kd_status read_mesh(loader* ld, const node_t* v, kd_body_desc* b) {
    int nt = 0, n;
    const kd_field* table = kd_mesh_fields(&nt);
    field f[8];
    kd_mesh_desc* m = &b->mesh;
    m->loc = loc_of(v);
    kd_status st = read_table(ld, v, "mesh", table, nt, 0, m, f, 8);
    if (st) return st;
    node_t *rect = field_value(f, "rectangle"), *div = field_value(f, "divisions"), *file = field_value(f, "file"), *x;
    if (!!rect == !!file) return fail(ld, v, "mesh needs exactly one of 'rectangle' and 'file'");
    if ((x = field_value(f, "origin")) && (st = get_numbers(ld, x, "origin", 2, 3, m->origin, &n))) return st;
    if ((x = field_value(f, "x_axis")) && (st = get_numbers(ld, x, "x_axis", 2, 3, m->x_axis, &n))) return st;
    if ((x = field_value(f, "normal")) && (st = get_numbers(ld, x, "normal", 3, 3, m->normal, &n))) return st;
    const int nn = elem_nnode(b);
    if (nn == 0) return fail(ld, v, "body '%s': no element family takes theory %s with interpolation %s", b->name,
                            kd_theory_str(b->theory), kd_interp_str(b->interpolation));
    if (rect) {
        if (div == NULL) return fail(ld, v, "missing required key 'divisions' in mesh (with rectangle)");
        double d[2];
        m->source = KD_MESH_RECTANGLE;
        if ((st = get_numbers(ld, rect, "rectangle", 2, 2, m->size, &n))) return st;
        for (int k = 0; k < 2; k++)
            if (!(m->size[k] > 0)) return fail(ld, rect, "rectangle sides must be positive (got %g)", m->size[k]);
        if ((st = get_numbers(ld, div, "divisions", 2, 2, d, &n))) return st;
        for (int k = 0; k < 2; k++) {
            if (d[k] != floor(d[k]) || d[k] < 1 || d[k] > 100000)
                return fail(ld, div, "divisions must be whole numbers from 1 to 100000 (got %g)", d[k]);
            m->divisions[k] = (int)d[k];
        }
        if ((double)m->divisions[0] * m->divisions[1] > 2e7) return fail(ld, div, "more than 2e7 cells");
        st = kd_mesh_rectangle(m, nn);
        return st == KD_ERR_NOMEM ? kd_error_set(ld->err, st, ld->file, KD_LOC_NONE, "out of memory") : st;
    }
    if (div) return fail(ld, div, "divisions applies to a rectangle mesh");
    if (!scalar(file)) return fail(ld, file, "mesh file must be a file name");
    m->source = KD_MESH_FILE;
    snprintf(m->file, sizeof m->file, "%s", scalar(file));
    if ((st = yaml_read_gmsh(ld, file, m->file, nn, b))) return st;
    if ((st = kd_mesh_reorder(m, b))) return kd_error_set(ld->err, st, ld->file, KD_LOC_NONE, "out of memory");
    const int bad = kd_mesh_check_elements(m);
    if (bad >= 0) {
        char full[2048];
        if (m->file[0] == '/' || !ld->dir[0]) snprintf(full, sizeof(full), "%s", m->file);
        else snprintf(full, sizeof(full), "%s/%s", ld->dir, m->file);
        return kd_error_set(ld->err, KD_ERR_INPUT, full, (kd_loc){m->elem_line[bad], 1},
                            "element with a zero or negative Jacobian (degenerate, or its nodes numbered clockwise)");
    }
    return KD_OK;
}

/* One predicate: x: value or x: [lo, hi]. */
static kd_status read_range(loader* ld, const node_t* v, const char* what, double* lo, double* hi) {
    if (v->type == YAML_SCALAR_NODE) {
        kd_status st = get_number(ld, v, what, lo);
        *hi = *lo;
        return st;
    }
    double r[2];
    int n;
    kd_status st = get_numbers(ld, v, what, 2, 2, r, &n);
    if (!st && !(r[0] <= r[1])) return fail(ld, v, "%s: the range [%g, %g] is empty", what, r[0], r[1]);
    *lo = r[0], *hi = r[1];
    return st;
}

static kd_status read_node_sets(loader* ld, const node_t* map, kd_body_desc* b) {
    int nt = 0;
    const kd_field* table = kd_node_set_fields(&nt);
    kd_status st = expect(ld, map, YAML_MAPPING_NODE, "node_sets");
    for (yaml_node_pair_t* p = map->data.mapping.pairs.start; !st && p < map->data.mapping.pairs.top; p++) {
        node_t *k = node_at(ld, p->key), *v = node_at(ld, p->value), *x;
        char name[KD_NAME_MAX];
        if ((st = get_name(ld, k, "node set name", name))) break;
        if (kd_body_find_node_set(b, name) >= 0) return fail(ld, k, "node set '%s' of body '%s' is defined twice (or by the mesh file)", name, b->name);
        kd_node_set_desc* s = kd_body_add_node_set(b);
        if (!s) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
        snprintf(s->name, KD_NAME_MAX, "%s", name);
        s->loc = loc_of(v);
        field f[8];
        char what[KD_NAME_MAX + 16];
        snprintf(what, sizeof what, "node set '%s'", name);
        if ((st = read_table(ld, v, what, table, nt, 0, s, f, 8))) break;
        static const char* const axes[3] = {"x", "y", "z"};
        for (int a = 0; a < 3 && !st; a++)
            if ((x = field_value(f, axes[a]))) {
                s->axes |= 1u << a;
                st = read_range(ld, x, axes[a], &s->lo[a], &s->hi[a]);
            }
        if (st) break;
        node_t* list = field_value(f, "nodes");
        if (!!list == !!s->axes) return fail(ld, v, "%s needs either a coordinate predicate (x, y, z) or nodes", what);
        if (list) {
            if ((st = expect(ld, list, YAML_SEQUENCE_NODE, "nodes"))) break;
            const int n = (int)(list->data.sequence.items.top - list->data.sequence.items.start);
            s->nodes = malloc(sizeof(int) * (size_t)(n ? n : 1));
            if (!s->nodes) return kd_error_set(ld->err, KD_ERR_NOMEM, ld->file, KD_LOC_NONE, "out of memory");
            for (int i = 0; i < n && !st; i++) {
                node_t* item = node_at(ld, list->data.sequence.items.start[i]);
                int tag;
                if (!(st = get_int(ld, item, "node", 1, &tag))) st = yaml_body_node(ld, item, b, tag, &s->nodes[s->nnodes++]);
            }
        } else if ((st = kd_node_set_select(&b->mesh, s))) {
            return kd_error_set(ld->err, st, ld->file, KD_LOC_NONE, "out of memory");
        }
        if (!st && s->nnodes == 0) st = fail(ld, v, "%s selects no node of body '%s'", what, b->name);
    }
    return st;
}

kd_status yaml_read_plate_body(loader* ld, const node_t* v, field* f, kd_body_desc* b) {
    node_t *mat, *mesh, *x;
    char ref[KD_NAME_MAX];
    char what[KD_NAME_MAX + 16];
    snprintf(what, sizeof(what), "body '%s'", b->name);
    kd_status st;
    if ((st = require(ld, v, f, "material", what, &mat)) || (st = get_name(ld, mat, "material", ref))) return st;
    b->material = kd_desc_find_material(ld->d, ref);
    b->loc_material = loc_of(mat);
    if (b->material < 0) return fail(ld, mat, "unknown material '%s'", ref);
    b->planar = 0;
    if (elem_nnode(b) == 0) {
        node_t* at = field_value(f, "interpolation");
        return fail(ld, at ? at : v, "body '%s': no element family takes theory %s with interpolation %s (membrane: cst, "
                    "t6, q4, q8, q9; kirchhoff: dkt, acm, bfs; mindlin: mitc4; shell: dkt, mitc4, t6, q8, q9)", b->name,
                    kd_theory_str(b->theory), kd_interp_str(b->interpolation));
    }
    if ((st = require(ld, v, f, "mesh", what, &mesh)) || (st = read_mesh(ld, mesh, b))) return st;
    if ((x = field_value(f, "node_sets")) && (st = read_node_sets(ld, x, b))) return st;
    return KD_OK;
}

kd_status yaml_node_set(loader* ld, const node_t* at, const kd_body_desc* b, const kd_node_set_desc** set) {
    char name[KD_NAME_MAX];
    kd_status st = get_name(ld, at, "node set", name);
    if (st) return st;
    if (b->type != KD_BODY_PLATE) return fail(ld, at, "body '%s' has no node sets (node sets are a plate's)", b->name);
    const int i = kd_body_find_node_set(b, name);
    if (i < 0) {
        char list[256] = "";
        for (int k = 0; k < b->nnode_sets; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", b->node_sets[k].name);
        return fail(ld, at, "body '%s' has no node set '%s'%s%s%s", b->name, name, b->nnode_sets ? " (it has: " : "",
                    list, b->nnode_sets ? ")" : "");
    }
    *set = &b->node_sets[i];
    return KD_OK;
}

kd_status yaml_body_node(loader* ld, const node_t* at, const kd_body_desc* b, int tag, int* node) {
    if (b->type != KD_BODY_PLATE) {
        *node = tag;
        return KD_OK;
    }
    const int i = kd_mesh_find_tag(&b->mesh, tag);
    if (i < 0) return fail(ld, at, "body '%s' has no node %d", b->name, tag);
    *node = i + 1;
    return KD_OK;
}
