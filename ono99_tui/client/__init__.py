"""The client layer, between the kernel and the faces (the app, the plain mode, the SSH and web fronts,
``ono99 admin``): the connection to a server (``connection``), what a client knows of it (``model``), and
the client session that decides every reaction to what the server sends (``session``). No module here
draws or reads keys: the faces do, from what this layer tells them."""
