import { createHash } from "node:crypto";

/*
 * The operator console: one self-contained page (no build step, no CDN).
 * It is written for a teleoperator under stress: the one question it asks —
 * "did this motion happen?" — sits at the top in big type, with what is known
 * (the tool, its arguments, target vs observed vs live pose, the notes) and
 * two unmistakable answers. Everything dynamic goes in through textContent,
 * never innerHTML: action args come from a model and are untrusted.
 *
 * Live data comes from GET /v1/events read with fetch streaming (not
 * EventSource), so the bearer token goes in a header, as on every route, and
 * never in a URL. The token itself arrives in the page URL's fragment, which
 * browsers never send to the server.
 */

const STYLE = `
:root { --ok:#0a7a2f; --bad:#b00020; --warn:#b35c00; --ink:#111; --muted:#555; --line:#ccc; --bg:#f6f6f4; }
* { box-sizing: border-box; }
body { margin:0; font: 18px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--ink); background:var(--bg); }
header { display:flex; flex-wrap:wrap; gap:12px; align-items:center; padding:12px 20px; background:#fff; border-bottom:3px solid var(--ink); }
header h1 { font-size:22px; margin:0 16px 0 0; }
.pill { font-weight:800; font-size:19px; padding:6px 12px; border-radius:6px; color:#fff; letter-spacing:.02em; }
.pill.ok { background:var(--ok); } .pill.bad { background:var(--bad); } .pill.warn { background:var(--warn); }
#halt { margin-left:auto; font-size:18px; font-weight:800; padding:10px 18px; background:#fff; color:var(--bad); border:3px solid var(--bad); border-radius:8px; cursor:pointer; }
main { padding:16px 20px; display:grid; gap:18px; max-width:1400px; }
section { background:#fff; border:1px solid var(--line); border-radius:10px; padding:14px 18px; }
h2 { margin:0 0 10px; font-size:22px; }
#alerts div { color:#fff; font-size:18px; font-weight:700; padding:12px 20px; }
#alerts .lost { background:var(--bad); font-size:22px; } #alerts .warn { background:var(--warn); }
#fatal { display:none; background:var(--bad); color:#fff; font-size:22px; font-weight:700; padding:16px 20px; }
#banner { display:none; font-size:20px; font-weight:700; padding:12px 16px; border-radius:8px; }
#banner.ok { display:block; background:#e3f4e8; border:2px solid var(--ok); color:var(--ok); }
#banner.bad { display:block; background:#fde7ea; border:2px solid var(--bad); color:var(--bad); }
#pending.has { border:4px solid var(--warn); background:#fff8ef; }
#pending h2 { font-size:26px; }
.none { color:var(--ok); font-weight:700; font-size:20px; }
.who { display:flex; gap:10px; align-items:center; margin:6px 0 14px; font-size:20px; flex-wrap:wrap; }
input[type=text] { font-size:20px; padding:8px 10px; border:2px solid var(--ink); border-radius:6px; min-width:260px; }
input.missing { border-color:var(--bad); background:#fff0f0; }
.card { border:2px solid var(--warn); border-radius:10px; padding:14px 16px; margin:12px 0; background:#fff; }
.card h3 { margin:0 0 6px; font-size:24px; color:var(--warn); }
.meta { color:var(--muted); font-size:16px; margin-bottom:8px; }
.why { font-size:18px; margin:6px 0; }
.args { font: 16px/1.3 ui-monospace, Menlo, Consolas, monospace; background:#f1f1f1; padding:6px 8px; border-radius:6px; white-space:pre-wrap; word-break:break-all; }
table { border-collapse:collapse; width:100%; font-variant-numeric: tabular-nums; }
th, td { text-align:left; padding:5px 10px; border-bottom:1px solid var(--line); }
th { font-size:15px; color:var(--muted); text-transform:uppercase; letter-spacing:.04em; }
td.num { text-align:right; font-family: ui-monospace, Menlo, Consolas, monospace; }
.near { color:var(--ok); font-weight:700; } .far { color:var(--bad); font-weight:700; }
.buttons { display:flex; gap:14px; margin-top:12px; flex-wrap:wrap; align-items:center; }
.buttons button { font-size:21px; max-width:100%; font-weight:800; padding:14px 20px; border-radius:8px; border:3px solid; cursor:pointer; min-width:300px; }
button.done { background:var(--ok); border-color:var(--ok); color:#fff; }
button.notdone { background:#fff; border-color:var(--bad); color:var(--bad); }
button:disabled { opacity:.35; cursor:not-allowed; }
.hint { color:var(--bad); font-weight:700; }
.err { color:var(--bad); font-weight:700; margin-top:8px; }
.badge { display:inline-block; font-size:14px; font-weight:800; padding:2px 8px; border-radius:4px; color:#fff; }
.s-done, .s-confirmed_done { background:var(--ok); } .s-failed, .s-confirmed_not_done { background:#555; }
.s-unknown { background:var(--warn); } .s-started { background:#1565c0; }
.moving { background:#1565c0; } .locked { background:var(--warn); }
.hidden { display:none; }
.age { font-weight:400; color:var(--muted); font-size:15px; }
.cols { display:grid; grid-template-columns: minmax(340px, 2fr) 3fr; gap:18px; }
/* A grid item's min-width is its content's by default: a long message would push the page wider than the screen. */
.cols > section { min-width:0; overflow-x:auto; }
main { min-width:0; }
th.num { text-align:right; }
td.msg { font-size:15px; color:var(--muted); padding-top:0; }
#actions tr.head td { border-bottom:none; padding-bottom:2px; }
td.id { font: 14px ui-monospace, Menlo, Consolas, monospace; white-space:nowrap; }
td.flags { white-space:nowrap; }
.badge + .badge { margin-left:6px; }
@media (max-width: 900px) { .cols { grid-template-columns: 1fr; } }
`;

const SCRIPT = `
"use strict";
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var TOKEN_KEY = "armbridge.token", NAME_KEY = "armbridge.operator";
  var m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    // The token stays out of the address bar (screenshots, shoulders) once read.
    history.replaceState(null, "", location.pathname + location.search);
  }
  var token = sessionStorage.getItem(TOKEN_KEY);
  var headers = { authorization: "Bearer " + token };
  var lastState = null, lastStateAt = 0, connected = false, cards = {};

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fatal(msg) { var f = $("fatal"); f.textContent = msg; f.style.display = "block"; }
  function banner(kind, msg) { var b = $("banner"); b.className = kind; b.textContent = msg; }
  function fmt(x) { return typeof x === "number" ? x.toFixed(3) : "\\u2014"; }
  function ago(ms) {
    var s = Math.max(0, Math.round((Date.now() - ms) / 1000));
    return s < 60 ? s + " s ago" : s < 3600 ? Math.round(s / 60) + " min ago" : Math.round(s / 3600) + " h ago";
  }
  function api(method, path, body) {
    var init = { method: method, headers: Object.assign({}, headers) };
    if (body !== undefined) { init.headers["content-type"] = "application/json"; init.body = JSON.stringify(body); }
    return fetch(path, init).then(function (r) {
      return r.json().catch(function () { return null; }).then(function (j) {
        if (r.status === 401) fatal("The token was refused. Open the console link that armbridge serve printed (it ends in #token=...).");
        if (!r.ok) { var e = (j && j.error) || { code: "HTTP_" + r.status, message: r.statusText }; throw e; }
        return j;
      });
    });
  }

  function setPill(id, cls, text) { var p = $(id); p.className = "pill " + cls; p.textContent = text; }
  function renderHealth() {
    if (!connected) setPill("conn", "bad", "NOT CONNECTED");
    else setPill("conn", "ok", "LIVE");
    var s = lastState;
    var silent = !lastStateAt || Date.now() - lastStateAt > 3000;
    if (!s) setPill("arm", "bad", "ARM: NO DATA");
    else if (s.faults.length) setPill("arm", "bad", "ARM FAULT: " + s.faults.join(", "));
    else if (s.stale || silent) setPill("arm", "bad", "ARM DATA STALE");
    else if (s.moving.length) setPill("arm", "warn", "ARM MOVING");
    else setPill("arm", "ok", "ARM IDLE");
    var n = s ? s.pending_unknowns.length : 0;
    setPill("need", n ? "warn" : "ok", n ? n + " NEED CONFIRMATION" : "NOTHING TO CONFIRM");
  }

  function renderPose(s) {
    var tb = $("pose"); tb.textContent = "";
    Object.keys(s.pose).forEach(function (name) {
      var tr = el("tr");
      tr.appendChild(el("td", null, name));
      var v = s.pose[name];
      tr.appendChild(el("td", "num", fmt(v)));
      tr.appendChild(el("td", "num", /grip/i.test(name) ? "" : (v * 180 / Math.PI).toFixed(1) + "\\u00b0"));
      var st = el("td", "flags");
      if (s.moving.indexOf(name) >= 0) st.appendChild(el("span", "badge moving", "MOVING"));
      if (Object.keys(s.quarantined).some(function (k) { return k === name || k.split(":").pop() === name; })) st.appendChild(el("span", "badge locked", "LOCKED"));
      tr.appendChild(st);
      tb.appendChild(tr);
    });
    $("age").textContent = s.age_ms === null ? "no status yet" : "status age " + s.age_ms + " ms";
  }

  function operatorName() { return $("operator").value.trim(); }
  function syncButtons() {
    var ok = operatorName().length > 0;
    $("operator").className = ok ? "" : "missing";
    Object.keys(cards).forEach(function (id) {
      cards[id].buttons.forEach(function (b) { b.disabled = !ok || cards[id].busy; });
      cards[id].hint.style.display = ok ? "none" : "inline";
    });
  }

  function targetsOf(a) { return (a.command && a.command.targets) || {}; }
  function fillEvidence(card, a) {
    var tb = card.evidence; tb.textContent = "";
    var targets = targetsOf(a), seen = (a.evidence && a.evidence.pose) || {}, live = (lastState && lastState.pose) || {};
    Object.keys(targets).forEach(function (j) {
      var tr = el("tr");
      tr.appendChild(el("td", null, j));
      tr.appendChild(el("td", "num", fmt(targets[j])));
      tr.appendChild(el("td", "num", fmt(seen[j])));
      tr.appendChild(el("td", "num", fmt(live[j])));
      var d = typeof live[j] === "number" ? Math.abs(live[j] - targets[j]) : null;
      tr.appendChild(el("td", d === null ? "" : d <= 0.02 ? "near" : "far", d === null ? "\\u2014" : d <= 0.02 ? "AT TARGET" : "off by " + d.toFixed(3)));
      tb.appendChild(tr);
    });
  }

  function makeCard(a) {
    var c = el("div", "card"); c.setAttribute("data-action-id", a.action_id);
    c.appendChild(el("h3", null, "UNKNOWN: did this " + a.tool + " happen?"));
    c.appendChild(el("div", "meta", "action " + a.action_id + " \\u00b7 call " + a.call_id + " \\u00b7 started " + ago(a.created_at) +
      (a.timed_out ? " \\u00b7 our wait timed out" : "") + " \\u00b7 locks: " + a.resources.join(", ")));
    c.appendChild(el("div", "why", a.message || "No conclusive evidence."));
    c.appendChild(el("div", "args", a.tool + " " + JSON.stringify(a.args)));
    var t = el("table"), th = el("tr");
    [["joint", null], ["target", "num"], ["seen when it went unknown", "num"], ["now", "num"], ["now vs target", null]].forEach(function (h) { th.appendChild(el("th", h[1], h[0])); });
    var thead = el("thead"); thead.appendChild(th); t.appendChild(thead);
    var tb = el("tbody"); t.appendChild(tb); c.appendChild(t);
    var notes = (a.evidence && a.evidence.notes) || [];
    if (notes.length) { var ul = el("ul"); notes.forEach(function (n) { ul.appendChild(el("li", null, n)); }); c.appendChild(ul); }
    var note = el("input"); note.type = "text"; note.placeholder = "note (optional): what you saw"; note.setAttribute("data-role", "note");
    c.appendChild(note);
    var row = el("div", "buttons");
    var done = el("button", "done", "\\u2714 Confirm DONE \\u2014 it reached the target");
    var notDone = el("button", "notdone", "\\u2718 Confirm NOT done \\u2014 it did not happen");
    done.setAttribute("data-outcome", "done"); notDone.setAttribute("data-outcome", "not_done");
    var hint = el("span", "hint", "Type your name above first");
    row.appendChild(done); row.appendChild(notDone); row.appendChild(hint); c.appendChild(row);
    var err = el("div", "err"); c.appendChild(err);
    var card = { root: c, evidence: tb, buttons: [done, notDone], hint: hint, err: err, busy: false };
    [done, notDone].forEach(function (b) {
      b.addEventListener("click", function () { confirmAction(a, card, b.getAttribute("data-outcome"), note.value.trim()); });
    });
    return card;
  }

  function confirmAction(a, card, outcome, note) {
    var op = operatorName();
    if (!op) { $("operator").focus(); return; }
    localStorage.setItem(NAME_KEY, op);
    card.busy = true; card.err.textContent = ""; syncButtons();
    var body = { outcome: outcome, operator: op };
    if (note) body.note = note;
    api("POST", "/v1/actions/" + encodeURIComponent(a.action_id) + "/confirm", body).then(function (row) {
      banner("ok", new Date().toLocaleTimeString() + " \u2014 recorded: " + a.tool + " " + a.action_id + " \\u2192 " + (outcome === "done" ? "DONE" : "NOT DONE") + " (by " + op + "). Its joints are unlocked.");
      delete cards[a.action_id]; card.root.remove();
      return refreshState();
    }).catch(function (e) {
      card.busy = false; syncButtons();
      card.err.textContent = (e.code || "ERROR") + ": " + (e.message || String(e));
    });
  }

  function renderPending(s) {
    var list = $("cards"), ids = {};
    s.pending_unknowns.forEach(function (a) {
      ids[a.action_id] = true;
      // Cards are kept, not rebuilt, so a note being typed survives the next update.
      if (!cards[a.action_id]) { cards[a.action_id] = makeCard(a); list.appendChild(cards[a.action_id].root); }
      fillEvidence(cards[a.action_id], a);
    });
    Object.keys(cards).forEach(function (id) { if (!ids[id]) { cards[id].root.remove(); delete cards[id]; } });
    $("pending").className = s.pending_unknowns.length ? "has" : "";
    $("nopending").style.display = s.pending_unknowns.length ? "none" : "block";
    $("who").className = s.pending_unknowns.length ? "who" : "who hidden";
    syncButtons();
  }

  // Issue 8: a ledger deleted or replaced under the bridge refuses every motion until a restart, and
  // the page must say so louder than anything else; a wide bind or a short token is said too.
  function renderLedgerLost(s) {
    var lost = s.ledger && s.ledger.lost, d = $("ledgerlost");
    if (!lost) { if (d) d.remove(); return; }
    if (!d) { d = el("div", "lost"); d.id = "ledgerlost"; $("alerts").insertBefore(d, $("alerts").firstChild); }
    d.textContent = "LEDGER LOST \u2014 every motion is refused until armbridge is restarted: " + lost.message;
  }
  function showSecurityWarnings() {
    api("GET", "/v1/security").then(function (r) {
      (r.warnings || []).forEach(function (w) {
        var d = el("div", "warn", "SECURITY WARNING: " + w.message);
        d.setAttribute("data-kind", w.kind);
        $("alerts").appendChild(d);
      });
    }).catch(function () { /* the page works without it; a refused token is said by api() */ });
  }

  function onState(s) {
    lastState = s; lastStateAt = Date.now();
    renderLedgerLost(s); renderPose(s); renderPending(s); renderHealth();
  }
  function refreshState() { return api("GET", "/v1/state").then(onState); }

  var actionsTimer = null;
  function refreshActions() {
    if (actionsTimer) return;
    actionsTimer = setTimeout(function () {
      actionsTimer = null;
      api("GET", "/v1/actions?limit=15").then(function (r) {
        var tb = $("actions"); tb.textContent = "";
        r.actions.forEach(function (a) {
          var tr = el("tr");
          tr.appendChild(el("td", null, new Date(a.created_at).toLocaleTimeString()));
          tr.appendChild(el("td", null, a.tool));
          var st = el("td"); st.appendChild(el("span", "badge s-" + a.state, a.state.replace(/_/g, " ").toUpperCase())); tr.appendChild(st);
          tr.appendChild(el("td", null, a.operator ? "by " + a.operator : a.settled_by));
          tr.appendChild(el("td", "id", a.action_id));
          tr.className = "head";
          tb.appendChild(tr);
          // The message gets its own full-width row: squeezed into a column it is unreadable.
          var mr = el("tr"), mc = el("td", "msg", (a.result && a.result.message) || a.message || "");
          mc.colSpan = 5; mr.appendChild(mc); tb.appendChild(mr);
        });
      }).catch(function () { /* the stream reconnect will retry */ });
    }, 150);
  }

  function handleBlock(block) {
    var ev = "message", data = "";
    block.split("\\n").forEach(function (line) {
      if (line.indexOf("event:") === 0) ev = line.slice(6).trim();
      else if (line.indexOf("data:") === 0) data += line.slice(5).trim();
    });
    if (!data) return;
    var j = JSON.parse(data);
    if (ev === "state") onState(j);
    else if (ev === "executor") refreshActions();
  }

  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
  async function stream() {
    for (;;) {
      try {
        var res = await fetch("/v1/events", { headers: headers, cache: "no-store" });
        if (res.status === 401) { fatal("The token was refused. Open the console link that armbridge serve printed (it ends in #token=...)."); connected = false; renderHealth(); return; }
        if (!res.ok || !res.body) throw new Error("HTTP " + res.status);
        connected = true; renderHealth(); refreshActions();
        var reader = res.body.pipeThrough(new TextDecoderStream()).getReader(), buf = "";
        for (;;) {
          var r = await reader.read();
          if (r.done) break;
          buf += r.value;
          var i;
          while ((i = buf.indexOf("\\n\\n")) >= 0) { handleBlock(buf.slice(0, i)); buf = buf.slice(i + 2); }
        }
      } catch (e) { /* reconnect below */ }
      connected = false; renderHealth();
      await sleep(1000);
    }
  }

  $("operator").value = localStorage.getItem(NAME_KEY) || "";
  $("operator").addEventListener("input", syncButtons);
  $("halt").addEventListener("click", function () {
    api("POST", "/v1/calls", { calls: [{ id: "console-stop-" + Date.now(), name: "stop", args: {} }] }).then(function (r) {
      var o = r.responses[0].response; o = o.output || o.error;
      banner(o.status === "done" ? "ok" : "bad", "Halt: " + o.message);
    }).catch(function (e) { banner("bad", "Halt failed: " + (e.code || "") + " " + (e.message || e)); });
  });
  setInterval(renderHealth, 1000);
  renderHealth();
  if (!token) { fatal("No token. Open the console link that armbridge serve printed: it ends in #token=..."); return; }
  showSecurityWarnings();
  stream();
})();
`;

const BODY = `
<div id="fatal" role="alert"></div>
<div id="alerts" role="alert"></div>
<header>
  <h1>armbridge console</h1>
  <span id="conn" class="pill bad">NOT CONNECTED</span>
  <span id="arm" class="pill bad">ARM: NO DATA</span>
  <span id="need" class="pill ok">NOTHING TO CONFIRM</span>
  <button id="halt" title="Sends the stop tool: a software halt of all axes. It is not an emergency stop.">HALT ALL AXES (software, not E-stop)</button>
</header>
<main>
  <div id="banner" role="status"></div>
  <section id="pending">
    <h2>Motions waiting for your confirmation</h2>
    <div id="nopending" class="none">None. Every motion has a known outcome.</div>
    <div class="who hidden" id="who"><label for="operator"><b>Your name (required):</b></label>
      <input type="text" id="operator" autocomplete="name" placeholder="operator name"></div>
    <div id="cards"></div>
  </section>
  <div class="cols">
    <section>
      <h2>Arm pose <small id="age" class="age"></small></h2>
      <table><thead><tr><th>axis</th><th class="num">position</th><th class="num">deg</th><th></th></tr></thead><tbody id="pose"></tbody></table>
    </section>
    <section>
      <h2>Recent actions</h2>
      <table><thead><tr><th>time</th><th>tool</th><th>state</th><th>settled by</th><th>action</th></tr></thead><tbody id="actions"></tbody></table>
    </section>
  </div>
</main>
`;

function sha256(text: string): string {
  return `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
}

/** The page, and a CSP that allows exactly its own inline script and style and nothing from elsewhere. */
export const CONSOLE_PAGE = {
  html: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>armbridge operator console</title>
<style>${STYLE}</style></head>
<body>${BODY}<script>${SCRIPT}</script></body></html>
`,
  contentSecurityPolicy: `default-src 'none'; script-src ${sha256(SCRIPT)}; style-src ${sha256(STYLE)}; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
};
