/**
 * The live view page: plain HTML and JavaScript, no framework, no build step. Every object-provided
 * string is set with textContent (never innerHTML), so a name like `<img src=x onerror=…>` shows as text.
 * The table shows at most DEBUG_TABLE_ROWS rows; searching asks the server, so every object stays findable.
 */
export const LIVE_VIEW_HTML = String.raw`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>reconcilekit live view</title>
<style>
body{font:14px system-ui,sans-serif;margin:1rem;color:#222}
table{border-collapse:collapse;width:100%;margin-bottom:1rem}
th,td{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
td.err{color:#b00;max-width:40rem;overflow-wrap:anywhere;white-space:pre-wrap}
td.err.long{max-height:6rem;overflow:auto;display:block}
tr.error td.result{color:#b00;font-weight:bold}
tr.success td.result{color:#070}
td.state{color:#06c}
tr.sel{background:#eef}
tr.Warning td.type{color:#b00;font-weight:bold}
#timeline{font-family:monospace;white-space:pre-wrap;overflow-wrap:anywhere}
#timeline .pass{margin-top:.4rem}
#timeline .res{padding-left:2rem;color:#555}
#timeline .failed{color:#b00}
small{color:#666;font-weight:normal}
</style></head><body>
<h1>reconcilekit live view</h1>
<h2>Controllers</h2>
<table id="controllers"><thead><tr><th>controller</th><th>synced</th><th>leading</th><th>ready</th><th>workers busy</th><th>queue depth (by priority)</th><th>oldest waiting</th><th>shard (owned)</th></tr></thead><tbody></tbody></table>
<h2>Objects <small id="total"></small></h2>
<input id="search" placeholder="search by name" size="40"> <small id="shown"></small>
<table id="objects"><thead><tr><th>controller</th><th>object</th><th>state</th><th>last pass</th><th>duration</th><th>result</th><th>trigger</th><th>attempt</th><th>next retry</th><th>error</th></tr></thead><tbody></tbody></table>
<h2>Timeline <small id="selected"></small></h2>
<div id="timeline"></div>
<h2>Recent Events</h2>
<table id="events"><thead><tr><th>last seen</th><th>controller</th><th>type</th><th>reason</th><th>object</th><th>count</th><th>message</th></tr></thead><tbody></tbody></table>
<script>
"use strict";
var MAX_ROWS = 500;
var rows = new Map();
var states = new Map();
var selected = null;
var query = "";
var total = 0;
var matched = 0;
var renderPending = false;
function cell(tr, text, cls) { var td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; tr.appendChild(td); return td; }
function ago(ms) { return ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(1) + " s"; }
function time(t) { return new Date(t).toLocaleTimeString(); }
function countdown(at) { if (at === undefined) return ""; var d = at - Date.now(); return d <= 0 ? "due" : "in " + ago(d); }
function trig(t) { if (!t) return ""; return t.reason + (t.event ? " " + t.event : "") + (t.source ? " " + t.source : ""); }
function steps(r) { return Object.keys(r.steps).map(function (k) { var v = r.steps[k]; return k + " " + (v < 10 ? v.toFixed(2) + " ms" : ago(v)); }).join(", "); }
function parts(r) { return (r.applied || []).map(function (a) { return a.part + (a.count === undefined ? "" : " " + a.count) + (a.names ? " (" + a.names.join(", ") + ")" : ""); }).join("; "); }
function depth(c) { var by = (c.depthByPriority || []).map(function (d) { return d.priority + ": " + d.depth; });
  return String(c.queueDepth) + (c.queueOrder === "fifo" ? " (fifo)" : by.length > 0 ? " (" + by.join(", ") + ")" : ""); }
function shard(c) { var s = c.shard; if (!s) return "-";
  var text = (s.id || "(between terms)") + " (" + s.owned + ")";
  if (!s.sharder) return text;
  return text + "; sharder: " + Object.keys(s.assignment || {}).map(function (k) { return (k || "unassigned") + " " + s.assignment[k]; }).join(", "); }
function id(o) { return o.controller + "\u0000" + o.key; }
function matches(key) { return query === "" || key.indexOf(query) >= 0; }
function renderControllers(list) {
  var body = document.querySelector("#controllers tbody"); body.replaceChildren();
  states.clear();
  list.forEach(function (c) { var tr = document.createElement("tr");
    cell(tr, c.name); cell(tr, String(c.synced)); cell(tr, String(c.leading)); cell(tr, String(c.ready));
    cell(tr, c.workersBusy + "/" + c.workers); cell(tr, depth(c)); cell(tr, c.oldestWaitingMs ? ago(c.oldestWaitingMs) : "-"); cell(tr, shard(c));
    body.appendChild(tr);
    (c.running || []).forEach(function (k) { states.set(c.name + "\u0000" + k, { state: "running" }); });
    (c.queued || []).forEach(function (q) { var sid = c.name + "\u0000" + q.key;
      if (!states.has(sid)) states.set(sid, { state: "queued", priority: q.priority, trigger: q.trigger, controller: c.name, key: q.key }); }); });
  scheduleRender();
}
function stateText(s) { if (!s) return ""; return s.state + (s.priority !== undefined ? " (priority " + s.priority + ")" : "") + (s.trigger ? " \u2190 " + trig(s.trigger) : ""); }
function scheduleRender() { if (renderPending) return; renderPending = true; setTimeout(function () { renderPending = false; renderObjects(); }, 100); }
function renderObjects() {
  var body = document.querySelector("#objects tbody"); body.replaceChildren();
  var list = Array.from(rows.values()).filter(function (o) { return matches(o.key); });
  states.forEach(function (s, sid) { if (s.key !== undefined && !rows.has(sid) && matches(s.key)) list.push({ controller: s.controller, key: s.key, pending: true }); });
  list.sort(function (a, b) { return (b.pending ? Infinity : b.startedAt) - (a.pending ? Infinity : a.startedAt); });
  document.getElementById("total").textContent = "(" + total + ")";
  var of = Math.max(list.length, matched);
  document.getElementById("shown").textContent = of > MAX_ROWS ? "showing the " + MAX_ROWS + " most recent of " + of + " \u2014 search to narrow" : "";
  list.slice(0, MAX_ROWS).forEach(function (o) { var tr = document.createElement("tr"); tr.className = o.pending ? "queued" : o.result;
    tr.dataset.key = o.key; if (selected && id(o) === id(selected)) tr.classList.add("sel");
    cell(tr, o.controller); cell(tr, o.key, "key"); cell(tr, stateText(states.get(id(o))), "state");
    if (o.pending) { for (var i = 0; i < 7; i++) cell(tr, ""); }
    else {
      cell(tr, time(o.startedAt)); cell(tr, ago(o.durationMs));
      cell(tr, o.result, "result"); cell(tr, trig(o.trigger), "trigger"); cell(tr, String(o.attempt));
      var next = cell(tr, countdown(o.nextAt), "next"); next.dataset.at = o.nextAt === undefined ? "" : String(o.nextAt);
      var err = cell(tr, o.error || "", "err"); if (o.error && o.error.length > 300) err.classList.add("long");
    }
    tr.addEventListener("click", function () { selected = o; loadTimeline(); renderObjects(); });
    body.appendChild(tr); });
}
function loadTimeline() {
  if (!selected) return;
  document.getElementById("selected").textContent = selected.controller + " " + selected.key;
  fetch("api/object?controller=" + encodeURIComponent(selected.controller) + "&key=" + encodeURIComponent(selected.key))
    .then(function (r) { return r.ok ? r.json() : { passes: [] }; })
    .then(function (h) { var el = document.getElementById("timeline"); el.replaceChildren();
      h.passes.slice().reverse().forEach(function (p) { var line = document.createElement("div"); line.className = "pass " + p.result;
        line.textContent = time(p.startedAt) + "  " + p.result + "  " + ago(p.durationMs) + "  attempt " + p.attempt + (p.deleting ? "  (delete)" : "") + (p.trigger ? "  \u2190 " + trig(p.trigger) : "") + (p.error ? "  " + p.error : "");
        el.appendChild(line);
        (p.resources || []).forEach(function (r) { var d = document.createElement("div"); d.className = "res" + (r.failedStep ? " failed" : "");
          var applied = parts(r);
          d.textContent = r.resource + ": " + steps(r) + (r.failedStep ? "  failed in " + r.failedStep : "") + (applied ? "  \u00b7 applied " + applied : "");
          el.appendChild(d); }); }); });
}
function renderEvents(list) {
  var body = document.querySelector("#events tbody"); body.replaceChildren();
  list.forEach(function (e) { var tr = document.createElement("tr"); tr.className = e.type;
    cell(tr, time(e.at)); cell(tr, e.controller); cell(tr, e.type, "type"); cell(tr, e.reason); cell(tr, e.object);
    cell(tr, String(e.count)); cell(tr, e.message, "err"); body.appendChild(tr); });
}
function loadObjects() {
  var q = query;
  fetch("api/objects?search=" + encodeURIComponent(q)).then(function (r) { return r.json(); }).then(function (b) {
    if (q !== query) return;
    total = b.total; matched = b.matched; rows.clear(); b.objects.forEach(function (o) { rows.set(id(o), o); }); scheduleRender(); });
}
function refresh() {
  fetch("api/controllers").then(function (r) { return r.json(); }).then(function (b) { renderControllers(b.controllers); });
  fetch("api/events").then(function (r) { return r.json(); }).then(function (b) { renderEvents(b.events); });
  loadObjects();
}
var searchTimer;
document.getElementById("search").addEventListener("input", function (e) {
  query = e.target.value; scheduleRender(); clearTimeout(searchTimer); searchTimer = setTimeout(loadObjects, 150); });
setInterval(function () { document.querySelectorAll("td.next").forEach(function (td) {
  var at = td.dataset.at; td.textContent = at ? countdown(Number(at)) : ""; }); }, 250);
setInterval(refresh, 2000);
refresh();
var es = new EventSource("api/stream");
es.addEventListener("pass", function (e) { var o = JSON.parse(e.data); var s = states.get(id(o));
  if (s && s.state === "queued") states.delete(id(o));
  if (matches(o.key)) { rows.set(id(o), o); scheduleRender(); }
  if (selected && id(o) === id(selected)) loadTimeline(); });
</script></body></html>
`;
