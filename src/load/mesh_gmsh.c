/* Gmsh meshes (src/load/yaml_plate.h): the MSH 4.1 ASCII format, as
 * documented in the Gmsh reference manual ("MSH file format", version 4.1):
 * $MeshFormat, $PhysicalNames, $Entities, $Nodes and $Elements are read,
 * other sections skipped. The 2D elements become the plate's elements; the
 * nodes of the elements (of any dimension) of each entity carrying a
 * physical tag form the node set named by that physical group. Every error
 * is reported at the line and column of the .msh file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaml_plate.h"

typedef struct lexer {
    const char* s;                /* the whole file, NUL-terminated */
    size_t pos;
    int line, col;                /* of the next character */
    int tline, tcol;              /* of the last token */
    char tok[256];
    loader* ld;
    const char* path;
} lexer;

#define FAILAT(lx, ...) kd_error_set((lx)->ld->err, KD_ERR_INPUT, (lx)->path, (kd_loc){(lx)->tline, (lx)->tcol}, __VA_ARGS__)

/* The next whitespace-separated token (a quoted string whole, without its
 * quotes); 0 at the end of the file. */
static int next(lexer* lx) {
    const char* s = lx->s;
    while (s[lx->pos] && strchr(" \t\r\n", s[lx->pos])) {
        if (s[lx->pos] == '\n') lx->line++, lx->col = 1;
        else lx->col++;
        lx->pos++;
    }
    lx->tline = lx->line, lx->tcol = lx->col;
    if (!s[lx->pos]) {
        lx->tok[0] = '\0';
        return 0;
    }
    size_t n = 0;
    if (s[lx->pos] == '"') {
        lx->pos++, lx->col++;
        while (s[lx->pos] && s[lx->pos] != '"' && s[lx->pos] != '\n') {
            if (n + 1 < sizeof lx->tok) lx->tok[n++] = s[lx->pos];
            lx->pos++, lx->col++;
        }
        if (s[lx->pos] == '"') lx->pos++, lx->col++;
    } else {
        while (s[lx->pos] && !strchr(" \t\r\n", s[lx->pos])) {
            if (n + 1 < sizeof lx->tok) lx->tok[n++] = s[lx->pos];
            lx->pos++, lx->col++;
        }
    }
    lx->tok[n] = '\0';
    return 1;
}

static kd_status get_long(lexer* lx, const char* what, long lo, long* out) {
    if (!next(lx)) return FAILAT(lx, "unexpected end of file: expected %s", what);
    char* end;
    errno = 0;
    const long v = strtol(lx->tok, &end, 10);
    if (*end || end == lx->tok || errno) return FAILAT(lx, "expected %s (a whole number), got '%s'", what, lx->tok);
    if (v < lo) return FAILAT(lx, "%s must be at least %ld (got %ld)", what, lo, v);
    *out = v;
    return KD_OK;
}

static kd_status get_int_lim(lexer* lx, const char* what, long lo, long hi, int* out) {
    long v = 0;
    kd_status st = get_long(lx, what, lo, &v);
    if (!st && v > hi) return FAILAT(lx, "%s is too large (%ld; at most %ld)", what, v, hi);
    if (!st) *out = (int)v;
    return st;
}

static kd_status get_real(lexer* lx, const char* what, double* out) {
    if (!next(lx)) return FAILAT(lx, "unexpected end of file: expected %s", what);
    char* end;
    const double v = strtod(lx->tok, &end);
    if (*end || end == lx->tok || !isfinite(v)) return FAILAT(lx, "expected %s (a number), got '%s'", what, lx->tok);
    *out = v;
    return KD_OK;
}

static kd_status expect_word(lexer* lx, const char* word) {
    if (!next(lx) || strcmp(lx->tok, word) != 0) return FAILAT(lx, "expected '%s'", word);
    return KD_OK;
}

/* Nodes of an element of a Gmsh element type, 0 for types not read. */
static int gmsh_nodes(int type, int* dim) {
    switch (type) {
    case 15: *dim = 0; return 1;   /* point */
    case 1: *dim = 1; return 2;    /* 2-node line */
    case 8: *dim = 1; return 3;    /* 3-node line */
    case 2: *dim = 2; return 3;    /* 3-node triangle */
    case 3: *dim = 2; return 4;    /* 4-node quadrangle */
    case 9: *dim = 2; return 6;    /* 6-node triangle */
    case 16: *dim = 2; return 8;   /* 8-node quadrangle */
    case 10: *dim = 2; return 9;   /* 9-node quadrangle */
    default: *dim = -1; return 0;
    }
}

#define NAMES_MAX 256
#define ENT_PHYS_MAX 8

typedef struct entity {
    int dim, tag, nphys;
    int phys[ENT_PHYS_MAX];
} entity;

typedef struct gmsh {
    int nnames;
    int name_dim[NAMES_MAX], name_tag[NAMES_MAX];
    char name[NAMES_MAX][KD_NAME_MAX];
    int nent, cap_ent;
    entity* ent;
    long max_tag;
    int* node_of_tag;             /* (max_tag + 1) -> 0-based node, -1 */
    int* z_loc;                   /* (2 nnodes) line and column of each node's z coordinate */
    /* per physical group (index into name arrays, or appended): node flags */
    int ngroup;
    int group_dim[NAMES_MAX], group_tag[NAMES_MAX];
    char* group_has[NAMES_MAX];   /* (nnodes) */
} gmsh;

static kd_status read_physical_names(lexer* lx, gmsh* g) {
    int n;
    kd_status st = get_int_lim(lx, "the number of physical names", 0, NAMES_MAX, &n);
    for (int i = 0; i < n && !st; i++) {
        if ((st = get_int_lim(lx, "a physical dimension", 0, 3, &g->name_dim[i])) ||
            (st = get_int_lim(lx, "a physical tag", 1, 2147483647L, &g->name_tag[i])))
            break;
        if (!next(lx)) return FAILAT(lx, "unexpected end of file: expected a physical name");
        if (strlen(lx->tok) >= KD_NAME_MAX) return FAILAT(lx, "physical name longer than %d characters", KD_NAME_MAX - 1);
        snprintf(g->name[i], KD_NAME_MAX, "%.63s", lx->tok);
        g->nnames = i + 1;
    }
    return st ? st : expect_word(lx, "$EndPhysicalNames");
}

static kd_status read_entities(lexer* lx, gmsh* g) {
    int count[4] = {0, 0, 0, 0};
    kd_status st = KD_OK;
    for (int d = 0; d < 4 && !st; d++) st = get_int_lim(lx, "a number of entities", 0, 1000000, &count[d]);
    const int total = count[0] + count[1] + count[2] + count[3];
    g->ent = calloc((size_t)(total ? total : 1), sizeof(entity));
    if (!g->ent) return KD_ERR_NOMEM;
    for (int d = 0; d < 4 && !st; d++)
        for (int i = 0; i < count[d] && !st; i++) {
            entity* e = &g->ent[g->nent++];
            double x = 0;
            int nphys = 0, nb = 0;
            e->dim = d;
            if ((st = get_int_lim(lx, "an entity tag", 1, 2147483647L, &e->tag))) break;
            for (int k = 0; k < (d == 0 ? 3 : 6) && !st; k++) st = get_real(lx, "a coordinate", &x);
            if (st || (st = get_int_lim(lx, "a number of physical tags", 0, 1000000, &nphys))) break;
            for (int k = 0; k < nphys && !st; k++) {
                int t;
                long tl = 0;
                if ((st = get_long(lx, "a physical tag", -2147483647L, &tl))) break;
                t = (int)labs(tl);
                if (e->nphys < ENT_PHYS_MAX) e->phys[e->nphys++] = t;
            }
            if (st || d == 0) continue;
            if ((st = get_int_lim(lx, "a number of bounding entities", 0, 100000000, &nb))) break;
            for (int k = 0; k < nb && !st; k++) {
                long t;
                st = get_long(lx, "a bounding entity tag", -2147483647L, &t);
            }
        }
    return st ? st : expect_word(lx, "$EndEntities");
}

static const entity* find_entity(const gmsh* g, int dim, int tag) {
    for (int i = 0; i < g->nent; i++)
        if (g->ent[i].dim == dim && g->ent[i].tag == tag) return &g->ent[i];
    return NULL;
}

static kd_status read_nodes(lexer* lx, gmsh* g, kd_mesh_desc* m) {
    int nblocks = 0, nnodes = 0;
    long mintag, maxtag;
    kd_status st;
    if ((st = get_int_lim(lx, "the number of node blocks", 0, 100000000, &nblocks)) ||
        (st = get_int_lim(lx, "the number of nodes", 1, 10000000, &nnodes)) ||
        (st = get_long(lx, "the smallest node tag", 0, &mintag)) || (st = get_long(lx, "the largest node tag", 0, &maxtag)))
        return st;
    if (maxtag > 50000000L || maxtag < mintag) return FAILAT(lx, "node tags up to %ld are not supported (at most 5e7)", maxtag);
    g->max_tag = maxtag;
    g->node_of_tag = malloc(sizeof(int) * (size_t)(maxtag + 1));
    m->node_x = malloc(sizeof(double) * 3 * (size_t)nnodes);
    m->node_tag = malloc(sizeof(int) * (size_t)nnodes);
    g->z_loc = malloc(sizeof(int) * 2 * (size_t)(nnodes > 0 ? nnodes : 1));
    if (!g->node_of_tag || !m->node_x || !m->node_tag || !g->z_loc) return KD_ERR_NOMEM;
    for (long t = 0; t <= maxtag; t++) g->node_of_tag[t] = -1;
    for (int b = 0; b < nblocks && !st; b++) {
        int dim = 0, tag = 0, param = 0, n = 0;
        if ((st = get_int_lim(lx, "an entity dimension", 0, 3, &dim)) || (st = get_int_lim(lx, "an entity tag", 0, 2147483647L, &tag)) ||
            (st = get_int_lim(lx, "the parametric flag", 0, 1, &param)) ||
            (st = get_int_lim(lx, "the number of nodes in the block", 0, nnodes, &n)))
            break;
        if (m->nnodes + n > nnodes) return FAILAT(lx, "more nodes than the %d announced", nnodes);
        const int first = m->nnodes;
        for (int i = 0; i < n && !st; i++) {
            long t;
            if ((st = get_long(lx, "a node tag", 1, &t))) break;
            if (t > maxtag) return FAILAT(lx, "node tag %ld exceeds the largest tag %ld announced", t, maxtag);
            if (g->node_of_tag[t] >= 0) return FAILAT(lx, "node %ld is defined twice", t);
            g->node_of_tag[t] = first + i;
            m->node_tag[first + i] = (int)t;
        }
        for (int i = 0; i < n && !st; i++) {
            for (int k = 0; k < 3 && !st; k++) st = get_real(lx, "a node coordinate", &m->node_x[3 * (first + i) + k]);
            g->z_loc[2 * (first + i)] = lx->tline, g->z_loc[2 * (first + i) + 1] = lx->tcol; /* of z */
            double u;
            for (int k = 0; k < (param ? dim : 0) && !st; k++) st = get_real(lx, "a parametric coordinate", &u);
        }
        m->nnodes += n;
    }
    if (!st && m->nnodes != nnodes) return FAILAT(lx, "%d nodes announced, %d given", nnodes, m->nnodes);
    return st ? st : expect_word(lx, "$EndNodes");
}

/* The group index of physical (dim, tag), added when new. */
static int group_of(gmsh* g, int dim, int tag, int nnodes) {
    for (int i = 0; i < g->ngroup; i++)
        if (g->group_dim[i] == dim && g->group_tag[i] == tag) return i;
    if (g->ngroup == NAMES_MAX) return -1;
    g->group_has[g->ngroup] = calloc((size_t)nnodes, 1);
    if (!g->group_has[g->ngroup]) return -1;
    g->group_dim[g->ngroup] = dim, g->group_tag[g->ngroup] = tag;
    return g->ngroup++;
}

static kd_status read_elements(lexer* lx, gmsh* g, kd_mesh_desc* m, int elem_nnode) {
    int nblocks = 0, nelem = 0;
    long t;
    kd_status st;
    if ((st = get_int_lim(lx, "the number of element blocks", 0, 100000000, &nblocks)) ||
        (st = get_int_lim(lx, "the number of elements", 0, 20000000, &nelem)) ||
        (st = get_long(lx, "the smallest element tag", 0, &t)) || (st = get_long(lx, "the largest element tag", 0, &t)))
        return st;
    m->elem_nnode = elem_nnode;
    m->elem = malloc(sizeof(int) * (size_t)(nelem ? nelem : 1) * (size_t)elem_nnode);
    m->elem_line = malloc(sizeof(int) * (size_t)(nelem ? nelem : 1));
    if (!m->elem || !m->elem_line) return KD_ERR_NOMEM;
    int seen = 0;
    for (int b = 0; b < nblocks && !st; b++) {
        int dim = 0, tag = 0, type = 0, n = 0, edim = 0;
        if ((st = get_int_lim(lx, "an entity dimension", 0, 3, &dim)) || (st = get_int_lim(lx, "an entity tag", 0, 2147483647L, &tag)) ||
            (st = get_int_lim(lx, "an element type", 1, 1000, &type)))
            break;
        const int tline = lx->tline, tcol = lx->tcol;
        if ((st = get_int_lim(lx, "the number of elements in the block", 0, nelem, &n))) break;
        const int nn = gmsh_nodes(type, &edim);
        if (nn == 0 || edim != dim) {
            lx->tline = tline, lx->tcol = tcol;
            return FAILAT(lx, "element type %d is not read (points, lines, triangles 3/6, quadrangles 4/8/9)", type);
        }
        if (dim == 2 && nn != elem_nnode) {
            lx->tline = tline, lx->tcol = tcol;
            return FAILAT(lx, "element type %d has %d nodes; the body's interpolation takes %d-node elements", type, nn,
                          elem_nnode);
        }
        if (seen + n > nelem) return FAILAT(lx, "more elements than the %d announced", nelem);
        const entity* ent = find_entity(g, dim, tag);
        int groups[ENT_PHYS_MAX], ng = 0;
        for (int k = 0; ent && k < ent->nphys; k++) {
            const int gi = group_of(g, dim, ent->phys[k], m->nnodes);
            if (gi < 0) return KD_ERR_NOMEM;
            groups[ng++] = gi;
        }
        for (int i = 0; i < n && !st; i++, seen++) {
            int nodes[9];
            if ((st = get_long(lx, "an element tag", 1, &t))) break;
            const int line = lx->tline;
            for (int a = 0; a < nn && !st; a++) {
                long nt;
                if ((st = get_long(lx, "a node tag", 1, &nt))) break;
                if (nt > g->max_tag || g->node_of_tag[nt] < 0) return FAILAT(lx, "element %ld names node %ld, which is not defined", t, nt);
                nodes[a] = g->node_of_tag[nt];
            }
            for (int k = 0; k < ng && !st; k++)
                for (int a = 0; a < nn; a++) g->group_has[groups[k]][nodes[a]] = 1;
            if (st || dim != 2) continue;
            memcpy(m->elem + (size_t)m->nelems * elem_nnode, nodes, sizeof(int) * (size_t)nn);
            m->elem_line[m->nelems++] = line;
        }
    }
    if (!st && seen != nelem) return FAILAT(lx, "%d elements announced, %d given", nelem, seen);
    return st ? st : expect_word(lx, "$EndElements");
}

/* Each physical group as a node set of b, named by its physical name (or
 * its tag when it has none). */
static kd_status groups_to_sets(loader* ld, gmsh* g, kd_body_desc* b) {
    for (int i = 0; i < g->ngroup; i++) {
        kd_node_set_desc* s = kd_body_add_node_set(b);
        if (!s) return KD_ERR_NOMEM;
        snprintf(s->name, KD_NAME_MAX, "%d", g->group_tag[i]);
        for (int k = 0; k < g->nnames; k++)
            if (g->name_dim[k] == g->group_dim[i] && g->name_tag[k] == g->group_tag[i]) snprintf(s->name, KD_NAME_MAX, "%s", g->name[k]);
        s->loc = b->mesh.loc;
        s->nodes = malloc(sizeof(int) * (size_t)(b->mesh.nnodes ? b->mesh.nnodes : 1));
        if (!s->nodes) return KD_ERR_NOMEM;
        for (int n = 0; n < b->mesh.nnodes; n++)
            if (g->group_has[i][n]) s->nodes[s->nnodes++] = n + 1;
    }
    (void)ld;
    return KD_OK;
}

kd_status yaml_read_gmsh(loader* ld, const node_t* at, const char* path, int elem_nnode, kd_body_desc* b) {
    char full[2048];
    if (path[0] == '/' || !ld->dir[0]) snprintf(full, sizeof(full), "%s", path);
    else snprintf(full, sizeof(full), "%s/%s", ld->dir, path);
    FILE* fp = fopen(full, "rb");
    if (!fp) return fail(ld, at, "cannot read mesh file '%s': %s", full, strerror(errno));
    char* text = NULL;
    size_t len = 0, cap = 0;
    kd_status st = KD_OK;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            cap = 2 * cap + 65536 + 1;
            char* p = realloc(text, cap);
            if (!p) {
                st = KD_ERR_NOMEM;
                break;
            }
            text = p;
        }
        const size_t got = fread(text + len, 1, cap - len - 1, fp);
        len += got;
        if (got == 0) break;
    }
    const int rerr = ferror(fp);
    fclose(fp);
    if (st) {
        free(text);
        return kd_error_set(ld->err, st, ld->file, KD_LOC_NONE, "out of memory");
    }
    if (rerr) {
        free(text);
        return fail(ld, at, "cannot read mesh file '%s'", full);
    }
    text[len] = '\0';
    if (strlen(text) != len) {
        free(text);
        return kd_error_set(ld->err, KD_ERR_INPUT, full, KD_LOC_START, "not a text file (a NUL byte); binary .msh files are not read");
    }
    lexer lx = {text, 0, 1, 1, 1, 1, "", ld, full};
    gmsh g;
    memset(&g, 0, sizeof(g));
    kd_mesh_desc* m = &b->mesh;
    kd_mesh_clear(m);
    int have_format = 0, have_nodes = 0, have_elements = 0;
    while (!st && next(&lx)) {
        if (strcmp(lx.tok, "$MeshFormat") == 0) {
            double version;
            int ft, ds;
            if ((st = get_real(&lx, "the format version", &version))) break;
            if (version < 4.1 - 1e-9 || version >= 5) {
                st = FAILAT(&lx, "MSH format version %g is not read (version 4.1 is; in Gmsh: -format msh41)", version);
                break;
            }
            if ((st = get_int_lim(&lx, "the file type", 0, 1, &ft))) break;
            if (ft != 0) {
                st = FAILAT(&lx, "binary .msh files are not read (ASCII is; in Gmsh: -bin 0)");
                break;
            }
            if ((st = get_int_lim(&lx, "the data size", 1, 16, &ds)) || (st = expect_word(&lx, "$EndMeshFormat"))) break;
            have_format = 1;
        } else if (!have_format) {
            st = FAILAT(&lx, "expected $MeshFormat first (not a Gmsh .msh file?)");
        } else if (strcmp(lx.tok, "$PhysicalNames") == 0) {
            st = read_physical_names(&lx, &g);
        } else if (strcmp(lx.tok, "$Entities") == 0) {
            st = read_entities(&lx, &g);
        } else if (strcmp(lx.tok, "$Nodes") == 0) {
            st = read_nodes(&lx, &g, m);
            have_nodes = 1;
        } else if (strcmp(lx.tok, "$Elements") == 0) {
            if (!have_nodes) st = FAILAT(&lx, "$Elements before $Nodes");
            else st = read_elements(&lx, &g, m, elem_nnode);
            have_elements = 1;
        } else if (lx.tok[0] == '$' && strncmp(lx.tok, "$End", 4) != 0) {
            char end[300];
            snprintf(end, sizeof end, "$End%s", lx.tok + 1);
            const int l0 = lx.tline, c0 = lx.tcol;
            while (next(&lx) && strcmp(lx.tok, end) != 0) {}
            if (!lx.tok[0]) {
                lx.tline = l0, lx.tcol = c0;
                st = FAILAT(&lx, "section without its %s", end);
            }
        } else {
            st = FAILAT(&lx, "unexpected '%s' outside a section", lx.tok);
        }
    }
    if (!st && (!have_format || !have_nodes || !have_elements))
        st = kd_error_set(ld->err, KD_ERR_INPUT, full, (kd_loc){lx.line, 1}, "the mesh file has no %s",
                          !have_format ? "$MeshFormat" : !have_nodes ? "$Nodes" : "$Elements");
    if (!st && m->nelems == 0)
        st = kd_error_set(ld->err, KD_ERR_INPUT, full, KD_LOC_START, "the mesh file has no 2D elements (triangles or quadrangles)");
    /* a plate lies in the x-y plane of its mesh; a shell anywhere (curved, folded, warped
     * quadrilaterals: theory.md sec. 14.6) */
    const double size = st ? 0 : kd_mesh_size(m);
    for (int i = 0; i < m->nnodes && !st && b->theory != KD_THEORY_SHELL; i++)
        if (fabs(m->node_x[3 * i + 2]) > 1e-9 * size)
            st = kd_error_set(ld->err, KD_ERR_INPUT, full, (kd_loc){g.z_loc[2 * i], g.z_loc[2 * i + 1]},
                              "node %d has z = %g: a plate's mesh lies in its x-y plane (z = 0)", m->node_tag[i], m->node_x[3 * i + 2]);
    if (!st) st = groups_to_sets(ld, &g, b);
    if (st == KD_ERR_NOMEM) kd_error_set(ld->err, st, ld->file, KD_LOC_NONE, "out of memory");
    free(text);
    free(g.ent);
    free(g.node_of_tag);
    free(g.z_loc);
    for (int i = 0; i < g.ngroup; i++) free(g.group_has[i]);
    return st;
}
