/* Search ranking (Sphinx's html_search_scorer): the chapters come before the back
   matter (the performance page, notation), which mentions every topic in passing:
   a reader looking for "bm25" or "sigma" wants the chapter that teaches it. */
var Scorer = {
  score: function (result) {
    var docname = result[0], score = result[4];
    return docname.indexOf("notebooks/") === 0 ? score + 1000 : score;
  },
  objNameMatch: 11, objPartialMatch: 6, objPrio: {0: 15, 1: 5, 2: -5}, objPrioDefault: 0,
  title: 15, partialTitle: 7, term: 5, partialTerm: 2
};
