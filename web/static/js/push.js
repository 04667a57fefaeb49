// The notification settings page's Web Push panel: registers the service worker and
// subscribes this browser with plandash's VAPID key, then hands the subscription to the server.

// startPush runs on every page; only the settings page has the panel.
export function startPush() {
  const panel = document.querySelector('[data-testid="push-panel"]');
  if (panel) start(panel);
}

function start(panel) {
  const state = panel.querySelector('[data-testid="push-state"]');
  const button = panel.querySelector('[data-testid="push-subscribe"]');
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
    state.textContent = "This browser cannot receive Web Push here: it needs HTTPS, or localhost.";
    return;
  }
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(async (reg) => {
    const sub = await reg.pushManager.getSubscription();
    state.textContent = sub ? "This browser is subscribed." : "This browser is not subscribed.";
    button.hidden = false;
    button.addEventListener("click", () => subscribe(reg, panel.dataset.vapid, state));
  }, (err) => {
    state.textContent = "The service worker did not register: " + err.message;
  });
}

async function subscribe(reg, key, state) {
  try {
    if ((await Notification.requestPermission()) !== "granted") {
      state.textContent = "Notifications are blocked for this site; allow them in the browser's settings.";
      return;
    }
    const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromB64(key) });
    const res = await fetch("/api/v1/notify/push", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(sub),
    });
    state.textContent = res.ok ? "Subscribed: this browser will be notified when an agent waits." : "plandash refused the subscription: " + (await res.text());
  } catch (err) {
    state.textContent = "Subscribing failed: " + err.message;
  }
}

function fromB64(s) {
  const b = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}
