// The end of a game on its page (issue 53): how its mode is won, in the words the engine
// declares once per mode (GET /v1/modes, `win_condition`), under the result line.
import { api, el } from "/board/common.js";

let conditions = null; // mode -> its win condition, fetched once

/** Under `line`, the win condition of `view`'s mode once the game is over (none before). */
export async function showWinCondition(line, view) {
  const shown = document.getElementById("win-condition");
  if (view.phase !== "finished") {
    shown?.remove();
    return;
  }
  conditions ??= api("/v1/modes")
    .then((declared) => Object.fromEntries(declared.modes.map((m) => [m.name, m.win_condition])))
    .catch(() => ({}));
  const text = (await conditions)[view.mode];
  if (!text) return;
  const note = shown || el("p", { id: "win-condition", class: "win-condition" });
  note.textContent = `How this game is won: ${text}`;
  if (!shown) line.after(note);
}
