// Shared plans: confirmations before destructive forms, and the editor's live preview and
// stale-draft notice. The preview is rendered by the server exactly as the page will show it,
// so no markdown code lives here.

// startShared binds the confirmations on every page and, on the editor's page, the preview and
// the notice; socket tells when the live header may have changed.
export function startShared(socket) {
  // <form data-confirm="question"> asks before it submits (deleting a shared plan).
  document.addEventListener("submit", (ev) => {
    const f = ev.target;
    if (f && f.dataset && f.dataset.confirm && !window.confirm(f.dataset.confirm)) ev.preventDefault();
  });
  const form = document.querySelector("form[data-shared-editor]");
  if (!form) return;
  const area = form.querySelector("textarea[data-preview]");
  const preview = area && document.getElementById(area.dataset.preview);
  if (area && preview) startPreview(area, preview);

  // A draft is based on the revision the page was opened at. When the live header shows a
  // newer one (or the plan is gone), say so before the person saves.
  const name = form.dataset.name, opened = Number(form.dataset.opened || 0);
  const stale = form.querySelector(".stale");
  const check = () => {
    const head = name && document.getElementById("sphead-" + name);
    if (!head || !stale) return;
    stale.hidden = Number(head.dataset.revision || 0) === opened && head.dataset.removed !== "true";
  };
  socket.onFragment(check);
  check();
}

// Typing is debounced; an answer to older text is dropped.
function startPreview(area, preview) {
  let timer = null, pending = null, shown = area.value;
  const render = () => {
    const text = area.value;
    if (text === shown) return;
    if (pending) pending.abort();
    const ctl = pending = new AbortController();
    fetch("/shared/-/preview", {
      method: "POST", body: text, credentials: "same-origin", signal: ctl.signal,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
    }).then((r) => {
      if (!r.ok) throw new Error("preview: HTTP " + r.status);
      return r.text();
    }).then((html) => {
      if (ctl !== pending) return;
      preview.innerHTML = html;
      preview.dataset.state = "ok";
      shown = text;
    }).catch((e) => {
      if (e.name !== "AbortError") preview.dataset.state = "error";
    });
  };
  area.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(render, 150);
  });
}
