"""YAML parsing with a bound on what aliases expand to (the YAML "billion laughs").

``yaml.safe_load`` builds an alias (``*a``) as a second reference to the anchored value, so a tiny file of nested
anchors parses at once into a value whose expansion is exponential, and whatever walks it (option checks, the key
digest, dumping the run's config) grows memory without bound. :func:`safe_load` composes the node graph first, counts
the nodes the aliases add when expanded (each distinct node once, memoised) and refuses a document where they add more
than :data:`MAX_ALIAS_NODES`, or where an alias refers to a value containing it, before any Python value is built.
Ordinary anchors (a shared ``params`` block, ``<<:`` merge keys) add a handful of nodes.
"""
from __future__ import annotations

import yaml

from benchirt.errors import ConfigError

#: The most nodes (scalars, lists, mappings) aliases may add to a document when expanded.
MAX_ALIAS_NODES = 10_000


def safe_load(text: str, origin: str):
    """``yaml.safe_load(text)``, refusing alias bombs and self-referencing aliases with a ConfigError; syntax errors
    are raised as ``yaml.YAMLError`` (callers say where, with line and column)."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_aliases(node, origin)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _check_aliases(root: yaml.Node, origin: str) -> None:
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise ConfigError(f"{origin}: a YAML alias refers to a value that contains it (a cycle); write the "
                              "value out instead")
        open_nodes.add(key)
        if isinstance(node, yaml.SequenceNode):
            total = 1 + sum(size(child) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total = 1 + sum(size(k) + size(v) for k, v in node.value)
        else:
            total = 1
        open_nodes.discard(key)
        sizes[key] = total
        return total

    try:
        expanded = size(root)
    except RecursionError:
        raise ConfigError(f"{origin}: the YAML document is nested too deeply to check") from None
    added = expanded - len(sizes)
    if added > MAX_ALIAS_NODES:
        raise ConfigError(f"{origin}: YAML aliases (*name) expand the document by {added:,} values, more than the "
                          f"{MAX_ALIAS_NODES:,} allowed; write the values out instead of repeating anchors")
