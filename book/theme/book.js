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

  // The 中文 / English button at the start of the page header's buttons. scripts/i18n_sphinx.py writes
  // <link rel="alternate" hreflang="..." data-ppt-language-switch="中文"> into every page: the same page in the
  // other edition. The button carries the reader's place along: the #section in the address, else the section
  // at the top of the window (both editions share the English section ids).
  function currentSection() {
    if (location.hash) return location.hash;
    let current = "";
    for (const section of document.querySelectorAll("article section[id]")) {
      if (section.getBoundingClientRect().top > window.innerHeight * 0.25) break;
      current = "#" + section.id;
    }
    return current;
  }

  function addLanguageSwitch() {
    const alternate = document.querySelector("link[rel='alternate'][data-ppt-language-switch]");
    const buttons = document.querySelector(".article-header-buttons");
    if (!alternate || !buttons || buttons.querySelector(".ppt-language-switch")) return;
    const link = document.createElement("a");
    link.className = "btn btn-sm ppt-language-switch";
    link.textContent = alternate.dataset.pptLanguageSwitch;
    link.lang = link.hreflang = alternate.hreflang;
    link.title = alternate.hreflang === "en" ? "Read this page in English" : "阅读本页的中文版";
    const target = new URL(alternate.getAttribute("href"), location.href);
    link.href = target.href;
    const follow = () => {
      target.hash = currentSection();
      link.href = target.href;
    };
    for (const event of ["pointerdown", "focus", "click"]) link.addEventListener(event, follow);
    buttons.prepend(link);
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
    addLanguageSwitch();
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
