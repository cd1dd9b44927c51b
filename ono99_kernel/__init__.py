"""What the server and every client share: the game itself (``core``: rules, state, views, records), its
bots (``bots``: functions of one seat's view), the wire (``protocol``'s framing and limits, ``wire``'s typed
messages both ways), TLS and fingerprints, and the access policy. It imports neither the server
(``ono99_server``) nor the app (``ono99_tui``)."""
