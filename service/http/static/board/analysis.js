// A finished game's analysis on its replay page (issue 37): the win-chance graph under the
// board (a point jumps the replay there), the turning points marked under the slider, the
// costly decisions with the better move drawn on the map, and "continue from here".
//
// It talks to the page only through the address and the DOM: it moves the replay by
// setting ``#v=N`` (the page follows the fragment), reads the version shown from the map's
// ``data-version``, and draws the better move in a layer of its own on the map's SVG, which
// the page's own drawing never clears.

import { api, el, loadBoard, seatStyles, svg } from "/board/common.js";
import { keepSeat } from "/board/seat.js";

const gid = decodeURIComponent(location.pathname.split("/").pop());
const base = `/v1/games/${encodeURIComponent(gid)}`;
const $ = (id) => document.getElementById(id);
const DEPTHS = [1, 4, 8, 16]; // rollouts per turn: the cost grows with it (docs/analysis.md)
const W = 640, H = 160, PAD = 28;

const state = { view: null, names: {}, styles: {}, report: null, head: 1, better: {}, poll: null };

let started = false;

async function start() {
  const box = $("analysis");
  if (!box || started) return;
  try {
    state.view = await api(base);
  } catch { return; }
  if (state.view.phase !== "finished" || started) return; // analysis and forks are for finished games
  started = true;
  state.styles = seatStyles(state.view.seats);
  state.names = (await loadBoard(state.view.board)).names;
  state.head = state.view.version;
  box.hidden = false;
  box.replaceChildren(
    el("h2", { text: "Analysis" }),
    el("p", {}, el("button", { type: "button", id: "analyse-start", text: "Analyse this game" }),
      " at depth ", el("select", { id: "analysis-depth", "aria-label": "depth" },
        ...DEPTHS.map((d) => el("option", { value: d, text: String(d), selected: d === 8 ? "" : null }))),
      " ", el("output", { id: "analysis-progress", "aria-live": "polite" })),
    el("div", { id: "analysis-result" }),
    await forkForm(), // every mode's finished game may be forked (issue 53: Lord of the Rings too)
  );
  $("analyse-start").addEventListener("click", () => analyse("POST"));
  $("analysis-depth").addEventListener("change", () => readKept());
  watchVersion();
  readKept(); // one kept already is shown at once
}

/**
 * The analysis at the chosen depth where one is kept (the list says so first: a page that
 * asked for one that is not there logged a 404 on every load, issue 51); on the first
 * load, the depth of a kept one if the default has none.
 */
async function readKept(first = !state.listed) {
  clearTimeout(state.poll);
  let kept = [];
  try {
    kept = (await api(`${base}/analyses`)).analyses;
  } catch { return; }
  state.listed = true;
  const select = $("analysis-depth");
  const at = (depth) => kept.find((a) => a.depth === depth);
  if (first && !at(Number(select.value))) {
    const other = kept.find((a) => a.status === "done" && DEPTHS.includes(a.depth)) ?? kept.find((a) => DEPTHS.includes(a.depth));
    if (other) select.value = String(other.depth);
  }
  if (at(Number(select.value))) return analyse("GET");
  $("analysis-progress").textContent = `not analysed at depth ${select.value} yet`;
  $("analysis-result").replaceChildren();
  clearSlider();
}

function clearSlider() {
  $("slider-marks")?.replaceChildren();
  state.better = {};
  drawBetter(Number($("map")?.dataset.version));
}

/** Ask for the analysis (POST) or read it (GET), then poll until it is done. */
async function analyse(method) {
  clearTimeout(state.poll); // one poll at a time
  const out = $("analysis-progress");
  const depth = Number($("analysis-depth").value);
  let found;
  try {
    found = method === "POST"
      ? await api(`${base}/analysis`, { method, body: { depth } })
      : await api(`${base}/analysis?depth=${depth}`);
  } catch (failure) {
    if (method === "POST") out.textContent = failure.message;
    return;
  }
  if (found.status === "done") {
    out.textContent = `done at depth ${depth}`;
    return show(found.report);
  }
  if (found.status === "failed") { out.textContent = `failed: ${found.error}`; return; }
  out.textContent = found.total ? `${found.status}: ${found.done} of ${found.total}` : found.status;
  state.poll = setTimeout(() => analyse("GET"), 1000);
}

function show(report) {
  state.report = report;
  state.better = Object.fromEntries(report.decisions.map((d) => [d.version - 1, d]));
  $("analysis-result").replaceChildren(
    graph(report),
    el("ul", { class: "analysis-lines" }, ...Object.values(report.players).map((p) => el("li", { text: p.line }))),
    decisions(report),
  );
  markSlider(report);
}

// ---------------------------------------------------------------- the graph

function x(version) { return PAD + ((version - 1) / Math.max(1, state.head - 1)) * (W - 2 * PAD); }
function y(chance) { return H - PAD / 2 - chance * (H - PAD); }

function graph(report) {
  const seats = Object.keys(report.players);
  const root = svg("svg", { id: "chance-graph", viewBox: `0 0 ${W} ${H}`, role: "group", "aria-label": "each player's chance to win, turn by turn", class: "chance-graph" });
  root.append(svg("line", { x1: PAD, y1: y(0.5), x2: W - PAD, y2: y(0.5), class: "half" }));
  for (const point of report.turning_points) {
    root.append(svg("line", { x1: x(point.from_version), y1: y(0), x2: x(point.from_version), y2: y(1), class: "turning" }));
  }
  for (const seat of seats) {
    const colour = state.styles[seat]?.colour || "#333";
    const line = report.points.map((p) => `${x(p.version).toFixed(1)},${y(p.chances[seat] ?? 0).toFixed(1)}`).join(" ");
    root.append(svg("polyline", { points: line, fill: "none", stroke: colour, "stroke-width": 2 }));
  }
  for (const point of report.points) {
    const leader = seats.reduce((a, b) => ((point.chances[b] ?? 0) > (point.chances[a] ?? 0) ? b : a));
    const text = seats.map((s) => `${state.styles[s]?.name ?? s} ${Math.round(100 * (point.chances[s] ?? 0))}%`).join(", ");
    const dot = svg("circle", {
      cx: x(point.version), cy: y(point.chances[leader] ?? 0), r: 4, class: "chance-point",
      "data-version": point.version, tabindex: 0, role: "button", fill: state.styles[leader]?.colour || "#333",
      "aria-label": `turn ${point.turn}: ${text}`,
    }, svg("title", {}, `turn ${point.turn}: ${text}`));
    dot.addEventListener("click", () => jump(point.version));
    dot.addEventListener("keydown", (e) => { if (e.key === "Enter") jump(point.version); });
    root.append(dot);
  }
  return el("figure", { class: "chance-figure" }, el("figcaption", { text: "Chance to win at the start of each turn (click a point to go there)" }), root);
}

function markSlider(report) {
  const slider = $("slider");
  if (!slider) return;
  let strip = $("slider-marks");
  if (!strip) {
    strip = el("div", { id: "slider-marks", class: "slider-marks", "aria-label": "turning points" });
    slider.after(strip);
  }
  strip.replaceChildren(...report.turning_points.map((point) => {
    const swing = Object.entries(point.swing).map(([s, v]) => `${state.styles[s]?.name ?? s} ${v > 0 ? "+" : ""}${Math.round(100 * v)}`).join(", ");
    const mark = el("button", { type: "button", class: "turning-mark", "data-version": point.from_version, title: `turning point, turn ${point.turn}: ${swing}`, "aria-label": `turning point at turn ${point.turn}` });
    mark.style.left = `${(100 * (point.from_version - 1)) / Math.max(1, state.head - 1)}%`;
    mark.addEventListener("click", () => jump(point.from_version));
    return mark;
  }));
}

function jump(version) {
  location.hash = `#v=${version}`;
}

// ---------------------------------------------------------------- costly decisions

function decisions(report) {
  if (!report.decisions.length) return el("p", { class: "empty", text: "No costly decision found." });
  return el("section", { "aria-label": "costly decisions" }, el("h3", { text: "Costly decisions" }),
    el("ol", { id: "costly", class: "costly" }, ...report.decisions.map((d) => {
      const who = state.styles[d.seat]?.name ?? d.seat;
      const button = el("button", { type: "button", class: "show-better", "data-version": d.version - 1, text: "show" });
      button.addEventListener("click", () => jump(d.version - 1));
      return el("li", {}, `turn ${d.turn}, ${who}: ${words(d.played)} cost ${Math.round(100 * d.cost)} points; better ${words(d.better)} `, button);
    })));
}

function words(body) {
  const name = (id) => state.names[id] ?? id;
  if (body.type === "place_armies") return `placing ${body.count} on ${name(body.territory)}`;
  if (body.type === "blitz" || body.type === "attack") return `attacking ${name(body.target)} from ${name(body.source)}`;
  if (body.type === "occupy") return `moving ${body.count} in`;
  if (body.type === "end_phase") return "stopping";
  return body.type.replaceAll("_", " ");
}

/** The better move of the decision at the version shown, drawn on the map; else nothing. */
function drawBetter(version) {
  const map = document.querySelector("#map svg");
  if (!map) return;
  let layer = map.querySelector("g.layer-better");
  if (!layer) { layer = svg("g", { class: "layer-better" }); map.append(layer); }
  layer.replaceChildren();
  const decision = state.better[version];
  if (!decision) return;
  const at = (id) => {
    const disc = map.querySelector(`g.territory[data-territory="${id}"] circle.disc`);
    return disc ? [Number(disc.getAttribute("cx")), Number(disc.getAttribute("cy"))] : null;
  };
  const better = decision.better;
  const from = at(better.source), to = at(better.target ?? better.territory);
  if (from && to) layer.append(svg("path", { d: `M${from[0]},${from[1]} L${to[0]},${to[1]}`, class: "better-move" }));
  if (to) layer.append(svg("circle", { cx: to[0], cy: to[1], r: 22, class: "better-move" }));
  layer.append(svg("text", { x: 12, y: 24, class: "better-label" }, `better: ${words(better)} (+${Math.round(100 * decision.cost)} points)`));
  layer.dataset.better = JSON.stringify(better);
}

function watchVersion() {
  const map = $("map");
  if (!map) return;
  new MutationObserver(() => {
    const version = Number(map.dataset.version);
    drawBetter(version);
    const out = $("fork-version");
    if (out) out.textContent = String(version < state.head ? version : state.fallback ?? version);
  }).observe(map, { attributes: true, attributeFilter: ["data-version"] });
}

// ---------------------------------------------------------------- continue from here

/**
 * The version "continue from here" starts from when the replay was not moved off the end:
 * the start of the last turn (the end itself is a finished game, and the command that
 * ended it is one step that no player decided in).
 */
async function lastTurnStart() {
  let since = Math.max(0, state.head - 1000), found = null;
  try {
    while (since < state.head) {
      const page = await api(`${base}/events?since=${since}&limit=1000`);
      for (const e of page.events) if (e.event.type === "turn_started") found = e.version;
      if (!page.events.length) break;
      since = page.events.at(-1).version;
    }
  } catch { /* the events could not be read: the fork says what it refuses */ }
  return found ?? Math.max(1, state.head - 1);
}

async function forkForm() {
  const players = state.view.seats.filter((s) => s.kind !== "neutral");
  const pick = el("select", { id: "fork-seat", "aria-label": "your seat" },
    ...players.map((s) => el("option", { value: s.id, text: s.name.includes(`(${s.id})`) ? s.name : `${s.name} (${s.id})` })));
  const level = el("select", { id: "fork-level", "aria-label": "bots' level" },
    ...["easy", "medium", "hard"].map((l) => el("option", { value: l, text: `${l} bots` })));
  const go = el("button", { type: "button", id: "fork-start", class: "primary", text: "Continue from here against bots" });
  const error = el("p", { id: "fork-error", class: "error", role: "alert" });
  const fallback = await lastTurnStart();
  state.fallback = fallback;
  go.addEventListener("click", async () => {
    const shown = Number($("map")?.dataset.version || state.head);
    const version = shown >= state.head ? fallback : shown;
    // The seat keeps a person's name from the game ("you" would read "you resigns" in the log).
    const human = (s) => (s.controller === "human" && s.name ? s.name : `Player ${players.indexOf(s) + 1}`);
    const seats = players.map((s) => (s.id === pick.value ? { kind: "human", name: human(s) } : { kind: "bot", level: level.value }));
    try {
      const made = await api(`${base}/fork`, { method: "POST", body: { version, seats } });
      const game = made.game.game_id;
      keepSeat(game, pick.value, made.tokens[pick.value]);
      location.assign(`/games/${encodeURIComponent(game)}`);
    } catch (failure) {
      error.textContent = failure.message;
    }
  });
  return el("section", { class: "fork", "aria-label": "continue from here" },
    el("h3", { text: "Continue from here" }),
    el("p", {}, "From version ", el("output", { id: "fork-version", text: String(fallback) }), " as ", pick, " against ", level, " ", go),
    el("p", { class: "muted", id: "fork-note", text: "At the end of the replay this is the start of the last turn; move the replay to start from another version." }),
    error);
}


// A game that ends while its page is open gets its analysis then, without a reload.
document.addEventListener("risk:finished", () => start());
start();
