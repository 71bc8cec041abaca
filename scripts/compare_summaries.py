#!/usr/bin/env python3
"""compare_summaries.py BASE NEW [REL]: compare every summary.json under two output roots (as
scripts/run_examples.sh writes them): numbers to a relative tolerance (default 1e-9), strings and
structure exactly; timing fields are skipped. Prints each difference, then the worst relative
difference per file."""
import json, sys, os, math
base, new = sys.argv[1], sys.argv[2]
rel = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-9
SKIP = ('wall_s', 'cpu_s', 'elapsed')  # timings: differ from run to run
worst = {}
def skip(k): return any(s in k.lower() for s in SKIP)
def cmp(a, b, path, name):
    if isinstance(a, dict):
        if not isinstance(b, dict): print(name, path, 'type'); return
        for k in set(a) | set(b):
            if k not in a or k not in b: print(name, path + '/' + k, 'missing in', 'new' if k not in b else 'base'); continue
            if skip(k): continue
            cmp(a[k], b[k], path + '/' + k, name)
    elif isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b): print(name, path, 'list len'); return
        for i, (x, y) in enumerate(zip(a, b)): cmp(x, y, f'{path}[{i}]', name)
    elif isinstance(a, (int, float)) and not isinstance(a, bool) and isinstance(b, (int, float)):
        d = abs(a - b) / max(abs(a), abs(b), 1e-300)
        if abs(a - b) < 1e-300: d = 0
        worst[name] = max(worst.get(name, 0), d)
        if d > rel: print(name, path, a, b, d)
    elif a != b:
        if isinstance(a, str) and ('tmp' in a or '/' in a): return
        print(name, path, repr(a)[:80], repr(b)[:80])
for root, dirs, files in os.walk(base):
    for f in files:
        if f != 'summary.json': continue
        p = os.path.join(root, f); q = os.path.join(new, os.path.relpath(p, base))
        name = os.path.relpath(p, base)
        if not os.path.exists(q): print('MISSING', q); continue
        cmp(json.load(open(p)), json.load(open(q)), '', name)
for k in sorted(worst): print(f'{k}: worst rel {worst[k]:.2e}')
