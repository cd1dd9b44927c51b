"""The SSH and web fronts: SSH sessions and browser tabs running the terminal app, each on a TCP link to
the game server.

A front is a client of the game server, like the TUI: it never imports ``server/``. ``ono99 serve``
starts front worker processes that share the SSH port; ``ono99 front`` runs one on another machine.
"""
