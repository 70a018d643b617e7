/* Summaries for the search page's results, without fetching: from file:// a browser
   refuses to fetch the result pages, which is how Sphinx makes its summaries. The
   text of every page comes from mmir-search-text.js (written by book/_ext/offline_book.py);
   under each result this shows the text around the first word of the query found
   there, with the query's words highlighted, as Sphinx would. */
(function () {
  "use strict";
  var WIDTH = 240;
  var query = new URLSearchParams(window.location.search).get("q") || "";
  var words = query.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 1; });

  function find(lower) {  // [start, length] of the first query word (or its stem) in the text
    for (var i = 0; i < words.length; i++) {
      var forms = [words[i], words[i].slice(0, Math.max(4, words[i].length - 3))];
      for (var k = 0; k < forms.length; k++) {
        var at = lower.indexOf(forms[k]);
        if (at >= 0) return [at, forms[k].length];
      }
    }
    return [0, 0];
  }

  function summary(text) {
    var hit = find(text.toLowerCase());
    var start = Math.max(0, hit[0] - WIDTH / 2);
    var shown = (start > 0 ? "… " : "") + text.substr(start, WIDTH) + (start + WIDTH < text.length ? " …" : "");
    var p = document.createElement("p");
    p.className = "context";
    var lower = shown.toLowerCase(), pos = 0;
    while (pos < shown.length) {  // plain text, with the query's words in highlight spans
      var next = -1, length = 0;
      for (var i = 0; i < words.length; i++) {
        var at = lower.indexOf(words[i], pos);
        if (at >= 0 && (next < 0 || at < next)) { next = at; length = words[i].length; }
      }
      if (next < 0) { p.appendChild(document.createTextNode(shown.slice(pos))); break; }
      p.appendChild(document.createTextNode(shown.slice(pos, next)));
      var span = p.appendChild(document.createElement("span"));
      span.className = "highlighted";
      span.textContent = shown.substr(next, length);
      pos = next + length;
    }
    return p;
  }

  function annotate(item) {
    var link = item.querySelector("a");
    if (!link || item.querySelector("p.context") || item.querySelector("span")) return;
    var name = link.getAttribute("href").replace(/#.*$/, "").replace(/\.html$/, "");
    var text = (window.MMIR_PAGE_TEXT || {})[name];
    if (text) item.appendChild(summary(text));
  }

  new MutationObserver(function (changes) {
    changes.forEach(function (change) {
      change.addedNodes.forEach(function (node) {
        if (node.nodeName === "LI" && node.closest && node.closest("#search-results")) annotate(node);
      });
    });
  }).observe(document.documentElement, {childList: true, subtree: true});
})();
