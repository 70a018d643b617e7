/* Search ranking (Sphinx's html_search_scorer): the chapters come before the back
   matter (the performance page, notation), which mentions every topic in passing:
   a reader looking for "bm25" or "sigma" wants the chapter that teaches it. Among the
   chapters, one whose title names a word of the query comes first ("attention" finds
   V.6 Attention before V.5, which uses attention; "bm25" finds I.3 before I.2). */
var Scorer = {
  score: function (result) {
    var docname = result[0], title = (result[1] || "").toLowerCase(), score = result[4];
    if (docname.indexOf("notebooks/") !== 0) return score;
    var query = new URLSearchParams(window.location.search).get("q") || "";
    var named = query.toLowerCase().split(/\s+/).some(function (word) {
      return word.length > 1 && title.indexOf(word) !== -1;
    });
    return score + (named ? 2000 : 1000);
  },
  objNameMatch: 11, objPartialMatch: 6, objPrio: {0: 15, 1: 5, 2: -5}, objPrioDefault: 0,
  title: 15, partialTitle: 7, term: 5, partialTerm: 2
};
