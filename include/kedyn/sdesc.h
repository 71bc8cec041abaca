/* kedyn: the description of a spatial rigid mechanism (`spatial: true`, docs/model-format.md,
 * "Spatial mechanisms"), read by src/load/yaml_spatial.c and compiled by kd_smech_compile
 * (kedyn/smech.h). Plain data with the location of every item; the joint types are in the order
 * of kd_sjoint_type (kd_sjoint_type_names). A spatial description keeps kd_desc's bodies, joints,
 * drivers and loads empty: planar mechanisms stay their own path (kedyn/mech.h).
 */
#ifndef KEDYN_SDESC_H
#define KEDYN_SDESC_H

#include "kedyn/desc.h"
#include "kedyn/desc_fields.h"
#include "kedyn/law.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KD_SJOINT_TYPE_COUNT 9

typedef struct kd_sbody_desc {
    char name[KD_NAME_MAX];
    int ground;                   /* 1: the fixed body (points global) */
    double mass;                  /* kg */
    double inertia[6];            /* Ixx, Iyy, Izz, Ixy, Iyz, Izx about the centre of mass, body axes */
    double com[3];                /* centre of mass, body frame */
    double position[3];           /* initial guess of the frame origin, global */
    double R[9];                  /* initial guess of the axes (row-major, global = R body) */
    double velocity[3];           /* of the centre of mass, global */
    double angular_velocity[3];   /* global */
    int npoints;
    kd_point_desc points[KD_POINTS_MAX];
    kd_loc loc, loc_inertia, loc_orientation;
    /* type: beam (an elastic link, kedyn/sked.h): mass, inertia and com from the beam */
    int beam;
    int material, section;        /* indices into kd_desc.materials, .sections */
    int elements;
    kd_theory theory;
    int frame_node;               /* 0: chord frame; 1: root (node 1 clamped) */
    int modes, statics;           /* modal reduction: modes (0: none); static correction 0 none,
                                     1 at the outputs (default), 2 in the basis, 3 (two-way) the
                                     static vectors but the stiff axial ones (theory.md F12) */
    double p1[3];                 /* node 1 (the first point), body frame */
    double length;                /* first to last point, along the body's x axis, m */
    int geometric_stiffness;      /* 1 (default): two-way links take the axial force's geometric stiffness */
    /* type: plate (a shell link, src/links/spatial_plate_link.c): mass, inertia and com from the mesh */
    int plate;
    kd_body_desc* shell;          /* owned: theory shell, interpolation, material, thickness, mesh, node sets */
    int support_set, output_set;  /* indices into shell->node_sets (output -1: every node) */
} kd_sbody_desc;

typedef struct kd_sjoint_desc {
    char name[KD_NAME_MAX];
    int type;                     /* index into kd_sjoint_type_names (kd_sjoint_type) */
    int body[2], point[2];        /* indices into kd_sdesc.bodies and their points */
    double axis[2][3];            /* axis (body 1's frame); universal: axis 1 in body 1, axis 2 in body 2 */
    double length;                /* distance: m, 0 = from the initial guess */
    kd_loc loc, loc_axis;
} kd_sjoint_desc;

typedef struct kd_sdriver_desc {
    int joint;                    /* index into kd_sdesc.joints */
    kd_law law;                   /* owned */
    double initial;
    kd_loc loc;
} kd_sdriver_desc;

typedef enum kd_sforce_kind { KD_SF_GRAVITY = 0, KD_SF_TORQUE, KD_SF_FORCE, KD_SF_SPRING, KD_SF_KINDS } kd_sforce_kind;

typedef struct kd_sforce_desc {
    kd_sforce_kind kind;
    double g[3];                  /* gravity */
    int body[2], point[2];        /* torque: body[0]; force: body[0], point[0]; spring: both */
    kd_law value[3];              /* torque, force: global components, owned */
    double k, length, c;          /* spring */
    kd_loc loc;
} kd_sforce_desc;

typedef struct kd_sdesc {
    int nbodies, njoints, ndrivers, nforces;
    kd_sbody_desc* bodies;
    kd_sjoint_desc* joints;
    kd_sdriver_desc* drivers;
    kd_sforce_desc* forces;
} kd_sdesc;

extern const char* const kd_sjoint_type_names[KD_SJOINT_TYPE_COUNT];
extern const char* const kd_sforce_kind_names[KD_SF_KINDS];

kd_sdesc* kd_sdesc_new(void);
void kd_sdesc_free(kd_sdesc** s);
/* Append a zeroed item (bodies: identity axes; joints: bodies and points -1); NULL: no memory. */
kd_sbody_desc* kd_sdesc_add_body(kd_sdesc* s);
kd_sjoint_desc* kd_sdesc_add_joint(kd_sdesc* s);
kd_sdriver_desc* kd_sdesc_add_driver(kd_sdesc* s);
kd_sforce_desc* kd_sdesc_add_force(kd_sdesc* s);
int kd_sdesc_find_body(const kd_sdesc* s, const char* name);
int kd_sdesc_find_joint(const kd_sdesc* s, const char* name);
int kd_sdesc_find_point(const kd_sdesc* s, int b, const char* name);

/* The keys (docs and the fuzz dictionary; the reader takes them by name). */
const kd_field* kd_sbody_fields(int* n);
const kd_field* kd_sorientation_fields(int* n);
const kd_field* kd_sjoint_fields(int* n);
const kd_field* kd_sforce_fields(int* n);

#ifdef __cplusplus
}
#endif
#endif
