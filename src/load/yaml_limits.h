/* The model-file loader's guards against hostile input (src/load/yaml_limits.c):
 * files are read whole into memory under a size cap (a regular file, a pipe,
 * never an endless device), and a YAML text is scanned once through
 * libyaml's event stream, before the document is built, for what would make
 * building or walking it slow or huge: the nesting depth, the length of a
 * scalar, the number of nodes with every alias expanded (alias bombs), an
 * alias to a node that contains it (a cycle), and a second document. Each
 * refusal is located at the offending event. Calls nothing else of the
 * loader. */
#ifndef KEDYN_YAML_LIMITS_H
#define KEDYN_YAML_LIMITS_H

#include <stddef.h>

#include "kedyn/status.h"

#define KD_YAML_FILE_MAX (16u << 20)     /* bytes of a model or data file */
#define KD_YAML_DEPTH_MAX 64             /* nested mappings and sequences */
#define KD_YAML_SCALAR_MAX 65536         /* bytes of one scalar */
#define KD_YAML_NODES_MAX 2000000        /* nodes, aliases expanded */

#define yaml_read_whole_file(...) kdy_read_whole_file(__VA_ARGS__)
#define yaml_check_limits(...) kdy_check_limits(__VA_ARGS__)
#define yaml_offset_loc(...) kdy_offset_loc(__VA_ARGS__)

/* Read a file into a new NUL-terminated buffer (*len bytes, free()).
 * `regular_only`: refuse what is not a regular file (devices, pipes,
 * directories) without blocking on it. A file of more than KD_YAML_FILE_MAX
 * bytes is refused. Errors: KD_ERR_IO (cannot open or read; `what` names the
 * file in the message, e.g. "model file"), KD_ERR_INPUT (too large, not a
 * regular file), located at the file. */
kd_status yaml_read_whole_file(const char* path, const char* what, int regular_only, char** out, size_t* len,
                               kd_error* err);

/* Scan text (len bytes) through libyaml's event parser: a syntax error, a
 * depth, scalar or node count over the caps above, an alias inside the node
 * it refers to (a cycle), or a second document is an error (KD_ERR_INPUT) located in `name`. */
kd_status yaml_check_limits(const char* text, size_t len, const char* name, kd_error* err);

/* The 1-based line and column (in characters) of a byte offset of text. */
kd_loc yaml_offset_loc(const char* text, size_t len, size_t offset);

#endif
