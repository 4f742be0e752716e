#!/usr/bin/env python3
"""Import circles between the modules of a part of the crate (default: src/tui and src/engine).

Every file is a module (`a/mod.rs` is `a`); an edge A -> B is any path in A's code (a `use`
tree or a path written inline) that names B or an item of B, through `crate::`, `super::`,
`self::` or a child module A declares. Test code is left out (`tests.rs` files and what
follows `#[cfg(test)]`). Prints each circle (strongly connected set of modules) found, at
file level and between the top-level modules of each part, and exits 1 when there is one.

    .ci/import_cycles.py [src/tui src/engine]
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src"


def module_of(path: Path) -> tuple:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "mod":
        parts.pop()
    return tuple(parts)


def strip(text: str) -> str:
    """The code without comments, strings, and test modules."""
    cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    if cut:
        text = text[: cut.start()]
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\])'", "' '", text)
    return text


def use_paths(tree: str, prefix=()):
    """Every path of a `use` tree (`a::{b, c::{self, d}}` -> a::b, a::c, a::c::d)."""
    tree = tree.strip()
    m = re.match(r"^([\w:]*?)(?:::)?\{(.*)\}$", tree, flags=re.S)
    if m:
        head = tuple(s for s in m.group(1).split("::") if s)
        depth, start, items = 0, 0, []
        body = m.group(2)
        for i, ch in enumerate(body):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                items.append(body[start:i])
                start = i + 1
        items.append(body[start:])
        for item in items:
            if item.strip():
                yield from use_paths(item, prefix + head)
        return
    tree = re.sub(r"\s+as\s+\w+$", "", tree)
    segs = tuple(s for s in tree.split("::") if s)
    if segs and segs[-1] == "self":
        segs = segs[:-1]
    yield prefix + segs


def main() -> int:
    parts = sys.argv[1:] or ["src/tui", "src/engine"]
    files = {}
    for part in parts:
        for f in sorted((ROOT.parent / part).rglob("*.rs")):
            if f.name == "tests.rs":
                continue
            files[module_of(f)] = strip(f.read_text())
    modules = set(files)
    edges = {m: set() for m in modules}
    for m, code in files.items():
        children = set(re.findall(r"^\s*(?:pub(?:\([\w:]+\))?\s+)?mod\s+(\w+)\s*;", code, flags=re.M))
        paths = []
        for tree in re.findall(r"\buse\s+([^;]+);", code):
            paths.extend(use_paths(tree))
        paths.extend(
            tuple(p.split("::"))
            for p in re.findall(r"(?<![\w:])((?:crate|super|self)(?:::\w+)+)", code)
        )
        paths.extend(
            tuple(p.split("::"))
            for p in re.findall(r"(?<![\w:])(\w+(?:::\w+)+)", code)
            if p.split("::")[0] in children
        )
        for p in paths:
            if not p:
                continue
            if p[0] == "crate":
                base, rest = (), p[1:]
            elif p[0] in ("super", "self"):
                base = m
                rest = p
                while rest and rest[0] in ("super", "self"):
                    if rest[0] == "super":
                        base = base[:-1]
                    rest = rest[1:]
            elif p[0] in children:
                base, rest = m, p
            else:
                continue
            full = base + tuple(rest)
            target = None
            for n in range(len(full), 0, -1):
                if full[:n] in modules:
                    target = full[:n]
                    break
            if target and target != m:
                edges[m].add(target)

    def sccs(nodes, graph):
        index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
        sys.setrecursionlimit(10000)

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
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

        for v in sorted(nodes):
            if v not in index:
                visit(v)
        return out

    name = lambda m: "::".join(m)
    found = False
    file_level = sccs(modules, edges)
    print(f"file level: {len(modules)} modules, {sum(map(len, edges.values()))} edges")
    for comp in file_level:
        found = True
        print(f"  circle of {len(comp)}: " + ", ".join(name(c) for c in comp))
    # Top-level modules of each part (tui::views::matrix counts as tui::views).
    top = lambda m: m[:2]
    top_edges = {}
    for a, bs in edges.items():
        for b in bs:
            if top(a) != top(b) and len(a) >= 2 and len(b) >= 2:
                top_edges.setdefault(top(a), set()).add(top(b))
    tops = {top(m) for m in modules if len(m) >= 2}
    top_level = sccs(tops, top_edges)
    print(f"top level: {len(tops)} modules, {sum(map(len, top_edges.values()))} edges")
    for comp in top_level:
        found = True
        print(f"  circle of {len(comp)}: " + ", ".join(name(c) for c in comp))
    if not found:
        print("no circle")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
