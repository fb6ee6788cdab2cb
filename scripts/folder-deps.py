#!/usr/bin/env python3
"""Which folders of Sources/JetSim use which: the layering issue 28 asks for.

A folder uses another when one of its files names a type (struct, enum, class,
protocol, typealias) declared in the other. Prints every edge with how many files
and names make it, then the pairs that use each other (the cycles a layering must
remove), with the names on each side. A lexical check: it sees names, not calls
into extensions of a type declared elsewhere (Device's extensions in Lifecycle/ and
Memory/ call each other without naming a type), so it finds fewer edges than exist;
--calls adds those: a function or property of Device (or of DeviceCore, the core's
protocol) declared in one folder's extension, called by name from another (`name(` unqualified, or `self.`/`device.`);
a name also declared elsewhere (any type's member, any folder) is left out, as
ambiguous.

  python3 scripts/folder-deps.py            edges and mutual pairs
  python3 scripts/folder-deps.py --names    with every name of every edge
  python3 scripts/folder-deps.py --calls    types and calls
  python3 scripts/folder-deps.py --check    exit 1 on any cycle or pair using each other (CI)
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

def device_members(text):
    """Functions and properties declared in `struct Device` or `extension Device`."""
    out = []
    for m in re.finditer(r"\b(?:struct|extension)\s+Device(?:Core)?\b[^{]*\{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out += re.findall(r"\b(?:func|var)\s+(\w+)", text[m.end():i])
    return out

if "--calls" in sys.argv[1:]:
    where = collections.defaultdict(set)
    for folder in folders:
        for path in swift_files(folder):
            for name in device_members(code(path)):
                where[name].add(folder)
    anywhere = collections.defaultdict(set)  # every func or var, of any type
    for folder in folders:
        for path in swift_files(folder):
            for name in re.findall(r"\b(?:func|var|let|case)\s+(\w+)", code(path)):
                anywhere[name].add(folder)
    members = {n: next(iter(f)) for n, f in where.items() if len(f) == 1 and anywhere[n] == f}
    for folder in folders:
        for path in swift_files(folder):
            text = code(path)
            for name in set(re.findall(r"(?<![\w.])([a-z]\w*)\s*\(", text)) | set(re.findall(r"\b(?:self|device|d)\.([a-z]\w*)\b", text)):
                other = members.get(name)
                if other and other != folder:
                    uses[folder][other].add((os.path.relpath(path, root), name + "()"))

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

# Groups of folders that reach each other (Tarjan's strongly connected components):
# a cycle of any length shows here, not only a pair.
index, low, stack, on, groups = {}, {}, [], set(), []
def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v); on.add(v)
    for w in uses[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        g = []
        while True:
            w = stack.pop(); on.discard(w); g.append(w)
            if w == v: break
        if len(g) > 1: groups.append(sorted(g))
for f in folders:
    if f not in index: visit(f)
print("folders in a cycle: " + ("; ".join(", ".join(g) for g in groups) or "none"))

# --check: fail on any cycle and any pair of folders using each other. The device's
# own went one by one on 2026-11-27: Lifecycle <-> Memory (memory warnings are the
# managers'), Device <-> Lifecycle (the reclaim loop is the lifecycle's: a manager
# answers which reclaim is next), Device <-> Memory (the core's functions extend the
# `DeviceCore` protocol, Device/DeviceCore.swift, which the device declared in
# Memory/Device.swift conforms to). None may come back.
if "--check" in sys.argv[1:]:
    device = set()
    known_pairs = set()
    bad = [", ".join(g) for g in groups if not set(g) <= device]
    bad += [f"{a} <-> {b}" for a, b in pairs if (a, b) not in known_pairs and {a, b} <= device]
    if bad:
        print("folder-deps: folders in a new cycle: " + "; ".join(bad)
              + " (docs/layout.md says which way folders depend)", file=sys.stderr)
        sys.exit(1)
