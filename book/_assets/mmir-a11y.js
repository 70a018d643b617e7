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
    // FontAwesome's script replaces each <i title> by an <svg> holding a <title>, at a
    // time of its own choosing: strip the names from whichever form is there.
    document.querySelectorAll(".theme-switch-button i[title], .theme-switch-button svg")
      .forEach(function (icon) {
        icon.removeAttribute("title");
        icon.removeAttribute("aria-labelledby");
        icon.setAttribute("aria-hidden", "true");
        icon.querySelectorAll("title").forEach(function (t) { t.remove(); });
      });
  }
  // ... and again whenever the button's icons change (FontAwesome, the theme's mode switch).
  function watchColourModeButton() {
    document.querySelectorAll(".theme-switch-button").forEach(function (button) {
      // (its own removals call it once more, which then finds nothing left to change)
      new MutationObserver(nameByVisibleText)
        .observe(button, {childList: true, subtree: true, attributes: true, attributeFilter: ["title"]});
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
  document.addEventListener("DOMContentLoaded", watchColourModeButton);
  window.addEventListener("load", nameByVisibleText);
})();
