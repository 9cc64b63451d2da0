// Render every chart placeholder with the bundled vega-embed; keep the SVG on failure.
(function () {
  function render(div) {
    var specNode = document.getElementById("spec-" + div.dataset.chart);
    if (!specNode || typeof vegaEmbed !== "function") return;
    var fallback = div.innerHTML;
    var spec = JSON.parse(specNode.textContent);
    div.innerHTML = "";
    vegaEmbed(div, spec, { renderer: "svg", actions: false })
      .then(function () { div.dataset.rendered = "1"; })
      .catch(function (err) {
        div.innerHTML = fallback;
        console.warn("chart " + div.dataset.chart + " fell back to static SVG: " + err);
      });
  }
  function renderAll() {
    document.querySelectorAll("div.vchart").forEach(render);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", renderAll);
  } else {
    renderAll();
  }
})();
