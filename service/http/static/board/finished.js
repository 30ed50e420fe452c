// The lobby's finished games (issue 48): the archive's history with its filters (player,
// mode, board, the player's result, a span of days), newest first, paged with "More".
// The filters live in the page's query (/?player=Ada&mode=classic#finished), so a
// search can be linked (a profile links here); they hold nothing private.
import { el } from "/board/common.js";
import { gameList, modeWords } from "/board/gamelist.js";

const $ = (id) => document.getElementById(id);
const FIELDS = ["player", "mode", "board", "result", "from", "to"];

export async function startFinished() {
  const known = await modeWords();
  const any = () => el("option", { value: "", text: "any" });
  $("filter-mode").replaceChildren(any(), ...known.modes.map((m) => el("option", { value: m.name, text: m.title })));
  $("filter-board").replaceChildren(any(), ...Object.entries(known.boards).map(([name, title]) => el("option", { value: name, text: title.split(" (")[0].split(",")[0] })));
  const asked = new URLSearchParams(location.search);
  for (const field of FIELDS) if (asked.get(field)) $(`filter-${field}`).value = asked.get(field);
  const list = gameList($("finished-games"), { caption: "Finished games, newest first", empty: "No finished game matches these filters." });
  const form = $("history-filters");
  const follow = () => { $("filter-result").disabled = !$("filter-player").value.trim(); };
  $("filter-player").addEventListener("input", follow);
  follow();
  form.addEventListener("submit", (event) => { event.preventDefault(); show(list, true); });
  form.addEventListener("reset", () => setTimeout(() => { follow(); show(list, true); }));
  await show(list, false);
}

/** The filters as the form holds them, by name ("" when not set). */
function chosen() {
  return Object.fromEntries(FIELDS.map((field) => [field, $(`filter-${field}`).value.trim()]));
}

async function show(list, remember) {
  const filters = chosen();
  $("filters-error").textContent = "";
  if (filters.from && filters.to && filters.to < filters.from) {
    $("filters-error").textContent = "The last day is before the first.";
    return;
  }
  if (remember) {
    const kept = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
    history.replaceState(null, "", `/${kept.size ? `?${kept}` : ""}#finished`);
  }
  await list.load(archiveQuery(filters), filters.player || null);
}

/** The API's query: days (in this browser's time zone) as Unix ms, ``until`` the day after ``to``. */
function archiveQuery(filters) {
  const query = { source: "archive", status: "finished", limit: "20" };
  for (const name of ["player", "mode", "board"]) if (filters[name]) query[name] = filters[name];
  if (filters.player && filters.result) query.result = filters.result;
  if (filters.from) query.since = String(new Date(`${filters.from}T00:00`).getTime());
  if (filters.to) query.until = String(dayAfter(filters.to));
  return query;
}

/** The start of the day after ``value`` (YYYY-MM-DD), by the calendar: a day is not always 24 h. */
function dayAfter(value) {
  const day = new Date(`${value}T00:00`);
  day.setDate(day.getDate() + 1);
  return day.getTime();
}
