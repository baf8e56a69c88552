#!/usr/bin/env python3
"""The house's rules over the source tree, read as text (no build): no circle of files inside a
crate; no experiment crate depending on another; every module in its crate's file map and
every file map row a module; a file over 600 lines or two files of a crate with one name only
with a reason in scripts/house-exceptions.txt; comments name code, not issue numbers; no
library crate returns `Result<_, String>` (errors are typed, their causes kept).

Usage: house.py [ROOT]   (ROOT: the repository, by default the one this script is in). Prints
each break with the files it names and exits 1 if there is any; 0 and a summary otherwise."""

import os
import re
import sys
import tomllib

LONG = 600
ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
problems = []


def say(rule, text):
    problems.append(f"{rule}: {text}")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def crates():
    """name -> (directory, parsed Cargo.toml) for every workspace member."""
    ws = tomllib.loads(read(os.path.join(ROOT, "Cargo.toml")))["workspace"]["members"]
    out = {}
    for m in ws:
        d = os.path.join(ROOT, m)
        out[tomllib.loads(read(os.path.join(d, "Cargo.toml")))["package"]["name"]] = (d, tomllib.loads(read(os.path.join(d, "Cargo.toml"))))
    return out


def exceptions():
    """(kind, path) -> reason, from scripts/house-exceptions.txt (`long PATH reason`,
    `name PATH reason`); a line without a reason is itself a break."""
    p = os.path.join(ROOT, "scripts", "house-exceptions.txt")
    out = {}
    if not os.path.exists(p):
        return out
    for n, line in enumerate(read(p).splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3 or parts[0] not in ("long", "name"):
            say("exceptions", f"scripts/house-exceptions.txt line {n}: expected `long|name PATH reason`")
            continue
        out[(parts[0], parts[1])] = parts[2]
    return out


def strip_tests(text):
    """The file without its `#[cfg(test)]` modules (conventionally last) and without comments."""
    i = text.find("#[cfg(test)]\nmod ")
    if i >= 0:
        text = text[:i]
    return re.sub(r"//[^\n]*", "", text)


class Crate:
    def __init__(self, name, d):
        self.name, self.dir = name, d
        src = os.path.join(d, "src")
        self.root = os.path.join(src, "lib.rs") if os.path.exists(os.path.join(src, "lib.rs")) else os.path.join(src, "main.rs")
        self.mods = {}  # module path (tuple) -> file
        self.children = {}  # file -> [(name, file)]
        if os.path.exists(self.root):
            self.walk((), self.root)

    def walk(self, path, f):
        self.mods[path] = f
        kids = []
        text = strip_tests(read(f))
        base = os.path.dirname(f) if os.path.basename(f) in ("lib.rs", "main.rs", "mod.rs") else f[:-3]
        for m in re.finditer(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_0-9]+)\s*;", text, re.M):
            name = m.group(1)
            for cand in (os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")):
                if os.path.exists(cand):
                    kids.append((name, cand))
                    self.walk(path + (name,), cand)
                    break
        self.children[f] = kids

    def resolve(self, here, segs):
        """The file a path names (longest module prefix), from module `here`."""
        if not segs:
            return None
        if segs[0] == "crate":
            base, rest = (), segs[1:]
        elif segs[0] == "super":
            base, rest = here, segs
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
        elif segs[0] == "self":
            base, rest = here, segs[1:]
        elif here + (segs[0],) in self.mods:
            base, rest = here, segs
        else:
            return None
        best = None
        for k in range(len(rest) + 1):
            p = base + tuple(rest[:k])
            if p in self.mods:
                best = self.mods[p]
            elif k > 0:
                break
        return best

    def edges(self):
        out = {}
        for path, f in self.mods.items():
            text = strip_tests(read(f))
            targets = set()
            # `use` trees, expanded one level of braces: use crate::a::{b, c::d};
            for m in re.finditer(r"\buse\s+([^;]+);", text):
                tree = re.sub(r"\s+", "", m.group(1))
                for item in expand(tree):
                    t = self.resolve(path, item.split("::"))
                    if t:
                        targets.add(t)
            for m in re.finditer(r"\b((?:crate|super|self)(?:::[A-Za-z_0-9]+)+)", text):
                t = self.resolve(path, m.group(1).split("::"))
                if t:
                    targets.add(t)
            # A module using what an enclosing module holds (`super::`, the crate root's
            # re-exports) is the module tree, not a circle; siblings and cousins are.
            ancestors = {self.mods[path[:k]] for k in range(len(path))}
            out[f] = targets - ancestors - {f}
        return out


def expand(tree):
    m = re.match(r"^(.*?)\{(.*)\}$", tree)
    if not m:
        return [tree.split(" as ")[0]]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        if not p or p == "self":
            out.append(prefix.rstrip(":"))
            continue
        out.extend(expand(prefix + p))
    return out


def circles(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def rel(p):
    return os.path.relpath(p, ROOT)


def main():
    allowed = exceptions()
    used = set()
    all_crates = crates()
    experiments = set()
    for name, (d, _) in all_crates.items():
        for dirpath, _, files in os.walk(os.path.join(d, "src")):
            for fn in files:
                if fn.endswith(".rs") and re.search(r"\bimpl\s+(?:latlab_model::experiment::)?Experiment\s+for\b", read(os.path.join(dirpath, fn))):
                    experiments.add(name)
    experiments.discard("latlab")
    # 1. no circle of files inside a crate
    for name, (d, _) in sorted(all_crates.items()):
        c = Crate(name, d)
        for comp in circles(c.edges()):
            say("circle", f"{name}: " + " -> ".join(rel(x) for x in comp) + " import one another")
        # 3. every module in its crate's file map, every row a module
        for f, kids in c.children.items():
            text = read(f)
            rows = {n for cell in re.findall(r"^//! \| ([^|]*`[^|]*) \|", text, re.M) for n in re.findall(r"`([^`]+)`", cell)}
            # The crate root always has a map; a module with children of its own may.
            if f != c.root and not (kids and rows):
                continue
            if not rows:
                say("file map", f"{rel(f)} declares modules but has no file map (`//! | `name.rs` | holds |`)")
                continue
            names = {os.path.basename(k) if os.path.basename(k) != "mod.rs" else os.path.basename(os.path.dirname(k)) + "/" for _, k in kids}
            for _, k in kids:
                key = os.path.basename(k) if os.path.basename(k) != "mod.rs" else os.path.basename(os.path.dirname(k)) + "/"
                if key not in rows and key.rstrip("/") + "/" not in rows and key[:-3] + "/" not in rows:
                    say("file map", f"{rel(f)}: module {rel(k)} is not in its file map")
            for r in sorted(rows):
                if "/" in r.rstrip("/") and os.path.exists(os.path.join(os.path.dirname(f), r)):
                    continue
                if r not in names and r.rstrip("/") + ".rs" not in names and r.rstrip("/") + "/" not in names:
                    say("file map", f"{rel(f)}: the file map names {r}, which is not a module of it")
    # 2. no experiment crate depending on another
    for name in sorted(experiments):
        d, toml = all_crates[name]
        for section in ("dependencies", "dev-dependencies", "build-dependencies"):
            for dep in toml.get(section, {}):
                if dep in experiments:
                    say("experiment", f"{name} ({section}) depends on the experiment crate {dep}: move what both use down")
    # 4. long files and shared names
    for name, (d, _) in sorted(all_crates.items()):
        seen = {}
        for dirpath, _, files in os.walk(d):
            if "/target" in dirpath:
                continue
            for fn in files:
                if not fn.endswith(".rs"):
                    continue
                p = os.path.join(dirpath, fn)
                r = rel(p)
                lines = read(p).count("\n")
                if lines > LONG:
                    if ("long", r) in allowed:
                        used.add(("long", r))
                    else:
                        say("long", f"{r}: {lines} lines (over {LONG}): split it, or give a reason in scripts/house-exceptions.txt")
                if "/src/" in p and fn not in ("lib.rs", "main.rs", "mod.rs", "tests.rs", "defaults.rs", "figures.rs", "remedies.rs", "experiment.rs"):
                    seen.setdefault(fn, []).append(r)
        for fn, paths in sorted(seen.items()):
            if len(paths) > 1:
                for r in paths:
                    if ("name", r) in allowed:
                        used.add(("name", r))
                unexplained = [r for r in paths if ("name", r) not in allowed]
                if len(unexplained) > 1:
                    say("name", f"{name}: {', '.join(sorted(paths))} share a name: rename, or say in scripts/house-exceptions.txt what the folder adds")
    # 5. comments name code, not issue numbers
    for name, (d, toml) in sorted(all_crates.items()):
        for dirpath, _, files in os.walk(d):
            if "/target" in dirpath:
                continue
            for fn in files:
                if fn.endswith(".rs") or fn == "Cargo.toml":
                    p = os.path.join(dirpath, fn)
                    for n, line in enumerate(read(p).splitlines(), 1):
                        if re.search(r"(//|#).*\b[Ii]ssues? #\d+", line):
                            say("issue number", f"{rel(p)}:{n}: a comment cites an issue number; name the code or the behaviour")
    # 6. typed errors below the binary: no `Result<_, String>` (nor `type Err = String`)
    string_result = re.compile(r"Result<(?:[^<>;{}]|<[^<>]*(?:<[^<>]*>)?[^<>]*>)*?,\s*String\s*>|type\s+Err\s*=\s*String\b")
    for name, (d, toml) in sorted(all_crates.items()):
        if name == "latlab":
            continue
        for dirpath, _, files in os.walk(d):
            if "/target" in dirpath:
                continue
            for fn in files:
                if fn.endswith(".rs"):
                    p = os.path.join(dirpath, fn)
                    text = read(p)
                    for m in string_result.finditer(text):
                        n = text.count("\n", 0, m.start()) + 1
                        say("typed errors", f"{rel(p)}:{n}: `{' '.join(m.group(0).split())}`: give the error a type of the crate's (thiserror), its cause as #[source]")
    for k in sorted(set(allowed) - used):
        say("exceptions", f"scripts/house-exceptions.txt: `{k[0]} {k[1]}` no longer applies: remove it")
    if problems:
        for p in problems:
            print("check-house: " + p, file=sys.stderr)
        return 1
    print(f"the house: {len(all_crates)} crates, {len(experiments)} experiment crates, no circle of files, "
          f"file maps whole, no experiment on another, long files and shared names explained, no issue numbers, "
          f"no Result<_, String> below the binary")
    return 0


if __name__ == "__main__":
    sys.exit(main())
