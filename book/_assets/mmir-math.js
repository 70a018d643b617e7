/* Inline math wider than its column (a long formula in a margin note, or on a phone)
   would be cut off: MathJax 3 does not break lines. Each inline formula that does not
   fit is marked `mmir-wide-math` (book/_assets/mmir.css): it then scrolls sideways
   inside the column, and it is a tab stop, so that a keyboard reader can scroll it too.
   Narrow formulas are left alone (a scroll box would move them off the text's baseline).
   Checked again when the window is resized. */
(function () {
  "use strict";
  function markWideMath() {
    document.querySelectorAll('mjx-container[jax="CHTML"]:not([display="true"])').forEach(function (math) {
      math.classList.remove("mmir-wide-math");
      var block = math.parentElement && math.parentElement.closest("p, li, dd, td, th, div, aside, figcaption");
      if (!block) return;
      var room = block.getBoundingClientRect().right;
      var wide = math.getBoundingClientRect().right > room + 1 || math.scrollWidth > block.clientWidth + 1;
      if (wide) {
        math.classList.add("mmir-wide-math");
        math.setAttribute("tabindex", "0");
      } else if (math.getAttribute("tabindex") === "0") {
        math.removeAttribute("tabindex");
      }
    });
  }
  var pending = null;
  function later() { clearTimeout(pending); pending = setTimeout(markWideMath, 100); }
  function whenTypeset() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(markWideMath);
    } else {
      markWideMath();
    }
  }
  window.addEventListener("load", whenTypeset);
  window.addEventListener("resize", later);
})();
