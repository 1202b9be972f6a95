// Search that works where a lab reads the site: opened from the file system (file://), where the
// theme's search cannot start its worker. The index is the search plugin's own
// (search/search_index.json), written beside it as a script by docs/hooks/generated.py
// (search/search_index.js, which sets window.tablecertSearch): a script element loads from file://,
// a fetch does not. Served over http the theme's own search is used and this does nothing.
(function () {
  "use strict";
  var here = document.currentScript && document.currentScript.src;
  if (!here || location.protocol !== "file:") { return; }
  var base = here.replace(/assets\/offline-search\.js.*$/, "");
  function strip(html) { var d = document.createElement("div"); d.innerHTML = html; return d.textContent || ""; }
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) { e.className = cls; } if (text !== undefined) { e.textContent = text; } return e; }
  var docs = null;
  function index() {
    if (docs === null) {
      var all = (window.tablecertSearch || {}).docs || [], pages = {};
      all.forEach(function (d) { if (d.location.indexOf("#") < 0) { pages[d.location] = strip(d.title || ""); } });
      docs = all.map(function (d) {
        var text = strip(d.text || ""), title = strip(d.title || ""), page = pages[d.location.split("#")[0]] || "";
        var shown = page && page !== title ? page + " \u203a " + title : title;
        return { location: d.location, title: shown, text: text, hay: (shown + " " + text).toLowerCase() };
      });
    }
    return docs;
  }
  function search(query) {
    var words = query.toLowerCase().split(/\s+/).filter(Boolean), found = [];
    if (!words.length) { return found; }
    index().forEach(function (d) {
      if (!words.every(function (w) { return d.hay.indexOf(w) >= 0; })) { return; }
      var score = 0;
      words.forEach(function (w) { if (d.title.toLowerCase().indexOf(w) >= 0) { score += 10; } score += Math.min(5, d.hay.split(w).length - 1); });
      found.push({ doc: d, score: score });
    });
    found.sort(function (a, b) { return b.score - a.score || a.doc.location.localeCompare(b.doc.location); });
    return found.slice(0, 20);
  }
  function snippet(text, word) {
    var at = Math.max(0, text.toLowerCase().indexOf(word) - 60);
    return (at > 0 ? "\u2026" : "") + text.slice(at, at + 180) + (text.length > at + 180 ? "\u2026" : "");
  }
  function start() {
    var header = document.querySelector(".md-header__inner") || document.body;
    var box = el("div", "tc-search"), input = el("input"), results = el("ol", "tc-search-results");
    input.type = "search"; input.id = "tc-search"; input.placeholder = "Search"; input.setAttribute("aria-label", "Search");
    results.id = "tc-search-results";
    box.appendChild(input); box.appendChild(results); header.appendChild(box);
    var timer = null;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var q = input.value.trim(), hits = search(q);
        results.replaceChildren();
        if (!q) { return; }
        if (!hits.length) { results.appendChild(el("li", "tc-none", "no page matches")); return; }
        hits.forEach(function (h) {
          var li = el("li"), a = el("a", undefined, h.doc.title || h.doc.location);
          a.href = base + h.doc.location;
          li.appendChild(a);
          li.appendChild(el("div", "tc-snippet", snippet(h.doc.text, q.toLowerCase().split(/\s+/)[0])));
          results.appendChild(li);
        });
      }, 120);
    });
    input.addEventListener("keydown", function (e) { if (e.key === "Escape") { input.value = ""; results.replaceChildren(); } });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
