// Desktop notifications: when the pending count goes up while the tab is hidden, a notification
// says so (clicking it opens the inbox). Permission is asked once ever, on the first thing the
// person does on a gate page; never on page load.

// startNotify follows pending (see pending.js); gatePage says whether to ask for permission here.
export function startNotify(pending, gatePage) {
  pending.subscribe((n, { previous, latest }) => {
    if (previous !== null && n > previous) show(n, latest);
  });
  if (gatePage) {
    document.addEventListener("pointerdown", askOnce, { once: true });
    document.addEventListener("keydown", askOnce, { once: true });
  }
}

function show(n, latest) {
  if (!document.hidden || !("Notification" in window) || Notification.permission !== "granted") return;
  try {
    const note = new Notification("plandash: a plan waits for your approval", { body: latest || n + " waiting", tag: "plandash-approvals" });
    note.onclick = () => { window.focus(); location.href = "/approvals"; };
  } catch { /* some browsers only notify from a service worker: the title and icon still say it */ }
}

function askOnce() {
  if (!("Notification" in window) || Notification.permission !== "default") return;
  try {
    if (localStorage.getItem("plandash.notify.asked")) return;
    localStorage.setItem("plandash.notify.asked", "1");
  } catch { return; }
  Notification.requestPermission();
}
