// Relative times ("2m ago") on every page stay true while the page is open: the server renders
// them once, and <time class="last"> and <time data-rel> are rewritten every 15 seconds.

// startTimes refreshes the relative times for as long as the page is open.
export function startTimes() {
  setInterval(refresh, 15000);
}

function refresh() {
  const now = Date.now();
  document.querySelectorAll("time.last, time[data-rel]").forEach((t) => {
    const d = (now - Date.parse(t.getAttribute("datetime"))) / 1000;
    if (isNaN(d)) return;
    t.textContent = d < 5 ? "just now" : d < 60 ? Math.floor(d) + "s ago" : d < 3600 ? Math.floor(d / 60) + "m ago" :
      d < 86400 ? Math.floor(d / 3600) + "h ago" : t.textContent;
  });
}
