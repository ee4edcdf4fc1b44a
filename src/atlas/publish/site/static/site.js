/* Execution Atlas: switch the pre-rendered views of an atlas page; keep the choice in the URL.
   Every view is already in the page (and on a static page of its own), so the page reads fine
   without this script: it only shows the chosen view, highlights its path in the drawing and
   writes the choice to the URL fragment (#mode=...&device=...). */
(function () {
  "use strict";
  var form = document.getElementById("selector");
  var dataNode = document.getElementById("atlas-data");
  if (!form || !dataNode) { return; }
  var data = JSON.parse(dataNode.textContent);
  var summary = document.getElementById("summary");
  var svg = document.querySelector("svg.drawing");
  var desc = svg ? svg.querySelector("desc") : null;
  var marked = svg ? svg.querySelectorAll("g.stage, g.step") : [];
  var baseTitle = document.title;

  /* The values named by the URL fragment, or null when it names no dimension. */
  function fromFragment() {
    var params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
    var values = {};
    var named = false;
    data.dimensions.forEach(function (dim) {
      var given = params.get(dim.key);
      if (given === null) { return; }
      named = true;
      var wanted = given.trim().replace(/\s+/g, " ").toLowerCase();  // as atlas.query.fold
      dim.values.forEach(function (value) {
        if (value.keys.indexOf(wanted) !== -1) { values[dim.key] = value.name; }
      });
    });
    return named ? values : null;
  }

  function fromForm() {
    var values = {};
    data.dimensions.forEach(function (dim) {
      var checked = form.querySelector("input[name=\"" + CSS.escape(dim.key) + "\"]:checked");
      values[dim.key] = checked ? checked.value : dim.values[0].name;
    });
    return values;
  }

  /* The view of these values; where there is none (graph breaks in eager mode), the view that
     matches the most of them, the first choices weighing most. */
  function viewOf(values) {
    var found = null;
    var best = -1;
    data.views.forEach(function (view) {
      var score = 0;
      data.dimensions.forEach(function (dim) {
        score = score * 2 + (view.values[dim.key] === values[dim.key] ? 1 : 0);
      });
      if (score > best) { best = score; found = view; }
    });
    return found || data.views[0];
  }

  function show(view, writeUrl) {
    data.dimensions.forEach(function (dim) {
      form.querySelectorAll("input[name=\"" + CSS.escape(dim.key) + "\"]").forEach(function (input) {
        input.checked = input.value === view.values[dim.key];
      });
    });
    var list = document.getElementById("journey");
    if (list) {
      var items = {};
      Array.prototype.forEach.call(list.children, function (item) {
        items[item.getAttribute("data-step")] = item;
        item.hidden = true;
      });
      view.steps.forEach(function (id) {
        if (items[id]) { items[id].hidden = false; list.appendChild(items[id]); }
      });
    }
    document.querySelectorAll("section.view").forEach(function (section) {
      section.hidden = section.getAttribute("data-views").split(" ").indexOf(view.slug) === -1;
    });
    var token = "on-" + view.slug;
    Array.prototype.forEach.call(marked, function (element) {
      element.classList.toggle("is-on", element.classList.contains(token));
    });
    if (summary) { summary.textContent = view.sentence; }
    if (desc) { desc.textContent = view.description; }
    document.title = view.title + " \u2014 " + baseTitle;
    if (writeUrl) {
      var params = new URLSearchParams();
      data.dimensions.forEach(function (dim) { params.append(dim.key, view.values[dim.key]); });
      window.history.replaceState(null, "", "#" + params.toString());
    }
  }

  function restore() {
    var values = fromFragment();
    if (values) {
      var current = fromForm();
      data.dimensions.forEach(function (dim) {
        if (!(dim.key in values)) { values[dim.key] = current[dim.key]; }
      });
      show(viewOf(values), false);
    }
  }

  /* On a narrow screen the drawing scrolls sideways: start with the entry stage in view. */
  function centreDrawing() {
    var box = svg ? svg.parentElement : null;
    var first = svg && data.entry ? svg.querySelector("#g-stage-" + CSS.escape(data.entry)) : null;
    if (!box || !first || box.scrollWidth <= box.clientWidth) { return; }
    var shape = first.getBoundingClientRect();
    var frame = box.getBoundingClientRect();
    box.scrollLeft += shape.left + shape.width / 2 - (frame.left + frame.width / 2);
  }

  form.hidden = false;
  form.addEventListener("change", function () { show(viewOf(fromForm()), true); });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  window.addEventListener("hashchange", restore);
  show(viewOf(fromForm()), false);
  restore();
  centreDrawing();
}());
