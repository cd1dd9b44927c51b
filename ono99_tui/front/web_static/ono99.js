// The page of the web front: an xterm.js terminal on a websocket to a session of the game's app.
// Binary frames carry the terminal's bytes both ways; JSON text frames the rest (docs/web.md).
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("config").textContent);
  var words = config.words;
  var GUEST = "ono99.guest";  // {name, resume}: this browser's guest, so that a reload finds the seat again
  var PASSWORD = "ono99.password";  // for this tab only
  var overlay = document.getElementById("overlay");
  var message = document.getElementById("message");
  var passwordForm = document.getElementById("password-form");
  var passwordInput = document.getElementById("password");
  var reconnect = document.getElementById("reconnect");
  var touch = window.matchMedia("(pointer: coarse)").matches;  // a phone or a tablet
  var term = new Terminal({ scrollback: 0, cursorBlink: false, fontSize: 15,
                            fontFamily: "'DejaVu Sans Mono', 'Noto Sans Mono', Menlo, Consolas, monospace" });
  var fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  term.open(document.getElementById("terminal"));
  // WebGL draws box and block characters as whole cells (the dialogs' borders); else the DOM does.
  // Not on a touch screen: there its drawing ignores the screen's pixel ratio (text three times too big
  // on a phone, and the table cut off).
  if (!touch) {
    try {
      var webgl = new WebglAddon.WebglAddon();
      webgl.onContextLoss(function () { webgl.dispose(); });
      term.loadAddon(webgl);
    } catch (e) { /* no WebGL here: xterm.js draws with the DOM */ }
  }
  window.ono99Terminal = term;  // for a look from the browser's console (and the tests)
  // A touch screen's soft keyboard opens only while the app's focus is on a text box (chat, a name):
  // a tap on a card or a footer key focuses the terminal's hidden text area too, and would cover the
  // table with a keyboard. The front says when typing starts and ends ({"t": "typing"}).
  function typing(text) {
    if (!touch || !term.textarea) { return; }
    term.textarea.setAttribute("inputmode", text ? "text" : "none");
    if (text && document.activeElement === term.textarea) {
      term.textarea.blur();  // focused again under the new mode: the keyboard comes up
      term.textarea.focus();
    }
  }
  typing(false);
  fit.fit();
  var socket = null;
  var encoder = new TextEncoder();

  function stored(key, storage) {
    try { return storage.getItem(key); } catch (e) { return null; }
  }
  function keep(key, value, storage) {
    try { storage.setItem(key, value); } catch (e) { /* storage off: a reload starts afresh */ }
  }
  function guest() {
    try { return JSON.parse(stored(GUEST, window.localStorage)) || {}; } catch (e) { return {}; }
  }
  function show(text, kind) {
    message.textContent = text;
    passwordForm.hidden = kind !== "password";
    reconnect.hidden = kind !== "reconnect";
    overlay.hidden = false;
    (kind === "password" ? passwordInput : reconnect).focus();
  }
  function send(value) {
    if (socket !== null && socket.readyState === WebSocket.OPEN) {
      socket.send(value);
    }
  }

  term.onData(function (data) { send(encoder.encode(data)); });
  term.onBinary(function (data) {
    var bytes = new Uint8Array(data.length);
    for (var i = 0; i < data.length; i++) { bytes[i] = data.charCodeAt(i) & 255; }
    send(bytes);
  });
  term.onResize(function (size) { send(JSON.stringify({ t: "resize", cols: size.cols, rows: size.rows })); });
  window.addEventListener("resize", function () { fit.fit(); });

  function connect() {
    overlay.hidden = true;
    term.reset();
    typing(false);
    fit.fit();
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
    var ws = new WebSocket(url);
    var over = false;  // the front said why the session ended
    socket = ws;
    ws.binaryType = "arraybuffer";
    ws.onopen = function () {
      var kept = guest();
      ws.send(JSON.stringify({ t: "open", cols: term.cols, rows: term.rows, name: kept.name || "",
                               resume: kept.resume || "", password: stored(PASSWORD, window.sessionStorage) || "",
                               code: config.code, watch: config.watch, lang: config.lang }));
      term.focus();
    };
    ws.onmessage = function (event) {
      if (typeof event.data !== "string") {
        term.write(new Uint8Array(event.data));
        return;
      }
      var control = JSON.parse(event.data);
      if (control.t === "typing") {
        typing(control.text === true);
      } else if (control.t === "guest") {
        keep(GUEST, JSON.stringify({ name: control.name, resume: control.resume }), window.localStorage);
      } else if (control.t === "password") {
        over = true;
        show(control.text, "password");
      } else if (control.t === "bye" || control.t === "refused") {
        over = true;
        show(control.text, "reconnect");
      }
    };
    ws.onclose = function () {
      if (socket === ws) { socket = null; }
      if (!over) { show(words.lost, "reconnect"); }
    };
  }

  reconnect.addEventListener("click", connect);
  passwordForm.addEventListener("submit", function (event) {
    event.preventDefault();
    keep(PASSWORD, passwordInput.value, window.sessionStorage);
    passwordInput.value = "";
    connect();
  });
  if (config.auth === "password" && !stored(PASSWORD, window.sessionStorage)) {
    show(words.password, "password");
  } else {
    connect();
  }
}());
