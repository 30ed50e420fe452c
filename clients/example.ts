// A small TypeScript client on the generated types (docs/clients.md).
// `make clients` type-checks it with `tsc --strict` against the api.d.ts that
// openapi-typescript writes from openapi.yaml, so a change to the spec that
// breaks what a client writes here fails the build.
import type { components, paths } from "./api";

type Schemas = components["schemas"];
type Command = Schemas["Command"];
type CreateGame = paths["/v1/games"]["post"]["requestBody"]["content"]["application/json"];
type Created = paths["/v1/games"]["post"]["responses"][201]["content"]["application/json"];
type Actions =
  paths["/v1/games/{game_id}/legal-actions"]["get"]["responses"][200]["content"]["application/json"];
type Accepted =
  paths["/v1/games/{game_id}/commands"]["post"]["responses"][200]["content"]["application/json"];
type Problem = Schemas["Problem"];
type YamlDocument = paths["/openapi.yaml"]["get"]["responses"][200]["content"]["application/yaml"];
type Stream =
  paths["/v1/games/{game_id}/events/stream"]["get"]["responses"][200]["content"]["text/event-stream"];

// The spec and the event stream are text, not objects.
const specIsText: YamlDocument extends string ? true : false = true;
const streamIsText: Stream extends string ? true : false = true;

// Fields with a server default may be left out: `count` (1), `stop_at` (1),
// `board` (classic), every rule option.
const game: CreateGame = {
  seats: [{ kind: "human", name: "Ada" }, { kind: "bot", bot: "heuristic" }, { kind: "open" }],
  rules: { setup: "deal" },
};
const place: Command = { type: "place_armies", territory: "alaska" };
const blitz: Command = { type: "blitz", source: "alaska", target: "kamchatka" };
// A bot seat names its bot, its level or both; other seats name neither.
const botAtLevel: Schemas["SeatRequest"] = { kind: "bot", level: "hard" };
// @ts-expect-error a human seat naming a bot
const humanWithBot: Schemas["SeatRequest"] = { kind: "human", bot: "random" };

// `type` narrows a command (and an event) to its own fields.
function describe(command: Command): string {
  switch (command.type) {
    case "attack":
      return `attack ${command.target} from ${command.source} with ${command.dice ?? "most"} dice`;
    case "blitz":
      return `blitz ${command.target} from ${command.source}, stop at ${command.stop_at ?? 1}`;
    case "place_armies":
      return `place ${command.count ?? 1} on ${command.territory}`;
    case "occupy":
    case "fortify":
      return `${command.type} ${command.count}`;
    default:
      return command.type;
  }
}

function eventLine(envelope: Schemas["EventEnvelope"]): string {
  const bot = envelope.bot ? ` (${envelope.bot.name})` : "";
  const event = envelope.event;
  switch (event.type) {
    case "battle_resolved":
      return `${envelope.version}: ${event.attacker_dice.join(",")} v ${event.defender_dice.join(",")}${bot}`;
    case "game_finished":
      return `${envelope.version}: over, ${event.winner ?? event.winners?.join(" and ") ?? "nobody"} won`;
    default:
      return `${envelope.version}: ${event.type}${bot}`;
  }
}

// One Server-Sent Event, its `data` decoded by its `event`.
function onFrame(frame: Schemas["StreamEvent"]): string {
  switch (frame.event) {
    case "game_event":
      return eventLine(JSON.parse(frame.data) as Schemas["EventEnvelope"]);
    case "head": {
      const head = JSON.parse(frame.data) as Schemas["StreamHead"];
      return `head ${head.hash} at ${head.version}`;
    }
    case "error":
      return (JSON.parse(frame.data) as Schemas["StreamError"]).code;
    case "end":
      return "end";
  }
}

function problemText(problem: Problem): string {
  const fields = Object.entries(problem.errors ?? {}).map(([field, why]) => `${field}: ${JSON.stringify(why)}`);
  return [`${problem.code}: ${problem.detail}`, ...fields].join("\n");
}

async function call<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(problemText((await response.json()) as Problem));
  return (await response.json()) as T;
}

// Create a game, then send the first legal action of the first seat.
export async function firstMove(base: string): Promise<string[]> {
  const json = { "Content-Type": "application/json" };
  const created = await call<Created>(`${base}/v1/games`, {
    method: "POST",
    headers: json,
    body: JSON.stringify(game),
  });
  const id = created.game.game_id;
  const token = created.tokens["p1"];
  const auth = { Authorization: `Bearer ${token}` };
  const legal = await call<Actions>(`${base}/v1/games/${id}/legal-actions`, { headers: auth });
  const lines = legal.actions.map((action) => describe(action.command));
  const first = legal.actions[0];
  if (first) {
    const accepted = await call<Accepted>(`${base}/v1/games/${id}/commands`, {
      method: "POST",
      headers: { ...auth, ...json },
      body: JSON.stringify(first.command),
    });
    lines.push(...accepted.events.map(eventLine));
  }
  return [describe(place), describe(blitz), ...lines, String(specIsText && streamIsText)];
}

export { botAtLevel, humanWithBot, onFrame };
