// plandash's service worker, served at /sw.js so its scope is the whole site. It shows a push
// as a notification, clears it when the wait ends (a second push with the same tag), opens the
// exact page on a click, and answers from an action button through the action's capability
// link, which needs no token or cookie.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));

self.addEventListener("push", (e) => {
  let p = {};
  try {
    p = e.data ? e.data.json() : {};
  } catch {
    p = { title: "plandash", body: e.data ? e.data.text() : "" };
  }
  e.waitUntil(onPush(p));
});

async function onPush(p) {
  if (p.type === "ended") {
    const shown = await self.registration.getNotifications({ tag: p.tag });
    shown.forEach((n) => n.close());
    return;
  }
  const actions = Array.isArray(p.actions) ? p.actions : [];
  await self.registration.showNotification(p.title || "plandash: an agent waits", {
    body: p.body || "",
    tag: p.tag,
    icon: "/static/icon-192.png",
    requireInteraction: true,
    data: { url: p.url || "/approvals", actions },
    actions: actions.map((a) => ({ action: a.action, title: a.title })),
  });
}

self.addEventListener("notificationclick", (e) => {
  e.notification.close();
  e.waitUntil(onClick(e.notification.data || {}, e.action));
});

// onClick answers with the action's link, or opens the wait's page (reusing a tab on it).
async function onClick(data, action) {
  const a = (data.actions || []).find((x) => x.action === action);
  if (a) return answer(a.link, a.action);
  return openPage(data.url || "/approvals");
}

async function answer(link, action) {
  const res = await fetch(link, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "action=" + encodeURIComponent(action),
    credentials: "omit",
  });
  return res.ok;
}

async function openPage(path) {
  const wins = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  for (const c of wins) {
    if (new URL(c.url).pathname === path && "focus" in c) return c.focus();
  }
  return self.clients.openWindow(path);
}

// The DevTools protocol cannot click a notification, so a page of this origin may ask the
// worker to do what a click on a shown notification's action does; it can do nothing a click
// could not.
self.addEventListener("message", (e) => {
  const m = e.data || {};
  if (m.type !== "plandash-click") return;
  e.waitUntil(
    (async () => {
      const shown = await self.registration.getNotifications({ tag: m.tag });
      let ok = false;
      if (shown.length > 0) {
        shown[0].close();
        ok = await onClick(shown[0].data || {}, m.action);
      }
      if (e.source) e.source.postMessage({ type: "plandash-clicked", ok: Boolean(ok) });
    })(),
  );
});
