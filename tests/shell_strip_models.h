/* The model texts of the stress-stiffening tests of two-way shell links (ffr3d_shell_geo_test.c,
 * ffr3d_shell_geo_modal_test.c): a steel strip 0.5 x 0.04 m (nu = 0), 6 x 1 cells of CST + DKT
 * triangles, root edge x = 0 the support; KEYS: more body keys (`modes`, `geometric_stiffness`),
 * each a whole line.
 *   SHELL_STRIP_HUB(T, KEYS, LAW): thickness T, on a revolute hub at the origin about z driven by LAW;
 *   SHELL_STRIP_FREE(KEYS): thickness 0.004, free. */
#ifndef KEDYN_TESTS_SHELL_STRIP_MODELS_H
#define KEDYN_TESTS_SHELL_STRIP_MODELS_H

#define SHELL_STRIP_HUB(T, KEYS, LAW)                                                                 \
    "kedyn: 1\ntitle: hub\nspatial: true\n"                                                           \
    "materials:\n  steel: {E: 210e9, rho: 7800, nu: 0}\n"                                             \
    "bodies:\n  - {name: ground, type: ground, points: {O: [0, 0, 0]}}\n"                             \
    "  - name: strip\n    type: plate\n    theory: shell\n    interpolation: dkt\n"                   \
    "    material: steel\n    thickness: " T "\n" KEYS                                                \
    "    mesh: {rectangle: [0.5, 0.04], divisions: [6, 1]}\n"                                          \
    "    node_sets: {root: {x: 0}, tip: {x: 0.5}}\n    support: root\n    output: tip\n"              \
    "    points: {O: [0, 0, 0]}\n"                                                                    \
    "joints:\n  - {name: O, type: revolute, bodies: [ground, strip], points: [O, O], axis: [0, 0, 1]}\n" \
    "drivers:\n  - {joint: O, law: " LAW "}\n"                                                        \
    "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 0.04, dt: 2.0e-6}\n"

#define SHELL_STRIP_FREE(KEYS)                                                                        \
    "kedyn: 1\ntitle: free\nspatial: true\n"                                                          \
    "materials:\n  steel: {E: 210e9, rho: 7800, nu: 0}\n"                                             \
    "bodies:\n  - name: strip\n    type: plate\n    theory: shell\n    interpolation: dkt\n"         \
    "    material: steel\n    thickness: 0.004\n" KEYS                                               \
    "    mesh: {rectangle: [0.5, 0.04], divisions: [6, 1]}\n"                                          \
    "    node_sets: {root: {x: 0}}\n    support: root\n"                                              \
    "analyses:\n  - {type: dynamics, coupling: two-way, t_end: 0.01, dt: 2.0e-6}\n"

#endif
