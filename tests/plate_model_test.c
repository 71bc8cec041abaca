/* Plates from a model file (src/load/yaml_plate.c, mesh_gmsh.c, src/core/mesh.c,
 * src/fe/model_plate.c, src/output/write_vtk.c): the structured mesher, node
 * sets, Gmsh files (a mesh written here from the published MSH 4.1 layout),
 * the input errors at their line, the VTK files parsed back, and the modes of
 * the simply supported rectangular Kirchhoff plate against the closed form
 * omega_mn = pi^2 (m^2/a^2 + n^2/b^2) sqrt(D / (rho t)), D = E t^3 / (12 (1 - nu^2))
 * (Timoshenko & Woinowsky-Krieger, Theory of plates and shells, sec. 5.28; Leissa,
 * Vibration of plates, NASA SP-160, sec. 4.1). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"
#include "test_util.h"

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

/* The thesis plate (seed 000, sec. 5.3.3): a = 0.2, b = 0.16, t = 1 mm, steel; nu = 0.3 chosen. */
static const double A = 0.2, Bw = 0.16, T = 0.001, E = 210e9, RHO = 7800, NU = 0.3;

static double omega_ss(int m, int n) {
    const double D = E * T * T * T / (12 * (1 - NU * NU));
    return PI * PI * (m * m / (A * A) + n * n / (Bw * Bw)) * sqrt(D / (RHO * T));
}

/* The five lowest (m, n) of this plate: (1,1) (2,1) (1,2) (2,2) (3,1). */
static void omega_ss_lowest(double w[5]) {
    w[0] = omega_ss(1, 1), w[1] = omega_ss(2, 1), w[2] = omega_ss(1, 2), w[3] = omega_ss(2, 2), w[4] = omega_ss(3, 1);
}

static char tmpdir[256];

static void write_file(const char* name, const char* text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE* fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* Load a model text as if it were TMPDIR/model.yaml (mesh files beside it). */
static kd_status load(const char* text, kd_desc** d, kd_error* err) {
    char name[512];
    snprintf(name, sizeof name, "%s/model.yaml", tmpdir);
    return kd_load_yaml_string(text, strlen(text), name, d, err);
}

static kd_desc* load_ok(const char* text) {
    kd_desc* d = NULL;
    kd_error err;
    if (load(text, &d, &err)) fail_msg("%s:%d:%d: %s", err.file, err.loc.line, err.loc.col, err.msg);
    return d;
}

/* The model of the simply supported plate: w = 0 on the four edges. */
static void ss_model(char* buf, size_t n, const char* theory, const char* interp, const char* mesh) {
    snprintf(buf, n,
             "kedyn: 1\n"
             "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
             "bodies:\n"
             "  - name: plate\n"
             "    type: plate\n"
             "    theory: %s\n"
             "    interpolation: %s\n"
             "    material: steel\n"
             "    thickness: 0.001\n"
             "    mesh: %s\n"
             "    node_sets:\n"
             "      x0: {x: 0}\n"
             "      x1: {x: 0.2}\n"
             "      y0: {y: 0}\n"
             "      y1: {y: 0.16}\n"
             "supports:\n"
             "  - {body: plate, nodes: x0, fix: [w]}\n"
             "  - {body: plate, nodes: x1, fix: [w]}\n"
             "  - {body: plate, nodes: y0, fix: [w]}\n"
             "  - {body: plate, nodes: y1, fix: [w]}\n"
             "analyses:\n"
             "  - {type: modes, count: 5}\n",
             theory, interp, mesh);
}

static kd_modes modes_of(const kd_desc* d, int count, kd_model** keep) {
    kd_error err;
    kd_model* m = NULL;
    kd_modes r = {0};
    if (kd_model_compile(d, &m, &err) != KD_OK) fail_msg("compile: %s:%d:%d %s", err.file, err.loc.line, err.loc.col, err.msg);
    if (kd_modes_solve(m, count, KD_EIGEN_AUTO, &r, &err) != KD_OK) fail_msg("modes: %s", err.msg);
    if (keep) *keep = m;
    else kd_model_free(&m);
    return r;
}

/* ---- the structured mesher and node sets ---------------------------------- */

static void test_rectangle_mesher(void** state) {
    (void)state;
    /* nodes and elements of each element shape; numbering along the shorter side first */
    const int nn[5] = {3, 4, 6, 8, 9};
    const int nodes[5] = {5 * 4, 5 * 4, 9 * 7, 9 * 7 - 4 * 3, 9 * 7};
    const int elems[5] = {2 * 12, 12, 2 * 12, 12, 12};
    for (int k = 0; k < 5; k++) {
        kd_mesh_desc m = {0};
        m.size[0] = 2, m.size[1] = 1.5, m.divisions[0] = 4, m.divisions[1] = 3;
        assert_int_equal(kd_mesh_rectangle(&m, nn[k]), KD_OK);
        assert_int_equal(m.nnodes, nodes[k]);
        assert_int_equal(m.nelems, elems[k]);
        assert_int_equal(kd_mesh_check_elements(&m), -1);
        /* y runs first (3 divisions < 4): node 2 is (0, b / (p ny)) */
        const int p = nn[k] >= 6 ? 2 : 1;
        assert_near(m.node_x[3], 0.0, 0);
        assert_near(m.node_x[4], 1.5 / (p * 3), 1e-15);
        /* every element's area adds up to the rectangle's: sum of corner triangles */
        double area = 0;
        for (int e = 0; e < m.nelems; e++) {
            const int* c = m.elem + (size_t)e * m.elem_nnode;
            const int nc = (nn[k] == 3 || nn[k] == 6) ? 3 : 4;
            for (int i = 1; i + 1 < nc; i++) {
                const double* x0 = &m.node_x[3 * c[0]];
                const double* x1 = &m.node_x[3 * c[i]];
                const double* x2 = &m.node_x[3 * c[i + 1]];
                area += 0.5 * ((x1[0] - x0[0]) * (x2[1] - x0[1]) - (x1[1] - x0[1]) * (x2[0] - x0[0]));
            }
            /* mid-side nodes halfway between their corners */
            for (int s = 0; p == 2 && s < nc; s++) {
                const double* xm = &m.node_x[3 * c[nc + s]];
                const double* xa = &m.node_x[3 * c[s]];
                const double* xb = &m.node_x[3 * c[(s + 1) % nc]];
                assert_near(xm[0], 0.5 * (xa[0] + xb[0]), 1e-15);
                assert_near(xm[1], 0.5 * (xa[1] + xb[1]), 1e-15);
            }
        }
        assert_near(area, 3.0, 1e-12);
        /* a reversed element is caught */
        int* c = m.elem + (size_t)(m.nelems - 1) * m.elem_nnode;
        const int t = c[1];
        c[1] = c[2], c[2] = t;
        assert_int_equal(kd_mesh_check_elements(&m), m.nelems - 1);
        /* node sets: the edge x = 0 and a box */
        kd_node_set_desc s = {0};
        s.axes = 1, s.lo[0] = s.hi[0] = 0;
        assert_int_equal(kd_node_set_select(&m, &s), KD_OK);
        assert_int_equal(s.nnodes, p * 3 + 1);
        s.axes = 3, s.lo[0] = 0.5, s.hi[0] = 2, s.lo[1] = s.hi[1] = 1.5;
        assert_int_equal(kd_node_set_select(&m, &s), KD_OK);
        assert_int_equal(s.nnodes, p * 3 + 1);
        free(s.nodes);
        kd_mesh_clear(&m);
    }
}

/* ---- the simply supported plate: closed form -------------------------------- */

static void test_simply_supported(void** state) {
    (void)state;
    double ref[5];
    omega_ss_lowest(ref);
    /* element, mesh, tolerance on the five lowest (measured errors: docs/validation.md) */
    const struct {
        const char *theory, *interp, *mesh;
        double tol;
    } cases[] = {
        {"kirchhoff", "dkt", "{rectangle: [0.2, 0.16], divisions: [20, 16]}", 0.02},
        {"kirchhoff", "acm", "{rectangle: [0.2, 0.16], divisions: [20, 16]}", 0.01},
        {"kirchhoff", "bfs", "{rectangle: [0.2, 0.16], divisions: [10, 8]}", 0.002},
        {"mindlin", "mitc4", "{rectangle: [0.2, 0.16], divisions: [40, 32]}", 0.007},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char text[2048];
        int th = -1, ip = -1;
        for (int k = 0; k < KD_THEORIES; k++)
            if (strcmp(kd_theory_str((kd_theory)k), cases[c].theory) == 0) th = k;
        for (int k = 0; k < KD_INTERPS; k++)
            if (strcmp(kd_interp_str((kd_interp)k), cases[c].interp) == 0) ip = k;
        const kd_element_kind kind = {(kd_theory)th, (kd_interp)ip, 0};
        if (!kd_element_family_of(kind)) {  /* a family not built (yet): said, not hidden */
            print_message("SKIPPED: no element family for %s %s\n", cases[c].theory, cases[c].interp);
            continue;
        }
        ss_model(text, sizeof text, cases[c].theory, cases[c].interp, cases[c].mesh);
        kd_desc* d = load_ok(text);
        kd_modes r = modes_of(d, 5, NULL);
        for (int k = 0; k < 5; k++) {
            const double e = rel_err(r.omega[k], ref[k]);
            print_message("%s %s mode %d: %.6g rad/s, closed form %.6g, error %.2e\n", cases[c].theory, cases[c].interp,
                          k + 1, r.omega[k], ref[k], e);
            assert_true(e < cases[c].tol);
        }
        kd_modes_free(&r);
        kd_desc_free(&d);
    }
}

/* ---- Gmsh files ------------------------------------------------------------- */

/* An nx x ny quadrangle mesh of the plate in MSH 4.1 ASCII (Gmsh reference manual, "MSH file
 * format"): one surface (physical "plate"), four boundary curves (physical "edges"); node tags
 * numbered from the far corner (so kedyn's order differs from the file's). flip: the last
 * element's nodes clockwise. */
static char* gmsh_plate(int nx, int ny, int flip) {
    const int nn = (nx + 1) * (ny + 1), ne = nx * ny;
    size_t cap = 4096 + (size_t)nn * 80 + (size_t)ne * 60 + (size_t)(2 * (nx + ny)) * 40;
    char* s = malloc(cap);
    size_t n = 0;
#define OUT(...) n += (size_t)snprintf(s + n, cap - n, __VA_ARGS__)
#define TAG(i, j) (nn - ((j) * (nx + 1) + (i)))
    OUT("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n");
    OUT("$PhysicalNames\n2\n1 1 \"edges\"\n2 2 \"plate\"\n$EndPhysicalNames\n");
    OUT("$Entities\n0 1 1 0\n");
    OUT("1 0 0 0 0.2 0.16 0 1 1 0\n");
    OUT("1 0 0 0 0.2 0.16 0 1 2 1 1\n");
    OUT("$EndEntities\n");
    OUT("$Nodes\n1 %d 1 %d\n2 1 0 %d\n", nn, nn, nn);
    for (int j = 0; j <= ny; j++)
        for (int i = 0; i <= nx; i++) OUT("%d\n", TAG(i, j));
    for (int j = 0; j <= ny; j++)
        for (int i = 0; i <= nx; i++) OUT("%.17g %.17g 0\n", 0.2 * i / nx, 0.16 * j / ny);
    OUT("$EndNodes\n");
    const int nl = 2 * (nx + ny);
    OUT("$Elements\n2 %d 1 %d\n", nl + ne, nl + ne);
    OUT("1 1 1 %d\n", nl);
    int t = 1;
    for (int i = 0; i < nx; i++) OUT("%d %d %d\n", t++, TAG(i, 0), TAG(i + 1, 0));
    for (int j = 0; j < ny; j++) OUT("%d %d %d\n", t++, TAG(nx, j), TAG(nx, j + 1));
    for (int i = nx; i > 0; i--) OUT("%d %d %d\n", t++, TAG(i, ny), TAG(i - 1, ny));
    for (int j = ny; j > 0; j--) OUT("%d %d %d\n", t++, TAG(0, j), TAG(0, j - 1));
    OUT("2 1 3 %d\n", ne);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            const int last = flip && i == nx - 1 && j == ny - 1;
            if (last) OUT("%d %d %d %d %d\n", t++, TAG(i, j), TAG(i, j + 1), TAG(i + 1, j + 1), TAG(i + 1, j));
            else OUT("%d %d %d %d %d\n", t++, TAG(i, j), TAG(i + 1, j), TAG(i + 1, j + 1), TAG(i, j + 1));
        }
    OUT("$EndElements\n");
#undef OUT
#undef TAG
    return s;
}

static void test_gmsh_plate(void** state) {
    (void)state;
    char* msh = gmsh_plate(20, 16, 0);
    write_file("plate.msh", msh);
    free(msh);
    char text[2048];
    /* the Gmsh mesh, supported on its physical group "edges" */
    snprintf(text, sizeof text,
             "kedyn: 1\n"
             "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
             "bodies:\n"
             "  - {name: plate, type: plate, theory: mindlin, interpolation: mitc4, material: steel, thickness: 0.001,\n"
             "     mesh: {file: plate.msh}}\n"
             "supports:\n"
             "  - {body: plate, nodes: edges, fix: [w]}\n");
    kd_desc* dg = load_ok(text);
    const kd_body_desc* b = &dg->bodies[0];
    assert_int_equal(b->mesh.nnodes, 21 * 17);
    assert_int_equal(b->mesh.nelems, 20 * 16);
    assert_int_equal(b->nnode_sets, 2);
    assert_int_equal(dg->nsupports, 2 * (20 + 16));
    assert_int_equal(b->node_sets[kd_body_find_node_set(b, "plate")].nnodes, 21 * 17);
    kd_model* mg = NULL;
    kd_modes rg = modes_of(dg, 5, &mg);
    /* the structured mesh of the same elements */
    ss_model(text, sizeof text, "mindlin", "mitc4", "{rectangle: [0.2, 0.16], divisions: [20, 16]}");
    kd_desc* ds = load_ok(text);
    kd_model* ms = NULL;
    kd_modes rs = modes_of(ds, 5, &ms);
    for (int k = 0; k < 5; k++) {
        print_message("gmsh %.10g structured %.10g\n", rg.omega[k], rs.omega[k]);
        assert_true(rel_err(rg.omega[k], rs.omega[k]) < 1e-9);
    }
    /* the reordering of a Gmsh mesh keeps the band as narrow as the structured numbering */
    print_message("half-bandwidth: gmsh %d, structured %d\n", mg->bandwidth, ms->bandwidth);
    assert_true(mg->bandwidth <= ms->bandwidth);
    kd_modes_free(&rg);
    kd_modes_free(&rs);
    kd_model_free(&mg);
    kd_model_free(&ms);
    kd_desc_free(&dg);
    kd_desc_free(&ds);
}

/* ---- input errors, located ------------------------------------------------------ */

static void expect_error(const char* text, const char* file_suffix, int line, int col, const char* words) {
    kd_desc* d = NULL;
    kd_error err;
    kd_status st = load(text, &d, &err);
    kd_model* m = NULL;
    if (st == KD_OK) {  /* some errors are found when compiling */
        st = kd_model_compile(d, &m, &err);
        kd_model_free(&m);
        kd_desc_free(&d);
    }
    assert_int_equal(st, KD_ERR_INPUT);
    print_message("%s:%d:%d: error: %s\n", err.file, err.loc.line, err.loc.col, err.msg);
    const size_t lf = strlen(err.file), ls = strlen(file_suffix);
    assert_true(lf >= ls && strcmp(err.file + lf - ls, file_suffix) == 0);
    assert_int_equal(err.loc.line, line);
    if (col) assert_int_equal(err.loc.col, col);
    if (!strstr(err.msg, words)) fail_msg("message '%s' lacks '%s'", err.msg, words);
}

static const char head[] =
    "kedyn: 1\n"
    "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
    "bodies:\n"
    "  - name: plate\n"
    "    type: plate\n"
    "    theory: mindlin\n"
    "    interpolation: mitc4\n"
    "    material: steel\n";

static void test_errors(void** state) {
    (void)state;
    char text[2048];
    /* thickness <= 0: at the value */
    snprintf(text, sizeof text, "%s    thickness: -0.001\n    mesh: {rectangle: [1, 1], divisions: [2, 2]}\n", head);
    expect_error(text, "model.yaml", 9, 16, "thickness must be a positive number");
    snprintf(text, sizeof text, "%s    thickness: 0\n    mesh: {rectangle: [1, 1], divisions: [2, 2]}\n", head);
    expect_error(text, "model.yaml", 9, 16, "thickness must be a positive number");
    /* a node set that selects nothing: at the set */
    snprintf(text, sizeof text,
             "%s    thickness: 0.001\n    mesh: {rectangle: [1, 1], divisions: [2, 2]}\n"
             "    node_sets:\n      edge: {x: 1.5}\n",
             head);
    expect_error(text, "model.yaml", 12, 13, "node set 'edge' selects no node");
    /* a support naming a set the plate does not have */
    snprintf(text, sizeof text,
             "%s    thickness: 0.001\n    mesh: {rectangle: [1, 1], divisions: [2, 2]}\n"
             "    node_sets:\n      edge: {x: 1}\nsupports:\n  - {body: plate, nodes: egde, fix: [w]}\n",
             head);
    expect_error(text, "model.yaml", 14, 26, "no node set 'egde'");
    /* an inverted element of a Gmsh file: at its line of the file */
    char* msh = gmsh_plate(3, 2, 1);
    write_file("flip.msh", msh);
    free(msh);
    snprintf(text, sizeof text, "%s    thickness: 0.001\n    mesh: {file: flip.msh}\n", head);
    /* format 3 + names 5 + entities 5 + nodes (3 + 12 + 12 + 1) lines, then $Elements, its header,
     * the lines' block (1 + 10) and the quadrangles' (1 + 6): the last quadrangle is line 61 */
    expect_error(text, "flip.msh", 3 + 5 + 5 + 28 + 2 + 11 + 7, 1, "negative Jacobian");
    /* a mesh file that does not parse: at its line and column */
    write_file("broken.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n2 1 0 4\n1\n2\nthree\n4\n");
    snprintf(text, sizeof text, "%s    thickness: 0.001\n    mesh: {file: broken.msh}\n", head);
    expect_error(text, "broken.msh", 9, 1, "expected a node tag");
    write_file("v2.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n");
    snprintf(text, sizeof text, "%s    thickness: 0.001\n    mesh: {file: v2.msh}\n", head);
    expect_error(text, "v2.msh", 2, 1, "version 2.2 is not read");
    /* triangles where the interpolation takes quadrilaterals */
    write_file("tri.msh",
               "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n$EndNodes\n"
               "$Elements\n1 1 1 1\n2 1 2 1\n1 1 2 3\n$EndElements\n");
    snprintf(text, sizeof text, "%s    thickness: 0.001\n    mesh: {file: tri.msh}\n", head);
    expect_error(text, "tri.msh", 16, 5, "element type 2 has 3 nodes");
    /* a missing mesh file: at the key's value in the model */
    snprintf(text, sizeof text, "%s    thickness: 0.001\n    mesh: {file: none.msh}\n", head);
    expect_error(text, "model.yaml", 10, 18, "cannot read mesh file");
}

/* ---- VTK files, parsed back ------------------------------------------------------- */

/* The integer attribute `name="..."` after position p in s. */
static long attr(const char* s, const char* name) {
    char key[64];
    snprintf(key, sizeof key, "%s=\"", name);
    const char* at = strstr(s, key);
    assert_non_null(at);
    return strtol(at + strlen(key), NULL, 10);
}

/* The numbers of the DataArray named `name` (or the first after `tag` when name is NULL). */
static int data_array(const char* s, const char* tag, double* out, int max) {
    const char* at = strstr(s, tag);
    assert_non_null(at);
    at = strchr(at, '>') + 1;
    const char* end = strstr(at, "</DataArray>");
    int n = 0;
    char* p = (char*)at;
    while (p < end) {
        char* q;
        const double v = strtod(p, &q);
        if (q == p) break;
        if (n < max) out[n] = v;
        n++;
        p = q;
    }
    return n;
}

static void test_vtk(void** state) {
    (void)state;
    char text[2048];
    ss_model(text, sizeof text, "mindlin", "mitc4", "{rectangle: [0.2, 0.16], divisions: [4, 2]}");
    kd_desc* d = load_ok(text);
    kd_model* m = NULL;
    kd_modes r = modes_of(d, 3, &m);
    kd_error err;
    assert_int_equal(kd_write_modes_vtk(tmpdir, "modes", m, &r, &err), KD_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/modes.vtu", tmpdir);
    FILE* fp = fopen(path, "rb");
    assert_non_null(fp);
    static char buf[1 << 20];
    const size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    /* structure: 15 points, 8 quadrilaterals (VTK type 9), 4 connectivity entries each */
    assert_non_null(strstr(buf, "<VTKFile type=\"UnstructuredGrid\""));
    assert_int_equal(attr(buf, "NumberOfPoints"), 15);
    assert_int_equal(attr(buf, "NumberOfCells"), 8);
    double v[1024];
    assert_int_equal(data_array(buf, "Name=\"connectivity\"", v, 1024), 32);
    for (int k = 0; k < 32; k++) assert_true(v[k] >= 0 && v[k] < 15);
    assert_int_equal(data_array(buf, "Name=\"offsets\"", v, 1024), 8);
    assert_near(v[7], 32, 0);
    assert_int_equal(data_array(buf, "Name=\"types\"", v, 1024), 8);
    for (int k = 0; k < 8; k++) assert_near(v[k], 9, 0);
    assert_int_equal(data_array(strstr(buf, "<Points>"), "<DataArray", v, 1024), 45);
    assert_near(v[3 * 14], 0.2, 1e-12);  /* the last node: the far corner */
    assert_near(v[3 * 14 + 1], 0.16, 1e-12);
    /* mode 2 as point vectors: z is the w DOF of each node, x and y zero */
    assert_int_equal(data_array(buf, "Name=\"mode_2\"", v, 1024), 45);
    for (int node = 0; node < 15; node++) {
        double w = 0;
        for (int a = 0; a < m->node_dof_num[node]; a++) {
            const int i = m->node_dof_adr[node] + a;
            if (m->dof_name[i] == KD_DOF_W && m->dof_eq[i] >= 0) w = r.shape[(size_t)r.neq + m->dof_eq[i]];
        }
        assert_near(v[3 * node + 2], w, 1e-8 * fabs(w) + 1e-300);
        assert_near(v[3 * node], 0, 0);
    }
    /* the series: three datasets, each file a .vtu with a displacement vector */
    snprintf(path, sizeof path, "%s/modes.pvd", tmpdir);
    fp = fopen(path, "rb");
    assert_non_null(fp);
    const size_t np = fread(buf, 1, sizeof buf - 1, fp);
    buf[np] = '\0';
    fclose(fp);
    assert_non_null(strstr(buf, "<VTKFile type=\"Collection\""));
    int count = 0;
    for (const char* p = strstr(buf, "<DataSet"); p; p = strstr(p + 1, "<DataSet")) {
        const char* f = strstr(p, "file=\"") + 6;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(f, '"') - f), f);
        snprintf(path, sizeof path, "%s/%s", tmpdir, name);
        FILE* g = fopen(path, "rb");
        assert_non_null(g);
        char small[256];
        assert_true(fread(small, 1, sizeof small - 1, g) > 0);
        fclose(g);
        count++;
    }
    assert_int_equal(count, 3);
    kd_modes_free(&r);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* ---- the keys of the mesh and node-set tables are documented ------------------------- */

static void test_keys_documented(void** state) {
    (void)state;
    FILE* fp = fopen(KD_TEST_MODELS_DIR "/../../docs/model-format.md", "rb");
    assert_non_null(fp);
    static char doc[1 << 20];
    doc[fread(doc, 1, sizeof doc - 1, fp)] = '\0';
    fclose(fp);
    int n = 0, missing = 0;
    for (int t = 0; t < 2; t++) {
        const kd_field* f = t ? kd_node_set_fields(&n) : kd_mesh_fields(&n);
        for (int i = 0; i < n; i++) {
            char quoted[80];
            snprintf(quoted, sizeof quoted, "`%s`", f[i].key);
            if (!strstr(doc, quoted)) print_message("docs/model-format.md does not mention %s\n", quoted), missing++;
        }
    }
    assert_int_equal(missing, 0);
}

static int setup(void** state) {
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kedyn_plate_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void** state) {
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rectangle_mesher),
        cmocka_unit_test(test_keys_documented),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_vtk),
        cmocka_unit_test(test_simply_supported),
        cmocka_unit_test(test_gmsh_plate),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
