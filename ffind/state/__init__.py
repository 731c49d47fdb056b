"""What ffind keeps between runs, each owning its file format and its recovery: the memory
of opened files (``memory``), the warm snapshot of a walk (``cache``), the last ``git status``
(``gitstatus``); and where a repository and its configuration are (``git``)."""
