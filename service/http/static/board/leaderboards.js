// The leaderboards (issue 49): a mode's accounts by rating (GET /v1/leaderboards/{mode}),
// bots marked in words, the signed-in account's row marked too. The mode is in the URL's
// query (?mode=classic), so a leaderboard can be linked.
import { api, el } from "/board/common.js";
import { modeWords } from "/board/gamelist.js";
import { showWho, signedIn } from "/board/signin.js";

const $ = (id) => document.getElementById(id);

async function start() {
  showWho($("who"));
  const known = await modeWords();
  const asked = new URLSearchParams(location.search).get("mode");
  const chosen = known.modes.some((m) => m.name === asked) ? asked : "two_player";
  $("mode").replaceChildren(...known.modes.map((m) => el("option", { value: m.name, text: m.title, selected: m.name === chosen })));
  $("mode").addEventListener("change", () => {
    history.replaceState(null, "", `/leaderboards?mode=${encodeURIComponent($("mode").value)}`);
    draw(known).catch(failed);
  });
  $("board-mode").addEventListener("submit", (event) => event.preventDefault());
  await draw(known);
}

async function draw(known) {
  const mode = $("mode").value;
  const title = known.modes.find((m) => m.name === mode).title;
  const board = await api(`/v1/leaderboards/${encodeURIComponent(mode)}?limit=100`);
  $("board-title").textContent = `Leaderboard: ${title}`;
  $("page-error").textContent = "";
  if (!board.players.length) {
    $("board").replaceChildren(el("p", { class: "empty", text: "No rated game of this mode has finished yet." }));
    return;
  }
  const me = signedIn()?.name.toLowerCase();
  const rows = board.players.map((p) => el("tr", { "data-player": p.name, class: p.name.toLowerCase() === me ? "you" : null },
    el("td", { class: "number", text: String(p.rank) }),
    el("th", { scope: "row" }, el("a", { href: `/players/${encodeURIComponent(p.name)}`, text: p.name }),
      p.bot ? el("span", { class: "tag", text: "bot" }) : null,
      p.name.toLowerCase() === me ? el("span", { class: "tag you-tag", text: "you" }) : null),
    el("td", { class: "number", text: `${p.ordinal.toFixed(1)}${p.provisional ? "?" : ""}`, title: p.provisional ? "provisional" : null }),
    el("td", { class: "number", text: p.mu.toFixed(1) }),
    el("td", { class: "number", text: p.sigma.toFixed(2) }),
    el("td", { class: "number", text: String(p.games) })));
  $("board").replaceChildren(el("table", { class: "ratings leaderboard" },
    el("caption", { class: "visually-hidden", text: `${title}: players by rating` }),
    el("thead", {}, el("tr", {}, ...["#", "Player", "Rating", "μ", "σ", "Games"].map((h, i) => el("th", { scope: "col", text: h, class: i === 1 ? null : "number" })))),
    el("tbody", {}, rows)));
}

function failed(failure) {
  $("page-error").textContent = `Could not load the leaderboard: ${failure.message}`;
}

start().catch(failed);
