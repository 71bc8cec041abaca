/* The loader's guards against hostile input (src/load/yaml_limits.h).
 *
 * libyaml builds a document of any depth, size and alias structure it is
 * given, and its scanner is quadratic in the nesting depth (100 000 nested
 * '[' take seconds). So the text is first run through the event parser,
 * which stops at the first event over a cap: the cost of a refused file is
 * that of its first KD_YAML_DEPTH_MAX levels. Aliases are counted with the
 * size of what they refer to, so that a "billion laughs" document (each
 * anchor a list of aliases to the previous one) is refused by its expanded
 * size although libyaml would share the nodes.
 */
#include "yaml_limits.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* ---- reading a file under a cap ------------------------------------------ */

kd_status yaml_read_whole_file(const char* path, const char* what, int regular_only, char** out, size_t* len,
                               kd_error* err) {
    *out = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; no effect on a regular file */
    const int fd = open(path, O_RDONLY | (regular_only ? O_NONBLOCK : 0));
    if (fd < 0) return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot read %s: %s", what, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        const int e = errno;
        close(fd);
        return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot read %s: %s", what, strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot read %s: %s", what, strerror(EISDIR));
    }
    if (regular_only && !S_ISREG(sb.st_mode)) {
        close(fd);
        return kd_error_set(err, KD_ERR_INPUT, path, KD_LOC_START, "%s is not a regular file", what);
    }
    if (S_ISREG(sb.st_mode) && (uintmax_t)sb.st_size > KD_YAML_FILE_MAX) {
        close(fd);
        return kd_error_set(err, KD_ERR_INPUT, path, KD_LOC_START, "%s is larger than %u MiB (%jd bytes)", what,
                            KD_YAML_FILE_MAX >> 20, (intmax_t)sb.st_size);
    }
    size_t cap = S_ISREG(sb.st_mode) ? (size_t)sb.st_size + 1 : 65536, n = 0;
    char* buf = malloc(cap + 1);
    kd_status st = buf ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, path, KD_LOC_NONE, "out of memory");
    while (!st) {
        if (n == cap) {
            if (cap > KD_YAML_FILE_MAX) {
                st = kd_error_set(err, KD_ERR_INPUT, path, KD_LOC_START, "%s is larger than %u MiB", what,
                                  KD_YAML_FILE_MAX >> 20);
                break;
            }
            cap *= 2;
            char* nb = realloc(buf, cap + 1);
            if (!nb) {
                st = kd_error_set(err, KD_ERR_NOMEM, path, KD_LOC_NONE, "out of memory");
                break;
            }
            buf = nb;
        }
        const ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) st = kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot read %s: %s", what, strerror(errno));
        if (got <= 0) break;
        n += (size_t)got;
        if (n > KD_YAML_FILE_MAX)
            st = kd_error_set(err, KD_ERR_INPUT, path, KD_LOC_START, "%s is larger than %u MiB", what,
                              KD_YAML_FILE_MAX >> 20);
    }
    close(fd);
    if (st) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return KD_OK;
}

kd_loc yaml_offset_loc(const char* text, size_t len, size_t offset) {
    kd_loc loc = {1, 1};
    if (offset > len) offset = len;
    for (size_t i = 0; i < offset; i++) {
        const unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            loc.line++;
            loc.col = 1;
        } else if ((c & 0xC0) != 0x80) {  /* not a UTF-8 continuation byte: one more character */
            loc.col++;
        }
    }
    return loc;
}

/* ---- the event scan ------------------------------------------------------- */

/* The expanded size of each anchor, by name: open addressing, at most
 * ANCHORS_MAX names (a model has a few). */
#define ANCHORS_MAX 4096
#define ANCHOR_SLOTS (2 * ANCHORS_MAX)

typedef struct anchor {
    char* name;
    double size;
} anchor;

typedef struct scan {
    anchor* slots;               /* ANCHOR_SLOTS, allocated at the first anchor (a model without
                                    anchors neither zeroes nor touches its 32 pages) */
    int nanchors;
    double count[KD_YAML_DEPTH_MAX + 1];  /* nodes of each open collection, expanded */
    char* pending[KD_YAML_DEPTH_MAX + 1]; /* the anchor of each open collection (NULL: none) */
    int depth;
} scan;

static size_t anchor_hash(const char* s) {
    size_t h = 1469598103934665603u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static anchor* anchor_slot(scan* sc, const char* name) {
    size_t i = anchor_hash(name) % ANCHOR_SLOTS;
    while (sc->slots[i].name && strcmp(sc->slots[i].name, name) != 0) i = (i + 1) % ANCHOR_SLOTS;
    return &sc->slots[i];
}

/* Record an anchor's expanded size; 0 when the table is full (or no memory). */
static int anchor_set(scan* sc, const char* name, double size) {
    if (!sc->slots && !(sc->slots = calloc(ANCHOR_SLOTS, sizeof(anchor)))) return 0;
    anchor* a = anchor_slot(sc, name);
    if (!a->name) {
        if (sc->nanchors == ANCHORS_MAX || !(a->name = malloc(strlen(name) + 1))) return 0;
        strcpy(a->name, name);
        sc->nanchors++;
    }
    a->size = size;
    return 1;
}

static kd_status fail_at(kd_error* err, const char* name, yaml_mark_t m, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static kd_status fail_at(kd_error* err, const char* name, yaml_mark_t m, const char* fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kd_error_set(err, KD_ERR_INPUT, name, (kd_loc){(int)m.line + 1, (int)m.column + 1}, "%s", msg);
}

/* The syntax error of a parser, located: reader errors (bad encoding) carry
 * a byte offset, the others a mark. */
static kd_status syntax_error(const yaml_parser_t* p, const char* text, size_t len, const char* name, kd_error* err) {
    const kd_loc loc = p->error == YAML_READER_ERROR
                           ? yaml_offset_loc(text, len, p->problem_offset)
                           : (kd_loc){(int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1};
    return kd_error_set(err, KD_ERR_INPUT, name, loc, "YAML syntax: %s%s%s", p->problem ? p->problem : "error",
                        p->context ? " " : "", p->context ? p->context : "");
}

/* A node of expanded size `size` ends at the current depth: count it in
 * its parent, record its anchor. */
static kd_status node_done(scan* sc, const char* anchor_name, double size, const char* name, yaml_mark_t m,
                           kd_error* err) {
    sc->count[sc->depth] += size;
    if (sc->count[sc->depth] > KD_YAML_NODES_MAX)
        return fail_at(err, name, m, "the YAML document has more than %d nodes (aliases expanded)", KD_YAML_NODES_MAX);
    if (anchor_name && !anchor_set(sc, anchor_name, size))
        return fail_at(err, name, m, "more than %d YAML anchors", ANCHORS_MAX);
    return KD_OK;
}

static kd_status scan_event(scan* sc, const yaml_event_t* e, int* ndocs, const char* name, kd_error* err) {
    const yaml_mark_t m = e->start_mark;
    switch (e->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++*ndocs > 1) return fail_at(err, name, m, "a model file holds one YAML document (found a second)");
        return KD_OK;
    case YAML_SCALAR_EVENT:
        if (e->data.scalar.length > KD_YAML_SCALAR_MAX)
            return fail_at(err, name, m, "a YAML scalar is longer than %d bytes", KD_YAML_SCALAR_MAX);
        return node_done(sc, (const char*)e->data.scalar.anchor, 1.0, name, m, err);
    case YAML_ALIAS_EVENT: {
        const char* an = (const char*)e->data.alias.anchor;
        for (int k = 1; k <= sc->depth; k++)  /* libyaml would build a cycle */
            if (sc->pending[k] && strcmp(sc->pending[k], an) == 0)
                return fail_at(err, name, m, "YAML alias '*%.64s' refers to a node that contains it", an);
        const anchor* a = sc->slots ? anchor_slot(sc, an) : NULL;
        return node_done(sc, NULL, a && a->name ? a->size : 1.0, name, m, err);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        if (sc->depth == KD_YAML_DEPTH_MAX)
            return fail_at(err, name, m, "YAML nesting deeper than %d levels", KD_YAML_DEPTH_MAX);
        const yaml_char_t* an = e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.anchor
                                                                     : e->data.mapping_start.anchor;
        sc->depth++;
        sc->count[sc->depth] = 1.0;  /* the collection itself */
        sc->pending[sc->depth] = NULL;
        if (an && !(sc->pending[sc->depth] = strdup((const char*)an)))
            return kd_error_set(err, KD_ERR_NOMEM, name, KD_LOC_NONE, "out of memory");
        return KD_OK;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        if (sc->depth == 0) return KD_OK;  /* the parser guarantees balance */
        char* an = sc->pending[sc->depth];
        const double size = sc->count[sc->depth];
        sc->pending[sc->depth] = NULL;
        sc->depth--;
        const kd_status st = node_done(sc, an, size, name, m, err);
        free(an);
        return st;
    }
    default: return KD_OK;
    }
}

kd_status yaml_check_limits(const char* text, size_t len, const char* name, kd_error* err) {
    yaml_parser_t parser;
    scan* sc = calloc(1, sizeof(scan));
    if (!sc || !yaml_parser_initialize(&parser)) {
        free(sc);
        return kd_error_set(err, KD_ERR_NOMEM, name, KD_LOC_NONE, "out of memory");
    }
    yaml_parser_set_input_string(&parser, (const unsigned char*)text, len);
    kd_status st = KD_OK;
    int ndocs = 0, done = 0;
    while (!st && !done) {
        yaml_event_t e;
        if (!yaml_parser_parse(&parser, &e)) {
            st = syntax_error(&parser, text, len, name, err);
            break;
        }
        done = e.type == YAML_STREAM_END_EVENT;
        st = scan_event(sc, &e, &ndocs, name, err);
        yaml_event_delete(&e);
    }
    for (int i = 0; i <= KD_YAML_DEPTH_MAX; i++) free(sc->pending[i]);
    for (int i = 0; i < ANCHOR_SLOTS && sc->slots; i++) free(sc->slots[i].name);
    free(sc->slots);
    free(sc);
    yaml_parser_delete(&parser);
    return st;
}
