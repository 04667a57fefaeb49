// plandash embed boot: the token arrives in the URL fragment (#token=…), which browsers never
// send to a server. Trade it for a cookie; where the browser keeps no third-party cookies, keep
// it for this tab and send it as a header instead.
(function () {
  "use strict";
  var m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  var box = document.getElementById("boot");
  function fail(text) {
    if (!box) return;
    box.querySelector("h2").textContent = "Not connected";
    box.querySelector("p").textContent = text;
  }
  if (!m) {
    fail("This panel needs plandash's token in its address. Get a ready address with `plandash url --embed`.");
    return;
  }
  var token = decodeURIComponent(m[1]);
  var here = location.pathname + location.search;
  history.replaceState(null, "", here);
  var auth = { Authorization: "Bearer " + token };
  fetch("/api/v1/embed/login", { method: "POST", headers: auth, credentials: "include" })
    .then(function (r) {
      if (r.status === 401) throw new Error("The token in this panel's address is not this server's token.");
      if (!r.ok) throw new Error("plandash answered " + r.status + ".");
      return fetch(here, { credentials: "include" });
    })
    .then(function (r) { return r.text(); })
    .then(function (html) {
      if (html.indexOf('data-testid="embed-boot"') < 0) { location.reload(); return; }
      // The cookie did not stick (third-party cookies blocked): carry the token ourselves.
      try { sessionStorage.setItem("plandash.token", token); } catch (e) { /* private mode */ }
      window.__plandashToken = token;
      return fetch(here, { headers: auth }).then(function (r) { return r.text(); }).then(function (page) {
        document.open();
        document.write(page);
        document.close();
      });
    })
    .catch(function (e) { fail(e.message); });
})();
