"""Ignore rules, split as ripgrep's ``ignore`` crate: ``wildmatch`` (one glob, git's semantics
on bytes, linear time), ``patterns`` (one ignore file's patterns and their matching; the one
glob compiler ``compile_globs``), ``gitcase`` (``core.ignoreCase``) and ``gitconfig``
(repositories, info/exclude, core.excludesFile).  See ``docs/ignore.md``."""
