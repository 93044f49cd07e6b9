// SPDX-License-Identifier: MIT
// Runs the heat-strip script of an `opengpa stat --per-core --html` page
// (tools/opengpa/output/percore.c) over the page's own intervals, with just
// enough of a DOM to count what it draws, and prints one line:
//   strips A,B rects N labels ShaderCore0,...
// usage: node percore_strip.js PAGE.html
const fs = require("fs");
const html = fs.readFileSync(process.argv[2], "utf8");
const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(m => m[1]);
let rects = 0, texts = [], listeners = [];
function node(tag) { return { tag, attrs: {}, children: [], setAttribute(k, v) { this.attrs[k] = v; }, appendChild(c) { this.children.push(c); if (c.tag === "rect") rects++; if (c.tag === "text") texts.push(c); return c; }, set textContent(t) { this._t = t; }, get textContent() { return this._t; } }; }
const box = node("div");
global.window = { addEventListener(ev, fn) { listeners.push(fn); } };
global.document = { createElementNS: (ns, t) => node(t), createElement: t => node(t), getElementById: id => id === "percore-strips" ? box : null };
// Only the run's data and the strip: html_report.js draws charts with a real DOM.
global.OG = { run: null, samples: [], end: null };
global.begin = r => { OG.run = r; };
global.S = (k, b, e, f, v) => OG.samples.push({ k, b, e, f, v });
global.end = i => { OG.end = i; };
for (const s of scripts) {
  if (s.startsWith("begin(") || s.startsWith("S(") || s.startsWith("end(") || s.includes("percore-strips")) (0, eval)(s);
}
listeners.forEach(f => f());
console.log("strips", box.children.filter(c => c.tag === "h3").map(h => h.textContent).join(","), "rects", rects, "labels", texts.map(t => t.textContent).join(","));
