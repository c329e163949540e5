// The book's own JavaScript (registered by scripts/site_assets.py): accessibility fixes for what the widget bundle and the
// theme render. Widgets render after this file runs, so a MutationObserver applies the fixes whenever they
// appear or change.
(function () {
  "use strict";
  let labelCount = 0;

  // ipywidgets 8 draws a slider's handle (role="slider") with no accessible name: its description label is
  // not tied to it. Name it by its label, and let it announce what the readout shows ("batch 1", "16")
  // rather than noUiSlider's number (for a SelectionSlider, an index).
  function fixSlider(slider) {
    const handle = slider.querySelector('[role="slider"]');
    if (!handle) return;
    const label = slider.querySelector(":scope > .widget-label");
    const labelText = label ? label.textContent.trim() : "";
    // A slider without a description stays nameless, so that axe and tests/site_audit.py report it.
    if (labelText) {
      if (!label.id) label.id = "ppt-slider-label-" + ++labelCount;
      if (handle.getAttribute("aria-labelledby") !== label.id) handle.setAttribute("aria-labelledby", label.id);
    }
    // ipywidgets keeps the readout's text up to date even when readout=False hides it.
    const readout = slider.querySelector(":scope > .widget-readout");
    if (readout) {
      const text = readout.textContent.trim();
      if (text && handle.getAttribute("aria-valuetext") !== text) handle.setAttribute("aria-valuetext", text);
    }
  }

  // myst-nb's fold toggles (<summary aria-label="Toggle hidden content">Show code cell source</summary>) and
  // the theme's search button (aria-label "Search", text "Search Ctrl+K") have names that differ from their
  // visible text (WCAG 2.5.3): let the visible text be the name. The colour mode button ("Color mode") shows
  // an icon titled "Light", "Dark" or "System Settings", text that axe counts as the button's own: the icons
  // are decoration beside the button's name, so hide them and drop their titles.
  function fixNames() {
    for (const element of document.querySelectorAll(
      "details.hide > summary[aria-label], button.search-button-field[aria-label]"
    )) {
      element.removeAttribute("aria-label");
    }
    for (const icon of document.querySelectorAll(".theme-switch-button svg:not([aria-hidden])")) {
      icon.setAttribute("aria-hidden", "true");
      icon.removeAttribute("aria-labelledby");
      for (const title of icon.querySelectorAll("title")) title.remove();
    }
  }

  function fixAll() {
    fixNames();
    for (const slider of document.querySelectorAll(".widget-slider")) fixSlider(slider);
  }

  let scheduled = false;
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      fixAll();
    });
  }

  function start() {
    fixAll();
    new MutationObserver(schedule).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: ["aria-valuenow", "aria-valuetext", "style"],
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
