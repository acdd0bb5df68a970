"""Which identifiers spelled like a symbol are the symbol: what ``rename`` may touch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spark_cli.engine.brains.code.trees import Parsed, is_identifier, named_leaves, walk

if TYPE_CHECKING:
    import tree_sitter

MEMBER_ACCESS: dict[str, tuple[str, str]] = {
    "attribute": ("object", "attribute"),  # python
    "member_expression": ("object", "property"),  # js / ts
    "selector_expression": ("operand", "field"),  # go
    "field_expression": ("value", "field"),  # rust (c / c++: "argument")
    "field_access": ("object", "field"),  # java
    "method_invocation": ("object", "name"),  # java
    "scoped_identifier": ("path", "name"),  # rust a::b
    "call": ("receiver", "method"),  # ruby
}
SELF_WORDS = frozenset({"self", "cls", "this", "Self"})
_CLASSES = frozenset({"class_definition", "class_body", "class_declaration", "impl_item",
                      "trait_item", "field_declaration_list", "interface_body", "enum_body",
                      "object_type", "interface_type", "struct_type"})
_FUNCTIONS = frozenset({"function_definition", "function_declaration", "method_definition",
                        "arrow_function", "function_expression", "function", "function_item",
                        "method_declaration", "constructor_declaration", "lambda",
                        "func_literal", "generator_function_declaration",
                        "closure_expression"})


def _is_field(parent: tree_sitter.Node, field: str, node: tree_sitter.Node) -> bool:
    child = parent.child_by_field_name(field)
    return child is not None and child.id == node.id


def _name_position(node: tree_sitter.Node) -> bool:
    """The node names what its parent defines (``name`` field, or an assignment target)."""
    parent = node.parent
    return parent is not None and (_is_field(parent, "name", node)
                                   or (parent.type == "assignment" and _is_field(parent, "left",
                                                                                 node)))


def _in_class(node: tree_sitter.Node) -> bool:
    """The nearest enclosing class-or-function (the definition itself skipped) is a class."""
    if node.parent is not None and node.parent.type == "method_declaration":
        return True  # go: a method (its receiver makes it a member)
    current = node.parent.parent if node.parent is not None and _is_field(
        node.parent, "name", node) else node.parent
    while current is not None:
        if current.type in _CLASSES:
            return True
        if current.type in _FUNCTIONS:
            return False
        current = current.parent
    return False


def _parameters_of(node: tree_sitter.Node, parent: tree_sitter.Node) -> tree_sitter.Node | None:
    """The python ``parameters`` node when ``node`` names one of them."""
    if parent.type == "parameters":
        return parent
    if parent.type in ("default_parameter", "typed_default_parameter"):
        return parent.parent if _is_field(parent, "name", node) else None
    if parent.type == "typed_parameter" and parent.named_children[0].id == node.id:
        return parent.parent
    return None


def _python_module(module: str, paths: list[str]) -> bool:
    """``a.b`` (or a relative ``.b``) is one of the request's files."""
    if module.startswith("."):
        return True
    stem = module.replace(".", "/")
    wanted = (f"{stem}.py", f"{stem}/__init__.py")
    return any(p == w or p.endswith("/" + w) for p in paths for w in wanted)


def _js_module(source: str, paths: list[str]) -> bool:
    """A relative module (``./util``) whose file name is one of the request's files."""
    if not source.startswith("."):
        return False
    stem = source.rstrip("/").rsplit("/", 1)[-1].split(".", 1)[0]
    return any(p.rsplit("/", 1)[-1].split(".", 1)[0] in (stem, "index") for p in paths)


def _string(parsed: Parsed, node: tree_sitter.Node | None) -> str:
    return parsed.node_text(node).strip("'\"`") if node is not None else ""


class Symbol:
    """What the request's files say about ``old``: members, parameters, struct fields."""

    def __init__(self, old: str, files: dict[str, Parsed]) -> None:
        self.old = old
        self.paths = list(files)
        self.member = False
        self.param_owners: set[str] = set()
        self.struct_owners: set[str] = set()
        for parsed in files.values():
            self._learn(parsed)

    def _learn(self, parsed: Parsed) -> None:
        for node in named_leaves(parsed, self.old):
            parent = node.parent
            if parent is None:
                continue
            if _name_position(node) and _in_class(node):
                self.member = True
            access = MEMBER_ACCESS.get(parent.type)
            grand = parent.parent
            if access and _is_field(parent, access[1], node) and grand is not None and \
                    grand.type in ("assignment", "assignment_expression") and \
                    _is_field(grand, "left", parent):
                obj = parent.child_by_field_name(access[0])
                if obj is not None and parsed.node_text(obj) in SELF_WORDS:
                    self.member = True
            self._learn_owner(parsed, node, parent)

    def _learn_owner(self, parsed: Parsed, node: tree_sitter.Node,
                     parent: tree_sitter.Node) -> None:
        params = _parameters_of(node, parent)
        if params is not None and params.parent is not None:
            function = params.parent
            name = parsed.node_text(function.child_by_field_name("name") or function)
            if name == "__init__":
                cls = function.parent.parent if function.parent is not None else None
                if cls is not None and cls.type == "class_definition":
                    name = parsed.node_text(cls.child_by_field_name("name") or cls)
            self.param_owners.add(name)
        if parent.type == "field_declaration" and _is_field(parent, "name", node):
            owner = parent.parent.parent if parent.parent is not None else None
            while owner is not None and owner.type not in ("type_spec", "struct_item"):
                owner = owner.parent
            if owner is not None:
                self.struct_owners.add(parsed.node_text(owner.child_by_field_name("name")
                                                        or owner))


class FileRefs:
    """One file's view: its module aliases and whether it imports ``old`` from elsewhere;
    :meth:`refers` applies docs/brains.md's *rename* rules leaf by leaf."""

    def __init__(self, parsed: Parsed, symbol: Symbol) -> None:
        self.parsed, self.symbol = parsed, symbol
        self.modules: set[str] = set()
        self.foreign: str | None = None
        """The outside module ``old`` is imported from (the file is left alone)."""
        for node in parsed.tree.root_node.children:
            self._imports(node)

    def _imports(self, node: tree_sitter.Node) -> None:
        if node.type == "import_statement" and self.parsed.language == "python":
            self._python_import(node)
        elif node.type == "import_from_statement":
            self._python_from(node)
        elif node.type == "import_statement":  # js / ts
            self._js_import(node)
        elif node.type in ("lexical_declaration", "variable_declaration"):
            self._require(node)

    def _python_import(self, node: tree_sitter.Node) -> None:
        """``import pkg.config [as c]``: a module of the request's files, by its local name."""
        parsed = self.parsed
        for item in node.children_by_field_name("name"):
            name = item.child_by_field_name("name") or item
            alias = item.child_by_field_name("alias")
            if _python_module(parsed.node_text(name), self.symbol.paths):
                self.modules.add(parsed.node_text(alias or name))

    def _python_from(self, node: tree_sitter.Node) -> None:
        """``from pkg import old`` (foreign unless a request file) or ``import module``."""
        parsed, paths = self.parsed, self.symbol.paths
        module = parsed.node_text(node.child_by_field_name("module_name") or node)
        items = node.children_by_field_name("name")
        names = [parsed.node_text(n.child_by_field_name("name") or n) for n in items]
        if self.symbol.old in names and not _python_module(module, paths):
            self.foreign = module
        for item, imported in zip(items, names, strict=True):  # from pkg import module
            if _python_module(f"{module.rstrip('.')}.{imported}" if module.strip(".")
                              else module + imported, paths):
                alias = item.child_by_field_name("alias")
                self.modules.add(parsed.node_text(alias) if alias is not None else imported)

    def _js_import(self, node: tree_sitter.Node) -> None:
        """``import * as u from "./util"`` (an alias) or ``import { old } from "fs"``."""
        parsed = self.parsed
        source = _string(parsed, node.child_by_field_name("source"))
        local = _js_module(source, self.symbol.paths)
        for inner in walk(node):
            if inner.type == "namespace_import" and local:
                self.modules.update(parsed.node_text(c) for c in inner.children
                                    if c.type == "identifier")
            elif inner.type == "import_specifier" and not local and \
                    parsed.node_text(inner.child_by_field_name("name") or inner) == self.symbol.old:
                self.foreign = source

    def _require(self, node: tree_sitter.Node) -> None:
        parsed = self.parsed
        for declarator in node.named_children:
            value = declarator.child_by_field_name("value")
            name = declarator.child_by_field_name("name")
            if value is None or name is None or value.type != "call_expression" or \
                    parsed.node_text(value.child_by_field_name("function") or value) != "require":
                continue
            args = value.child_by_field_name("arguments")
            source = _string(parsed, args.named_children[0]) if args and args.named_children \
                else ""
            if _js_module(source, self.symbol.paths):
                self.modules.add(parsed.node_text(name))
            elif any(parsed.node_text(n) == self.symbol.old for n in walk(name)
                     if is_identifier(n)):
                self.foreign = source

    def _self_like(self, obj: tree_sitter.Node) -> bool:
        text = self.parsed.node_text(obj)
        if text in SELF_WORDS:
            return True
        method = obj.parent
        while method is not None and method.type != "method_declaration":
            method = method.parent
        receiver = method.child_by_field_name("receiver") if method is not None else None
        return receiver is not None and any(
            self.parsed.node_text(p.child_by_field_name("name") or p) == text
            for p in receiver.named_children)

    def refers(self, node: tree_sitter.Node) -> bool:
        """Whether this identifier leaf (spelled ``old``) is the symbol."""
        parent = node.parent
        if parent is None:
            return True
        access = MEMBER_ACCESS.get(parent.type)
        if access is not None and _is_field(parent, access[1], node):
            return self._member(parent, access[0])
        if parent.type == "keyword_argument" and _is_field(parent, "name", node):
            return self._keyword(parent)
        if parent.type == "pair" and _is_field(parent, "key", node):
            return False
        if parent.type in ("field_initializer", "literal_element"):
            return self._struct_key(parent, node)
        if parent.type == "dotted_name":
            return self._dotted(parent)
        return True

    def _member(self, access: tree_sitter.Node, object_field: str) -> bool:
        """``obj.old`` (``obj`` self-like or a request module) or the crate's ``X::old``."""
        parsed = self.parsed
        obj = access.child_by_field_name(object_field) or access.child_by_field_name("argument")
        if obj is None:
            return True  # java `old()`, ruby `old` without a receiver
        if access.type == "scoped_identifier":
            return parsed.node_text(obj).split("::", 1)[0] in ("Self", "self", "crate", "super")
        return (self.symbol.member and self._self_like(obj)) or parsed.node_text(obj) in \
            self.modules

    def _keyword(self, argument: tree_sitter.Node) -> bool:
        """``f(old=…)``: the symbol when ``f`` has a parameter ``old`` in the request."""
        call = argument.parent.parent if argument.parent is not None else None
        function = call.child_by_field_name("function") if call is not None else None
        if function is not None and function.type == "attribute":
            function = function.child_by_field_name("attribute")
        return function is not None and self.parsed.node_text(function) in \
            self.symbol.param_owners

    @staticmethod
    def _dotted(dotted: tree_sitter.Node) -> bool:
        """A python dotted name: not a module name in an import."""
        statement = dotted.parent
        if statement is not None and statement.type == "aliased_import":
            statement = statement.parent
        if statement is not None and statement.type == "import_statement":
            return False
        if statement is not None and statement.type == "import_from_statement":
            return not _is_field(statement, "module_name", dotted)
        return True

    def _struct_key(self, parent: tree_sitter.Node, node: tree_sitter.Node) -> bool:
        if parent.type == "literal_element":  # go: keyed_element -> literal_value -> literal
            keyed = parent.parent
            if keyed is None or keyed.type != "keyed_element" or \
                    not _is_field(keyed, "key", parent):
                return True
            literal = keyed.parent.parent if keyed.parent is not None else None
            kind = literal.child_by_field_name("type") if literal is not None else None
            if kind is None or kind.type != "type_identifier":
                return True  # a map or slice literal: the key is an expression
        else:  # rust: field_initializer -> field_initializer_list -> struct_expression
            if not _is_field(parent, "field", node):
                return True
            literal = parent.parent.parent if parent.parent is not None else None
            kind = literal.child_by_field_name("name") if literal is not None else None
        return kind is not None and self.parsed.node_text(kind) in self.symbol.struct_owners
