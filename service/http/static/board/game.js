// A game's page: watch it live over SSE, replay any version, and play a seat.
// Holds no rules: the map is the API's view, the choices are /legal-actions.
import { ApiError, api, el, eventText, loadBoard, nameAdventures, seatName, seatStyles, svg } from "/board/common.js";
import { boardLayout, drawMap, drawMoment, legend, loadShapes, paintMap, placeTokens } from "/board/map.js";
import { PACES, Playback, momentAt, nextStep, waitingFor } from "/board/playback.js";
import { actionForm, moveDefault } from "/board/forms.js";
import { ATTACK_CHOICES, PER_CLICK, SHIFT_COUNT, clickPlan, loadSettings, saveSettings } from "/board/clicks.js";
import { endingPanel } from "/board/ending.js";
import { adventureName, renderHand } from "/board/hand.js";
import { attentionControls, setTitle, yourMove } from "/board/attention.js";
import { forgetSeat, keepSeat, linkable, linkShown, seatLink, seatOf } from "/board/seat.js";
import { showWinCondition } from "/board/result.js";

const gid = decodeURIComponent(location.pathname.split("/").pop());
const base = `/v1/games/${encodeURIComponent(gid)}`;
let mine = seatOf(gid); // {seat, token}: from a seat link, this tab or another tab of this browser
const $ = (id) => document.getElementById(id);

const page = {
  board: null, map: null, styles: {}, events: [], head: 0, shown: 0, following: true,
  finished: false, view: null, request: 0, timer: null, source: null, retry: 1000,
  legal: null, pick: [], summary: null, refreshing: null,
  cards: new Set(), remembered: {}, passed: 0, countdown: null, autoEnded: 0, legalRequest: 0,
  settings: loadSettings(), amount: null, occupyCount: null, queue: null, queuedAt: 0,
};
// The header's short "why" of a finished game (the end-of-game panel says it in full).
const HOW_WON = { conquest: " by conquest", elimination: " (the other team lost a player)", resignation: " (the others left)", fellowship_left: " on points", mission: " by a mission", missions: " by missions", abandoned: " (abandoned)" };
// How long a window with a playable adventure card waits before the page passes it.
const WINDOW_SECONDS = 20;
// How long the page waits before it tries again a move of its own that was refused.
const RETRY_MS = 2000;

// ---------------------------------------------------------------- start

async function start() {
  $("title").textContent = gid;
  setTitle(`Risk — ${gid}`);
  let first;
  try {
    first = await api(base, { token: mine?.token });
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 401 && mine) { // a stale token: watch instead
      forgetSeat(gid);
      mine = null;
      $("page-error").textContent = "The seat token kept for this game was refused; you are watching.";
      first = await api(base);
    } else if (failure instanceof ApiError && failure.status === 404) {
      setConnection("no such game", "ended");
      $("page-error").replaceChildren(`There is no game “${gid}” on this server. `, el("a", { href: "/", text: "Back to the lobby" }));
      document.querySelector("main.game").hidden = true; // no replay controls nor charts of nothing
      return;
    } else throw failure;
  }
  page.board = await loadBoard(first.board);
  nameAdventures(page.board, first);
  const [layout, shapes] = await Promise.all([boardLayout(page.board), loadShapes(page.board)]);
  page.map = drawMap($("map"), page.board, layout, shapes, mine ? choose : null);
  page.styles = seatStyles(first.seats);
  page.shapes = shapes;
  bindPlayback();
  bindZoom();
  if (mine) showSeat(first);
  else offerToken();
  await loadEvents();
  if (page.head === 0) {
    renderPlayers({ seats: first.seats.map((s) => ({ id: s.seat, name: s.name, bot: s.bot, team: s.team, territories: 0, armies: 0, card_count: 0, reserve: 0, status: s.kind === "open" ? "open seat" : "playing" })) });
    $("turn").textContent = "Waiting for players to join";
    setConnection("waiting", "down");
    setTimeout(() => location.reload(), 3000);
    return;
  }
  const hashed = versionFromHash();
  if (hashed) { page.following = false; await show(Math.min(hashed, page.head)); } else await show(page.head);
  if (hashed > page.head) $("page-error").textContent = `Version ${hashed} does not exist: the game is at version ${page.head}, shown here.`;
  follow();
  bindControls();
  loadSummary();
}

async function loadEvents() {
  for (;;) {
    const pageOf = await api(`${base}/events?since=${page.head}&limit=1000`, { token: mine?.token });
    for (const envelope of pageOf.events) addEvent(envelope);
    page.finished = pageOf.finished;
    if (pageOf.events.length < 1000) return;
  }
}

/** ``#v=N``: a version to open at; anything else after ``v=`` is said in words and ignored. */
function versionFromHash() {
  const match = /(?:^#|&)v=([^&]*)/.exec(location.hash);
  if (!match) return null;
  const value = decodeURIComponent(match[1]);
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    $("page-error").textContent = `“#v=${value}” is not a version (a whole number from 1): showing the game live.`;
    history.replaceState(null, "", location.pathname);
    return null;
  }
  if ($("page-error").textContent.startsWith("“#v=")) $("page-error").textContent = ""; // a good one now
  return Number(value);
}

// ---------------------------------------------------------------- your seat

function showSeat(view) {
  $("play-panel").hidden = false;
  $("token-panel").hidden = true;
  $("you").textContent = `You play ${ownName(seatName(page.styles, mine.seat), mine.seat)}`;
  $("attention").replaceChildren(attentionControls());
  // (a finished game's seat plays no more; an account's token is never put in a link)
  if (view.phase !== "finished" && linkable(mine.token) && !linkShown(gid)) {
    const link = seatLink(gid, mine.seat, mine.token);
    const field = el("input", { type: "text", readonly: true, value: link, id: "seat-link", "aria-label": "your seat link", size: 30 });
    const copy = el("button", { type: "button", text: "Copy", onclick: () => {
      field.select();
      const said = () => { copy.textContent = "Copied ✓"; };
      if (navigator.clipboard) navigator.clipboard.writeText(link).then(said, () => { copy.textContent = "Selected: copy it"; });
      else said();
    } });
    const close = el("button", { type: "button", text: "Done", onclick: () => $("seat-link-box").replaceChildren() });
    $("seat-link-box").replaceChildren(el("div", { class: "seat-link", role: "note" },
      el("p", { text: "Your seat link opens this seat in any tab or on any device. It is shown once: keep it, and share it with nobody." }),
      field, " ", copy, " ", close));
  }
}

/** A seat's name said once: without the seat when the name holds it already, "you" as the seat. */
function ownName(name, seat) {
  if (/^you$/i.test(name)) return `seat ${seat}`; // ("You play seat p1", not "You play You (p1)")
  return name.includes(`(${seat})`) ? name : `${name} (${seat})`;
}

/** A spectator may take a seat with its token (from `risk dev`, another device, the API). */
function offerToken() {
  $("token-panel").hidden = false;
  $("token-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const token = $("token").value.trim();
    $("token-error").textContent = "";
    try {
      const view = await api(base, { token });
      if (!view.viewer) throw new Error("that token holds no seat in this game");
      keepSeat(gid, view.viewer, token);
      sessionStorage.setItem(`risk-link-shown:${gid}`, "1");
      location.reload();
    } catch (failure) {
      $("token-error").textContent = `Not a seat of this game: ${failure.message}`;
    }
  });
}

// ---------------------------------------------------------------- live feed

/** The SSE feed; EventSource resumes with Last-Event-ID, and a closed one is reopened. */
function follow() {
  if (page.finished) return setConnection("game over", "ended");
  const source = new EventSource(`${base}/events/stream?since=${page.head}`);
  page.source = source;
  source.addEventListener("open", () => {
    page.retry = 1000;
    const status = $("connection");
    status.dataset.opened = String(Number(status.dataset.opened || 0) + 1); // connections so far
    setConnection("live", "live");
    resync();
  });
  source.addEventListener("game_event", (message) => {
    addEvent(JSON.parse(message.data));
    if (page.following) page.playback.advance();
    else updateSlider();
  });
  source.addEventListener("end", () => {
    source.close();
    page.finished = true;
    setConnection("game over", "ended");
    loadSummary();
  });
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED && !page.finished) {
      setConnection(`reconnecting in ${page.retry / 1000} s…`, "down");
      setTimeout(() => { page.retry = Math.min(page.retry * 2, 15000); follow(); }, page.retry);
    } else if (!page.finished) {
      setConnection("reconnecting…", "down");
    }
  });
}

/** After a reconnect: whatever the feed missed is fetched, and the view is redrawn. */
async function resync() {
  try {
    await loadEvents();
    if (page.following) page.playback.advance();
  } catch (failure) {
    showError(failure);
  }
}

function setConnection(text, kind) {
  const node = $("connection");
  node.textContent = text;
  node.dataset.state = kind;
}

function addEvent(envelope) {
  if (envelope.version <= page.head) return; // a resent event after a reconnect
  page.events[envelope.version] = envelope;
  page.head = envelope.version;
  if (envelope.event.type === "game_created") {
    page.styles = seatStyles(envelope.event.seats.map((s) => ({ ...s, name: page.styles[s.id]?.name || s.name })));
  }
  if (envelope.event.type === "game_finished") page.finished = true;
  const text = eventText(envelope.event, page.styles, page.board);
  // The seat the event is about (a bot's battle that ends in a window another seat
  // closed is the bot's), else whoever sent the command.
  const actor = envelope.event.seat ?? envelope.event.player ?? envelope.actor;
  const colour = page.styles[actor]?.colour;
  // A line the board has not reached yet waits hidden (the pace plays it back later).
  const ahead = page.shown > 0 && envelope.version > page.shown;
  const line = el("li", { "data-version": envelope.version, value: envelope.version, "data-actor": actor ?? "", class: ahead ? "future" : null },
    el("a", { href: `#v=${envelope.version}`, class: "swatch-dot", style: colour ? `background:${colour}` : null, "aria-label": `version ${envelope.version}` }),
    el("span", { text }));
  $("log").append(line);
  // The board may already show this version (a live view can come before its event).
  if (!ahead && page.shown > 0 && page.following) keepInView($("log"), line);
  if (envelope.event.type === "turn_started" || envelope.event.type === "game_finished") scheduleSummary();
}

// ---------------------------------------------------------------- showing a version

/**
 * At most one redraw per 150 ms however fast the events come, always of the newest; while
 * other seats' steps are being played back, the playback goes on instead of jumping there.
 */
function scheduleShow() {
  if (page.refreshing) return;
  page.refreshing = setTimeout(() => {
    page.refreshing = null;
    if (!page.following) return;
    if ((page.playback?.behind() ?? 0) > 0) page.playback.advance();
    else show(page.head);
  }, 150);
}

/**
 * The board at ``version``: the current view at the head when live, else ``/state?version``.
 * ``exact`` (the paced playback's steps): when the game moved on while the current view was
 * on its way (bots move in milliseconds), the version asked for is fetched instead, so the
 * steps the feed is about to bring are played back rather than jumped over.
 */
async function show(version, exact = false) {
  const ticket = ++page.request;
  version = Math.max(1, Math.min(version, page.head));
  let live = page.following && version === page.head;
  try {
    let view = live ? await api(base, { token: mine?.token }) : await pastState(version);
    if (live && exact && view.version > version) {
      live = false;
      view = await pastState(version);
    }
    if (ticket !== page.request) return; // a later request won
    page.view = view;
    page.shown = view.version;
    render(view);
    if (!page.following) history.replaceState(null, "", `#v=${view.version}`);
    else if (location.hash) history.replaceState(null, "", location.pathname);
    if (mine && live) await loadLegal(view.version);
    else if (mine && !page.following) showActions(null); // (a step played back keeps the panel)
  } catch (failure) {
    showError(failure);
  }
}

// Past versions never change: each is fetched once (a replay stepping back and forth
// costs no requests, and stays under the API's rate limit).
const pastStates = new Map();

async function pastState(version) {
  if (!pastStates.has(version)) {
    if (pastStates.size >= 2000) pastStates.delete(pastStates.keys().next().value);
    pastStates.set(version, await api(`${base}/state?version=${version}`, { token: mine?.token }));
  }
  return pastStates.get(version);
}

function render(view) {
  page.styles = seatStyles(view.seats);
  paintMap(page.map, view.territories, page.styles);
  drawMoment(page.map, momentAt(page.events, view.version), page.styles, view.version);
  legend($("legend"), page.map, page.shapes, page.styles, { tokens: Boolean(view.mode_state?.fellowship) });
  const map = $("map");
  map.dataset.version = String(view.version);
  const who = seatName(page.styles, view.current);
  const phase = (view.phase || "").replaceAll("_", " ");
  let text;
  if (view.phase === "finished") text = `Game over — ${(view.winners?.length ? view.winners : [view.winner]).filter(Boolean).map((s) => seatName(page.styles, s)).join(" and ") || "nobody"} won${HOW_WON[view.finish_reason] ?? ""}`;
  else if (view.status === "open" || !view.phase) text = "Waiting for players to join";
  else text = `Turn ${view.turn} · ${who} · ${phase}${view.reinforcements ? ` · ${view.reinforcements} to place` : ""}${view.defender_to_choose ? ` · ${seatName(page.styles, view.defender_to_choose)} to choose dice` : ""}`;
  $("turn").textContent = text;
  showWinCondition($("turn"), view);
  renderPlayers(view);
  drawEnding(view);
  renderMissions(view);
  renderTrack(view);
  renderFellowship(view);
  updateSlider();
  for (const item of $("log").children) item.classList.toggle("future", Number(item.dataset.version) > view.version);
  const current = $("log").querySelector(`[data-version="${view.version}"]`);
  $("log").querySelector(".current")?.classList.remove("current");
  current?.classList.add("current");
  // The newest line shown (an event may write more than one line, and one may write none).
  const newest = [...$("log").children].filter((item) => !item.classList.contains("future")).at(-1);
  if (newest) keepInView($("log"), newest);
  drawCharts();
}

/** The end of the game (or of this seat's part in it): ending.js's panel; the seat's hints go. */
let endingTicket = 0;
async function drawEnding(view) {
  const ticket = ++endingTicket;
  const over = view.phase === "finished";
  const out = mine && view.seats.some((s) => s.id === mine.seat && s.status !== "playing");
  $("attention").hidden = over || out;
  $("hand").classList.toggle("over", over || out);
  if (over) document.dispatchEvent(new CustomEvent("risk:finished", { detail: { version: view.version } }));
  if (mine && page.following && page.legal && !page.legal.actions.length) $("hint").textContent = waitingWords(view);
  const events = page.events.slice(0, view.version + 1); // the version shown, not the feed's head
  const panel = over || out ? await endingPanel({ view, events, styles: page.styles, seat: mine?.seat ?? null }) : null;
  if (ticket !== endingTicket) return;
  $("ending").replaceChildren(...(panel ? [panel] : []));
  $("ending").hidden = !panel;
}

/** Scroll ``list`` (only it, not the page) so that ``item`` is inside its visible box. */
function keepInView(list, item) {
  const box = list.getBoundingClientRect(), line = item.getBoundingClientRect();
  if (line.bottom > box.bottom) list.scrollTop += line.bottom - box.bottom + 2;
  else if (line.top < box.top) list.scrollTop -= box.top - line.top + 2;
}

function renderPlayers(view) {
  const teams = (view.seats || []).some((seat) => seat.team);
  const head = el("tr", {}, ...["", "player", teams ? "team" : null, "terr.", "armies", "cards", "res.", ""].filter((h) => h !== null).map((h) => el("th", { text: h })));
  const rows = (view.seats || []).map((seat) => {
    const style = page.styles[seat.id];
    const bot = seat.bot ? `${seat.bot}${seat.level ? ` ${seat.level}` : ""} bot` : seat.controller || seat.kind;
    return el("tr", { class: seat.id === view.current ? "current" : null, "data-seat": seat.id },
      el("td", {}, el("span", { class: "swatch", style: `background:${style.colour}`, text: style.label })),
      el("td", { text: `${style.name}${seat.id === mine?.seat && !/^you$/i.test(style.name) ? " (you)" : ""}`, title: `${seat.id}, ${bot}` }),
      teams ? el("td", { text: seat.team ?? "" }) : null,
      el("td", { text: String(seat.territories) }),
      el("td", { text: String(seat.armies) }),
      el("td", { text: String(seat.card_count), "data-cards": seat.id }),
      el("td", { text: String(seat.reserve) }),
      el("td", { text: seat.status === "playing" ? (seat.id === view.current ? "▶" : "") : seat.status === "resigned" ? "resigned" : "out", title: seat.status }));
  });
  $("players").replaceChildren(el("thead", {}, head), el("tbody", {}, rows));
}

// The mission modes: each seat's missions as this viewer may see them (its own
// texts; of the others the grade, until claimed or shown).
function renderMissions(view) {
  const missions = view.mode_state?.missions;
  $("missions-panel").hidden = !missions;
  if (!missions) return;
  const mark = (m) => (m.claimed ? " ✓" : m.revealed ? " (shown)" : "");
  const items = Object.entries(missions).map(([seat, list]) => el("li", { "data-seat": seat },
    el("strong", { text: `${seatName(page.styles, seat)}: ` }),
    el("span", { text: list.map((m) => (m.text ? m.text : `secret (grade ${m.grade})`) + mark(m)).join(" · ") })));
  $("missions").replaceChildren(...items);
}

// Two players with active neutrals: the three places of the track (allied with one
// player, uninvolved, allied with the other) and where each neutral's marker stands.
function renderTrack(view) {
  const state = view.mode_state || {};
  $("track-panel").hidden = !state.track;
  if (!state.track) return;
  const neutrals = Object.entries(state.neutrals || {});
  const places = state.track.map((place) => el("div", { class: "track-place", "data-place": place },
    el("h3", { text: place === "uninvolved" ? "uninvolved" : `allied with ${seatName(page.styles, place)}` }),
    el("ul", {}, neutrals.filter(([, n]) => n.marker === place).map(([seat, n]) => el("li", { "data-neutral": seat },
      el("span", { class: "swatch", style: `background:${page.styles[seat]?.colour || "#999"}`, text: page.styles[seat]?.label || seat }),
      el("span", { text: ` ${seatName(page.styles, seat)}: ${n.card_count} card${n.card_count === 1 ? "" : "s"}${n.may_be_bribed ? "" : ", takes no bribe"}${n.to_place ? `, ${n.to_place} to place` : ""}` }))))));
  $("track").replaceChildren(...places);
}

// Lord of the Rings Risk: leaders and the Fellowship on the map, the score table by rank.
function renderFellowship(view) {
  const state = view.mode_state || {};
  const tokens = {};
  const on = Boolean(state.fellowship);
  $("fellowship-panel").hidden = !on;
  for (const item of document.querySelectorAll(".lotr-only")) item.hidden = !on;
  if (on) {
    for (const [seat, places] of Object.entries(state.leaders || {})) {
      for (const t of places) (tokens[t] ||= []).push({ text: "♚", kind: "leader", colour: page.styles[seat]?.colour, title: `${seatName(page.styles, seat)}'s leader` });
    }
    const f = state.fellowship;
    const steps = page.board.path?.length || 0;
    const name = (id) => page.board.territories.find((t) => t.id === id)?.name || id;
    if (f.territory) (tokens[f.territory] ||= []).push({ text: "◎", kind: "fellowship", colour: "#b8860b", title: "the Fellowship" });
    $("fellowship").textContent = f.left
      ? "The Fellowship has left the Dead Marshes: the game is scored."
      : `The Fellowship is in ${name(f.territory)}, step ${f.step + 1} of ${steps}${f.needs_roll ? "; it leaves only on a roll of 4 or more" : ""}.`;
    const head = el("tr", {}, ...["", "terr.", "regions", "strongh.", "adv.", "score"].map((h) => el("th", { text: h })));
    const rows = (state.ranking || Object.keys(state.scores || {})).map((seat) => {
      const row = state.scores[seat];
      const style = page.styles[seat] || {};
      return el("tr", { "data-seat": seat },
        el("td", {}, el("span", { class: "swatch", style: `background:${style.colour || "#999"}`, text: style.label || seat }), ` ${seatName(page.styles, seat)}`),
        ...[row.territories, row.regions, row.strongholds, row.adventure, row.total].map((n) => el("td", { text: String(n) })));
    });
    $("scores").replaceChildren(el("thead", {}, head), el("tbody", {}, rows));
  }
  placeTokens(page.map, tokens);
}

// ---------------------------------------------------------------- replay controls

function updateSlider() {
  const slider = $("slider");
  slider.max = String(page.head);
  slider.value = String(page.shown);
  $("version-label").textContent = `version ${page.shown} of ${page.head}`;
  $("live").setAttribute("aria-pressed", String(page.following));
  $("live").disabled = page.following;
}

// ---------------------------------------------------------------- other seats' moves at a pace

function bindPlayback() {
  const state = () => ({ events: page.events, head: page.head, shown: page.shown, seat: mine?.seat ?? null });
  page.playback = new Playback(state, show, () => {
    const behind = page.following ? page.playback.behind() : 0;
    $("behind").textContent = behind ? `${behind} step${behind === 1 ? "" : "s"} behind` : "";
    $("skip-now").disabled = !behind;
    // Not this seat's move: the hint follows the playback (whose move is shown, how many to go).
    if (mine && page.following && page.legal && !page.legal.actions.length) $("hint").textContent = waitingWords(page.view);
  });
  const pace = $("pace");
  pace.replaceChildren(...Object.entries(PACES).map(([name, ms]) => el("option", { value: name, text: ms ? `${name} (${ms / 1000} s a step)` : name })));
  pace.value = page.playback.pace;
  pace.addEventListener("change", () => page.playback.setPace(pace.value));
  $("skip-now").addEventListener("click", () => { page.following = true; stopPlaying(); page.playback.skip(); });
}

function goTo(version) {
  page.following = false;
  page.playback.stop();
  stopPlaying();
  show(version);
}

function goLive() {
  page.following = true;
  stopPlaying();
  page.playback.skip();
}

function stopPlaying() {
  clearInterval(page.timer);
  page.timer = null;
  $("play").textContent = "▶ play";
  $("play").setAttribute("aria-label", "play");
}

function togglePlay() {
  if (page.timer) return stopPlaying();
  page.following = false;
  page.playback.stop();
  if (page.shown >= page.head) page.shown = 0;
  $("play").textContent = "❚❚ pause";
  $("play").setAttribute("aria-label", "pause");
  const step = () => {
    if (page.shown >= page.head) { stopPlaying(); return; }
    page.shown = nextStep(page.events, page.shown, page.head); // a step: one move with its dice
    show(page.shown);
  };
  page.timer = setInterval(step, 1000 / Number($("speed").value));
}

/** A phone's map: read at twice the width (dragged sideways), or the whole map at once. */
function bindZoom() {
  const button = $("zoom");
  button.addEventListener("click", () => {
    const zoomed = $("map").classList.toggle("zoomed");
    button.textContent = zoomed ? "Whole map" : "Zoom in";
    button.setAttribute("aria-pressed", String(zoomed));
    $("zoom-note").textContent = zoomed ? "drag the map sideways to see the rest" : "";
  });
}

function bindControls() {
  $("slider").addEventListener("input", (e) => goTo(Number(e.target.value)));
  $("first").addEventListener("click", () => goTo(1));
  $("back").addEventListener("click", () => goTo(page.shown - 1));
  $("forward").addEventListener("click", () => goTo(page.shown + 1));
  $("last").addEventListener("click", () => goTo(page.head));
  $("live").addEventListener("click", goLive);
  $("play").addEventListener("click", togglePlay);
  $("speed").addEventListener("change", () => { if (page.timer) { stopPlaying(); togglePlay(); } });
  window.addEventListener("hashchange", () => { const v = versionFromHash(); if (v && v !== page.shown) goTo(v); });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, select, textarea") && e.target.id !== "slider") return;
    if (e.target.id === "slider" && (e.key === "ArrowLeft" || e.key === "ArrowRight")) return; // the slider steps itself
    const keys = { ArrowLeft: () => goTo(page.shown - 1), ArrowRight: () => goTo(page.shown + 1), Home: () => goTo(1), End: () => goTo(page.head) };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
    else if (e.key === " " && !e.target.closest("button, a")) { e.preventDefault(); togglePlay(); }
  });
}

// ---------------------------------------------------------------- charts

let summaryTimer = null;
function scheduleSummary() {
  clearTimeout(summaryTimer);
  summaryTimer = setTimeout(loadSummary, 1500);
}

async function loadSummary() {
  try {
    page.summary = await api(`${base}/summary`);
    drawCharts();
  } catch { /* a game still waiting for players has no summary yet */ }
}

function drawCharts() {
  const s = page.summary;
  if (!s || !s.timeline?.length) return;
  lineChart($("chart-territories"), s.timeline, "territories");
  lineChart($("chart-armies"), s.timeline, "armies");
  if (s.timeline[0].luck) lineChart($("chart-luck"), s.timeline, "luck", s.players);
  else luckChart($("chart-luck"), s.players);
}

function lineChart(box, timeline, key, totals = null) {
  const W = 460, H = 150, L = 30, B = 18;
  const seats = Object.keys(timeline[0][key]);
  const values = timeline.flatMap((t) => Object.values(t[key] || {}));
  const top = Math.max(1, ...values);
  const bottom = Math.min(0, ...values);
  const turns = timeline.length;
  const x = (i) => L + (turns === 1 ? 0 : (i * (W - L - 6)) / (turns - 1));
  const y = (v) => H - B - ((v - bottom) * (H - B - 6)) / (top - bottom);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": `${key} per player per turn` });
  chart.append(svg("line", { x1: L, y1: H - B, x2: W, y2: H - B, stroke: "#888" }), svg("line", { x1: L, y1: 0, x2: L, y2: H - B, stroke: "#888" }));
  chart.append(svg("text", { x: L - 4, y: 10, "text-anchor": "end", class: "axis" }, document.createTextNode(String(Math.round(top)))));
  if (bottom < 0) {
    chart.append(svg("line", { x1: L, y1: y(0), x2: W, y2: y(0), stroke: "#bbb", "stroke-dasharray": "2 2" }));
    chart.append(svg("text", { x: L - 4, y: H - B, "text-anchor": "end", class: "axis" }, document.createTextNode(String(Math.round(bottom)))));
  }
  chart.append(svg("text", { x: W - 2, y: H - 4, "text-anchor": "end", class: "axis" }, document.createTextNode(`turn ${timeline.at(-1).turn}`)));
  for (const seat of seats) {
    const colour = page.styles[seat]?.colour || "#555";
    const points = timeline.map((t, i) => `${x(i).toFixed(1)},${y(t[key][seat] ?? 0).toFixed(1)}`).join(" ");
    chart.append(svg("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2 }, svg("title", {}, document.createTextNode(seatName(page.styles, seat)))));
    const last = timeline.at(-1)[key][seat] ?? 0;
    chart.append(svg("text", { x: x(turns - 1) - 2, y: y(last) - 3, "text-anchor": "end", class: "axis", fill: colour }, document.createTextNode(page.styles[seat]?.label ?? seat)));
  }
  // Where the replay is: the last turn that started at or before the shown version.
  let at = -1;
  timeline.forEach((t, i) => { if (t.version <= page.shown) at = i; });
  if (at >= 0) chart.append(svg("line", { x1: x(at), y1: 0, x2: x(at), y2: H - B, stroke: "#000", "stroke-dasharray": "3 3", class: "cursor" }));
  chart.addEventListener("click", (e) => {
    const rect = chart.getBoundingClientRect();
    const i = Math.round(((e.clientX - rect.left) * (W / rect.width) - L) / ((W - L - 6) / Math.max(1, turns - 1)));
    const entry = timeline[Math.max(0, Math.min(turns - 1, i))];
    goTo(entry.version);
  });
  const total = (seat) => (totals?.[seat] ? ` ${totals[seat].luck >= 0 ? "+" : ""}${totals[seat].luck} (${totals[seat].armies_destroyed} destroyed, ${totals[seat].expected_destroyed} expected)` : "");
  const legend = el("p", { class: "chart-legend" }, ...seats.map((seat) => el("span", {}, el("span", { class: "swatch", style: `background:${page.styles[seat]?.colour}`, text: page.styles[seat]?.label }), ` ${seatName(page.styles, seat)}${total(seat)}`)));
  box.replaceChildren(chart, legend);
}

function luckChart(box, players) {
  const entries = Object.entries(players || {});
  const W = 460, row = 22, H = row * entries.length + 8, mid = 200, reach = 90;
  const most = Math.max(1, ...entries.map(([, p]) => Math.abs(p.luck)));
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": "dice luck per player" });
  chart.append(svg("line", { x1: mid, y1: 0, x2: mid, y2: H, stroke: "#888" }));
  entries.forEach(([seat, p], i) => {
    const width = (Math.abs(p.luck) / most) * reach;
    const yTop = 4 + i * row;
    chart.append(svg("rect", { x: p.luck >= 0 ? mid : mid - width, y: yTop, width, height: row - 6, fill: page.styles[seat]?.colour || "#555" }));
    chart.append(svg("text", { x: 4, y: yTop + 12, class: "axis" }, document.createTextNode(seatName(page.styles, seat).slice(0, 18))));
    chart.append(svg("text", { x: mid + reach + 8, y: yTop + 12, class: "axis" }, document.createTextNode(`${p.luck >= 0 ? "+" : ""}${p.luck} (${p.armies_destroyed} vs ${p.expected_destroyed})`)));
  });
  box.replaceChildren(chart);
}

// ---------------------------------------------------------------- playing a seat

async function loadLegal(version) {
  const ticket = ++page.legalRequest;
  try {
    const legal = await api(`${base}/legal-actions`, { token: mine.token });
    if (ticket !== page.legalRequest) return; // a later request won: older actions would be stale
    page.legal = legal;
    if (page.legal.version !== version && page.following) return scheduleShow();
    showActions(page.legal.actions);
  } catch (failure) {
    if (ticket !== page.legalRequest) return;
    page.legal = null;
    showActions([]);
    $("play-error").textContent = failure.message;
  }
}

const territorial = (command) => command.territory ?? command.source ?? null;
// Commands the page sends by itself or shows elsewhere (the hand panel, the window prompt).
const ELSEWHERE = new Set(["resign", "trade_cards"]);

/** A click on a territory: what it means is clicks.js's; a move it means is sent at once. */
function choose(territory, event) {
  if (!page.legal) return;
  const actions = page.legal.actions;
  const plan = clickPlan(territory, {
    actions, pick: page.pick, phase: page.view?.phase, settings: page.settings, shift: Boolean(event?.shiftKey),
    amount: page.amount, dice: page.remembered.dice, occupation: page.view?.occupation, occupyCount: page.occupyCount,
    reserve: page.view?.seats?.find((s) => s.id === mine.seat)?.reserve,
  });
  if (plan.pick[0] !== page.pick[0]) page.amount = null; // a new source: its own amount
  page.pick = plan.pick;
  if (plan.queue) { page.queue = plan.queue; page.queuedAt = page.legal.version; }
  else if (plan.send?.type === "place_armies") page.queue = null;
  showActions(actions);
  if (plan.send) send(plan.send, $("actions"));
}

function matching(actions) {
  const [first, second] = page.pick;
  if (!first || !second) return [];
  return actions.filter((a) => a.command.source === first && a.command.target === second);
}

let shownActions = "";

/** Where the game waits for this seat in a Lord of the Rings window, its name; else null. */
function openWindow(view) {
  const adventure = view?.mode_state?.adventure;
  if (view?.phase === "defence_window" || adventure?.defence_window) return "defence window";
  if (view?.phase === "fellowship_window" || adventure?.window) return "Fellowship's window";
  return null;
}

function showActions(actions) {
  // Redrawn only when something changed, so a number being typed survives other seats' moves.
  // The legal actions' own version is part of it: two windows in a row offer the same pass,
  // and a view that arrived first must not hide the second window's actions (the page
  // would never pass it, and the game would wait on this seat).
  const key = JSON.stringify([actions, page.legal?.version, page.pick, page.view?.version, [...page.cards], page.settings, page.queue, page.finished]);
  if (key === shownActions) return;
  shownActions = key;
  const box = $("actions");
  box.replaceChildren();
  box.dataset.version = String(actions ? page.legal?.version ?? "" : ""); // what tests wait for
  clearCountdown();
  for (const node of Object.values(page.map.nodes)) node.group.classList.remove("choosable", "picked", "target");
  const view = page.view;
  drawHand(actions);
  if (!actions) { $("hint").textContent = "Replaying: go live to play."; yourMove(false); return; }
  if (!actions.length) {
    page.pick = [];
    $("hint").textContent = view?.phase === "finished" ? "" : waitingWords(view);
    yourMove(false);
    return;
  }
  if (handleWindow(actions, view)) return;
  if (autoEndTurn(actions, view)) return;
  if (placeQueued(actions, view)) return;
  yourMove(true);
  // A pick the actions no longer allow is dropped; one they still allow is kept ("attack again").
  if (page.pick.length && !actions.some((a) => territorial(a.command) === page.pick[0])) page.pick = [];
  if (page.pick.length === 2 && !matching(actions).length) page.pick = [page.pick[0]];
  const [first, second] = page.pick;
  const occupation = actions.some((a) => a.command.type === "occupy") ? view?.occupation : null;
  for (const a of actions) {
    const t = territorial(a.command);
    if (t && page.map.nodes[t]) page.map.nodes[t].group.classList.add("choosable");
    if (first && a.command.source === first && a.command.target) page.map.nodes[a.command.target]?.group.classList.add("target");
  }
  if (occupation) for (const t of [occupation.source, occupation.target]) page.map.nodes[t]?.group.classList.add("choosable");
  if (occupation) page.map.nodes[occupation.target]?.group.classList.add("target");
  if (first) page.map.nodes[first]?.group.classList.add("picked");
  if (second) page.map.nodes[second]?.group.classList.add("picked");
  const chosen = matching(actions);
  const general = actions.filter((a) => territorial(a.command) === null && !ELSEWHERE.has(a.command.type));
  $("hint").textContent = hintWords(view, first && !second ? first : null, actions);
  box.append(...clickControls(actions, view));
  for (const action of [...chosen, ...general]) box.append(actionForm(action, formContext(), send));
  const resign = actions.find((a) => a.command.type === "resign");
  if (resign) box.append(el("details", { class: "resign" }, el("summary", { text: "Resign…" }), resignForm(resign)));
}

/** Resigning asks once more: the first press only arms the second. */
function resignForm(resign) {
  const form = actionForm(resign, formContext(), send);
  const button = form.querySelector("button");
  button.textContent = "Resign this game";
  let armed = false;
  form.addEventListener("submit", (e) => {
    if (armed) return;
    e.stopImmediatePropagation();
    e.preventDefault();
    armed = true;
    button.textContent = "Yes, resign: press again";
  }, { capture: true });
  return form;
}

function waitingWords(view) {
  return waitingFor(view, mine?.seat, page.playback?.behind() ?? 0, (seat) => seatName(page.styles, seat));
}

/**
 * The small controls beside a click's meaning: how many a placing click puts down, what a
 * click on a target does and with how many dice, how many a fortifying click moves.
 */
function clickControls(actions, view) {
  const types = new Set(actions.map((a) => a.command.type));
  const parts = [];
  const [first] = page.pick;
  if (types.has("place_armies")) {
    const key = view?.phase === "setup_place" ? "setup" : "reinforce";
    parts.push(choiceRow("per-click", "Each click places", PER_CLICK.map((v) => [v, v === "all" ? "all" : v]), page.settings[key], (v) => { page.settings[key] = v; saveSettings(page.settings); redraw(); }, `shift-click: ${SHIFT_COUNT}`));
  }
  if (page.queue) {
    const cancel = el("button", { type: "button", class: "queue-cancel", text: "cancel" });
    cancel.addEventListener("click", () => { page.queue = null; redraw(); });
    parts.push(el("p", { class: "queue", id: "queue" }, `${page.queue.left} more to place on ${page.board.names[page.queue.territory]}, one each setup turn `, cancel));
  }
  const attacks = first ? actions.filter((a) => a.command.source === first && (a.command.type === "attack" || a.command.type === "blitz")) : [];
  if (attacks.length) {
    const most = Math.max(...attacks.filter((a) => a.command.type === "attack").map((a) => a.bounds.dice[1]), 0);
    parts.push(choiceRow("attack-choice", "A click on a target", Object.entries(ATTACK_CHOICES).map(([v, words]) => [v, v === "roll" && most ? `rolls ${Math.min(page.remembered.dice ?? most, most)} ${most === 1 ? "die" : "dice"}` : words]), page.settings.attack, (v) => { page.settings.attack = v; saveSettings(page.settings); redraw(); }));
    if (page.settings.attack === "roll" && most > 1) {
      const dice = el("select", { id: "attack-dice", "aria-label": "dice to roll" }, ...Array.from({ length: most }, (_, i) => el("option", { value: i + 1, text: `${i + 1}`, selected: i + 1 === Math.min(page.remembered.dice ?? most, most) })));
      dice.addEventListener("change", () => { page.remembered.dice = Number(dice.value); redraw(); });
      parts.push(el("label", { class: "amount" }, "dice ", dice));
    }
  }
  const moves = first ? actions.filter((a) => a.command.type === "fortify" && a.command.source === first) : [];
  if (moves.length) parts.push(amountRow(first, moves[0].bounds.count));
  return parts;
}

/** A row of radio buttons; the choice is kept by ``chosen``. */
function choiceRow(name, words, options, value, chosen, note = "") {
  const inputs = options.map(([v, text]) => {
    const input = el("input", { type: "radio", name, value: v, checked: v === value });
    input.addEventListener("change", () => chosen(v));
    return el("label", { class: "choice" }, input, ` ${text}`);
  });
  return el("fieldset", { class: "click-choice", id: name }, el("legend", { text: words }), ...inputs, note ? el("small", { text: ` ${note}` }) : null);
}

/** How many a click on a destination moves from ``source``: a number and a slider. */
function amountRow(source, [low, high]) {
  const start = page.amount ?? moveDefault(source, [low, high], page.board, page.view);
  page.amount = start;
  const number = el("input", { type: "number", id: "move-amount", min: low, max: high, value: start, "aria-label": `armies to move (${low}–${high})` });
  const range = el("input", { type: "range", min: low, max: high, value: start, "aria-label": "armies to move, slider", tabindex: -1 });
  const follow = (input) => {
    page.amount = Math.max(low, Math.min(high, Math.round(Number(input.value) || low)));
    number.value = range.value = String(page.amount);
  };
  number.addEventListener("input", () => follow(number));
  range.addEventListener("input", () => follow(range));
  return el("label", { class: "amount" }, "move ", number, range, el("small", { text: ` of ${high}: click a destination` }));
}

function redraw() {
  shownActions = "";
  showActions(page.legal?.actions ?? null);
}

/** Setup armies queued by a click for later setup turns: placed when the turn comes round. */
function placeQueued(actions, view) {
  const queue = page.queue;
  if (!queue || page.queuedAt === page.legal?.version) return false; // (the click's own version)
  const place = actions.find((a) => a.command.type === "place_armies" && a.command.territory === queue.territory);
  if (view?.phase !== "setup_place" || !place) { page.queue = null; return false; }
  const count = Math.min(queue.left, place.bounds.count[1]);
  $("hint").textContent = `Placing ${count} more on ${page.board.names[queue.territory]} (queued).`;
  yourMove(false);
  page.queue = queue.left > count ? { ...queue, left: queue.left - count } : null;
  sendOnce("queuedAt", { ...place.command, count });
  return true;
}

function formContext() {
  return {
    board: page.board, view: page.view, remembered: page.remembered, seat: mine.seat,
    who: (seat) => seatName(page.styles, seat),
    remember: (field, value) => { page.remembered[field] = value; },
    cardName: (n) => adventureName(page.view, n),
    follow: (command) => { if (command.type === "occupy") page.occupyCount = command.count; },
  };
}

/** The hint names the phase as the header does, and what a click does in it. */
function hintWords(view, from, actions) {
  const name = (id) => page.board.names[id] ?? id;
  const phase = (view?.phase || "").replaceAll("_", " ");
  const types = new Set(actions.map((a) => a.command.type));
  if (from && types.has("fortify")) return `From ${name(from)}: click a destination outlined in red to move armies there; ${name(from)} to let go.`;
  if (from && (types.has("attack") || types.has("blitz"))) return `From ${name(from)}: click an enemy outlined in red to attack it, again to attack again; ${name(from)} to let go.`;
  if (from) return `From ${name(from)}: pick a target (outlined in red).`;
  if (view?.must_trade && types.has("trade_cards")) return "Trade a set of cards first: pick three in your hand.";
  if (types.has("occupy") && view?.occupation) {
    const o = view.occupation;
    return `Conquered ${name(o.target)}: click it to move in the armies below, or ${name(o.source)} to move only the fewest; or press the button.`;
  }
  const forOthers = [...new Set(actions.filter((a) => a.command.type === "place_armies")
    .map((a) => view?.territories?.[a.command.territory]?.owner).filter((o) => o && o !== mine.seat))];
  if (view?.phase === "setup_place" && forOthers.length) {
    return `Setup place: put an army on one of yours, or for ${forOthers.map((s) => seatName(page.styles, s)).join(" or ")} (the rules have you place for the neutral too): click it.`;
  }
  const what = {
    setup_claim: "claim a free territory (click it)",
    setup_place: "place an army on one of yours (click it)",
    setup_leader: "put your leader on one of yours (click it)",
    reinforce: `place your ${view?.reinforcements ?? ""} armies: click one of yours`,
    attack: "click one of yours to attack from, or end attacks",
    fortify: "click one of yours to move armies from, or end the turn",
    defend: "choose your dice",
  }[view?.phase];
  if (what) return `${phase[0].toUpperCase()}${phase.slice(1)}: ${what}.`;
  return `${phase}: choose an action, or pick a territory on the map.`;
}

function drawHand(actions) {
  renderHand($("hand"), {
    board: page.board, view: page.view, seat: mine.seat, actions: actions || [], picked: page.cards,
    redraw: () => { shownActions = ""; showActions(page.legal?.actions ?? null); },
    send: (command, form) => { page.cards.clear(); send(command, form); },
  });
}

/**
 * Lord of the Rings windows: with no card the seat may play now, the page passes at once
 * (the seat's own legal actions say so: nothing of another seat is read); with one, a
 * prompt counts down and passes when it runs out.
 */
function handleWindow(actions, view) {
  const pass = actions.find((a) => a.command.type === "pass_adventure"); // offered in windows only
  if (!pass) return false;
  const name = openWindow(view) || "adventure window";
  const plays = actions.filter((a) => a.command.type === "play_adventure");
  const box = $("actions");
  if (!plays.length) {
    $("hint").textContent = `The ${name}: you hold no card to play in it, so the page passes for you.`;
    yourMove(false);
    sendOnce("passed", pass.command);
    return true;
  }
  yourMove(true, `The ${name}`);
  let left = WINDOW_SECONDS;
  const clock = el("strong", { class: "countdown", text: String(left) });
  $("hint").replaceChildren(`The ${name}: play an adventure card or pass; the page passes in `, clock, " s.");
  for (const action of [pass, ...plays]) box.append(actionForm(action, formContext(), send));
  page.countdown = setInterval(() => {
    left -= 1;
    clock.textContent = String(left);
    if (left <= 0) { clearCountdown(); send({ ...pass.command }, box); }
  }, 1000);
  return true;
}

function clearCountdown() {
  clearInterval(page.countdown);
  page.countdown = null;
}

/** After a fortification the turn is over unless something else may still be done: end it. */
function autoEndTurn(actions, view) {
  const left = actions.filter((a) => a.command.type !== "resign");
  if (view?.phase !== "fortify" || !view.fortified_this_turn || left.length !== 1 || left[0].command.type !== "end_phase") return false;
  $("hint").textContent = "Fortified: ending your turn.";
  sendOnce("autoEnded", left[0].command);
  return true;
}

/**
 * A move the page makes by itself (a pass, the end of a fortified turn): once per legal
 * version, and again after a refusal that left the game where it was (a rate limit, a
 * dropped connection), else the page would wait on a move it never resent.
 */
async function sendOnce(field, command) {
  if (page[field] === page.legal.version) return;
  const version = page.legal.version;
  page[field] = version;
  if (await send({ ...command }, $("actions"))) return;
  setTimeout(() => {
    if (page[field] !== version || !page.following) return;
    page[field] = null;
    shownActions = "";
    loadLegal(page.head);
  }, RETRY_MS);
}

async function send(command, form) {
  $("play-error").textContent = "";
  clearCountdown();
  for (const button of form.querySelectorAll("button")) button.disabled = true;
  const keep = ["attack", "blitz"].includes(command.type); // "attack again" keeps the pick
  let accepted = true;
  try {
    await api(`${base}/commands`, { method: "POST", body: command, token: mine.token, headers: { "If-Match": `"${page.legal.version}"` } });
    if (!keep) page.pick = [];
    // The move is made: nothing of the version it was made at is offered any more (other
    // seats' steps may play back first); the next version's actions come with it.
    const pick = page.pick; // (kept for "attack again")
    page.legal = { ...page.legal, actions: [] };
    showActions([]);
    page.pick = pick;
  } catch (failure) {
    $("play-error").textContent = failure instanceof ApiError && failure.problem?.code === "version_conflict" ? "The game moved on before your move arrived; here is where it is now." : `Refused: ${failure.message}`;
    accepted = false;
    shownActions = ""; // the same actions may come back: drawn again, their buttons enabled
  }
  await loadEvents().catch(() => {});
  page.following = true;
  page.playback.skip(); // your own move: no playback
  return accepted;
}

function showError(failure) {
  $("page-error").textContent = failure.message;
}

start().catch(showError);
