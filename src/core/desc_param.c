/* Model parameters by path, for parameter sweeps (kedyn/desc.h):
 *   materials.NAME.{E, rho, nu, G}          (the numbers of the material key table)
 *   sections.NAME.{d, t, b, h, A, Iy, Iz, J, shear_y, shear_z}  (of the section key
 *                                            table that its shape takes)
 *   bodies.NAME.{length, preload}           (a beam; length when given by its length)
 *   bodies.NAME.{mass, inertia, angle}      (a rigid body: the numbers of the body table)
 *   motion.BODY.hub
 *   motion.BODY.rotation.law.LAW            (LAW below)
 *   motion.BODY.planar.{x, y, phi}.LAW
 *   forces.N.value.LAW                      (N: the force's 1-based position in `forces`)
 *   forces.N.g.{x, y, z}                    (gravity)
 *   forces.N.KEY                            (the numbers of the force type's key table:
 *                                            spring k, length, c; friction force, v_smooth)
 *   damping.BODY.rayleigh.{alpha, beta}    (the rayleigh key table)
 *   joints.NAME.{length, radius}            (the numbers of the joint key table its
 *                                            type takes: distance length, rolling radius)
 *   drivers.JOINT.initial, drivers.JOINT.law.LAW   (the driver of that joint)
 *   analysis.KEY                            (a number of the swept analysis' key
 *                                            table: analysis.dt, analysis.t_end, ...)
 * LAW names a number of the law's own form: `value` (a constant), `speed`,
 * `sine.{amplitude, omega, phase, offset}`, `spin_up.{omega, T}`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/desc.h"
#include "kedyn/desc_fields.h"

#define WHY(...) (snprintf(why, nwhy, __VA_ARGS__), (double*)NULL)

/* Split the next dot-separated component of *p into tok. */
static int next(const char** p, char* tok, size_t n) {
    const char* s = *p;
    if (!s || !*s) return 0;
    const char* dot = strchr(s, '.');
    const size_t len = dot ? (size_t)(dot - s) : strlen(s);
    if (len == 0 || len >= n) return 0;
    memcpy(tok, s, len);
    tok[len] = '\0';
    *p = dot ? dot + 1 : s + len;
    return 1;
}

/* A number of a law by the law tables (src/core/desc_fields.c): `value` of
 * a constant, `speed`, FORM.KEY of the sine and spin_up forms. */
static double* law_param(kd_law* l, const char* rest, char* why, size_t nwhy) {
    if (l->type == KD_LAW_CONSTANT) {
        if (strcmp(rest, "value") == 0) return &l->value;
        return WHY("'%s' is not a parameter of this law (it has: value (a constant))", rest);
    }
    int nform = 0, n = 0;
    const kd_field* form = kd_law_form_fields(&nform);
    const int k = (int)l->type - 1;  /* its row in the form table */
    char keys[160] = "";
    if (k >= 0 && k < nform && form[k].type == KD_FIELD_NUMBER) {
        if (strcmp(rest, form[k].key) == 0) return (double*)((char*)l + form[k].offset);
        snprintf(keys, sizeof keys, "%s", form[k].key);
    }
    const kd_field* f = kd_law_fields(l->type, &n);
    const size_t len = k >= 0 && k < nform ? strlen(form[k].key) : 0;
    for (int i = 0; i < n; i++) {
        if (f[i].type != KD_FIELD_NUMBER) continue;
        if (strncmp(rest, form[k].key, len) == 0 && rest[len] == '.' && strcmp(rest + len + 1, f[i].key) == 0)
            return (double*)((char*)l + f[i].offset);
        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s.%s", keys[0] ? ", " : "", form[k].key, f[i].key);
    }
    return WHY("'%s' is not a parameter of this law (it has: %s)", rest, keys[0] ? keys : "nothing (a table)");
}

double* kd_desc_param(kd_desc* d, const char* path, char* why, size_t nwhy) {
    char head[KD_NAME_MAX], name[KD_NAME_MAX], key[KD_NAME_MAX];
    const char* p = path;
    if (!next(&p, head, sizeof head) || !next(&p, name, sizeof name))
        return WHY("'%s' is not a parameter path (SECTION.NAME.KEY...)", path);
    if (strcmp(head, "materials") == 0 || strcmp(head, "sections") == 0 || strcmp(head, "bodies") == 0) {
        if (!next(&p, key, sizeof key) || *p) return WHY("'%s': expected %s.%s.KEY", path, head, name);
        if (head[0] == 'm' || head[0] == 's') {  /* the numbers of the key tables (src/core/desc_fields.c) */
            const int mat = head[0] == 'm';
            const int i = mat ? kd_desc_find_material(d, name) : kd_desc_find_section(d, name);
            if (i < 0) return WHY("no %s '%s'", mat ? "material" : "section", name);
            char* base = mat ? (char*)&d->materials[i] : (char*)&d->sections[i];
            const unsigned shape = mat ? 0 : 1u << d->sections[i].shape;
            int n = 0;
            const kd_field* f = mat ? kd_material_fields(&n) : kd_section_fields(&n);
            char keys[128] = "";
            for (int k = 0; k < n; k++) {
                if (f[k].type != KD_FIELD_NUMBER || (shape && !(f[k].only & shape))) continue;
                if (strcmp(key, f[k].key) == 0) return (double*)(base + f[k].offset);
                snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", keys[0] ? ", " : "", f[k].key);
            }
            if (mat) return WHY("materials have %s (not '%s')", keys, key);
            return WHY("section '%s' (%s) has no dimension '%s' (it has %s)", name, kd_shape_str(d->sections[i].shape), key,
                       keys);
        }
        const int i = kd_desc_find_body(d, name);
        if (i < 0) return WHY("no body '%s'", name);
        kd_body_desc* b = &d->bodies[i];
        if (strcmp(key, "length") == 0 && b->npoints > 0)
            return WHY("body '%s' is given by points; its length is not a parameter", name);
        int n = 0;
        const kd_field* f = kd_body_fields(&n);
        char keys[128] = "";
        for (int k = 0; k < n; k++) {  /* the numbers its type takes (src/core/desc_fields.c) */
            if (f[k].type != KD_FIELD_NUMBER || !(f[k].only & (1u << b->type))) continue;
            if (strcmp(key, f[k].key) == 0) return (double*)((char*)b + f[k].offset);
            snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", keys[0] ? ", " : "", f[k].key);
        }
        return WHY("body '%s' has %s (not '%s')", name, keys[0] ? keys : "no parameters", key);
    }
    if (strcmp(head, "motion") == 0 || strcmp(head, "damping") == 0) {
        const int body = kd_desc_find_body(d, name);
        if (body < 0) return WHY("no body '%s'", name);
        if (head[0] == 'd') {
            for (int i = 0; i < d->ndampings; i++)
                if (d->dampings[i].body == body) {  /* the numbers of the rayleigh key table */
                    int n = 0;
                    const kd_field* f = kd_rayleigh_fields(&n);
                    char keys[128] = "";
                    for (int k = 0; k < n; k++) {
                        if (strncmp(p, "rayleigh.", 9) == 0 && strcmp(p + 9, f[k].key) == 0)
                            return (double*)((char*)&d->dampings[i] + f[k].offset);
                        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%srayleigh.%s", keys[0] ? ", " : "",
                                 f[k].key);
                    }
                    return WHY("damping has %s (not '%s')", keys, p);
                }
            return WHY("body '%s' has no damping entry", name);
        }
        kd_motion_desc* md = NULL;
        for (int i = 0; i < d->nmotions; i++)
            if (d->motions[i].body == body) md = &d->motions[i];
        if (!md) return WHY("body '%s' has no motion", name);
        kd_motion* mo = &md->motion;
        int n = 0;  /* the numbers of the motion key table (hub: of a rotation) */
        const kd_field* f = kd_motion_fields(&n);
        for (int k = 0; k < n && mo->type == KD_MOTION_ROTATION; k++)
            if (f[k].type == KD_FIELD_NUMBER && strcmp(p, f[k].key) == 0) return (double*)((char*)md + f[k].offset);
        if (strncmp(p, "rotation.law.", 13) == 0 && mo->type == KD_MOTION_ROTATION)
            return law_param(&mo->angle, p + 13, why, nwhy);
        if (strncmp(p, "planar.", 7) == 0 && mo->type == KD_MOTION_PLANAR) {
            kd_law* l = strncmp(p + 7, "x.", 2) == 0 ? &mo->x : strncmp(p + 7, "y.", 2) == 0 ? &mo->y
                      : strncmp(p + 7, "phi.", 4) == 0 ? &mo->phi : NULL;
            if (l) return law_param(l, strchr(p + 7, '.') + 1, why, nwhy);
        }
        return WHY("the motion of body '%s' has no parameter '%s' (hub, rotation.law.LAW, planar.x|y|phi.LAW)", name, p);
    }
    if (strcmp(head, "forces") == 0) {
        char* end;
        const long k = strtol(name, &end, 10);
        if (*end || k < 1 || k > d->nloads) return WHY("forces.N: N must be 1 to %d (got '%s')", d->nloads, name);
        kd_load_desc* l = &d->loads[k - 1];
        if (l->type == KD_LOAD_GRAVITY) {
            if (strcmp(p, "g.x") == 0) return &l->g[0];
            if (strcmp(p, "g.y") == 0) return &l->g[1];
            if (strcmp(p, "g.z") == 0) return &l->g[2];
            return WHY("gravity has g.x, g.y, g.z (not '%s')", p);
        }
        if (strncmp(p, "value.", 6) == 0) return law_param(&l->value, p + 6, why, nwhy);
        int n = 0;  /* the numbers of its type's key table (src/core/desc_fields.c) */
        const kd_field* f = kd_load_fields(l->type, &n);
        char keys[128] = "";
        if (l->type != KD_LOAD_SPRING && l->type != KD_LOAD_FRICTION) snprintf(keys, sizeof keys, "value.LAW");
        for (int i = 0; i < n; i++) {
            if (f[i].type != KD_FIELD_NUMBER) continue;
            if (strcmp(p, f[i].key) == 0) return (double*)((char*)l + f[i].offset);
            snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", keys[0] ? ", " : "", f[i].key);
        }
        return WHY("force %ld (%s) has %s (not '%s')", k, kd_load_type_name(l->type), keys[0] ? keys : "no parameters", p);
    }
    if (strcmp(head, "joints") == 0) {  /* the numbers its type takes (the joint key table) */
        const int i = kd_desc_find_joint(d, name);
        if (i < 0) return WHY("no joint '%s'", name);
        kd_joint_desc* j = &d->joints[i];
        int n = 0;
        const kd_field* f = kd_joint_fields(&n);
        char keys[128] = "";
        for (int k = 0; k < n; k++) {
            if (f[k].type != KD_FIELD_NUMBER || (f[k].only && !(f[k].only & (1u << j->type)))) continue;
            if (strcmp(p, f[k].key) == 0) return (double*)((char*)j + f[k].offset);
            snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", keys[0] ? ", " : "", f[k].key);
        }
        return WHY("joint '%s' (%s) has %s (not '%s')", name, kd_joint_type_str(j->type), keys[0] ? keys : "no parameters",
                   p);
    }
    if (strcmp(head, "drivers") == 0) {  /* by the driven joint's name */
        const int jt = kd_desc_find_joint(d, name);
        if (jt < 0) return WHY("no joint '%s'", name);
        for (int i = 0; i < d->ndrivers; i++) {
            if (d->drivers[i].joint != jt) continue;
            if (strncmp(p, "law.", 4) == 0) return law_param(&d->drivers[i].law, p + 4, why, nwhy);
            int n = 0;
            const kd_field* f = kd_driver_fields(&n);
            for (int k = 0; k < n; k++)
                if (f[k].type == KD_FIELD_NUMBER && strcmp(p, f[k].key) == 0)
                    return (double*)((char*)&d->drivers[i] + f[k].offset);
            return WHY("a driver has initial and law.LAW (not '%s')", p);
        }
        return WHY("joint '%s' has no driver", name);
    }
    if (kd_param_is_analysis(path)) return WHY("'%s' names a number of the swept analysis, not of the model", path);
    return WHY("'%s': a parameter path starts with materials, sections, bodies, motion, forces, damping, joints, drivers "
               "or analysis",
               path);
}

kd_status kd_desc_with_param(const kd_desc* d, int n, const char (*paths)[128], const double* values, kd_desc* out,
                             kd_error* err) {
    *out = *d;
    out->materials = NULL, out->sections = NULL, out->bodies = NULL;
    out->motions = NULL, out->loads = NULL, out->dampings = NULL;
    out->joints = NULL, out->drivers = NULL;
    /* shallow copies of the arrays a parameter lives in; laws' tables and
     * other owned arrays stay shared (read only) */
    struct { void** dst; const void* src; size_t bytes; } arr[] = {
        {(void**)&out->materials, d->materials, sizeof(*d->materials) * (size_t)d->nmaterials},
        {(void**)&out->sections, d->sections, sizeof(*d->sections) * (size_t)d->nsections},
        {(void**)&out->bodies, d->bodies, sizeof(*d->bodies) * (size_t)d->nbodies},
        {(void**)&out->motions, d->motions, sizeof(*d->motions) * (size_t)d->nmotions},
        {(void**)&out->loads, d->loads, sizeof(*d->loads) * (size_t)d->nloads},
        {(void**)&out->dampings, d->dampings, sizeof(*d->dampings) * (size_t)d->ndampings},
        {(void**)&out->joints, d->joints, sizeof(*d->joints) * (size_t)d->njoints},
        {(void**)&out->drivers, d->drivers, sizeof(*d->drivers) * (size_t)d->ndrivers}};
    for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++) {
        *arr[i].dst = malloc(arr[i].bytes ? arr[i].bytes : 1);
        if (!*arr[i].dst) {
            kd_desc_with_param_free(out);
            return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        }
        if (arr[i].bytes) memcpy(*arr[i].dst, arr[i].src, arr[i].bytes);
    }
    for (int k = 0; k < n; k++) {
        char why[256];
        if (kd_param_is_analysis(paths[k])) continue;  /* the swept analysis' own: kd_analysis_with_param */
        double* v = kd_desc_param(out, paths[k], why, sizeof why);
        if (!v) {
            kd_desc_with_param_free(out);
            return kd_error_set(err, KD_ERR_INPUT, d->file, KD_LOC_NONE, "%s", why);
        }
        *v = values[k];
    }
    return KD_OK;
}

void kd_desc_with_param_free(kd_desc* out) {
    free(out->materials);
    free(out->sections);
    free(out->bodies);
    free(out->motions);
    free(out->loads);
    free(out->dampings);
    free(out->joints);
    free(out->drivers);
    out->materials = NULL, out->sections = NULL, out->bodies = NULL;
    out->motions = NULL, out->loads = NULL, out->dampings = NULL;
    out->joints = NULL, out->drivers = NULL;
}

int kd_param_is_analysis(const char* path) { return strncmp(path, "analysis.", 9) == 0; }

double* kd_analysis_param(kd_analysis_desc* a, const char* path, char* why, size_t nwhy) {
    const char* key = kd_param_is_analysis(path) ? path + 9 : path;
    int n = 0;
    const kd_field* f = kd_analysis_fields(a->type, &n);
    char keys[256] = "";
    for (int i = 0; i < n; i++) {
        if (f[i].type != KD_FIELD_NUMBER) continue;
        if (strcmp(key, f[i].key) == 0) return (double*)((char*)kd_analysis_fields_base(a) + f[i].offset);
        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", keys[0] ? ", " : "", f[i].key);
    }
    return WHY("a %s analysis has no number '%s' (it has %s)", kd_analysis_type_name(a->type), key, keys);
}

kd_status kd_analysis_with_param(const kd_analysis_desc* a, int n, const char (*paths)[128], const double* values,
                                 kd_analysis_desc* out, kd_error* err) {
    *out = *a;  /* shallow: owned arrays stay a's (read only) */
    for (int k = 0; k < n; k++) {
        char why[256];
        if (!kd_param_is_analysis(paths[k])) continue;
        double* v = kd_analysis_param(out, paths[k], why, sizeof why);
        if (!v) return kd_error_set(err, KD_ERR_INPUT, "", a->loc, "%s", why);
        *v = values[k];
    }
    return KD_OK;
}
