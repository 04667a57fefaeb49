// A list of listeners, called in the order they were added. One listener that throws is
// reported (the page's console shows it) and does not keep the others from hearing the news.
export function hooks() {
  const fns = [];
  return {
    add(fn) { fns.push(fn); },
    emit(...args) {
      for (const fn of fns) {
        try { fn(...args); } catch (e) { reportError(e); }
      }
    },
  };
}
