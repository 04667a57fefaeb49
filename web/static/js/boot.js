// The embed's boot page: the token arrives in the URL fragment (#token=…), which browsers never
// send to a server. Trade it for a cookie and load the page; where the browser keeps no
// third-party cookies, keep the token for this tab (token.js reads it back) and load the page
// with it as a header instead. A link followed inside such a panel has no token in its address
// and reaches this page again (no cookie came along): it boots with the token kept for the tab.
import { pageToken } from "./token.js";

const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
const kept = m ? "" : pageToken();
const box = document.getElementById("boot");

function fail(text) {
  if (!box) return;
  box.querySelector("h2").textContent = "Not connected";
  box.querySelector("p").textContent = text;
}

if (!m && !kept) {
  fail("This panel needs plandash's token in its address. Get a ready address with `plandash url --embed`.");
} else {
  const token = m ? decodeURIComponent(m[1]) : kept;
  const here = location.pathname + location.search;
  history.replaceState(null, "", here);
  const auth = { Authorization: "Bearer " + token };
  fetch("/api/v1/embed/login", { method: "POST", headers: auth, credentials: "include" })
    .then((r) => {
      if (r.status === 401) throw new Error("The token in this panel's address is not this server's token.");
      if (!r.ok) throw new Error("plandash answered " + r.status + ".");
      return fetch(here, { credentials: "include" });
    })
    .then((r) => r.text())
    .then((html) => {
      if (html.indexOf('data-testid="embed-boot"') < 0) { location.reload(); return; }
      // The cookie did not stick (third-party cookies blocked): carry the token ourselves.
      try { sessionStorage.setItem("plandash.token", token); } catch { /* private mode */ }
      window.__plandashToken = token;
      return fetch(here, { headers: auth }).then((r) => r.text()).then((page) => {
        document.open();
        document.write(page);
        document.close();
      });
    })
    .catch((e) => fail(e.message));
}
