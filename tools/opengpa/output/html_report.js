// SPDX-License-Identifier: MIT
// opengpa's HTML report (html.c embeds this file): the page calls begin()
// once, S() for each interval as opengpa writes it, end() at the end of the
// run; the charts are drawn when the page has loaded, from whatever
// intervals it holds (a report cut short still draws).
//
// A count (cycles, items, bytes, ms: series.count) is charted as its rate
// per second over each interval's own begin and end, the count itself in the
// hover readout; percentages and ratios as they are.  The counters are
// folded by group (the first groups open), each group's charts one per unit
// of at most MAX_SERIES lines (small multiples past that), each line its own
// colour; a line identical to another is drawn dashed over it and its legend
// says "same as X".  A search box filters by counter or group name; a
// legend entry toggles its line; dragging across a chart zooms every chart
// to that span, shift-drag (or the arrows) pans, a double click or Reset
// shows the whole run.  Late, overflowed and partial intervals are shaded;
// the workload's frames (every other one tinted, an edge at each mark) and
// its GPA samples are bands behind the lines, following zoom and pan.
// Only the open groups' charts are drawn, and a line holds at most two
// points per pixel column, so a whole GPU's counters stay quick.
"use strict";
var OG = { run: null, samples: [], end: null, frames: [], gpasamples: [] };
window.addEventListener("error", function (ev) {
  var root = document.documentElement;
  root.dataset.errors = (root.dataset.errors ? root.dataset.errors + "\n" : "") + ev.message;
});
function begin(run) { OG.run = run; }
function S(k, b, e, flags, values) { OG.samples.push({ k: k, b: b, e: e, f: flags, v: values }); }
function end(info) { OG.end = info; }
// A frame the workload marked (kind 0) or a GPA sample of its own (kind 1).
function F(kind, k, b, e) { (kind ? OG.gpasamples : OG.frames).push({ k: k, b: b, e: e }); }

var COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#17becf"];
var MAX_SERIES = COLORS.length, OPEN_GROUPS = 3, OPEN_ALL_BELOW = 40;
var FLAG_LATE = 4, FLAG_OVERFLOW = 2, FLAG_FINAL = 8, SVGNS = "http://www.w3.org/2000/svg";
var view = { t0: 0, t1: 1, all0: 0, all1: 1 }, charts = [], groups = [];

function el(name, attrs, parent) {
  var node = document.createElementNS(SVGNS, name);
  for (var a in attrs) node.setAttribute(a, attrs[a]);
  if (parent) parent.appendChild(node);
  return node;
}

function html(tag, cls, text, parent) {
  var node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// 1, 2 or 5 times a power of ten, about range / count.
function niceStep(range, count) {
  var raw = range / count, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  var norm = raw / mag;
  return (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
}

// Tick labels for an axis of this step and largest value: one suffix for
// the whole axis (k, M, G, T from 10 000 up) and as many decimals as the
// step needs.
function tickFormat(step, largest) {
  var div = 1, suffix = "";
  [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]].some(function (u) {
    if (largest >= 1e4 && largest >= u[0]) { div = u[0]; suffix = u[1]; return true; }
    return false;
  });
  var decimals = Math.min(6, Math.max(0, -Math.floor(Math.log10(step / div) + 1e-9)));
  return function (v) {
    var text = (v / div).toFixed(decimals);
    return (Number(text) === 0 ? "0" : text) + (Number(text) === 0 ? "" : suffix);
  };
}

function full(v, series) {
  if (v === null || v === undefined) return "not counted";
  if (series.integer) return Math.round(v).toLocaleString("en-US");
  return v.toLocaleString("en-US", { maximumFractionDigits: series.unit === "%" ? 2 : 3 });
}

function unitOf(series) { return series.unit || series.usage || "value"; }
function shownUnit(series) { return unitOf(series) + (series.count ? "/s" : ""); }

// What a chart shows of interval s's value of series i: a count per second.
function shown(s, i) {
  var v = s.v[i];
  if (v === null || v === undefined) return null;
  if (!OG.run.series[i].count) return v;
  return s.e > s.b ? v / (s.e - s.b) : null;
}

function rateText(v) {
  return v === null ? "not counted" :
    v.toLocaleString("en-US", { maximumFractionDigits: Math.abs(v) < 10 ? 3 : 0 });
}

// The first interval that ends after t (binary search).
function firstAfter(t) {
  var s = OG.samples, lo = 0, hi = s.length;
  while (lo < hi) { var mid = (lo + hi) >> 1; if (s[mid].e <= t) lo = mid + 1; else hi = mid; }
  return lo;
}

function sampleAt(t) {
  var k = firstAfter(t);
  return k < OG.samples.length && OG.samples[k].b <= t ? OG.samples[k] : null;
}

function setView(t0, t1) {
  var span = view.all1 - view.all0, min = span / 1e5;
  if (t1 - t0 < min) { var mid = (t0 + t1) / 2; t0 = mid - min / 2; t1 = mid + min / 2; }
  if (t1 - t0 > span) { t0 = view.all0; t1 = view.all1; }
  if (t0 < view.all0) { t1 += view.all0 - t0; t0 = view.all0; }
  if (t1 > view.all1) { t0 -= t1 - view.all1; t1 = view.all1; }
  view.t0 = t0; view.t1 = t1;
  charts.forEach(function (c) { if (c.drawn) drawChart(c); });
  var z = document.getElementById("og-span");
  if (z) z.textContent = t0.toFixed(3) + "\u2013" + t1.toFixed(3) + " s";
}

var W = 960, H = 220, L = 72, R = 14, T = 10, B = 30;

function xOf(t) { return L + (t - view.t0) / (view.t1 - view.t0) * (W - L - R); }
function tOf(x) { return view.t0 + (x - L) / (W - L - R) * (view.t1 - view.t0); }

// Series identical to an earlier one of the same chart: "same as X".
function markSame(members) {
  members.forEach(function (m, j) {
    for (var k = 0; k < j && !m.same; k++) {
      var o = members[k];
      if (OG.samples.every(function (s) { return s.v[m.i] === s.v[o.i]; })) m.same = o;
    }
  });
}

// The step line of one series over the view: each interval's value across
// its span; past a point per pixel, each pixel column's least and most.
function pathOf(m, y) {
  var k0 = Math.max(0, firstAfter(view.t0)), k1 = Math.min(OG.samples.length, firstAfter(view.t1) + 1);
  var d = "", open = false, px = W - L - R, dense = k1 - k0 > px;
  var col = -1, lo = 0, hi = 0, cx = 0;
  function flush() {
    if (col < 0) return;
    d += (open ? "L" : "M") + cx.toFixed(1) + " " + y(hi).toFixed(1) + "L" + cx.toFixed(1) +
         " " + y(lo).toFixed(1);
    open = true;
  }
  for (var k = k0; k < k1; k++) {
    var s = OG.samples[k], val = shown(s, m.i);
    if (val === null) { if (dense) { flush(); col = -1; } open = false; continue; }
    if (!dense) {
      d += (open ? "L" : "M") + xOf(s.b).toFixed(1) + " " + y(val).toFixed(1) +
           "L" + xOf(s.e).toFixed(1) + " " + y(val).toFixed(1);
      open = true;
      continue;
    }
    var c = Math.floor(xOf(s.b));
    if (c !== col) { flush(); col = c; cx = c; lo = hi = val; }
    else { if (val < lo) lo = val; if (val > hi) hi = val; }
  }
  if (dense) flush();
  return d;
}

// The spans of list (sorted by begin) that show in the view; past one per
// pixel column, one per column (a band of the first there).
function visibleSpans(list) {
  var out = [], lastCol = -1;
  var lo = 0, hi = list.length;
  while (lo < hi) { var mid = (lo + hi) >> 1; if (list[mid].e <= view.t0) lo = mid + 1; else hi = mid; }
  for (var i = lo; i < list.length && list[i].b < view.t1; i++) {
    var col = Math.floor(xOf(list[i].b));
    if (col === lastCol && list.length > W) continue;
    lastCol = col;
    out.push(list[i]);
  }
  return out;
}

// Frames and GPA samples behind the lines.
function bands(parent) {
  visibleSpans(OG.frames).forEach(function (f) {
    var x0 = xOf(f.b), x1 = xOf(f.e);
    if (f.k % 2)
      el("rect", { x: x0, y: T, width: Math.max(1, x1 - x0), height: H - T - B, class: "frame" }, parent);
    if (x1 - x0 > 3)
      el("line", { x1: x0, x2: x0, y1: T, y2: H - B, class: "frameedge" }, parent);
  });
  visibleSpans(OG.gpasamples).forEach(function (g) {
    el("rect", { x: xOf(g.b), y: T, width: Math.max(1, xOf(g.e) - xOf(g.b)), height: 8,
                 class: "gpasample" }, parent);
  });
}

// The frame or sample of list at t, or null.
function spanAt(list, t) {
  var lo = 0, hi = list.length;
  while (lo < hi) { var mid = (lo + hi) >> 1; if (list[mid].e <= t) lo = mid + 1; else hi = mid; }
  return lo < list.length && list[lo].b <= t ? list[lo] : null;
}

function drawChart(c) {
  c.drawn = true;
  var svg = c.svg;
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  var lo = 0, hi = 0, on = c.members.filter(function (m) { return !m.off; });
  var k0 = firstAfter(view.t0), k1 = Math.min(OG.samples.length, firstAfter(view.t1) + 1);
  on.forEach(function (m) {
    for (var k = k0; k < k1; k++) {
      var v = shown(OG.samples[k], m.i);
      if (v === null) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  });
  if (hi === lo) hi = lo + 1;
  var ystep = niceStep(hi - lo, 4);
  lo = Math.floor(lo / ystep) * ystep;
  hi = Math.ceil(hi / ystep) * ystep;
  var y = function (v) { return T + (hi - v) / (hi - lo) * (H - T - B); };
  // A nested <svg> clips what it holds to the plot area.
  var area = { x: L, y: 0, width: W - L - R, height: H - B,
               viewBox: L + " 0 " + (W - L - R) + " " + (H - B) };
  var shades = el("svg", area, svg);
  for (var k = k0; k < k1; k++) {
    var s = OG.samples[k];
    var kind = s.f & FLAG_OVERFLOW ? "overflow" : s.f & FLAG_LATE ? "late" :
               s.f & FLAG_FINAL ? "partial" : null;
    if (kind)
      el("rect", { x: xOf(s.b), y: T, width: Math.max(1, xOf(s.e) - xOf(s.b)),
                   height: H - T - B, class: kind }, shades);
  }
  bands(shades);
  var label = tickFormat(ystep, Math.max(Math.abs(lo), Math.abs(hi)));
  for (var v = lo; v <= hi + ystep / 2; v += ystep) {
    el("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }, svg);
    el("text", { x: L - 8, y: y(v) + 4, "text-anchor": "end" }, svg).textContent = label(v);
  }
  var xstep = niceStep(view.t1 - view.t0, 8), seconds = tickFormat(xstep, 0);
  for (var t = Math.ceil(view.t0 / xstep) * xstep; t <= view.t1 + xstep / 1e6; t += xstep) {
    el("line", { x1: xOf(t), x2: xOf(t), y1: H - B, y2: H - B + 5, class: "axis" }, svg);
    el("text", { x: xOf(t), y: H - B + 18, "text-anchor": "middle" }, svg).textContent =
      seconds(t) + " s";
  }
  el("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }, svg);
  el("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }, svg);
  el("text", { x: 14, y: T + (H - T - B) / 2, "text-anchor": "middle",
               transform: "rotate(-90 14 " + (T + (H - T - B) / 2) + ")" }, svg).textContent =
    c.unit;
  var lines = el("svg", area, svg);
  c.members.forEach(function (m) {
    var attrs = { d: pathOf(m, y), class: "series" + (m.off ? " off" : ""), stroke: m.color,
                  "data-counter": m.s.name };
    if (m.same) { attrs["stroke-dasharray"] = "6 5"; attrs["stroke-width"] = 3; }
    el("path", attrs, lines);
  });
  c.band = el("rect", { y: T, height: H - T - B, class: "band", visibility: "hidden" }, svg);
  c.cursor = el("line", { y1: T, y2: H - B, class: "cursor", visibility: "hidden" }, svg);
}

function svgX(svg, ev) {
  var m = svg.getScreenCTM();
  if (!m) return null;
  var p = svg.createSVGPoint();
  p.x = ev.clientX; p.y = ev.clientY;
  return p.matrixTransform(m.inverse()).x;
}

function makeChart(parent, title, unit, members) {
  var c = { id: charts.length, title: title, unit: unit, members: members, drawn: false };
  charts.push(c);
  markSame(members);
  var box = c.box = html("section", "chart", undefined, parent);
  var h = html("h3", "", title + " ", box);
  html("span", "unit", "(" + unit + ")", h);
  c.svg = el("svg", { viewBox: "0 0 " + W + " " + H, class: "plot", role: "img",
                      "aria-label": title + " over time" }, box);
  var legend = html("div", "legend", undefined, box);
  members.forEach(function (m) {
    var key = m.key = html("button", "key", undefined, legend);
    key.type = "button";
    key.title = "Show or hide " + m.s.name;
    key.dataset.counter = m.s.name;
    var sw = html("i", "", undefined, key);
    sw.style.background = m.color;
    if (m.same) sw.className = "dashed";
    html("span", "", m.s.name, key);
    if (m.same) html("em", "", "same as " + m.same.s.name, key);
    if (OG.end && OG.end.totals) html("b", "", full(OG.end.totals[m.i], m.s), key);
    key.addEventListener("click", function () {
      m.off = !m.off;
      key.classList.toggle("off", m.off);
      drawChart(c);
    });
  });
  var readout = html("div", "readout", "\u00a0", box);
  var drag = null;
  c.svg.addEventListener("mousedown", function (ev) {
    var x = svgX(c.svg, ev);
    if (x === null || x < L || x > W - R) return;
    drag = { x: x, t0: view.t0, t1: view.t1, pan: ev.shiftKey || ev.altKey };
    ev.preventDefault();
  });
  c.svg.addEventListener("mousemove", function (ev) {
    var x = svgX(c.svg, ev);
    if (x === null) return;
    if (drag && drag.pan) {
      var dt = (drag.x - x) / (W - L - R) * (drag.t1 - drag.t0);
      setView(drag.t0 + dt, drag.t1 + dt);
      return;
    }
    if (drag) {
      c.band.setAttribute("x", Math.min(drag.x, x));
      c.band.setAttribute("width", Math.abs(x - drag.x));
      c.band.setAttribute("visibility", "visible");
    }
    var s = sampleAt(tOf(x));
    if (!s || x < L || x > W - R) return;
    c.cursor.setAttribute("x1", x); c.cursor.setAttribute("x2", x);
    c.cursor.setAttribute("visibility", "visible");
    var t = tOf(x), fr = spanAt(OG.frames, t), gs = spanAt(OG.gpasamples, t);
    readout.textContent = "interval " + s.k + ", " + s.b.toFixed(3) + "\u2013" + s.e.toFixed(3) +
      " s" + (fr ? ", frame " + fr.k + " (" + ((fr.e - fr.b) * 1e3).toFixed(2) + " ms)" : "") +
      (gs ? ", GPA sample " + gs.k + " (" + ((gs.e - gs.b) * 1e3).toFixed(2) + " ms)" : "") + ": " + members.filter(function (mm) { return !mm.off; }).map(function (mm) {
        var r = shown(s, mm.i);
        return mm.s.name + " " + (mm.s.count ? rateText(r) + " " + shownUnit(mm.s) + " (" +
          full(s.v[mm.i], mm.s) + " " + unitOf(mm.s) + ")" : full(s.v[mm.i], mm.s));
      }).join(", ");
  });
  function release(ev) {
    if (!drag) return;
    var x = svgX(c.svg, ev), d = drag;
    drag = null;
    c.band.setAttribute("visibility", "hidden");
    if (!d.pan && x !== null && Math.abs(x - d.x) > 3)
      setView(tOf(Math.max(L, Math.min(d.x, x))), tOf(Math.min(W - R, Math.max(d.x, x))));
  }
  c.svg.addEventListener("mouseup", release);
  c.svg.addEventListener("mouseleave", function (ev) {
    release(ev);
    c.cursor.setAttribute("visibility", "hidden");
  });
  c.svg.addEventListener("dblclick", function () { setView(view.all0, view.all1); });
  return c;
}

function openGroup(g, open) {
  g.details.open = open;
  if (open) g.charts.forEach(function (c) { if (!c.drawn) drawChart(c); });
}

// Search: groups and charts whose group or a counter's name holds the text.
function filter(text) {
  var q = text.trim().toLowerCase();
  var shown = 0;
  groups.forEach(function (g) {
    var gm = !q || g.name.toLowerCase().indexOf(q) >= 0, any = false;
    g.charts.forEach(function (c) {
      var hit = gm || c.members.some(function (m) { return m.s.name.toLowerCase().indexOf(q) >= 0; });
      c.box.hidden = !hit;
      if (hit) { any = true; shown++; }
    });
    g.details.hidden = !any;
    if (q && any) openGroup(g, true);
  });
  document.documentElement.dataset.shown = shown;
}

function toolbar(nseries) {
  var bar = document.getElementById("tools");
  if (!bar) return;
  var search = html("input", "", undefined, bar);
  search.type = "search";
  search.id = "og-search";
  search.placeholder = "Filter " + nseries + " counters by name or group";
  search.addEventListener("input", function () { filter(search.value); });
  function button(text, title, fn) {
    var b = html("button", "", text, bar);
    b.type = "button"; b.title = title;
    b.addEventListener("click", fn);
    return b;
  }
  button("\u2190", "Pan left", function () {
    var d = (view.t1 - view.t0) / 4; setView(view.t0 - d, view.t1 - d);
  });
  button("\u2192", "Pan right", function () {
    var d = (view.t1 - view.t0) / 4; setView(view.t0 + d, view.t1 + d);
  });
  button("Reset zoom", "Show the whole run", function () { setView(view.all0, view.all1); });
  button("Open all", "Open every group", function () {
    groups.forEach(function (g) { if (!g.details.hidden) openGroup(g, true); });
  }).id = "og-open-all";
  button("Fold all", "Fold every group", function () {
    groups.forEach(function (g) { openGroup(g, false); });
  });
  html("span", "note", "", bar).id = "og-span";
  html("span", "note", "Drag across a chart to zoom, shift-drag to pan, double-click to reset.",
       bar);
}

function legendOfShades(parent) {
  var seen = 0;
  OG.samples.forEach(function (s) { seen |= s.f; });
  if (!(seen & (FLAG_LATE | FLAG_OVERFLOW | FLAG_FINAL)) && !OG.frames.length &&
      !OG.gpasamples.length) return;
  var note = html("div", "shades", "Shaded:", parent);
  if (OG.frames.length) {
    html("i", "", undefined, note).style.background = "var(--frame)";
    note.appendChild(document.createTextNode(OG.frames.length + " frames the command marked " +
      "(every other one)"));
  }
  if (OG.gpasamples.length) {
    html("i", "", undefined, note).style.background = "var(--gpasample)";
    note.appendChild(document.createTextNode(OG.gpasamples.length + " GPA samples of the " +
      "command's (the strip at the top)"));
  }
  [[FLAG_OVERFLOW, "overflow", "the kernel's buffer was full; the interval holds several periods"],
   [FLAG_LATE, "late", "read late; the interval spans over a period"],
   [FLAG_FINAL, "partial", "the last interval, cut short by the end of the command"]]
    .forEach(function (k) {
      if (!(seen & k[0])) return;
      html("i", "", undefined, note).style.background = "var(--" + k[1] + ")";
      note.appendChild(document.createTextNode(k[2]));
    });
}

function render() {
  var main = document.getElementById("charts");
  main.textContent = "";
  if (!OG.run || OG.samples.length === 0) {
    html("p", "note", "No interval was recorded.", main);
    document.documentElement.dataset.rendered = "0";
    return;
  }
  [OG.frames, OG.gpasamples].forEach(function (l) { l.sort(function (a, b) { return a.b - b.b; }); });
  document.documentElement.dataset.frames = OG.frames.length + " " + OG.gpasamples.length;
  view.all0 = view.t0 = Math.min(0, OG.samples[0].b);
  view.all1 = view.t1 = Math.max(OG.samples[OG.samples.length - 1].e, view.all0 + 1e-3);
  // Groups in the order the counters come; in each, a chart per unit of at
  // most MAX_SERIES lines.
  var byGroup = {};
  OG.run.series.forEach(function (s, i) {
    var name = s.group || "Counters";
    if (!byGroup[name]) { byGroup[name] = { name: name, units: {}, order: [], charts: [] }; groups.push(byGroup[name]); }
    var g = byGroup[name], u = shownUnit(s);
    if (!g.units[u]) { g.units[u] = []; g.order.push(u); }
    g.units[u].push({ s: s, i: i });
  });
  var nseries = OG.run.series.length, lines = 0;
  toolbar(nseries);
  legendOfShades(main);
  groups.forEach(function (g, gi) {
    var details = g.details = html("details", "group", undefined, main);
    var n = 0;
    g.order.forEach(function (u) { n += g.units[u].length; });
    html("summary", "", g.name + " \u00b7 " + n + (n === 1 ? " counter" : " counters"), details);
    g.order.forEach(function (u) {
      var all = g.units[u], parts = Math.ceil(all.length / MAX_SERIES);
      for (var p = 0; p < parts; p++) {
        var members = all.slice(p * MAX_SERIES, (p + 1) * MAX_SERIES).map(function (m, j) {
          return { s: m.s, i: m.i, color: COLORS[j % COLORS.length] };
        });
        lines += members.length;
        g.charts.push(makeChart(details, g.name + (parts > 1 ? " (" + (p + 1) + "/" + parts + ")" : ""),
                                u, members));
      }
    });
    details.addEventListener("toggle", function () { if (details.open) openGroup(g, true); });
    openGroup(g, nseries <= OPEN_ALL_BELOW || gi < OPEN_GROUPS);
  });
  setView(view.all0, view.all1);
  document.documentElement.dataset.rendered = charts.length + " charts, " + lines + " lines";
}

// #selftest: the page drives its own controls with synthetic mouse and
// input events (search, a legend toggle, a zoom drag, a pan) and records
// what followed in data-selftest, for the tests' headless Chromium.
function selftest() {
  var out = [], c = charts.filter(function (x) { return x.drawn; })[0];
  if (!c) return "no chart";
  var r = c.svg.getBoundingClientRect();
  function mouse(type, fx, shift) {
    c.svg.dispatchEvent(new MouseEvent(type, { bubbles: true, shiftKey: !!shift,
      clientX: r.left + r.width * fx, clientY: r.top + r.height / 2 }));
  }
  var span = view.t1 - view.t0;
  var t = performance.now();
  mouse("mousedown", 0.3); mouse("mousemove", 0.5); mouse("mouseup", 0.5);
  document.documentElement.dataset.zoomMs = Math.round(performance.now() - t);
  out.push("zoom " + (view.t1 - view.t0 < span * 0.5 ? "ok" : "failed"));
  out.push("charts follow " + (charts.every(function (x) {
    return !x.drawn || x.svg.querySelector("text[text-anchor=middle]") !== null; }) ? "ok" : "failed"));
  var t0 = view.t0;
  mouse("mousedown", 0.5, true); mouse("mousemove", 0.3, true); mouse("mouseup", 0.3, true);
  out.push("pan " + (view.t0 > t0 ? "ok" : "failed"));
  var key = c.members[0].key;
  key.click();
  out.push("toggle " + (c.svg.querySelector("path.series.off") ? "ok" : "failed"));
  key.click();
  var search = document.getElementById("og-search");
  search.value = c.members[0].s.name;
  search.dispatchEvent(new Event("input"));
  out.push("search " + (c.box.hidden === false && Number(document.documentElement.dataset.shown) >= 1 &&
    Number(document.documentElement.dataset.shown) <= charts.length ? "ok" : "failed"));
  search.value = "";
  search.dispatchEvent(new Event("input"));
  setView(view.all0, view.all1);
  t = performance.now();
  document.getElementById("og-open-all").click();
  document.documentElement.dataset.openAllMs = Math.round(performance.now() - t);
  out.push("open all " + (charts.every(function (x) { return x.drawn; }) ? "ok" : "failed"));
  return out.join("; ");
}

document.addEventListener("DOMContentLoaded", function () {
  try {
    var t = performance.now();
    // From navigation to here: reading the page and its intervals' scripts.
    document.documentElement.dataset.loadMs = Math.round(t);
    render();
    document.documentElement.dataset.renderMs = Math.round(performance.now() - t);
    if (location.hash === "#selftest") document.documentElement.dataset.selftest = selftest();
  } catch (e) {
    var main = document.getElementById("charts");
    if (main) html("p", "error", "The charts could not be drawn: " + e.message, main);
    throw e;
  }
});
