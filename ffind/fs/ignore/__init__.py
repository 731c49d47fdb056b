"""Ignore rules, split as ripgrep's ``ignore`` crate: ``patterns`` (one ignore file's patterns
and their matching) and ``gitconfig`` (repositories, info/exclude, core.excludesFile)."""
