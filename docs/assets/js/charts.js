// Render every chart placeholder with the bundled vega-embed; keep the SVG on failure.
// ast: Vega interprets its expressions (the page policy allows no eval, so no compiling with Function).
// Vega, Vega-Lite and vega-embed (about 0.8 MB) are loaded only by a page that has a chart:
// most pages have none, and parsing them cost every page about half a second.
(function () {
  var VENDOR = ["vega.min.js", "vega-lite.min.js", "vega-embed.min.js"];
  // the vendored libraries sit beside this script's folder: resolve them from its own URL, read
  // through Document.prototype (a page's <img name="currentScript"> hides document.currentScript)
  var me = Object.getOwnPropertyDescriptor(Document.prototype, "currentScript").get.call(document);
  if (!(me instanceof HTMLScriptElement)) return;
  var here = me.src;

  function render(div) {
    var specNode = document.getElementById("spec-" + div.dataset.chart);
    // a spec is the JSON of a data <script>, never another element's text; its usermeta could
    // set vega-embed's options (actions, loader), so it is dropped
    if (!(specNode instanceof HTMLScriptElement) || specNode.type !== "application/json" ||
        typeof vegaEmbed !== "function") return;
    var fallback = div.innerHTML;
    var spec = JSON.parse(specNode.textContent);
    delete spec.usermeta;
    div.innerHTML = "";
    vegaEmbed(div, spec, { renderer: "svg", actions: false, ast: true })
      .then(function () { div.dataset.rendered = "1"; })
      .catch(function (err) {
        div.innerHTML = fallback;
        console.warn("chart " + div.dataset.chart + " fell back to static SVG: " + err);
      });
  }

  // One after the other: vega-lite needs vega, vega-embed needs both.
  function load(i, done) {
    if (i === VENDOR.length) return done();
    var script = document.createElement("script");
    script.src = new URL("../vendor/" + VENDOR[i], here).href;
    script.onload = function () { load(i + 1, done); };
    script.onerror = function () {
      console.warn("chart library " + VENDOR[i] + " did not load; the static SVG charts stay");
    };
    document.head.appendChild(script);
  }

  function renderAll() {
    var charts = document.querySelectorAll("div.vchart");
    if (!charts.length) return;
    load(0, function () { charts.forEach(render); });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", renderAll);
  } else {
    renderAll();
  }
})();
