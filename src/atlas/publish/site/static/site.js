/* Execution Atlas: switch the pre-rendered views of an atlas page; keep the choice in the URL.
   Every view is already in the page (and on a static page of its own), so the page reads fine
   without this script: it only shows the chosen view, highlights its path in the drawing and
   writes the choice to the URL fragment (#mode=...&device=...), one history entry per choice,
   so that Back undoes it. A value the page does not know is reported, never silently replaced.
   Links within the page keep the choice in the URL too (#mode=...&at=<id of the target>).
   What only the other views show is not in the page: each part of it has left a hidden, empty
   shell (data-deferred="<key>"), and the parts are in views.js beside the page (the data node
   names it in data-src), loaded when another view is first asked for (or the form is
   approached); each part takes the place of its shell before that view is shown. */
(function () {
  "use strict";
  var form = document.getElementById("selector");
  var dataNode = document.getElementById("atlas-data");
  if (!form || !dataNode) { return; }
  var data = JSON.parse(dataNode.textContent);
  var summary = document.getElementById("summary");
  var notice = document.getElementById("notice");
  var svg = document.querySelector("svg.drawing");
  var desc = svg ? svg.querySelector("desc") : null;
  var marked = [];  // each box and arrow of the drawing, and what its link names (step-<id>)
  if (svg) {
    svg.querySelectorAll("g.stage > a, g.step > a").forEach(function (link) {
      marked.push([link.parentNode, (link.getAttribute("href") || "").split("#").pop()]);
    });
  }
  var baseTitle = document.title;
  var current = null;
  var lastTarget = null;
  var waiting = null;  // what to do once views.js has come (null: not asked for yet)

  /* Put what views.js brought in the place of the shells; true when no shell is left. */
  function fill() {
    var parts = window.atlasDeferred || {};
    document.querySelectorAll("[data-deferred]").forEach(function (shell) {
      var key = shell.getAttribute("data-deferred");
      if (Object.prototype.hasOwnProperty.call(parts, key)) { shell.outerHTML = parts[key]; }
    });
    return !document.querySelector("[data-deferred]");
  }

  /* Run ``then`` once the page holds what ``view`` shows (at once for the opening view). */
  function ensure(view, then) {
    var source = dataNode.getAttribute("data-src");
    if (!source || (view && view.slug === data["default"]) || !document.querySelector("[data-deferred]")) {
      then(); return;
    }
    if (waiting) { waiting.push(then); return; }
    waiting = [then];
    var script = document.createElement("script");
    script.src = source;
    script.onload = script.onerror = function () {
      var complete = fill();
      var queue = waiting;
      waiting = complete ? [] : null;  // a failed load may be tried again by the next choice
      queue.forEach(function (each) { each(); });
      if (!complete) {
        tell(["Part of this view could not be loaded (" + source + "); its static page has all of it: " +
          "follow the list of combinations with JavaScript off, or reload."]);
      }
    };
    document.head.appendChild(script);
  }
  function prefetch() { ensure(null, function () {}); }

  function fold(text) { return text.trim().replace(/\s+/g, " ").toLowerCase(); }  // atlas fold

  function viewBySlug(slug) {
    return data.views.filter(function (view) { return view.slug === slug; })[0] || data.views[0];
  }

  /* What the URL fragment asks for: the values it names (by any of their names), the ones it
     names but the page does not know, and the element to show (at=<id>, or a plain #id). */
  function fromFragment() {
    var hash = window.location.hash.replace(/^#/, "");
    var asked = { values: {}, named: false, unknown: [], at: null };
    if (hash.indexOf("=") === -1) {
      asked.at = hash ? decodeURIComponent(hash) : null;
      return asked;
    }
    var params = new URLSearchParams(hash);
    asked.at = params.get("at");
    data.dimensions.forEach(function (dim) {
      var given = params.get(dim.key);
      if (given === null) { return; }
      asked.named = true;
      var found = dim.values.filter(function (value) {
        return value.keys.indexOf(fold(given)) !== -1;
      })[0];
      if (found) { asked.values[dim.key] = found.name; } else { asked.unknown.push([dim, given]); }
    });
    return asked;
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

  /* A view's summary without its counts, e.g. "torch.compile on an NVIDIA GPU". */
  function titleOf(view) { return view.summary.replace(/:[^:]*$/, ""); }

  /* The drawing's description of a view. */
  function describe(view) {
    return data.describe ? data.describe.split("{summary}").join(view.summary) : view.description;
  }

  function fragmentOf(view) {
    var params = new URLSearchParams();
    data.dimensions.forEach(function (dim) { params.append(dim.key, view.values[dim.key]); });
    return params.toString();
  }

  function label(dim, name) {
    var found = dim.values.filter(function (value) { return value.name === name; })[0];
    return found ? found.label : name;
  }

  function tell(sentences) {
    if (!notice) { return; }
    notice.textContent = sentences.join(" ");
    notice.hidden = sentences.length === 0;
  }

  /* Show a view; ``how``: "push" adds a history entry for it, anything else leaves the URL. */
  function show(view, how) {
    current = view;
    data.dimensions.forEach(function (dim) {
      form.querySelectorAll("input[name=\"" + CSS.escape(dim.key) + "\"]").forEach(function (input) {
        input.checked = input.value === view.values[dim.key];
      });
    });
    var list = document.getElementById("journey");
    if (list) {
      var items = {};
      Array.prototype.forEach.call(list.children, function (item) {
        items[item.id] = item;  // step-<id>
        item.hidden = true;
      });
      view.steps.forEach(function (index) {
        var item = items["step-" + data.stepIds[index]];
        if (item) { item.hidden = false; list.appendChild(item); }
      });
    }
    document.querySelectorAll("[data-views]").forEach(function (element) {
      element.hidden = element.getAttribute("data-views").split(" ").indexOf(view.slug) === -1;
    });
    var on = {};  // the view's stages and steps
    view.stages.forEach(function (index) { on["stage-" + data.stageIds[index]] = true; });
    view.steps.forEach(function (index) { on["step-" + data.stepIds[index]] = true; });
    marked.forEach(function (each) { each[0].classList.toggle("is-on", on[each[1]] === true); });
    if (summary) { summary.textContent = "Showing " + view.summary + "."; }
    if (desc) { desc.textContent = describe(view); }
    document.title = titleOf(view) + " \u2014 " + baseTitle;
    document.dispatchEvent(new CustomEvent("atlas:view", { detail: view }));  // the drawings' part
    var fragment = "#" + fragmentOf(view);
    if (how === "push" && window.location.hash !== fragment) {
      window.history.pushState(null, "", fragment);
    }
  }

  /* Bring an element into view: open the <details> around it, scroll to it, focus it. */
  function reveal(target) {
    for (var up = target.parentElement; up; up = up.parentElement) {
      if (up.tagName === "DETAILS") { up.open = true; }
    }
    if (lastTarget) { lastTarget.classList.remove("is-target"); }
    target.classList.add("is-target");
    lastTarget = target;
    if (!target.hasAttribute("tabindex") && !/^(A|BUTTON|INPUT|SUMMARY)$/.test(target.tagName)) {
      target.setAttribute("tabindex", "-1");
    }
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  }

  /* Show what the URL asks for; tell what it asks for that cannot be shown. */
  function restore() {
    var asked = fromFragment();
    var problems = [];
    if (!asked.named && !asked.unknown.length && asked.at !== null && current) {
      tell([]);
    } else {
      var values = {};
      var fallback = viewBySlug(data["default"]).values;
      data.dimensions.forEach(function (dim) {
        values[dim.key] = dim.key in asked.values ? asked.values[dim.key] : fallback[dim.key];
      });
      var view = viewOf(values);
      asked.unknown.forEach(function (item) {
        var dim = item[0];
        problems.push("The address asks for " + dim.label + " \u201c" + item[1] + "\u201d, which" +
          " this page does not know (the choices: " +
          dim.values.map(function (value) { return value.label; }).join(", ") + ").");
      });
      var unmet = data.dimensions.filter(function (dim) {
        return dim.key in asked.values && view.values[dim.key] !== asked.values[dim.key];
      });
      if (unmet.length) {
        problems.push("No path has " + unmet.map(function (dim) {
          return dim.label + " \u201c" + label(dim, asked.values[dim.key]) + "\u201d";
        }).join(" and ") + " with the other choices.");
      }
      if (problems.length) { problems.push("Shown instead: " + titleOf(view) + "."); }
      ensure(view, function () {
        show(view, null);
        tell(problems);
        revealAsked(asked);
      });
      return;
    }
    revealAsked(asked);
  }

  function revealAsked(asked) {
    var target = asked.at ? document.getElementById(asked.at) : null;
    if (target) { reveal(target); }
  }

  /* A link to an element of this page keeps the choice in the URL, as #<choice>&at=<id>. */
  function follow(event) {
    var link = event.target.closest ? event.target.closest("a[href^='#']") : null;
    if (!link || event.defaultPrevented || event.button !== 0 ||
        event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) { return; }
    var id = decodeURIComponent(link.getAttribute("href").slice(1));
    var target = id && id.indexOf("=") === -1 ? document.getElementById(id) : null;
    if (!target || !current) { return; }
    event.preventDefault();
    window.history.pushState(null, "", "#" + fragmentOf(current) + "&at=" + encodeURIComponent(id));
    reveal(target);
  }

  form.hidden = false;
  form.addEventListener("change", function () {
    tell([]);
    var view = viewOf(fromForm());
    ensure(view, function () { show(view, "push"); });
  });
  form.addEventListener("focusin", prefetch);
  form.addEventListener("pointerover", prefetch);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  window.addEventListener("popstate", restore);
  window.addEventListener("hashchange", restore);
  document.addEventListener("click", follow);
  restore();
}());

/* The drawings, on every page that has one: a step and its arrow light up together when either
   is hovered or focused; an arrow of the selected path leads to its step in the list; the
   numbers on the arrows follow the chosen path; a whole drawing that pans (a narrow screen,
   the full graph) zooms with buttons and opens on the selected path. */
(function () {
  "use strict";
  var NAMED = /#(step|stage)-([^#]+)$/;  // a box's or an arrow's link names its stage or step
  var figure = document.getElementById("drawing");
  var frame = figure ? figure.querySelector(".drawing-scroll") : null;
  var svg = frame ? frame.querySelector("svg.drawing") : null;
  var hot = [];

  /* What an element of a drawing or of the list of steps stands for: [kind, id] (kind: "stage"
     or "step"), or null. An item of the list has the id step-<id>; a box or an arrow is named
     by its link. */
  function itemOf(element) {
    var found = element && element.closest ? element.closest("#journey > li, svg a") : null;
    if (!found) { return null; }
    var name = found.tagName === "LI" ? "#" + found.id : found.getAttribute("href") || "";
    var named = NAMED.exec(name);
    return named ? [named[1], named[2]] : null;
  }

  /* Light up a stage or step everywhere it is shown: its boxes or arrows, its item in the list. */
  function light(element) {
    hot.forEach(function (item) { item.classList.remove("is-hot"); });
    hot = [];
    var item = itemOf(element);
    if (!item) { return; }
    var ending = CSS.escape("#" + item[0] + "-" + item[1]);
    var links = document.querySelectorAll("svg a[href$=\"" + ending + "\"]");
    hot = Array.prototype.map.call(links, function (link) { return link.parentNode; });
    var entry = document.getElementById("step-" + item[1]);
    if (item[0] === "step" && entry && entry.closest("#journey")) { hot.push(entry); }
    hot.forEach(function (each) { each.classList.add("is-hot"); });
  }

  ["mouseover", "focusin"].forEach(function (type) {
    document.addEventListener(type, function (event) { light(event.target); });
  });
  ["mouseout", "focusout"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      if (!event.relatedTarget || !hot.some(function (item) { return item.contains(event.relatedTarget); })) {
        light(null);
      }
    });
  });

  /* An arrow leads to its step in the list while the step is shown there, else to its entry
     on the page of every step (which the drawing names in data-steps). */
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("svg.drawing[data-steps] a") : null;
    var item = itemOf(link);
    if (!item || item[0] !== "step") { return; }
    var entry = document.getElementById("step-" + item[1]);
    var inList = entry && entry.closest("#journey") && !entry.hidden;
    var page = link.closest("svg").getAttribute("data-steps");
    link.setAttribute("href", inList ? "#" + entry.id : page + "#step-" + item[1]);
  }, true);

  /* Number the arrows of the whole drawing as the steps shown in the list. */
  function renumber() {
    var numbers = {};
    document.querySelectorAll("#journey > li:not([hidden])").forEach(function (item, i) {
      numbers[item.id] = String(i + 1);  // step-<id>
    });
    if (!svg) { return; }
    svg.querySelectorAll("g.step > a").forEach(function (link) {
      var text = link.querySelector(".num text");
      var item = itemOf(link);
      if (text && item) { text.textContent = numbers["step-" + item[1]] || ""; }
    });
  }
  document.addEventListener("atlas:view", function () { light(null); renumber(); });
  renumber();

  if (!frame || !svg) { return; }
  var natural = parseFloat(frame.style.getPropertyValue("--natural")) || svg.viewBox.baseVal.width;
  var zoom = 1;

  /* On a narrow screen a whole drawing opens a little larger than its natural size, so that
     its smallest text (10 px) is 12 px; on a wide one, at its natural size or up to a quarter
     larger where there is room. */
  function opening() {
    if (window.matchMedia("(max-width: 47.99rem)").matches) { return 1.2; }
    return Math.min(1.25, Math.max(1, frame.clientWidth / natural));
  }

  function setZoom(value) {
    var before = frame.scrollWidth;
    var middleX = frame.scrollLeft + frame.clientWidth / 2;
    var middleY = frame.scrollTop + frame.clientHeight / 2;
    zoom = Math.min(4, Math.max(0.1, value));
    frame.style.setProperty("--zoom", String(zoom));
    var ratio = before ? frame.scrollWidth / before : 1;
    frame.scrollLeft = middleX * ratio - frame.clientWidth / 2;
    frame.scrollTop = middleY * ratio - frame.clientHeight / 2;
  }

  /* Scroll the frame so that the selected path (else the first stage) is in the middle. */
  function centre() {
    var shapes = svg.querySelectorAll("g.is-on");
    if (!shapes.length) { shapes = svg.querySelectorAll("g.stage, g.technology"); }
    if (!shapes.length || frame.scrollWidth <= frame.clientWidth) { return; }
    if (!svg.querySelector("g.is-on")) { shapes = [shapes[0]]; }
    var box = null;
    shapes.forEach(function (shape) {
      var r = shape.getBoundingClientRect();
      box = box ? { left: Math.min(box.left, r.left), right: Math.max(box.right, r.right),
        top: Math.min(box.top, r.top), bottom: Math.max(box.bottom, r.bottom) } : r;
    });
    var view = frame.getBoundingClientRect();
    frame.scrollLeft += (box.left + box.right) / 2 - (view.left + view.right) / 2;
    frame.scrollTop += Math.max(0, box.top - view.top - 8);
  }

  var controls = figure.querySelector(".zoom");
  if (controls) {
    controls.hidden = false;
    controls.addEventListener("click", function (event) {
      var button = event.target.closest("button[data-zoom]");
      if (!button) { return; }
      var how = button.getAttribute("data-zoom");
      setZoom(how === "in" ? zoom * 1.25 : how === "out" ? zoom / 1.25 : frame.clientWidth / natural);
    });
  }
  var opener = document.querySelector(".show-whole");
  if (opener) {
    opener.hidden = false;
    opener.addEventListener("click", function () {
      var open = !figure.classList.contains("is-open");
      figure.classList.toggle("is-open", open);
      opener.setAttribute("aria-expanded", String(open));
      opener.textContent = open ? "Hide the whole atlas" : "Show the whole atlas";
      if (open) {
        setZoom(opening());
        figure.scrollIntoView({ block: "start" });
        centre();
      }
    });
  }
  if (figure.classList.contains("pan")) { setZoom(opening()); }
  centre();
}());
