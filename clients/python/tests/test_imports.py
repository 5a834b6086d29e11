"""The client's modules import one another without a circle, any import counted (also one inside
a function, which only postpones the circle), so that each can be read and loaded on its own; and
none takes another's private name (``_x``) but within a subpackage of ``piper_feed``
(``transform``'s modules, its ``readers`` among them, share theirs behind its ``__init__``)."""

import ast
import os
import unittest

ROOT = os.path.join(os.path.dirname(__file__), "..", "piper_feed")


def _modules():
    """Every module of piper_feed by its dotted name, with its file."""
    found = {}
    for folder, _, files in os.walk(ROOT):
        package = ["piper_feed"] + os.path.relpath(folder, ROOT).split(os.sep)
        package = [p for p in package if p != "."]
        for f in files:
            if f.endswith(".py"):
                name = package if f == "__init__.py" else package + [f[:-3]]
                found[".".join(name)] = (os.path.join(folder, f), f == "__init__.py")
    return found


def _imports(name, path, is_package, modules):
    """The piper_feed modules the module imports."""
    here = name.split(".") if is_package else name.split(".")[:-1]
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    out = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            targets.append(".".join(module))
            targets += [".".join(module + [a.name]) for a in node.names]
        elif isinstance(node, ast.Import):
            targets += [a.name for a in node.names]
        out.update(t for t in targets if t in modules and t != name)
    return out


def _private_imports(name, path, is_package, modules):
    """The private names the module imports from piper_feed modules of another package."""
    here = name.split(".") if is_package else name.split(".")[:-1]
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            source = ".".join(module)
            # a subpackage's modules (its own subpackages' included) share its private names;
            # the top level's modules do not
            shared = len(here) > 1 and module[:2] == here[:2]
            if source in modules and not shared and source != ".".join(here):
                out += [f"{source}.{a.name}" for a in node.names if a.name.startswith("_")]
    return out


class ImportCircleTest(unittest.TestCase):

    def test_no_module_takes_another_packages_private_names(self):
        modules = _modules()
        taken = {n: _private_imports(n, p, pkg, modules) for n, (p, pkg) in modules.items()}
        self.assertEqual({n: t for n, t in taken.items() if t}, {})

    def test_no_module_imports_itself_through_others(self):
        modules = _modules()
        graph = {n: _imports(n, p, pkg, modules) for n, (p, pkg) in modules.items()}
        self.assertIn("piper_feed.train.model", graph["piper_feed.train.checkpoint"])
        circles = []
        state = {}

        def visit(node, path):
            state[node] = "open"
            for nxt in sorted(graph[node]):
                if state.get(nxt) == "open":
                    circles.append(" -> ".join(path[path.index(nxt):] + [nxt]))
                elif nxt not in state:
                    visit(nxt, path + [nxt])
            state[node] = "done"

        for n in sorted(graph):
            if n not in state:
                visit(n, [n])
        self.assertEqual(circles, [], "import circles")


if __name__ == "__main__":
    unittest.main()
