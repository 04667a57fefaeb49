// The token a panel carries itself where its browser keeps no third-party cookies: the embed
// boot (boot.js) leaves it on window and in sessionStorage for this tab. Empty when the page
// signs in with its cookie, which is the usual case.
export function pageToken() {
  let token = window.__plandashToken;
  try { token = token || sessionStorage.getItem("plandash.token"); } catch { /* no storage */ }
  return token || "";
}

// authHeaders are the headers a request of this page adds to carry the token: none when the
// page signs in with its cookie.
export function authHeaders() {
  const token = pageToken();
  return token ? { Authorization: "Bearer " + token } : {};
}
