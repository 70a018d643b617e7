/* Accessible names that match what a sighted reader sees (WCAG 2.5.3, "label in name";
   axe's label-content-name-mismatch): the theme's search field says "Search Ctrl+K" but
   is named "Search", and myst-nb's fold buttons say "Show code cell source" but are
   named "Toggle hidden content". Their aria-label is dropped, so the visible text names
   them. The colour-mode button is named "Color mode"; its icons' titles (Light, Dark,
   System Settings) are not its text. */
(function () {
  "use strict";
  function nameByVisibleText() {
    document.querySelectorAll(".search-button-field[aria-label], details.hide > summary[aria-label]")
      .forEach(function (el) { if (el.textContent.trim()) el.removeAttribute("aria-label"); });
    document.querySelectorAll(".theme-switch-button i[title]").forEach(function (icon) {
      icon.removeAttribute("title");
      icon.setAttribute("aria-hidden", "true");
    });
  }
  // A results table wider than its box scrolls sideways; a keyboard reader reaches the
  // scroll box by Tab (a region named by the table's caption) and scrolls it by arrows.
  function scrollBoxesByKeyboard() {
    document.querySelectorAll(".mmir-table, .mmir-widget-frame").forEach(function (box) {
      if (box.scrollWidth > box.clientWidth + 1 && !box.hasAttribute("tabindex")) {
        var caption = box.querySelector("caption, figcaption");
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", caption ? caption.textContent.trim() : "scrollable table");
      }
    });
  }
  window.addEventListener("load", scrollBoxesByKeyboard);
  // Once the page is parsed, and again when everything has loaded: the theme's own
  // scripts may set the icons' titles after this one ran (a race seen in one test run).
  document.addEventListener("DOMContentLoaded", nameByVisibleText);
  window.addEventListener("load", nameByVisibleText);
})();
