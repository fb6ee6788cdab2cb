#!/usr/bin/env python3
"""Which folders of Sources/JetSim use which: the layering issue 28 asks for.

A folder uses another when one of its files names a type (struct, enum, class,
protocol, typealias) declared in the other. Prints every edge with how many files
and names make it, then the pairs that use each other (the cycles a layering must
remove), with the names on each side. A lexical check: it sees names, not calls
into extensions of a type declared elsewhere (Device's extensions in Lifecycle/ and
Memory/ call each other without naming a type), so it finds fewer edges than exist.

  python3 scripts/folder-deps.py            edges and mutual pairs
  python3 scripts/folder-deps.py --names    with every name of every edge
"""
import collections
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "JetSim")
declaration = re.compile(
    r"^(?:(?:public|internal|fileprivate|private|final|indirect|@\w+(?:\([^)]*\))?)\s+)*"
    r"(?:struct|enum|class|protocol|typealias|actor)\s+(\w+)", re.M)

def swift_files(folder):
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for f in sorted(files):
            if f.endswith(".swift"):
                yield os.path.join(dirpath, f)

def code(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//.*", "", text)
    return re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', text)

folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
declared = {}
for folder in folders:
    for path in swift_files(folder):
        for name in declaration.findall(code(path)):
            declared.setdefault(name, folder)

uses = collections.defaultdict(lambda: collections.defaultdict(set))  # a -> b -> {(file, name)}
for folder in folders:
    for path in swift_files(folder):
        for name in set(re.findall(r"\b[A-Z]\w*\b", code(path))):
            other = declared.get(name)
            if other and other != folder:
                uses[folder][other].add((os.path.relpath(path, root), name))

show_names = "--names" in sys.argv[1:]
print("edges (folder -> folder it uses: files, names):")
for a in folders:
    for b in sorted(uses[a]):
        refs = uses[a][b]
        names = sorted({n for _, n in refs})
        line = f"  {a} -> {b}: {len({f for f, _ in refs})} files, {len(names)} names"
        print(line + (": " + ", ".join(names) if show_names else ""))
print("pairs that use each other:")
pairs = [(a, b) for a in folders for b in uses[a] if a < b and a in uses[b]]
for a, b in pairs:
    ab = sorted({n for _, n in uses[a][b]})
    ba = sorted({n for _, n in uses[b][a]})
    print(f"  {a} <-> {b}: {a} names {', '.join(ab[:6])}{' ...' if len(ab) > 6 else ''}; "
          f"{b} names {', '.join(ba[:6])}{' ...' if len(ba) > 6 else ''}")
print(f"{len(pairs)} mutual pairs")
