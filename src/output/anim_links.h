/* Recording a mechanism with elastic links for the animation
 * (src/output/anim_links.c): the rigid bodies' poses as the rigid recorder draws
 * them (src/output/anim_mech.h), and each elastic link as a beam whose pose is
 * its floating frame (x, y, phi of node 1) and whose nodal displacements
 * u, v, rz in that frame are drawn through the beam's shape functions
 * (kedyn/report.h). Used by the one-way and two-way runners
 * (src/run/run_links.c). Everything is allocated by anim_links_init; an
 * instant allocates nothing. Internal to src/output. */
#ifndef KEDYN_ANIM_KED_H
#define KEDYN_ANIM_KED_H

#include "kedyn/ffr.h"
#include "kedyn/ked.h"
#include "kedyn/report.h"

typedef struct anim_links {
    kd_anim_recorder* rec;        /* NULL: record nothing */
    const kd_desc* d;
    const kd_model* model;        /* the recorder's model (the whole mechanism) */
    const kd_ked* k;
    double* pose;                 /* (12 d->nbodies) */
    double* q;                    /* (model->neq) displacements of the instant */
    double* mq;                   /* (3 mech->nbody) rigid coordinates of the instant */
    double* disp;                 /* (3 x largest link node count) one link's u, v, rz */
    int* eq;                      /* per link and node: model equations of u, v, rz (-1: none) */
    int* eq_adr;                  /* (nlinks + 1) first entry of each link in eq */
    int cursor;                   /* rigid sample interval of the last instant */
} anim_links;

kd_status anim_links_init(anim_links* a, kd_anim_recorder* rec, const kd_desc* d, const kd_ked* k, kd_error* err);
void anim_links_free(anim_links* a);

/* 1 when an instant at t would be kept. */
int anim_links_due(const anim_links* a, double t);

/* Start an instant: the rigid bodies at mechanism coordinates mq (x, y, phi
 * of each centre of mass, kedyn/mech.h), or, with mq NULL, at the rigid
 * solution of k interpolated at t (cubic Hermite in q, q' between its
 * samples: exact at the samples). Links are undeformed until set. */
void anim_links_begin(anim_links* a, double t, const double* mq);
/* Link l: frame (x, y, phi of node 1) and displacements (u, v, rz per node,
 * in the frame; NULL: a.disp, filled by the caller). */
void anim_links_link(anim_links* a, int l, const double frame[3], const double* disp);
/* Keep the instant. */
void anim_links_commit(anim_links* a, double t);

/* A whole instant of the two-way coupled system s (kedyn/ffr.h) at state q,
 * when due: its bodies are the mechanism's moving bodies, in order. */
void anim_links_offer_ffr(anim_links* a, const kd_ffr_system* s, double t, const double* q);

#endif
