"""Ignore rules, split as ripgrep's ``ignore`` crate: ``wildmatch`` (one glob, git's semantics
on bytes, linear time), ``patterns`` (one ignore file's patterns and their matching; the one
glob compiler ``compile_globs``) and ``scope`` (the files in force in a folder).  Where a
repository and its configuration are: ``ffind.state.git``.  See ``docs/ignore.md``."""
