"""The web front's page and its files: the HTML page in the browser's language, xterm.js and the
page's script, served from the package (``web_static/``) with the headers that keep the page to itself."""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Awaitable, Callable
from importlib import resources

from aiohttp import web

from ..i18n import ENGLISH, LANGUAGES, normalize, using
from . import web_words

STATIC = "web_static"
CONTENT_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
                 ".txt": "text/plain; charset=utf-8"}
# Scripts and connections only from this server; styles inline too, which xterm.js sets on its elements.
# No frames of this page on other sites (a click on it could play a card).
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; "
       "img-src 'self' data:; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="/static/xterm.css?v={v_xterm_css}">
<link rel="stylesheet" href="/static/ono99.css?v={v_ono99_css}">
<script src="/static/xterm.js?v={v_xterm_js}"></script>
<script src="/static/addon-fit.js?v={v_addon_fit_js}"></script>
<script src="/static/addon-webgl.js?v={v_addon_webgl_js}"></script>
<script src="/static/ono99.js?v={v_ono99_js}" defer></script>
</head>
<body>
<noscript>{no_script}</noscript>
<div id="terminal"></div>
<div id="overlay" hidden>
<div id="box">
<p id="message"></p>
<form id="password-form" hidden>
<label for="password">{password_label}</label>
<input type="password" id="password" autocomplete="current-password">
<button type="submit">{enter}</button>
</form>
<button type="button" id="reconnect" hidden>{reconnect}</button>
</div>
</div>
<script type="application/json" id="config">{config}</script>
</body>
</html>
"""


def language_from_accept(header: str) -> str:
    """The supported language a browser's ``Accept-Language`` prefers (``de-CH, en;q=0.8`` → ``de``),
    else English."""
    choices: list[tuple[float, int, str]] = []
    for index, part in enumerate(header[:512].split(",")):
        tag, _sep, rest = part.strip().partition(";")
        weight = 1.0
        if rest.strip().startswith("q="):
            try:
                weight = float(rest.strip()[2:])
            except ValueError:
                continue
        language = normalize(tag) if tag.strip() != "*" else None
        if language is not None and weight > 0:
            choices.append((-weight, index, language))
    return min(choices)[2] if choices else ENGLISH


class PageAssets:
    """The files of ``web_static/``, read once, and the page made from them."""

    def __init__(self) -> None:
        folder = resources.files("ono99_tui.front").joinpath(STATIC)
        self.files: dict[str, bytes] = {}
        for entry in folder.iterdir():
            if entry.is_file() and any(entry.name.endswith(suffix) for suffix in CONTENT_TYPES):
                self.files[entry.name] = entry.read_bytes()
        # each file's URL carries its content's hash, so a browser may keep it and never serves a stale one
        self.versions = {name: hashlib.sha256(data).hexdigest()[:12] for name, data in self.files.items()}

    async def serve(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        data = self.files.get(name)
        if data is None:
            raise web.HTTPNotFound()
        suffix = name[name.rindex("."):]
        return web.Response(body=data, headers={"Content-Type": CONTENT_TYPES[suffix],
                                                "Cache-Control": "public, max-age=86400"})

    def page(self, language: str, *, code: str | None, watch: bool, auth: str, server_name: str) -> web.Response:
        with using(language):
            words = web_words.page_words()
        config = {"code": code, "watch": watch, "auth": auth, "lang": language, "words": words}
        # a data block, never run; "<" escaped so that no text in it can end the element
        config_text = json.dumps(config, ensure_ascii=False).replace("<", "\\u003c")
        versions = {f"v_{name.replace('-', '_').replace('.', '_')}": version for name, version in self.versions.items()}
        text = PAGE.format(lang=language if language in LANGUAGES else ENGLISH, title=html.escape(server_name),
                           config=config_text, no_script=html.escape(words["no_script"]),
                           password_label=html.escape(words["password_label"]), enter=html.escape(words["enter"]),
                           reconnect=html.escape(words["reconnect"]), **versions)
        return web.Response(text=text, content_type="text/html", charset="utf-8",
                            headers={"Cache-Control": "no-store", "Content-Language": language})


@web.middleware
async def security_headers(request: web.Request,
                           handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    response = await handler(request)
    if response.prepared:  # a websocket: its headers are sent already
        return response
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"  # an invite link in the address bar stays here
    response.headers["Cross-Origin-Opener-Policy"] = "same-origin"
    return response
