"""What ffind keeps between runs, each owning its file format and its recovery: the memory
of opened files (``memory``) and the warm snapshot of a walk (``cache``)."""
