// Grove web page: search and browse the graphs through the /v1 API, and ask
// questions through POST /v1/ask/stream, drawing the search tree as its
// Server-Sent Events arrive. Plain DOM code, no dependencies. Text from the
// server is only ever inserted with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);

// el builds an element: el("li", {class: "x", onclick: f}, child, "text", ...).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) {
    if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

// ---- API access -----------------------------------------------------------

function authHeaders() {
  const tok = sessionStorage.getItem("grove-token");
  return tok ? { Authorization: "Bearer " + tok } : {};
}

// api fetches a JSON endpoint and throws an Error with the server's message.
async function api(path, opts = {}) {
  const resp = await fetch(path, { ...opts, headers: { ...authHeaders(), ...(opts.headers || {}) } });
  if (resp.status === 401) $("token-form").hidden = false;
  const body = await resp.json().catch(() => ({ error: "HTTP " + resp.status }));
  if (!resp.ok) throw new Error(body.error || "HTTP " + resp.status);
  return body;
}

function qs(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    for (const x of [].concat(v)) if (x !== "" && x !== undefined) u.append(k, x);
  }
  return u.toString();
}

function showError(target, err) {
  target.replaceChildren(el("span", { class: "error" }, err.message || String(err)));
}

// ---- start-up ---------------------------------------------------------------

async function init() {
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    sessionStorage.setItem("grove-token", $("token").value.trim());
    $("token-form").hidden = true;
    loadMeta();
  });
  $("search-form").addEventListener("submit", (e) => { e.preventDefault(); search(); });
  $("ask-form").addEventListener("submit", (e) => { e.preventDefault(); ask(); });
  $("stop-btn").addEventListener("click", () => run.ctrl && run.ctrl.abort());
  await loadMeta();
}

async function loadMeta() {
  try {
    const st = await api("/v1/stats");
    $("summary").textContent = `${st.graphs} graph(s), ${st.quads.toLocaleString()} quads` +
      (st.read_only ? " · read-only" : "");
    const gs = await api("/v1/graphs");
    fillGraphs(gs.graphs.map((g) => g.name));
    const ms = await api("/v1/methods");
    fillMethods(ms);
  } catch (err) {
    showError($("summary"), err);
  }
}

function fillGraphs(names) {
  const opts = (sel) => names.map((n) => el("option", { value: n, selected: sel }, n));
  $("search-graph").replaceChildren(el("option", { value: "" }, "all graphs"), ...opts(false));
  $("ask-graphs").replaceChildren(...opts(false));
  $("ask-graphs").size = Math.min(4, Math.max(2, names.length));
}

function fillMethods(ms) {
  const sel = $("method");
  sel.replaceChildren(...ms.methods.map((m) =>
    el("option", { value: m.name, title: m.description, selected: m.name === ms.default }, m.name)));
  const caps = Object.entries(ms.param_caps || {}).map(([k, v]) => `${k}≤${v}`).join(", ");
  $("params").title = "name=value pairs, comma separated. Server caps: " + caps;
  if (ms.methods.length === 0) {
    $("ask-btn").disabled = true;
    $("status").textContent = "Reasoning is not configured on this server.";
  }
}

// ---- explore ----------------------------------------------------------------

async function search() {
  const list = $("search-results");
  list.replaceChildren(el("li", { class: "muted" }, "searching…"));
  try {
    const res = await api("/v1/search?" + qs({ q: $("search-q").value, graph: $("search-graph").value, limit: 20 }));
    list.replaceChildren(...res.candidates.map((c) => el("li", {},
      entityLink(c), " ", el("span", { class: "muted small" }, `${c.graph} · ${c.match} · ${c.id}`))));
    if (res.candidates.length === 0) list.replaceChildren(el("li", { class: "muted" }, "no match"));
  } catch (err) {
    showError(list, err);
  }
}

function entityLink(e) {
  return el("button", { class: "link", type: "button", title: e.id, onclick: () => openEntity(e.id) },
    e.label || e.id);
}

async function openEntity(id) {
  const box = $("entity");
  box.hidden = false;
  $("entity-title").textContent = id;
  $("entity-edges").replaceChildren();
  $("edges-title").hidden = true;
  try {
    const q = qs({ id });
    const [e, rels, feats, same] = await Promise.all([
      api("/v1/entity?" + q), api("/v1/relations?" + q + "&dir=both"),
      api("/v1/features?" + q), api("/v1/sameas?" + q)]);
    renderEntity(e, rels, feats, same);
  } catch (err) {
    showError($("entity-desc"), err);
  }
}

function renderEntity(e, rels, feats, same) {
  $("entity-title").textContent = e.label || e.id;
  $("entity-id").textContent = e.id;
  $("entity-desc").textContent = e.description || "";
  $("entity-meta").textContent = [
    e.aliases && e.aliases.length ? "also: " + e.aliases.join(", ") : "",
    e.graphs && e.graphs.length ? "in " + e.graphs.join(", ") : ""].filter(Boolean).join(" · ");
  $("entity-relations").replaceChildren(...rels.relations.filter((r) => !r.hidden).map((r) => el("li", {},
    el("button", { class: "link relation", type: "button", onclick: () => loadEdges(e.id, r) },
      (r.dir === "in" ? "← " : "→ ") + (r.dir === "in" ? r.inverse_label : r.label)),
    el("span", { class: "muted small" }, ` ${r.count} · ${r.graph}`))));
  $("entity-features").replaceChildren(...feats.features.map((f) =>
    el("tr", {}, el("td", { class: "muted" }, f.name), el("td", {}, f.value))));
  $("entity-sameas").replaceChildren(...same.links.map((l) =>
    el("li", {}, entityLink(l.target), el("span", { class: "muted small" }, ` in ${l.graph}`))));
}

async function loadEdges(id, rel) {
  const list = $("entity-edges");
  $("edges-title").hidden = false;
  $("edges-title").textContent = "Edges: " + (rel.dir === "in" ? rel.inverse_label : rel.label);
  try {
    const res = await api("/v1/edges?" + qs({ id, relation: rel.id, dir: rel.dir, limit: 100 }));
    list.replaceChildren(...res.edges.map(edgeItem));
    if (res.truncated) list.append(el("li", { class: "muted" }, "… more edges not shown"));
  } catch (err) {
    showError(list, err);
  }
}

function edgeItem(e) {
  return el("li", {}, entityLink(e.subject), el("span", { class: "muted" }, ` — ${e.relation_label || e.relation} → `),
    e.object.literal ? e.object.label : entityLink(e.object));
}

// ---- ask --------------------------------------------------------------------

// run is the state of the current question.
const run = { ctrl: null, nodes: new Map(), selected: 0, modelCalls: 0, kgCalls: [], tokens: 0, support: [] };

// parseParams reads "k=3, max_depth=7, flag=true" into an object.
function parseParams(text) {
  const out = {};
  for (const part of text.split(/[,\s]+/).filter(Boolean)) {
    const [k, ...rest] = part.split("=");
    const v = rest.join("=");
    if (!k || rest.length === 0) throw new Error(`parameter "${part}" is not name=value`);
    out[k] = v === "true" ? true : v === "false" ? false : (v !== "" && !isNaN(Number(v)) ? Number(v) : v);
  }
  return out;
}

async function ask() {
  if (run.ctrl) run.ctrl.abort();
  let body;
  try {
    body = { question: $("question").value, method: $("method").value,
      graphs: [...$("ask-graphs").selectedOptions].map((o) => o.value), params: parseParams($("params").value) };
  } catch (err) {
    showError($("status"), err);
    return;
  }
  resetRun();
  run.ctrl = new AbortController();
  setRunning(true, "starting…");
  try {
    const resp = await fetch("/v1/ask/stream", { method: "POST", signal: run.ctrl.signal,
      headers: { "Content-Type": "application/json", ...authHeaders() }, body: JSON.stringify(body) });
    if (!resp.ok) {
      const err = await resp.json().catch(() => ({ error: "HTTP " + resp.status }));
      throw new Error(err.error);
    }
    await readEvents(resp.body, onEvent);
  } catch (err) {
    if (err.name === "AbortError") $("status").textContent = "stopped (the run was cancelled)";
    else showError($("status"), err);
  } finally {
    setRunning(false);
    run.ctrl = null;
  }
}

function setRunning(on, text) {
  $("ask-btn").disabled = on;
  $("stop-btn").disabled = !on;
  if (text) $("status").textContent = text;
}

function resetRun() {
  run.nodes.clear();
  run.selected = 0;
  run.modelCalls = run.tokens = 0;
  run.kgCalls = [];
  run.support = [];
  $("tree").replaceChildren();
  $("answer").hidden = true;
  $("node-details").replaceChildren("Click a node to open it.");
  $("subgraph").replaceChildren();
  $("subgraph-edges").replaceChildren();
}

// readEvents parses a text/event-stream body and calls fn(name, data).
async function readEvents(stream, fn) {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const ev = parseEvent(block);
      if (ev) fn(ev.name, ev.data);
    }
  }
}

function parseEvent(block) {
  let name = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const j = line.indexOf(":");
    const field = j < 0 ? line : line.slice(0, j);
    const value = j < 0 ? "" : line.slice(j + 1).replace(/^ /, "");
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  return data.length ? { name, data: JSON.parse(data.join("\n")) } : null;
}

function onEvent(name, data) {
  switch (name) {
    case "start": $("status").textContent = `running ${data.method} (request ${data.request_id})…`; break;
    case "node": addNode(data); break;
    case "node_update": updateNode(data); break;
    case "model_call": run.modelCalls++; run.tokens += data.prompt_tokens + data.completion_tokens; progress(); break;
    case "kg_call": run.kgCalls.push(data); progress(); break;
    case "result": showResult(data); break;
    case "error": showError($("status"), new Error(data.error)); break;
  }
}

function progress() {
  $("status").textContent = `running… ${run.nodes.size} nodes, ${run.modelCalls} model calls ` +
    `(${run.tokens} tokens), ${run.kgCalls.length} KG calls`;
}

// ---- tree -------------------------------------------------------------------

function addNode(n) {
  const span = el("span", { class: "tree-node", "data-id": n.id, tabindex: 0, onclick: () => selectNode(n.id),
    onkeydown: (e) => { if (e.key === "Enter") selectNode(n.id); } });
  const li = el("li", { id: "node-" + n.id }, span, el("ul"));
  run.nodes.set(n.id, { data: n, span, li });
  const parent = n.parents && n.parents.length ? run.nodes.get(n.parents[0]) : null;
  (parent ? parent.li.lastChild : $("tree")).append(li);
  renderNode(n.id);
  progress();
}

function updateNode(n) {
  const entry = run.nodes.get(n.id);
  if (!entry) return addNode(n);
  entry.data = n;
  renderNode(n.id);
  if (run.selected === n.id) selectNode(n.id);
}

function renderNode(id) {
  const { data: n, span } = run.nodes.get(id);
  span.className = "tree-node" + (n.chosen ? " chosen" : "") + (n.answer ? " answer" : "") +
    (n.error ? " failed" : "") + (run.selected === id ? " selected" : "");
  span.replaceChildren(
    el("span", { class: "order", title: "order of expansion" }, n.order ? "#" + n.order : "·"),
    el("span", { class: "action" }, n.action || (n.parents && n.parents.length ? n.state : "ROOT")),
    el("span", { class: "text" }, n.text || ""),
    el("span", { class: "value", title: "value" }, n.evaluated ? n.value.toFixed(2) : ""));
}

function selectNode(id) {
  const prev = run.nodes.get(run.selected);
  run.selected = id;
  if (prev) renderNode(prev.data.id);
  renderNode(id);
  const n = run.nodes.get(id).data;
  const rows = [["node", "#" + n.id + (n.parents && n.parents.length ? " (parent #" + n.parents.join(", #") + ")" : "")],
    ["depth", n.depth], ["state", n.state], ["action", n.action], ["text", n.text],
    ["value", n.evaluated ? n.value.toFixed(3) : "not evaluated"], ["expanded", n.order ? "#" + n.order : "no"],
    ["visits", n.visits], ["flags", [n.terminal && "terminal", n.answer && "answer", n.chosen && "chosen"].filter(Boolean).join(", ")],
    ["error", n.error]];
  for (const [k, v] of Object.entries(n.extra || {})) rows.push([k, v]);
  $("node-details").replaceChildren(el("dl", {}, ...rows.filter(([, v]) => v !== undefined && v !== "" && v !== 0)
    .flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])));
  showLocalGraph(id);
}

// ancestors returns id and the ids of its ancestors (first parents).
function ancestors(id) {
  const out = [];
  for (let n = run.nodes.get(id); n; n = run.nodes.get((n.data.parents || [])[0])) out.push(n.data.id);
  return out;
}

// showLocalGraph draws the local subgraph of a node: the edges fetched by
// the KG calls made for it and its ancestors, read again through /v1/edges.
async function showLocalGraph(id) {
  const chain = new Set(ancestors(id));
  const calls = run.kgCalls.filter((c) => c.op === "edges" && !c.error && c.results > 0 && chain.has(c.node));
  try {
    const lists = await Promise.all(calls.map((c) => api("/v1/edges?" + qs({ id: (c.args.ids || []).slice(0, 100),
      relation: c.args.relation, dir: c.args.dir, limit: Math.min(c.args.limit || 50, 200) }))));
    if (run.selected !== id) return; // another node was opened meanwhile
    const seen = new Set();
    const edges = lists.flatMap((l) => l.edges).filter((e) => {
      const k = e.subject.id + "\u0000" + e.relation + "\u0000" + e.object.id;
      return !seen.has(k) && seen.add(k);
    });
    drawSubgraph(edges.length ? edges : run.support);
  } catch (err) {
    showError($("subgraph-edges"), err);
  }
}

// ---- result and subgraph ----------------------------------------------------

// answerNote says what grove ask's footer says beside an answer (reasoner/trace
// answerNote): its node, its value only when that node was evaluated, and the
// method's check only when it has one.
function answerNote(a, nodes) {
  const parts = [];
  if (a.node > 0) {
    const n = (nodes || []).find((x) => x.id === a.node);
    parts.push((n && n.evaluated ? `value ${Number(a.value).toFixed(2)} ` : "") + `at #${a.node}`);
  }
  if (a.check) parts.push(`${a.check}: ${a.confident ? "yes" : "no"}`);
  return parts.length ? `  (${parts.join("; ")})` : "";
}

function showResult(res) {
  for (const n of (res.trace && res.trace.nodes) || []) updateNode(n);
  const a = res.answer || {};
  const box = $("answer");
  box.hidden = false;
  box.replaceChildren(
    el("strong", {}, a.found ? "Answer: " : "No answer"), a.found ? a.text : (a.reason ? ` (${a.reason})` : ""),
    el("span", { class: "muted small" }, a.found ? answerNote(a, res.trace && res.trace.nodes) : ""));
  if (res.model) {
    // Name the model on every answer; a baseline policy is never taken for an LLM.
    const m = res.model;
    box.append(el("div", { class: m.not_llm ? "error small" : "muted small" },
      `model: ${m.name} (${m.provider}${m.not_llm ? ", not an LLM" : ""})`));
  }
  if (res.error) box.append(el("div", { class: "error" }, res.error));
  const t = res.trace ? res.trace.totals : null;
  $("status").textContent = t ? `done: ${t.nodes} nodes, ${t.expansions} expansions, ${t.model_calls} model calls, ` +
    `${t.tokens} tokens, ${t.kg_calls} KG calls, ${(t.wall_time_ns / 1e6).toFixed(0)} ms` : "done";
  run.support = a.support || [];
  if (a.node && run.nodes.has(a.node)) selectNode(a.node);
  else drawSubgraph(run.support);
}

// drawSubgraph draws edges: entities on a circle, one line per edge,
// labelled with the relation; the answer's supporting edges are marked.
function drawSubgraph(all) {
  const edges = all.slice(0, 40);
  const svg = $("subgraph");
  const ns = "http://www.w3.org/2000/svg";
  const mk = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const ents = new Map();
  for (const e of edges) for (const x of [e.subject, e.object]) ents.set(x.id, x);
  const ids = [...ents.keys()];
  const pos = new Map(ids.map((id, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, ids.length) - Math.PI / 2;
    return [id, [200 + 120 * Math.cos(a), 150 + 105 * Math.sin(a)]];
  }));
  const parts = [];
  const key = (e) => e.subject.id + "\u0000" + e.relation + "\u0000" + e.object.id;
  const support = new Set(run.support.map(key));
  for (const e of edges) {
    const [x1, y1] = pos.get(e.subject.id), [x2, y2] = pos.get(e.object.id);
    parts.push(mk("line", { x1, y1, x2, y2, class: support.has(key(e)) ? "support" : "" }));
    parts.push(mk("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 3, class: "rel", "text-anchor": "middle" },
      e.relation_label || e.relation));
  }
  for (const [id, [x, y]] of pos) {
    parts.push(mk("circle", { cx: x, cy: y, r: 4 }));
    parts.push(mk("text", { x, y: y + 14, "text-anchor": "middle" }, ents.get(id).label || id));
  }
  if (edges.length === 0) parts.push(mk("text", { x: 200, y: 150, "text-anchor": "middle" }, "no edges fetched on this path yet"));
  svg.replaceChildren(...parts);
  $("subgraph-edges").replaceChildren(...edges.map((e) => {
    const li = edgeItem(e);
    if (support.has(key(e))) li.classList.add("support");
    return li;
  }));
  if (all.length > edges.length) $("subgraph-edges").append(el("li", { class: "muted" }, `… ${all.length - edges.length} more`));
}

init();
