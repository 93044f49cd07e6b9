// SPDX-License-Identifier: MIT
// opengpa's HTML report (html.c embeds this file): the page calls begin()
// once, S() for each interval as opengpa writes it, end() at the end of the
// run; the charts are drawn when the page has loaded, from whatever
// intervals it holds (a report cut short still draws).  One chart per
// counter group and unit, a step line per counter across each interval's
// own span, intervals longer than the period shaded.
"use strict";
var OG = { run: null, samples: [], end: null };
window.addEventListener("error", function (ev) {
  var root = document.documentElement;
  root.dataset.errors = (root.dataset.errors ? root.dataset.errors + "\n" : "") + ev.message;
});
function begin(run) { OG.run = run; }
function S(k, b, e, flags, values) { OG.samples.push({ k: k, b: b, e: e, f: flags, v: values }); }
function end(info) { OG.end = info; }

var COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#7f7f7f", "#bcbd22", "#17becf"];
var FLAG_LATE = 4, FLAG_OVERFLOW = 2, SVGNS = "http://www.w3.org/2000/svg";

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

// The interval that holds time t (binary search over the begins).
function sampleAt(t) {
  var s = OG.samples, lo = 0, hi = s.length - 1;
  if (hi < 0) return null;
  while (lo < hi) {
    var mid = (lo + hi + 1) >> 1;
    if (s[mid].b <= t) lo = mid; else hi = mid - 1;
  }
  return s[lo];
}

function drawChart(parent, title, unit, members, t0, t1) {
  var W = 960, H = 260, L = 72, R = 14, T = 10, B = 34;
  var box = html("section", "chart", undefined, parent);
  var h = html("h2", "", title + " ", box);
  html("span", "unit", "(" + unit + ")", h);
  var lo = 0, hi = 0;
  members.forEach(function (m) {
    OG.samples.forEach(function (s) {
      var v = s.v[m.i];
      if (v === null) return;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    });
  });
  if (hi === lo) hi = lo + 1;
  var ystep = niceStep(hi - lo, 5);
  lo = Math.floor(lo / ystep) * ystep;
  hi = Math.ceil(hi / ystep) * ystep;
  if (t1 <= t0) t1 = t0 + 1e-3;
  var x = function (t) { return L + (t - t0) / (t1 - t0) * (W - L - R); };
  var y = function (v) { return T + (hi - v) / (hi - lo) * (H - T - B); };
  var svg = el("svg", { viewBox: "0 0 " + W + " " + H, class: "plot", role: "img",
                        "aria-label": title + " over time" }, box);
  // Intervals longer than the period: shaded behind everything.
  var shaded = { late: 0, overflow: 0 };
  OG.samples.forEach(function (s) {
    var kind = s.f & FLAG_OVERFLOW ? "overflow" : s.f & FLAG_LATE ? "late" : null;
    if (!kind) return;
    shaded[kind]++;
    el("rect", { x: x(s.b), y: T, width: Math.max(1, x(s.e) - x(s.b)), height: H - T - B,
                 class: kind }, svg);
  });
  var label = tickFormat(ystep, Math.max(Math.abs(lo), Math.abs(hi)));
  for (var v = lo; v <= hi + ystep / 2; v += ystep) {
    el("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }, svg);
    el("text", { x: L - 8, y: y(v) + 4, "text-anchor": "end" }, svg).textContent = label(v);
  }
  var xstep = niceStep(t1 - t0, 8), seconds = tickFormat(xstep, 0);
  for (var t = Math.ceil(t0 / xstep) * xstep; t <= t1 + xstep / 1e6; t += xstep) {
    el("line", { x1: x(t), x2: x(t), y1: H - B, y2: H - B + 5, class: "axis" }, svg);
    el("text", { x: x(t), y: H - B + 18, "text-anchor": "middle" }, svg).textContent =
      seconds(t) + " s";
  }
  el("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }, svg);
  el("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }, svg);
  el("text", { x: 14, y: T + (H - T - B) / 2, "text-anchor": "middle",
               transform: "rotate(-90 14 " + (T + (H - T - B) / 2) + ")" }, svg).textContent = unit;
  // One step line per counter: each interval's value across its span.
  members.forEach(function (m) {
    var d = "", open = false;
    OG.samples.forEach(function (s) {
      var val = s.v[m.i];
      if (val === null) { open = false; return; }
      d += (open ? "L" : "M") + x(s.b).toFixed(1) + " " + y(val).toFixed(1) +
           "L" + x(s.e).toFixed(1) + " " + y(val).toFixed(1);
      open = true;
    });
    el("path", { d: d, class: "series", stroke: m.color, "data-counter": m.s.name }, svg);
  });
  var cursor = el("line", { y1: T, y2: H - B, class: "cursor", visibility: "hidden" }, svg);
  var legend = html("div", "legend", undefined, box);
  members.forEach(function (m) {
    var key = html("span", "key", undefined, legend);
    html("i", "", undefined, key).style.background = m.color;
    html("span", "", m.s.name, key);
    if (OG.end && OG.end.totals) html("b", "", full(OG.end.totals[m.i], m.s), key);
  });
  if (OG.end && OG.end.totals) html("span", "note", "(bold: the whole run)", legend);
  if (shaded.late || shaded.overflow) {
    var note = html("div", "shades", "Shaded:", box);
    if (shaded.overflow) {
      html("i", "", undefined, note).style.background = "var(--overflow)";
      note.appendChild(document.createTextNode("the kernel's buffer was full; the interval holds several periods"));
    }
    if (shaded.late) {
      html("i", "", undefined, note).style.background = "var(--late)";
      note.appendChild(document.createTextNode("read late; the interval spans over a period"));
    }
  }
  var readout = html("div", "readout", "\u00a0", box);
  svg.addEventListener("mousemove", function (ev) {
    var m = svg.getScreenCTM();
    if (!m) return;
    var p = svg.createSVGPoint();
    p.x = ev.clientX; p.y = ev.clientY;
    var at = p.matrixTransform(m.inverse());
    var t = t0 + (at.x - L) / (W - L - R) * (t1 - t0), s = sampleAt(t);
    if (!s || at.x < L || at.x > W - R) return;
    cursor.setAttribute("x1", at.x); cursor.setAttribute("x2", at.x);
    cursor.setAttribute("visibility", "visible");
    readout.textContent = "interval " + s.k + ", " + s.b.toFixed(3) + "\u2013" + s.e.toFixed(3) +
      " s: " + members.map(function (mm) { return mm.s.name + " " + full(s.v[mm.i], mm.s); })
        .join(", ");
  });
  svg.addEventListener("mouseleave", function () { cursor.setAttribute("visibility", "hidden"); });
  return members.length;
}

function render() {
  var main = document.getElementById("charts");
  main.textContent = "";
  if (!OG.run || OG.samples.length === 0) {
    html("p", "note", "No interval was recorded.", main);
    document.documentElement.dataset.rendered = "0";
    return;
  }
  var t0 = Math.min(0, OG.samples[0].b), t1 = OG.samples[OG.samples.length - 1].e;
  // Charts: one per group and unit, in the order the counters come.
  var charts = [], byKey = {};
  OG.run.series.forEach(function (s, i) {
    var key = (s.group || "Counters") + "\u0000" + unitOf(s);
    if (!byKey[key]) {
      byKey[key] = { title: s.group || "Counters", unit: unitOf(s), members: [] };
      charts.push(byKey[key]);
    }
    var c = byKey[key];
    c.members.push({ s: s, i: i, color: COLORS[c.members.length % COLORS.length] });
  });
  var lines = 0;
  charts.forEach(function (c) { lines += drawChart(main, c.title, c.unit, c.members, t0, t1); });
  document.documentElement.dataset.rendered = charts.length + " charts, " + lines + " lines";
}

document.addEventListener("DOMContentLoaded", function () {
  try {
    render();
  } catch (e) {
    var main = document.getElementById("charts");
    if (main) html("p", "error", "The charts could not be drawn: " + e.message, main);
    throw e;
  }
});
