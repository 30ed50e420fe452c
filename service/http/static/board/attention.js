// "Your move": the tab's title and icon, an optional sound, a notification if allowed.
import { el } from "/board/common.js";

const ICON = (colour) => `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="${colour}"/></svg>`)}`;
const SOUND = "risk-sound";
let plain = document.title;
let waiting = false;

function icon(href) {
  let link = document.querySelector("link[rel=icon]");
  if (!link) { link = el("link", { rel: "icon" }); document.head.append(link); }
  link.href = href;
}

/** Call with whether the seat holds the move now; only a change does anything. */
export function yourMove(now, words = "Your move") {
  if (now === waiting) return;
  waiting = now;
  document.documentElement.dataset.yourMove = String(now);
  if (!now) {
    document.title = plain;
    icon(ICON("#8a8a8a"));
    return;
  }
  document.title = `● ${words} — ${plain}`;
  icon(ICON("#d62728"));
  if (localStorage.getItem(SOUND) === "on") chime();
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    try { new Notification("Risk", { body: `${words} (${plain})`, tag: "risk-your-move" }); } catch { /* not allowed here */ }
  }
}

export function setTitle(title) {
  plain = title;
  document.title = waiting ? `● Your move — ${plain}` : plain;
}

function chime() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.12, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.4);
  } catch { /* no audio: the title still says it */ }
}

/** The panel's switches: sound on/off, and asking for notifications. */
export function attentionControls() {
  const sound = el("input", { type: "checkbox", id: "sound", checked: localStorage.getItem(SOUND) === "on" });
  sound.addEventListener("change", () => localStorage.setItem(SOUND, sound.checked ? "on" : "off"));
  const parts = [el("label", {}, sound, " sound on your move")];
  if ("Notification" in window && Notification.permission === "default") {
    const ask = el("button", { type: "button", id: "notify", text: "Notify me when it is my move" });
    ask.addEventListener("click", async () => { await Notification.requestPermission(); ask.remove(); });
    parts.push(ask);
  }
  return el("p", { class: "attention" }, ...parts);
}
