"""The resident index server (docs/cache.md, "The resident server"): one process per root
that keeps the validated listing and its index between searches.

``protocol`` (socket folder, names, framing), ``client`` (the thin side: ask, start, stop;
transport only), ``server`` (the server; its program is ``ffind.frontends.served``)."""
