// One legal action as a form whose words follow its inputs ("Move 3 into Alaska").
// Holds no rules: the bounds are the API's; the defaults only pick a point inside them.
import { el } from "/board/common.js";

export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const dice = (n) => plural(n, "die", "dice");

/** Whether ``territory`` borders a territory of another owner (a front to keep manned). */
export function onFront(territory, board, view) {
  const owner = view.territories[territory]?.owner;
  return board.borders.some(([a, b]) => (a === territory && view.territories[b]?.owner !== owner) || (b === territory && view.territories[a]?.owner !== owner));
}

/** Armies to move by default: all from a territory behind the front; from one on it, half. */
export function moveDefault(source, [low, high], board, view) {
  if (!onFront(source, board, view)) return high;
  return Math.max(low, Math.min(high, Math.ceil(high / 2)));
}

/** The words of a command with the values its inputs hold now. */
export function actionWords(command, ctx) {
  const at = (id) => ctx.board.names[id] ?? id;
  const armies = (id) => ctx.view?.territories?.[id]?.armies ?? 0;
  switch (command.type) {
    case "claim_territory": return `Claim ${at(command.territory)}`;
    case "place_armies": {
      const owner = ctx.view?.territories?.[command.territory]?.owner;
      const other = owner && ctx.seat && owner !== ctx.seat ? ` for ${ctx.who?.(owner) ?? owner}` : ""; // a neutral's, in two-player setup
      return `Place ${plural(command.count, "army", "armies")} on ${at(command.territory)}${other}`;
    }
    case "attack": return `Attack ${at(command.target)} from ${at(command.source)} with ${dice(command.dice)}`;
    case "blitz": return `Blitz ${at(command.target)} from ${at(command.source)} until it falls`;
    case "defend": return `Defend with ${dice(command.dice)}`;
    case "occupy": {
      const o = ctx.view?.occupation;
      return o ? `Move ${command.count} into ${at(o.target)} (${armies(o.source) - command.count} stay in ${at(o.source)})` : `Move ${command.count} in`;
    }
    case "fortify": return `Move ${command.count} from ${at(command.source)} to ${at(command.target)} (${armies(command.source) - command.count} stay)`;
    case "end_phase": return endWords(ctx.view?.phase);
    case "pass_adventure": return "Pass: play no adventure card";
    case "play_adventure": return `Play ${ctx.cardName?.(command.adventure) ?? `card ${command.adventure}`}${command.target ? ` on ${at(command.target)}` : command.territory ? ` on ${at(command.territory)}` : ""}`;
    case "claim_adventure": return `Fulfil the mission ${ctx.cardName?.(command.adventure) ?? `card ${command.adventure}`}${command.territory ? `: the armies on ${at(command.territory)}` : ""}`;
    case "discard_adventure": return `Discard ${ctx.cardName?.(command.adventure) ?? `card ${command.adventure}`}`;
    case "place_leader": return `Put your leader on ${at(command.territory)}`;
    case "move_leader": return `Move your leader from ${at(command.source)} to ${at(command.target)}`;
    case "resign": return "Resign";
    default: return command.type.replaceAll("_", " ");
  }
}

function endWords(phase) {
  if (phase === "attack") return "End attacks";
  if (phase === "fortify") return "End the turn";
  return `End the ${(phase || "phase").replaceAll("_", " ")}`;
}

/** The form: a button that names the move, and a number (and slider) per bounded value. */
export function actionForm(action, ctx, send) {
  const command = { ...action.command };
  const fields = Object.entries(action.bounds || {}).filter(([, [low, high]]) => low !== high);
  for (const [field, [low, high]] of Object.entries(action.bounds || {})) {
    if (low === high) command[field] = low;
    else command[field] = startValue(command, field, [low, high], ctx);
  }
  const button = el("button", { type: "submit" });
  const words = () => { button.textContent = actionWords(command, ctx); ctx.follow?.(command); };
  const inputs = fields.map(([field, [low, high]]) => {
    const name = field.replaceAll("_", " ");
    const number = el("input", { type: "number", min: low, max: high, value: command[field], name: field, "aria-label": `${name} (${low}–${high})` });
    const range = high - low <= 60 ? el("input", { type: "range", min: low, max: high, value: command[field], "aria-label": `${name} slider`, tabindex: -1 }) : null;
    const follow = (source) => {
      const value = Math.max(low, Math.min(high, Math.round(Number(source.value) || low)));
      command[field] = value;
      if (source !== number) number.value = String(value);
      if (range && source !== range) range.value = String(value);
      if (field === "dice") ctx.remember?.("dice", value);
      words();
    };
    number.addEventListener("input", () => follow(number));
    range?.addEventListener("input", () => follow(range));
    return el("label", { class: "amount" }, `${name} `, number, range, el("small", { text: ` ${low}–${high}` }));
  });
  words();
  const form = el("form", { class: "action", "data-type": command.type }, button, ...inputs);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    send({ ...command }, form);
  });
  return form;
}

function startValue(command, field, bounds, ctx) {
  const [low, high] = bounds;
  const kept = ctx.remembered?.[field];
  if (field === "dice") return kept && kept >= low && kept <= high ? kept : high;
  if (command.type === "occupy" && ctx.view?.occupation) return moveDefault(ctx.view.occupation.source, bounds, ctx.board, ctx.view);
  if (command.type === "fortify") return moveDefault(command.source, bounds, ctx.board, ctx.view);
  return command[field] ?? high;
}
