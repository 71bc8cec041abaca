/* `kedyn check`: validate a model and print what it contains. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kedyn/load_yaml.h"

int cli_print_warnings(const kd_desc* d, const kd_model* m) {
    kd_error w[16];
    const int n = kd_model_warnings(d, m, w, 16);
    for (int i = 0; i < n && i < 16; i++) {
        char buf[1024];
        fprintf(stderr, "%s\n", kd_error_format(&w[i], buf, (int)sizeof(buf)));
    }
    return n;
}

void cli_print_model(const kd_desc* d, const kd_model* m) {
    int nfixed = m->ndof_all - m->neq;
    printf("model: %s%s%s%s\n", d->file[0] ? d->file : "(built in)", d->title[0] ? " (" : "", d->title,
           d->title[0] ? ")" : "");
    printf("bodies: %d\n", m->nbody);
    for (int b = 0; b < m->nbody; b++) {
        const kd_body* body = &m->body[b];
        if (body->type != KD_BODY_BEAM) {
            printf("  %-16s ground\n", body->name);
            continue;
        }
        printf("  %-16s beam  %s %s %s  elements %d  nodes %d  length %g m  mass %g kg\n", body->name,
               body->kind.planar ? "planar" : "3D", kd_theory_str(body->kind.theory), kd_interp_str(body->kind.interp),
               body->elem_num, body->node_num, body->length, body->mass);
    }
    printf("elements: %d\nnodes: %d\nDOF: %d (%d free, %d fixed), half-bandwidth %d\n", m->nelem, m->nnode,
           m->ndof_all, m->neq, nfixed, m->bandwidth);
    printf("analyses: %d\n", d->nanalyses);
    for (int i = 0; i < d->nanalyses; i++)
        if (d->analyses[i].type == KD_ANALYSIS_MODES) printf("  modes (count %d)\n", d->analyses[i].count);
}

int cmd_check(int argc, char** argv) {
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: kedyn check MODEL.yaml\n");
        return EXIT_USAGE;
    }
    kd_error err;
    kd_error_clear(&err);
    kd_desc* d = NULL;
    if (kd_load_yaml_file(argv[1], &d, &err)) return cli_report_error(&err);
    kd_model* m = NULL;
    if (kd_model_compile(d, &m, &err)) {
        kd_desc_free(&d);
        return cli_report_error(&err);
    }
    cli_print_model(d, m);
    const int nwarn = cli_print_warnings(d, m);
    printf("ok%s\n", nwarn ? " (with warnings)" : "");
    kd_model_free(&m);
    kd_desc_free(&d);
    return 0;
}
