"""Ignore rules, as ripgrep's ``ignore`` crate: ``wildmatch`` (one glob), ``patterns`` (one
ignore file; ``compile_globs``) and ``scope`` (the files in force in a folder); docs/ignore.md."""
