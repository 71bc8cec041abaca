/* Models of the tests written as YAML text: model_from_text loads and compiles one (a failure fails
 * the test with the loader's located message); plate_model is the thesis plate 0.2 x 0.16 x 0.001 m
 * of steel, meshed nx x ny, w fixed on the four edges (supported) or nowhere. Include <cmocka.h>
 * first. */
#ifndef KEDYN_TESTS_MODEL_TEXT_H
#define KEDYN_TESTS_MODEL_TEXT_H

#include <stdio.h>
#include <string.h>

#include "kedyn/kedyn.h"

static inline kd_model* model_from_text(const char* text) {
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_string(text, strlen(text), "plate.yaml", &d, &err))
        fail_msg("%s:%d:%d: %s", err.file, err.loc.line, err.loc.col, err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
    kd_desc_free(&d);
    return m;
}

static inline kd_model* plate_model(const char* theory, const char* interp, int nx, int ny, int supported) {
    char text[2048];
    snprintf(text, sizeof text,
             "kedyn: 1\n"
             "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
             "bodies:\n"
             "  - name: plate\n"
             "    type: plate\n"
             "    theory: %s\n"
             "    interpolation: %s\n"
             "    material: steel\n"
             "    thickness: 0.001\n"
             "    mesh: {rectangle: [0.2, 0.16], divisions: [%d, %d]}\n"
             "    node_sets:\n"
             "      x0: {x: 0}\n"
             "      x1: {x: 0.2}\n"
             "      y0: {y: 0}\n"
             "      y1: {y: 0.16}\n"
             "%s",
             theory, interp, nx, ny,
             supported ? "supports:\n"
                         "  - {body: plate, nodes: x0, fix: [w]}\n"
                         "  - {body: plate, nodes: x1, fix: [w]}\n"
                         "  - {body: plate, nodes: y0, fix: [w]}\n"
                         "  - {body: plate, nodes: y1, fix: [w]}\n"
                       : "");
    return model_from_text(text);
}

#endif
