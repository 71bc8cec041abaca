#!/usr/bin/env python3
"""Check that every "theory.md sec. N" / "theory.md §N" citation in the sources and docs names a
section heading of docs/theory.md ("## N." or "### N.M"). Usage, from the repository root:

    python3 scripts/check_theory_citations.py [ROOT]

Prints the count of citations per section and every unresolved one; exits 1 if any is."""
import collections
import re
import subprocess
import sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
files = subprocess.run(['grep', '-rl', r'theory\.md', 'src', 'include', 'tests', 'bench', 'docs', 'README.md'],
                       cwd=root, capture_output=True, text=True).stdout.split()
files = [f for f in files if f != 'docs/theory.md']
heads = set()
with open(f'{root}/docs/theory.md', encoding='utf-8') as fp:
    for line in fp:
        m = re.match(r'#{2,3} (\d+(?:\.\d+)?)\.? ', line)
        if m:
            heads.add(m.group(1))
cites = []
for f in files:
    with open(f'{root}/{f}', encoding='utf-8') as fp:
        text = fp.read()
    # "theory.md sec. 6", "theory.md §2–3", "theory.md sec. 3 and 5", "theory.md\n * sec. 4"
    for m in re.finditer(r'theory\.md[\s*/]*(?:sec\.|§)\s*([0-9][0-9.,–\- and]*)', text):
        line = text.count('\n', 0, m.start()) + 1
        nums = re.findall(r'\d+(?:\.\d+)?', m.group(1))
        if '–' in m.group(1) and len(nums) == 2:
            nums = [str(k) for k in range(int(nums[0]), int(nums[1]) + 1)]
        cites += [(f, line, n) for n in nums]
bad = [c for c in cites if c[2] not in heads]
per = collections.Counter(c[2] for c in cites)
print(f'{len(set((c[0], c[1]) for c in cites))} citations ({len(cites)} section references) in {len(files)} files; '
      'by section: ' + ', '.join(f'{k}: {v}' for k, v in sorted(per.items())))
for c in bad:
    print('%s:%d: theory.md has no section %s' % c)
sys.exit(1 if bad else 0)
