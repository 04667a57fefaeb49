// Deadlines on the gate's pages (<time data-deadline>) count down every second, and their
// .countdown box turns "soon" in the last two minutes. The server applies the default outcome
// when one passes; this only shows the time left.

// startCountdown ticks for as long as the page is open; rows the socket swaps in are picked up
// on the next tick.
export function startCountdown() {
  setInterval(tick, 1000);
}

function tick() {
  const now = Date.now();
  document.querySelectorAll("time[data-deadline]").forEach((t) => {
    const s = Math.round((Date.parse(t.dataset.deadline) - now) / 1000);
    if (isNaN(s)) return;
    t.textContent = left(s);
    const box = t.closest(".countdown");
    if (box) box.classList.toggle("soon", s < 120);
  });
}

// left is the time left in s seconds: "now", "4:05", "3h 07m", "3d".
export function left(s) {
  if (s <= 0) return "now";
  if (s < 3600) return Math.floor(s / 60) + ":" + pad(s % 60);
  if (s < 172800) return Math.floor(s / 3600) + "h " + pad(Math.floor(s / 60) % 60) + "m";
  return Math.floor(s / 86400) + "d";
}

function pad(n) { return n < 10 ? "0" + n : String(n); }
