#!/usr/bin/env python3
"""Writes the corpus of bad models (tests/bad_models/*.yaml, run by run.sh).

Each file's first line is `# expect: [FILE:]LINE:COL: error: PREFIX`: where the error must be
reported (FILE, relative to this folder, when it is a data file) and how its message must
begin. Two families:
  - key_*: every key of the key tables (`gen_dict --keys`, from src/core/desc_fields.c) with
    a value of the wrong type and, when the key has a range, a value outside it; the value is
    placed by this script, which therefore knows its line and column;
  - the cases written out below (YAML hazards, references, CSV tables, physics).
Usage: tests/bad_models/generate.py build/fuzz/gen_dict   (rewrites the generated files)
"""
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

BEAM = """kedyn: 1
materials:
  steel: {MAT}
sections:
  s: {SEC}
bodies:
  - {BODY}
supports:
  - {SUP}
@@
analyses:
  - {ANA}
"""
RIGID = """kedyn: 1
bodies:
  - {name: ground, type: ground, points: {O: [0, 0]}}
  - {ARM}
joints:
  - {JOINT}
drivers:
  - {DRV}
@@
analyses:
  - {ANA}
"""
BEAM_DEF = {"MAT": "{E: 2.1e11, nu: 0.3, rho: 7800}", "SEC": "{shape: circle, d: 0.02}",
            "BODY": "{name: rod, type: beam, material: steel, section: s, length: 1, elements: 4}",
            "SUP": "{body: rod, node: 1, fix: all}", "ANA": "{type: modes, count: 2}"}
RIGID_DEF = {"ARM": "{name: arm, type: rigid, mass: 1.5, inertia: 0.02, com: [0.4, 0], points: {O: [0, 0]}}",
             "JOINT": "{name: pivot, type: revolute, bodies: [ground, arm], points: [O, O]}",
             "DRV": "{joint: pivot, law: {speed: 1}}", "ANA": "{type: kinematics, t_end: 1, steps: 10}"}

# table -> (template, slot, base entries of the mapping, extra lines at @@, prefix before the mapping)
def ctx(template, slot, base, extra="", wrap=None):
    return (template, slot, base, extra, wrap)

SECTION_BASE = {3: "shape: circle, d: 0.02", 2: "shape: tube, d: 0.02, t: 0.002",
                4: "shape: rectangle, b: 0.02, h: 0.004", 8: "shape: generic, A: 1e-4, Iy: 5e-8, Iz: 5e-8, J: 1e-7"}
CONTEXTS = {
    "material": ctx(BEAM, "MAT", "E: 2.1e11, nu: 0.3, rho: 7800"),
    "section": ctx(BEAM, "SEC", None),
    "body/beam": ctx(BEAM, "BODY", "name: rod, type: beam, material: steel, section: s, length: 1, elements: 4"),
    "body/rigid": ctx(RIGID, "ARM", "name: arm, type: rigid, mass: 1.5, inertia: 0.02, com: [0.4, 0], points: {O: [0, 0]}"),
    "support": ctx(BEAM, "SUP", "body: rod, node: 1, fix: all"),
    "damping": ctx(BEAM, "@@", "body: rod, rayleigh: {alpha: 0, beta: 1e-5}", wrap="damping:\n  - {%s}"),
    "rayleigh": ctx(BEAM, "@@", "alpha: 0, beta: 1e-5", wrap="damping:\n  - {body: rod, rayleigh: {%s}}"),
    "joint": ctx(RIGID, "JOINT", None),
    "driver": ctx(RIGID, "DRV", "joint: pivot, law: {speed: 1}"),
    "law_form": ctx(RIGID, "DRV", None, wrap="joint: pivot, law: {%s}"),
    "sine": ctx(RIGID, "DRV", "amplitude: 1, omega: 2", wrap="joint: pivot, law: {sine: {%s}}"),
    "spin_up": ctx(RIGID, "DRV", "omega: 10, T: 0.5", wrap="joint: pivot, law: {spin_up: {%s}}"),
    "table": ctx(RIGID, "DRV", "t: [0, 1], value: [0, 1]", wrap="joint: pivot, law: {table: {%s}}"),
    "motion": ctx(BEAM, "@@", "body: rod, rotation: {axis: z, law: {speed: 10}}, hub: 0.1", wrap="motion:\n  - {%s}"),
    "initial": ctx(BEAM, "ANA", "mode: 1, amplitude: 1e-3", wrap="type: dynamics, t_end: 0.1, dt: 1e-4, initial: {%s}"),
    "initial_value": ctx(BEAM, "ANA", "body: rod, node: 2, dof: v, value: 1e-3",
                         wrap="type: dynamics, t_end: 0.1, dt: 1e-4, initial: {q: [{%s}]}"),
    "modes": ctx(BEAM, "ANA", "type: modes, count: 2"),
    "campbell": ctx(BEAM, "ANA", "type: campbell, speeds: [0, 10], count: 2"),
    "stability": ctx(BEAM, "ANA", "type: stability, hubs: [0, 0.1], lengths: [0.5], omega_max: 100"),
    "dynamics": ctx(BEAM, "ANA", "type: dynamics, t_end: 0.1, dt: 1e-4"),
    "kinematics": ctx(RIGID, "ANA", "type: kinematics, t_end: 1, steps: 10"),
    "inverse_dynamics": ctx(RIGID, "ANA", "type: inverse_dynamics, t_end: 1, steps: 10"),
    "modes_along_motion": ctx(RIGID, "ANA", "type: modes_along_motion, t_end: 1, steps: 10, count: 2"),
    "nodal": ctx(BEAM, "@@", "type: nodal, body: rod, node: 5, dof: v, value: 1", wrap="forces:\n  - {%s}"),
    "spring": ctx(RIGID, "@@", "type: spring, bodies: [ground, arm], points: [O, O], k: 100, length: 0.1",
                  wrap="forces:\n  - {%s}"),
    "friction": ctx(RIGID, "@@", "type: friction, joint: pivot, force: 1", wrap="forces:\n  - {%s}"),
    "virtual_test": ctx(BEAM, "ANA", "type: virtual_test, record: h, body: rod, node: 3, direction: [0, 1], rate: 1000, "
                        "length: 0.1"),
    "sensor": ctx(BEAM, "@@", "name: a1, body: rod, node: 2, direction: [0, 1]", wrap="sensors:\n  - {%s}"),
}
JOINT_BASE = {0: "name: pivot, type: revolute, bodies: [ground, arm], points: [O, O]",
              8: "name: pivot, type: distance, bodies: [ground, arm], points: [O, O], length: 0.5",
              16: "name: pivot, type: rolling, bodies: [ground, arm], points: [O, O], radius: 0.05"}


def fmt_num(x):
    return ("%.17g" % x) if x != int(x) or abs(x) > 1e15 else str(int(x))


def set_key(base, key, value):
    """The entries of base with key set to value, as the last entry (placed by this script)."""
    items = [e for e in split_top(base) if e.split(":")[0].strip() != key] if base else []
    return ", ".join(items + ["%s: %s" % (key, value)])


def split_top(s):
    out, depth, cur = [], 0, ""
    for c in s:
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def build(table, key, only, value):
    """(text, line, col of value) of a model whose `table` mapping has key: value."""
    name = table
    if table == "body":
        name = "body/beam" if only == 2 else "body/rigid" if only == 4 else "body/beam"
    template, slot, base, extra, wrap = CONTEXTS[name]
    if table == "section":
        base = SECTION_BASE[only if only else 3]
    if table == "joint":
        base = JOINT_BASE[only]
    if table == "law_form":
        base = ""
    entries = set_key(base, key, value)
    inner = wrap % entries if wrap else entries
    defaults = dict(BEAM_DEF if template is BEAM else RIGID_DEF)
    if slot != "@@":
        defaults[slot] = "{%s}" % inner
    text = template
    for k, v in defaults.items():
        text = text.replace("{%s}" % k, v)
    text = text.replace("@@\n", inner + "\n" if slot == "@@" else "")
    marker = "%s: %s" % (key, value)
    idx = text.index(marker) + len(key) + 2
    line = text[:idx].count("\n") + 1
    col = idx - (text.rfind("\n", 0, idx) + 1) + 1
    return text, line, col


def range_case(typ, rng, lo, hi, key):
    """(value, offset of the bad item in value, message prefix) outside the key's range, or None."""
    if typ == "int":
        bad = int(lo) - 1
        return str(bad), 0, "%s must be at least %d (got %d)" % (key, int(lo), bad)
    if typ not in ("number", "list"):
        return None
    if rng == "positive":
        v, msg = "0", "%s must be a positive number (got 0)" % key if typ == "number" else "%s must be positive" % key
    elif rng == "nonnegative":
        v, msg = "-1", "%s must be >= 0 (got -1)" % key
    elif rng == "closed":
        v, msg = fmt_num(hi + 1), "%s must lie in [" % key
    elif rng == "open":
        v = fmt_num(lo)
        msg = "%s must exceed %g (got %g)" % (key, lo, lo) if hi == float("inf") else "%s must lie in (%g, %g) (got %g)" % (key, lo, hi, lo)
    else:
        return None
    if typ == "list":
        return "[1, %s]" % v, 4, msg
    return v, 0, msg


TYPE_ERRORS = {"number": ("abc", "{k} must be a number"), "int": ("1.5", "{k} must be a whole number"),
               "bool": ("yes", "{k} must be true or false"), "choice": ("nonsense", "{k} must be one of: "),
               "body": ("nobody", "unknown body 'nobody'"), "list": ("abc", "{k} must be a list of numbers")}


def write(name, text, expect):
    with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="") as f:
        f.write("# expect: %s\n" % expect + text)


def key_cases(gen_dict):
    out = subprocess.run([gen_dict, "--keys"], check=True, capture_output=True, text=True).stdout
    count = 0
    for row in out.splitlines():
        table, key, typ, rng, lo, hi, only = row.split()
        lo, hi, only = float(lo), float(hi), int(only)
        if typ == "custom" or table not in CONTEXTS and table != "body" and table not in ("section", "joint"):
            continue
        if table == "body" and only and not only & 6:  # plate-only keys: tests/plate_model_test.c
            continue
        bad, msg = TYPE_ERRORS[typ]
        if table == "joint" and key == "type":
            msg = "joint type must be one of: "
        text, line, col = build(table, key, only, bad)
        write("key_%s_%s_type.yaml" % (table, key), text, "%d:%d: error: %s" % (line + 1, col, msg.format(k=key)))
        count += 1
        rc = range_case(typ, rng, lo, hi, key)
        if rc:
            value, off, msg = rc
            text, line, col = build(table, key, only, value)
            write("key_%s_%s_range.yaml" % (table, key), text, "%d:%d: error: %s" % (line + 1, col + off, msg))
            count += 1
    return count



def beam_model(**over):
    """The beam model of BEAM with some slots replaced ({NAME: text}); ANA last."""
    d = dict(BEAM_DEF)
    extra = over.pop("EXTRA", "")
    d.update(over)
    text = BEAM
    for k, v in d.items():
        text = text.replace("{%s}" % k, v)
    return text.replace("@@\n", extra + ("\n" if extra else ""))


def rigid_model(**over):
    d = dict(RIGID_DEF)
    extra = over.pop("EXTRA", "")
    d.update(over)
    text = RIGID
    for k, v in d.items():
        text = text.replace("{%s}" % k, v)
    return text.replace("@@\n", extra + ("\n" if extra else ""))


def at(text, marker, nth=0, file_line_offset=1):
    """LINE:COL of the nth occurrence of marker in text (the expect line comes first)."""
    idx = -1
    for _ in range(nth + 1):
        idx = text.index(marker, idx + 1)
    line = text[:idx].count("\n") + 1 + file_line_offset
    col = len(text[text.rfind("\n", 0, idx) + 1:idx]) + 1  # characters; an invalid byte is one
    return "%d:%d" % (line, col)


def lol(levels, width):
    """A "billion laughs" document: each anchor a list of `width` aliases to the one before."""
    s = "kedyn: 1\nx0: &a0 [%s]\n" % ", ".join(["1"] * width)
    for i in range(1, levels):
        s += "x%d: &a%d [%s]\n" % (i, i, ", ".join(["*a%d" % (i - 1)] * width))
    return s + "bodies: *a%d\n" % (levels - 1)


CSV_MODEL = rigid_model(DRV="{joint: pivot, law: {table: {file: data/%s, column: phi}}}")
POSE_MODEL = beam_model(EXTRA="motion:\n  - {body: rod, pose: {file: data/%s}}")


def hand_cases():
    """(file name, text, expect) of the cases written out: YAML hazards, references, tables, physics."""
    c = []

    def add(name, text, expect, data=None):
        c.append((name, text, expect, data))

    # ---- YAML hazards
    t = lol(10, 10)
    add("yaml_alias_bomb.yaml", t, "9:15: error: the YAML document has more than 2000000 nodes (aliases expanded)")
    t = "kedyn: 1\nm: &m {E: 2.1e11, nu: 0.3, rho: 7800}\n" + "".join(
        "l%d: &l%d [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n" % (i, i, *(["m" if i == 0 else "l%d" % (i - 1)] * 8))
        for i in range(9)) + "bodies: [*l8]\n"
    add("yaml_alias_bomb_mappings.yaml", t, "9:48: error: the YAML document has more than 2000000 nodes")
    # (the document's total passes 2M at the end of l5: 57 + 457 + ... + 1872457 nodes)
    t = "kedyn: 1\nbodies: " + "[" * 100000 + "\n"
    add("yaml_deep_flow_100k.yaml", t, "3:72: error: YAML nesting deeper than 64 levels")
    t = "kedyn: 1\nbodies: " + "{a: " * 200 + "1" + "}" * 200 + "\n"
    add("yaml_deep_flow_mappings.yaml", t, "3:%d: error: YAML nesting deeper than 64 levels" % (9 + 4 * 63))
    t = "kedyn: 1\nbodies:\n" + "".join("  " * i + "-\n" for i in range(100)) + "\n"
    add("yaml_deep_block.yaml", t, "%d:%d: error: YAML nesting deeper than 64 levels" % (4 + 63, 1 + 2 * 63))
    t = "kedyn: 1\ntitle: " + "x" * 70000 + "\nbodies: []\n"
    add("yaml_huge_scalar.yaml", t, "3:8: error: a YAML scalar is longer than 65536 bytes")
    t = beam_model(MAT="{E: 2" + "0" * 70000 + ", nu: 0.3, rho: 7800}")
    add("yaml_huge_number.yaml", t, at(t, "2000") + ": error: a YAML scalar is longer than 65536 bytes")
    t = beam_model(MAT="{E: 1e999, nu: 0.3, rho: 7800}")
    add("yaml_number_overflow.yaml", t, at(t, "1e999") + ": error: E is out of range")
    t = beam_model(MAT="{E: .nan, nu: 0.3, rho: 7800}")
    add("yaml_number_nan.yaml", t, at(t, ".nan") + ": error: E must be a number")
    t = beam_model(MAT="{E: 2.1e11 Pa, nu: 0.3, rho: 7800}")
    add("yaml_number_with_unit.yaml", t, at(t, "2.1e11") + ": error: E must be a number")
    t = beam_model(MAT="{E: '', nu: 0.3, rho: 7800}")
    add("yaml_number_empty.yaml", t, at(t, "''") + ": error: E must be a number")
    t = beam_model(MAT="{E: [2.1e11], nu: 0.3, rho: 7800}")
    add("yaml_number_list.yaml", t, at(t, "[2.1e11]") + ": error: E must be a number")
    t = beam_model(EXTRA="bodies:\n  - {name: other, type: ground}")
    add("yaml_duplicate_key_top.yaml", t, at(t, "bodies:", 1) + ": error: key 'bodies' appears twice in the model")
    t = beam_model(MAT="{E: 2.1e11, nu: 0.3, rho: 7800, E: 7e10}")
    add("yaml_duplicate_key.yaml", t, at(t, "E: 7e10") + ": error: key 'E' appears twice in material 'steel'")
    t = beam_model(SEC="{shape: circle, d: 0.02}\n  s: {shape: circle, d: 0.03}")
    add("yaml_duplicate_section.yaml", t, at(t, "s: {shape: circle, d: 0.03}") + ": error: section 's' is defined twice")
    t = rigid_model(ARM="{name: arm, type: rigid, mass: 1.5, inertia: 0.02, points: {O: [0, 0], O: [1, 0]}}")
    add("yaml_duplicate_point.yaml", t, at(t, "O: [1, 0]") + ": error: point 'O' is defined twice in body 'arm'")
    t = beam_model(EXTRA="output:\n  nodes: {rod: [2], rod: [3]}")
    add("yaml_duplicate_output_body.yaml", t, at(t, "rod: [3]") + ": error: body 'rod' is given twice in output nodes")
    t = beam_model().replace("analyses:\n  - ", "analyses:\n\t- ")
    add("yaml_tab_indent.yaml", t, at(t, "\t") + ": error: YAML syntax: found character that cannot start any token")
    t = "\ufeff" + beam_model(MAT="{E: -1, nu: 0.3, rho: 7800}")
    add("yaml_bom.yaml", t, at(t, "-1") + ": error: E must be a positive number (got -1)")
    t = beam_model(EXTRA="title: caf\u00e9 \u00e9t\u00e9", MAT="{E: 2.1e11, nu: 0.3, rho: -7800}")
    add("yaml_utf8_then_error.yaml", t, at(t, "-7800") + ": error: rho must be a positive number (got -7800)")
    t = beam_model(EXTRA="title: caf\udcff")
    add("yaml_invalid_utf8.yaml", t, at(t, "\udcff") + ": error: YAML syntax: invalid leading UTF-8 octet")
    t = beam_model(EXTRA="title: ab\udcc3(")
    add("yaml_invalid_utf8_trailing.yaml", t, at(t, "(") + ": error: YAML syntax: invalid trailing UTF-8 octet")
    t = beam_model(EXTRA="title: a\x00b")
    add("yaml_nul_byte.yaml", t, at(t, "\x00") + ": error: YAML syntax: control characters are not allowed")
    t = beam_model() + "---\nkedyn: 1\n"
    add("yaml_two_documents.yaml", t, at(t, "---") + ": error: a model file holds one YAML document")
    t = "kedyn: 1\nbodies: [{name: rod, type: beam\n"
    add("yaml_unclosed_flow.yaml", t, "4:1: error: YAML syntax: did not find expected ',' or '}'")
    t = beam_model(MAT="*steel")
    add("yaml_undefined_alias.yaml", t, at(t, "*steel") + ": error: YAML syntax: found undefined alias")
    t = beam_model(MAT="&m {E: 2.1e11, nu: 0.3, rho: 7800, G: *m}")
    add("yaml_recursive_alias.yaml", t, at(t, "*m") + ": error: YAML alias '*m' refers to a node that contains it")
    t = "# only a comment\n"
    add("yaml_empty.yaml", t, "1:1: error: the model file is empty")
    t = "- kedyn: 1\n"
    add("yaml_root_sequence.yaml", t, "2:1: error: expected a mapping for the model")
    t = beam_model().replace("kedyn: 1", "kedyn: 2")
    add("yaml_version.yaml", t, "2:8: error: unsupported format version (expected kedyn: 1)")
    t = beam_model().replace("kedyn: 1\n", "")
    add("yaml_no_version.yaml", t, "2:1: error: missing required key 'kedyn' in the model")
    t = beam_model().replace("bodies:", "bodys:")
    add("yaml_unknown_top_key.yaml", t, at(t, "bodys") + ": error: unknown key 'bodys' in the model")
    t = beam_model(MAT="{[E]: 2.1e11, nu: 0.3, rho: 7800}")
    add("yaml_key_not_text.yaml", t, at(t, "[E]") + ": error: unknown key '?' in material 'steel'")
    t = beam_model(EXTRA="title: [a, b]")
    add("yaml_title_list.yaml", t, at(t, "[a, b]") + ": error: title must be text")

    # ---- references to missing names, nodes and files
    t = beam_model(BODY="{name: rod, type: beam, material: steal, section: s, length: 1, elements: 4}")
    add("ref_unknown_material.yaml", t, at(t, "steal") + ": error: unknown material 'steal'")
    t = beam_model(BODY="{name: rod, type: beam, material: steel, section: q, length: 1, elements: 4}")
    add("ref_unknown_section.yaml", t, at(t, "q, length") + ": error: unknown section 'q'")
    t = beam_model(SUP="{body: rdo, node: 1, fix: all}")
    add("ref_unknown_body_support.yaml", t, at(t, "rdo") + ": error: unknown body 'rdo'")
    t = beam_model(SUP="{body: rod, node: 6, fix: all}")
    add("ref_support_node_range.yaml", t, at(t, "6, fix") + ": error: body 'rod' has nodes 1..5, not 6")
    t = beam_model(SUP="{body: rod, node: 1, fix: [u, q]}")
    add("ref_unknown_dof.yaml", t, at(t, "q]") + ": error: DOF name must be one of: ")
    t = beam_model(EXTRA="output:\n  nodes: {rod: [9]}")
    add("ref_output_node_range.yaml", t, at(t, "[9]") + ": error: ")
    t = beam_model(EXTRA="output:\n  nodes: {bar: [2]}")
    add("ref_output_unknown_body.yaml", t, at(t, "bar") + ": error: unknown body 'bar'")
    t = beam_model(EXTRA="forces:\n  - {type: nodal, body: rod, node: 7, dof: v, value: 1}")
    add("ref_nodal_node_range.yaml", t, at(t, "{type: nodal") + ": error: ")
    t = rigid_model(JOINT="{name: pivot, type: revolute, bodies: [ground, arn], points: [O, O]}")
    add("ref_joint_unknown_body.yaml", t, at(t, "arn") + ": error: unknown body 'arn'")
    t = rigid_model(JOINT="{name: pivot, type: revolute, bodies: [ground, arm], points: [O, P]}")
    add("ref_joint_unknown_point.yaml", t, at(t, "P]") + ": error: ")
    t = rigid_model(DRV="{joint: pivto, law: {speed: 1}}")
    add("ref_driver_unknown_joint.yaml", t, at(t, "pivto") + ": error: ")
    t = rigid_model(EXTRA="forces:\n  - {type: friction, joint: hinge, force: 1}")
    add("ref_friction_unknown_joint.yaml", t, at(t, "hinge") + ": error: ")
    t = rigid_model(EXTRA="forces:\n  - {type: torque, body: crank, value: 1}")
    add("ref_torque_unknown_body.yaml", t, at(t, "crank") + ": error: unknown body 'crank'")
    t = CSV_MODEL % "missing.csv"
    add("ref_missing_table_file.yaml", t, at(t, "data/missing.csv") + ": error: cannot read table file 'data/missing.csv'")
    t = POSE_MODEL % "missing_pose.csv"
    add("ref_missing_pose_file.yaml", t, at(t, "data/missing_pose.csv") + ": error: cannot read table file")
    t = rigid_model(DRV="{joint: pivot, law: {table: {file: /dev/zero, column: phi}}}")
    add("csv_dev_zero.yaml", t, at(t, "/dev/zero") + ": error: table file '/dev/zero' is not a regular file")
    t = rigid_model(DRV="{joint: pivot, law: {table: {file: data, column: phi}}}")
    add("csv_directory.yaml", t, at(t, "data, column") + ": error: cannot read table file 'data': Is a directory")

    # ---- malformed CSV tables (the location is in the table file)
    def csv(name, body, expect):
        t = CSV_MODEL % name
        add("csv_%s" % name.replace(".csv", ".yaml"), t, expect if not expect.startswith("@") else
            at(t, "data/") + expect[1:], (name, body))

    csv("ragged_short.csv", "t,phi,f\n0,0,1\n1,2\n2,3,4\n", "data/ragged_short.csv:3:1: error: this row has 2 columns, the header 3")
    csv("ragged_long.csv", "t,phi\n0,0\n1,2,3\n", "data/ragged_long.csv:3:1: error: this row has 3 columns, the header 2")
    csv("non_numeric.csv", "t,phi\n0,0\n1,abc\n", "data/non_numeric.csv:3:3: error: expected a number in column 2 (got 'abc')")
    csv("trailing_text.csv", "t,phi\n0,0\n1,2.5rad\n", "data/trailing_text.csv:3:3: error: expected a number in column 2 (got '2.5rad')")
    csv("time_text.csv", "t,phi\n0,0\nlater,1\n", "data/time_text.csv:3:1: error: expected a number in column 1 (got 'later')")
    csv("non_monotonic.csv", "t,phi\n0,0\n2,1\n1,2\n", "data/non_monotonic.csv:4:1: error: times must increase strictly (t = 1 after 2)")
    csv("repeated_time.csv", "t,phi\n0,0\n1,1\n1,2\n", "data/repeated_time.csv:4:1: error: times must increase strictly (t = 1 after 1)")
    csv("nan.csv", "t,phi\n0,0\n1, nan\n", "data/nan.csv:3:4: error: column 2 is not a finite number (got 'nan')")
    csv("infinite_time.csv", "t,phi\n0,0\ninf,1\n", "data/infinite_time.csv:3:1: error: column 1 is not a finite number (got 'inf')")
    csv("overflow.csv", "t,phi\n0,0\n1,1e400\n", "data/overflow.csv:3:3: error: column 2 is not a finite number (got '1e400')")
    csv("empty_field.csv", "t,phi,f\n0,0,1\n1,,2\n", "data/empty_field.csv:3:3: error: column 2 of this row is empty")
    csv("no_column.csv", "t,angle\n0,0\n1,1\n", "@: error: table file 'data/no_column.csv' has no column 'phi' (after t)")
    csv("empty.csv", "# nothing but a comment\n\n", "@: error: table file 'data/empty.csv' is empty")
    csv("one_row.csv", "t,phi\n0,0\n", "@: error: table file 'data/one_row.csv': a table needs at least 2 points (got 1)")
    csv("header_only.csv", "t,phi\n", "@: error: table file 'data/header_only.csv': a table needs at least 2 points (got 0)")
    csv("nul_byte.csv", "t,phi\n0,0\n1,\x001\n", "data/nul_byte.csv:3:3: error: NUL byte in this row")
    csv("wide.csv", ",".join(["t", "phi"] + ["c%d" % i for i in range(70)]) + "\n0,0\n",
        "data/wide.csv:1:1: error: more than 64 columns in this row")
    csv("semicolons.csv", "t;phi\n0;0\n1;1\n", "@: error: table file 'data/semicolons.csv' has no column 'phi' (after t)")
    csv("crlf_bad.csv", "t,phi\r\n0,0\r\n1,x\r\n", "data/crlf_bad.csv:3:3: error: expected a number in column 2 (got 'x')")
    t = rigid_model(DRV="{joint: pivot, law: {table: {file: data/ragged_short.csv, column: 0}}}")
    add("csv_column_zero.yaml", t, at(t, "data/") + ": error: table file 'data/ragged_short.csv' has no column '0' (after t)")
    t = rigid_model(DRV="{joint: pivot, law: {table: {file: data/ragged_short.csv, column: 9}}}")
    add("csv_column_past_end.yaml", t, at(t, "data/") + ": error: table file 'data/ragged_short.csv' has no column '9' (after t)")
    t = POSE_MODEL % "pose_ragged.csv"
    add("csv_pose_ragged.yaml", t, "data/pose_ragged.csv:3:1: error: this row has 6 columns, the header 7",
        ("pose_ragged.csv", "t,x,y,z,phi_x,phi_y,phi_z\n0,0,0,0,0,0,0\n1,0,0,0,0,0\n"))
    t = POSE_MODEL % "pose_no_phi_z.csv"
    add("csv_pose_missing_column.yaml", t, at(t, "data/") + ": error: table file 'data/pose_no_phi_z.csv' has no column 'phi_z'",
        ("pose_no_phi_z.csv", "t,x,y,z,phi_x,phi_y\n0,0,0,0,0,0\n1,0,0,0,0,0\n"))
    t = rigid_model(DRV="{joint: pivot, law: {table: {t: [0, 1, 1], value: [0, 1, 2]}}}")
    add("table_inline_repeated_time.yaml", t, at(t, "{t: [0") + ": error: table: table times must increase strictly")
    t = rigid_model(DRV="{joint: pivot, law: {table: {t: [0, 1, 2], value: [0, 1]}}}")
    add("table_inline_lengths.yaml", t, at(t, "[0, 1]}") + ": error: table: t and value have 3 and 2 entries")
    t = rigid_model(DRV="{joint: pivot, law: {table: {t: [0, 1], value: [0, 1], file: data/x.csv}}}")
    add("table_inline_and_file.yaml", t, at(t, "{t: [0") + ": error: missing required key 'column' in table")

    # ---- physically impossible inputs
    t = beam_model(BODY="{name: rod, type: beam, material: steel, section: s, points: {A: [0, 0], B: [0, 0]}, elements: 4}")
    add("phys_beam_points_coincide.yaml", t, at(t, "{A: [0, 0]") + ": error: the first and last points of body 'rod' coincide")
    t = beam_model(BODY="{name: rod, type: beam, material: steel, section: s, length: 0, elements: 4}")
    add("phys_zero_length.yaml", t, at(t, "0, elements") + ": error: length must be a positive number (got 0)")
    t = beam_model(BODY="{name: rod, type: beam, material: steel, section: s, length: 1, elements: 0}")
    add("phys_zero_elements.yaml", t, at(t, "0}", 1) + ": error: elements must be at least 1 (got 0)")
    t = beam_model(SEC="{shape: tube, d: 0.02, t: 0.02}")
    add("phys_tube_wall_too_thick.yaml", t, at(t, "{shape: tube") + ": error: ")
    t = beam_model(MAT="{E: 2.1e11, nu: 0.5, rho: 7800}")
    add("phys_incompressible.yaml", t, at(t, "0.5, rho") + ": error: nu must lie in (-1, 0.5) (got 0.5)")
    t = rigid_model(ARM="{name: arm, type: rigid, mass: 0, inertia: 0.02, points: {O: [0, 0]}}")
    add("phys_massless_body.yaml", t, at(t, "0, inertia") + ": error: mass must be a positive number (got 0)")
    t = """kedyn: 1
bodies:
  - {name: ground, type: ground, points: {A: [0, 0], D: [4.0, 0]}}
  - {name: crank, type: rigid, mass: 0.2, inertia: 1.667e-4, com: [0.05, 0], points: {A: [0, 0], B: [0.1, 0]}, angle: 0.5}
  - {name: coupler, type: rigid, mass: 0.5, inertia: 5.104e-3, com: [0.175, 0], points: {B: [0, 0], C: [0.35, 0]},
     position: [0.0878, 0.0479], angle: 0.3}
  - {name: rocker, type: rigid, mass: 0.4, inertia: 3.0e-3, com: [0.15, 0], points: {D: [0, 0], C: [0.3, 0]},
     position: [4.0, 0], angle: 1.9}
joints:
  - {name: jA, type: revolute, bodies: [ground, crank], points: [A, A]}
  - {name: jB, type: revolute, bodies: [crank, coupler], points: [B, B]}
  - {name: jC, type: revolute, bodies: [coupler, rocker], points: [C, C]}
  - {name: jD, type: revolute, bodies: [ground, rocker], points: [D, D]}
drivers:
  - {joint: jA, law: {speed: 5.0}, initial: 0.5}
analyses:
  - {type: kinematics, t_end: 1, steps: 20}
"""
    # ground 4 m against links of 0.1 + 0.35 + 0.3 m: no position closes the loop
    add("phys_four_bar_cannot_close.yaml", t, at(t, "{name: jC") + ": error: the mechanism does not assemble at t = 0: ")
    t = rigid_model().replace("drivers:\n  - {joint: pivot, law: {speed: 1}}\n", "")
    add("phys_kinematics_undriven.yaml", t, at(t, "{type: kinematics") + ": error: kinematics needs one driver per "
        "degree of freedom: the mechanism has 1 DOF and 1 of them are not driven")
    t = rigid_model(ANA="{type: inverse_dynamics, t_end: 1, steps: 10}").replace("drivers:\n  - {joint: pivot, law: {speed: 1}}\n", "")
    add("phys_inverse_dynamics_undriven.yaml", t, at(t, "{type: inverse_dynamics") + ": error: inverse_dynamics needs one "
        "driver per degree of freedom")
    t = """kedyn: 1
materials:
  aluminium: {E: 70e9, rho: 2700, nu: 0.33}
sections:
  rod: {shape: circle, d: 0.008}
bodies:
  - {name: ground, type: ground, points: {O: [0, 0], S: [0, 0]}}
  - {name: crank, type: rigid, mass: 0.2, inertia: 4.0e-4, com: [0.075, 0], points: {O: [0, 0], A: [0.15, 0]}}
  - {name: rod, type: beam, material: aluminium, section: rod, elements: 4, points: {A: [0.15, 0], B: [0.45, 0]}}
  - {name: slider, type: rigid, mass: 0.03, inertia: 1.0e-6, points: {B: [0, 0]}, position: [0.45, 0]}
joints:
  - {name: jO, type: revolute, bodies: [ground, crank], points: [O, O]}
  - {name: jA, type: revolute, bodies: [crank, rod], points: [A, A]}
  - {name: jB, type: revolute, bodies: [rod, slider], points: [B, B]}
  - {name: jS, type: prismatic, bodies: [ground, slider], points: [S, B], axis: [1, 0]}
drivers:
  - {joint: jO, law: {speed: 150.0}}
analyses:
  - {type: dynamics, coupling: two-way, t_end: 0.04, dt: 1.0e-4}
"""
    # elements of 0.075 m of aluminium: axial omega = 2 sqrt(3) 5092 / 0.075 = 2.35e5 rad/s, rk4 limit
    # 2.785 / omega = 1.18e-5 s; dt = 1e-4 s is 8.4 times that
    add("phys_rk4_step_far_above_stability.yaml", t, at(t, "{type: dynamics") +
        ": error: dynamics: dt = 0.0001 s is 8.44 times the stability limit of the explicit rk4 integrator, about 1.18e-05 s")

    # ---- measured records: the file's own line (CSV, Universal File), a sensor's node
    def record(name, body, expect, extra=", time: t"):
        t = beam_model(EXTRA="records:\n  - {name: r, file: data/%s%s}" % (name, extra))
        add("record_%s" % name.replace(".", "_") + ".yaml", t, expect, (name, body))

    record("ragged.csv", "t,a,b\n0,1,2\n0.001,3\n", "data/ragged.csv:3:1: error: ragged row: 2 fields, the header has 3")
    record("time_back.csv", "t,a\n0,1\n0.001,2\n0.0005,3\n",
           "data/time_back.csv:4:1: error: time 0.00050000000000000001 does not increase (previous row: 0.001)")
    uff58 = ("    -1\n    58\nx\nNONE\nNONE\nNONE\nNONE\n"
             "    1         1    0         0 NONE               2   2 NONE               1   2\n"
             "         4         3         1  0.00000E+00  1.00000E-03  0.00000E+00\n"
             "        17    0    0    0 Time                 s\n" + "         0    0    0    0 NONE                 NONE\n" * 3)
    record("short.uff", uff58 + "  1.000000000000E+00  2.000000000000E+00\n    -1\n",
           "data/short.uff:14:1: error: dataset 58 record 12: wrong record length: 2 values, record 7 announces 3", "")
    record("unknown.uff", "    -1\n  2414\n    -1\n", "data/unknown.uff:2:1: error: unknown Universal File dataset 2414", "")
    t = beam_model(EXTRA="sensors:\n  - {name: a1, body: rod, node: 9, direction: [0, 1]}")
    add("sensor_node_range.yaml", t, at(t, "9, direction") + ": error: body 'rod' has nodes 1..5, not 9")
    # ---- spatial mechanisms (spatial: true)
    for name, over, marker, msg in SPATIAL_CASES:
        t = spatial_model(**over)
        add(name, t, at(t, marker) + ": error: " + msg)
    # ---- elastic links of spatial mechanisms (type: beam)
    for name, pts, marker, msg in SPATIAL_BEAM_CASES:
        t = SPATIAL_BEAM.replace("BEAMPTS", pts, 1)
        add(name, t, at(t, marker) + ": error: " + msg)
    # ---- shell links of spatial mechanisms (type: plate)
    for name, keys, marker, msg in SPATIAL_PLATE_CASES:
        t = SPATIAL_PLATE.replace("PLATEKEYS", keys, 1)
        add(name, t, at(t, marker) + ": error: " + msg)
    return c


SPATIAL = """kedyn: 1
spatial: true
bodies:
  - {name: ground, type: ground, points: {A: [0, 0, 0], D: [0.3, 0, 0.1]}}
  - {name: crank, type: rigid, mass: 0.2, INERTIA, com: [0.05, 0, 0], points: {A: [0, 0, 0], B: [0.1, 0, 0]}}
  - {name: rocker, type: rigid, mass: 0.4, inertia: [1.0e-4, 1.0e-3, 1.0e-3, 0, 0, 0], com: [0.1, 0, 0], points: {D: [0, 0, 0], C: [0.2, 0, 0]}, position: [0.3, 0, 0.1], ORIENT}
joints:
  - {name: A, type: revolute, bodies: [ground, crank], points: [A, A], AXIS}
  - {name: D, type: revolute, bodies: [ground, rocker], points: [D, D], axis: [0, 1, 0]}
  - {JOINT3}
drivers:
  - {joint: A, law: {speed: 2.0}}
analyses:
  - {type: kinematics, t_end: 1, steps: 10}
"""
SPATIAL_DEF = {"INERTIA": "inertia: [1.0e-4, 1.0e-3, 1.0e-3, 0, 0, 0]", "ORIENT": "orientation: {axis: [0, 1, 0], angle: 0.3}",
               "AXIS": "axis: [0, 0, 1]", "JOINT3": "name: BC, type: distance, bodies: [crank, rocker], points: [B, C]"}


def spatial_model(**over):
    d = dict(SPATIAL_DEF)
    d.update(over)
    text = SPATIAL
    for k, v in d.items():
        text = text.replace(k, v, 1)
    return text


SPATIAL_BEAM = """kedyn: 1
spatial: true
materials:
  steel: {E: 210e9, rho: 7800, nu: 0.3}
sections:
  rod: {shape: circle, d: 0.01}
bodies:
  - {name: ground, type: ground, points: {A: [0, 0, 0]}}
  - {name: arm, type: beam, material: steel, section: rod, elements: 4, BEAMPTS}
joints:
  - {name: A, type: revolute, bodies: [ground, arm], points: [A, A], axis: [0, 0, 1]}
drivers:
  - {joint: A, law: {speed: 2.0}}
analyses:
  - {type: dynamics, t_end: 0.1, dt: 1.0e-3}
"""

SPATIAL_BEAM_CASES = [
    ("phys_spatial_beam_points_off_axis.yaml", "points: {A: [0, 0, 0], B: [0.3, 0.1, 0]}",
     "{A: [0, 0, 0], B: [0.3, 0.1", "the points of a beam lie on a line along its x axis"),
    ("phys_spatial_beam_mass.yaml", "mass: 1, points: {A: [0, 0, 0], B: [0.3, 0, 0]}",
     "1, points", "'mass' of a beam comes from its material and section"),
    ("phys_spatial_beam_backwards.yaml", "points: {A: [0, 0, 0], B: [-0.3, 0, 0]}",
     "{A: [0, 0, 0], B: [-0.3", "a beam runs along +x from its first to its last point"),
]

SPATIAL_PLATE = """kedyn: 1
spatial: true
materials:
  steel: {E: 210e9, rho: 7800, nu: 0.3}
bodies:
  - {name: ground, type: ground, points: {A: [0, 0, 0]}}
  - {name: arm, type: plate, material: steel, thickness: 0.002, mesh: {rectangle: [0.3, 0.04], divisions: [6, 2]}, node_sets: {root: {x: 0}}, PLATEKEYS}
joints:
  - {name: A, type: revolute, bodies: [ground, arm], points: [A, A], axis: [0, 0, 1]}
drivers:
  - {joint: A, law: {speed: 2.0}}
analyses:
  - {type: dynamics, t_end: 0.1, dt: 1.0e-3}
"""

SPATIAL_PLATE_CASES = [
    ("phys_spatial_plate_point_off_node.yaml", "support: root, points: {A: [0.001, 0, 0]}", "A: [0.001",
     "point 'A' of plate link 'arm' is not at a node of its mesh"),
    ("phys_spatial_plate_support_set.yaml", "support: rot, points: {A: [0, 0, 0]}", "rot, points",
     "body 'arm' has no node set 'rot' (it has: root)"),
    ("phys_spatial_plate_mass.yaml", "mass: 1, support: root, points: {A: [0, 0, 0]}", "1, support",
     "'mass' does not apply to a plate link (its mass, inertia and com come from its mesh)"),
]

SPATIAL_CASES = [
    ("phys_spatial_axis_zero.yaml", {"AXIS": "axis: [0, 0, 0]"}, "[0, 0, 0]}", "the axis of joint 'A' has zero length"),
    ("phys_spatial_inertia_not_pd.yaml", {"INERTIA": "inertia: [1.0e-3, 1.0e-3, 1.0e-3, 2.0e-3, 0, 0]"},
     "[1.0e-3, 1.0e-3, 1.0e-3, 2.0e-3", "the inertia tensor of 'crank' is not positive definite"),
    ("phys_spatial_inertia_triangle.yaml", {"INERTIA": "inertia: [1.0e-4, 1.0e-4, 1.0e-3, 0, 0, 0]"},
     "[1.0e-4, 1.0e-4, 1.0e-3", "the inertia tensor of 'crank' violates the triangle inequality"),
    ("phys_spatial_matrix_not_rotation.yaml", {"ORIENT": "orientation: {matrix: [[1, 0, 0], [0, 1, 0.1], [0, 0, 1]]}"},
     "[[1, 0, 0]", "the orientation matrix is not a rotation"),
    ("phys_spatial_universal_not_orthogonal.yaml",
     {"JOINT3": "name: BC, type: universal, bodies: [crank, rocker], points: [B, C], axes: [[0, 1, 0], [0, 0.5, 1]]"},
     "[[0, 1, 0], [0, 0.5", "the axes of universal joint 'BC' are not orthogonal in the initial pose"),
    ("phys_spatial_cannot_assemble.yaml",
     {"JOINT3": "name: BC, type: distance, bodies: [crank, rocker], points: [B, C], length: 2.0"},
     "- {name: A, type: revolute", "the mechanism cannot assemble from the initial guesses"),
    ("phys_spatial_axis_on_spherical.yaml",
     {"JOINT3": "name: BC, type: spherical, bodies: [crank, rocker], points: [B, C], axis: [1, 0, 0]"},
     "[1, 0, 0]}", "'axis' does not apply to a spherical joint"),
    ("phys_spatial_unknown_joint_type.yaml",
     {"JOINT3": "name: BC, type: ball, bodies: [crank, rocker], points: [B, C]"},
     "ball,", "joint type (spatial) must be one of"),
]


def main():
    for old in glob.glob(os.path.join(HERE, "*.yaml")) + glob.glob(os.path.join(HERE, "data", "*.csv")) + \
            glob.glob(os.path.join(HERE, "data", "*.uff")):
        os.remove(old)
    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    n = key_cases(sys.argv[1])
    cases = hand_cases()
    for name, text, expect, data in cases:
        raw = ("# expect: %s\n" % expect + text).encode("utf-8", "surrogateescape")
        if text.startswith("\ufeff"):
            raw = ("\ufeff# expect: %s\n" % expect + text[1:]).encode("utf-8")
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(raw)
        if data:
            with open(os.path.join(HERE, "data", data[0]), "w", newline="") as f:
                f.write(data[1])
    print("generate.py: %d key cases, %d written out" % (n, len(cases)))


if __name__ == "__main__":
    main()
