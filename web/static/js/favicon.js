// Owns the favicon: while requests wait it shows their number on a red badge, drawn as an SVG
// data URL (the CSP allows data: images), and the plain icon again when none do.

// startFavicon follows pending (see pending.js).
export function startFavicon(pending) {
  const link = document.querySelector('link[rel="icon"]');
  if (!link) return;
  const plain = link.getAttribute("href");
  pending.subscribe((n) => {
    if (!n) {
      if (link.getAttribute("href") !== plain) link.setAttribute("href", plain);
      return;
    }
    link.setAttribute("href", "data:image/svg+xml," + encodeURIComponent(badge(n > 99 ? "99" : String(n))));
    link.dataset.count = String(n);
  });
}

function badge(label) {
  return '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">' +
    '<rect x="1" y="2" width="14" height="3" rx="1.5" fill="#3a5bd9"/><rect x="1" y="7" width="9" height="3" rx="1.5" fill="#3a5bd9"/>' +
    '<rect x="1" y="12" width="5" height="3" rx="1.5" fill="#3a5bd9"/><circle cx="11" cy="11" r="5" fill="#c93b3b"/>' +
    '<text x="11" y="13.6" font-size="' + (label.length > 1 ? 6 : 7.5) + '" text-anchor="middle" fill="#fff" ' +
    'font-family="system-ui,sans-serif" font-weight="700">' + label + "</text></svg>";
}
