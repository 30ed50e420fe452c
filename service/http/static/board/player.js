// A player's public profile (issue 49): ratings per mode (GET /v1/players/{name}) and
// the games of the player's history (its ``history`` link, the archive's player filter).
import { ApiError, api, el } from "/board/common.js";
import { gameList, modeWords } from "/board/gamelist.js";
import { showWho } from "/board/signin.js";

const $ = (id) => document.getElementById(id);
const name = decodeURIComponent(location.pathname.split("/").pop());

async function start() {
  showWho($("who"));
  let player;
  try {
    player = await api(`/v1/players/${encodeURIComponent(name)}`);
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 404) return nobody();
    throw failure;
  }
  document.title = `Risk — ${player.name}`;
  $("player-name").replaceChildren(...[player.name, player.kind === "bot" ? el("span", { class: "tag", text: "bot" }) : null].filter(Boolean));
  const since = new Date(player.created).toLocaleDateString(undefined, { day: "numeric", month: "long", year: "numeric" });
  $("player-about").textContent = player.kind === "bot"
    ? `The account the ${player.level} bot level plays as, here since ${since}.`
    : `Playing here since ${since}.`;
  drawRatings(player.ratings, await modeWords());
  const history = new URL(player.history, location.origin);
  $("history-api").href = history.pathname + history.search;
  $("history-search").href = `/?player=${encodeURIComponent(player.name)}#finished`;
  const games = gameList($("history"), { caption: `${player.name}'s games, newest first`, me: player.name, empty: "No games yet." });
  await games.load(Object.fromEntries(history.searchParams));
}

function nobody() {
  $("player-name").textContent = "No such player";
  $("player-about").textContent = `Nobody here is called “${name}”.`;
  for (const id of ["ratings-title", "history-title"]) $(id).closest("section").hidden = true;
}

function drawRatings(ratings, known) {
  const modes = Object.keys(ratings);
  if (!modes.length) {
    $("ratings").replaceChildren(el("p", { class: "empty", text: "No rated game yet." }));
    return;
  }
  const title = (mode) => known.modes.find((m) => m.name === mode)?.title || mode;
  const rows = modes.map((mode) => {
    const r = ratings[mode];
    return el("tr", { "data-mode": mode },
      el("th", { scope: "row" }, el("a", { href: `/leaderboards?mode=${encodeURIComponent(mode)}`, text: title(mode) })),
      el("td", { class: "number", text: `${r.ordinal.toFixed(1)}${r.provisional ? "?" : ""}`, title: r.provisional ? "provisional" : null }),
      el("td", { class: "number", text: r.mu.toFixed(1) }),
      el("td", { class: "number", text: r.sigma.toFixed(2) }),
      el("td", { class: "number", text: String(r.games) }));
  });
  $("ratings").replaceChildren(el("table", { class: "ratings" },
    el("caption", { class: "visually-hidden", text: "Ratings per mode" }),
    el("thead", {}, el("tr", {}, ...["Mode", "Rating", "μ", "σ", "Games"].map((h, i) => el("th", { scope: "col", text: h, class: i ? "number" : null })))),
    el("tbody", {}, rows)));
}

start().catch((failure) => { $("page-error").textContent = failure.message; });
