/* SPDX-License-Identifier: MIT */
/*
 * percore.c — the HTML report's heat strips (`opengpa stat --per-core
 * --html`): for each counter counted per instance ("ShaderCore5:X",
 * "L2Slice1:X"), one strip of instances x intervals, each cell shaded by
 * the instance's value in that interval (a count as a rate, so intervals of
 * different lengths compare), darkest at the strip's largest value.  Drawn
 * by a small script from the intervals the page already holds (html.c,
 * html_report.js's OG), so a report cut short still shows what it has.
 * Written only when some series is an instance's.
 */
#include <stdbool.h>
#include <string.h>

#include "percore.h"

/* "<letters and digits>:<rest>": an instance's copy of a counter. */
static bool instance_series(const char *name)
{
	const char *colon = name ? strchr(name, ':') : NULL;
	if (!colon || colon == name || !colon[1])
		return false;
	for (const char *p = name; p < colon; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

void tl_html_percore(FILE *f, const struct tl_run *run)
{
	bool any = false;
	for (size_t i = 0; i < run->nseries && !any; i++)
		any = instance_series(run->series[i].name);
	if (!any)
		return;
	fputs("<section id=\"percore\">\n<h2>Per core and per slice</h2>\n<p class=\"note\">One "
	      "strip per counter counted per instance: a row per shader core, L2 slice or "
	      "command-stream group, a column per interval, darker where the instance's value "
	      "(a count per second) is higher, the darkest cell the strip's largest value. Hover "
	      "a cell for its value.</p>\n<div id=\"percore-strips\"></div>\n</section>\n", f);
	fputs("<script>\n"
	      "(function () {\n"
	      "  var NS = \"http://www.w3.org/2000/svg\";\n"
	      "  function add(name, attrs, parent) {\n"
	      "    var e = document.createElementNS(NS, name);\n"
	      "    for (var k in attrs) e.setAttribute(k, attrs[k]);\n"
	      "    parent.appendChild(e);\n"
	      "    return e;\n"
	      "  }\n"
	      "  function strips() {\n"
	      "    var out = {}, order = [];\n"
	      "    OG.run.series.forEach(function (s, i) {\n"
	      "      var m = /^([A-Za-z0-9]+):(.+)$/.exec(s.name);\n"
	      "      if (!m) return;\n"
	      "      if (!out[m[2]]) { out[m[2]] = []; order.push(m[2]); }\n"
	      "      out[m[2]].push({ label: m[1], i: i, count: s.count, unit: s.unit || s.usage || \"\" });\n"
	      "    });\n"
	      "    return order.map(function (base) { return { base: base, rows: out[base] }; });\n"
	      "  }\n"
	      "  function value(s, r) {\n"
	      "    var v = s.v[r.i];\n"
	      "    if (v === null || v === undefined) return null;\n"
	      "    return r.count && s.e > s.b ? v / (s.e - s.b) : v;\n"
	      "  }\n"
	      "  function draw() {\n"
	      "    var box = document.getElementById(\"percore-strips\");\n"
	      "    if (!box || !OG.run || !OG.samples.length) return;\n"
	      "    var n = OG.samples.length, cw = Math.max(2, Math.min(24, Math.floor(860 / n)));\n"
	      "    var ch = 14, lw = 120;\n"
	      "    strips().forEach(function (st) {\n"
	      "      var max = 0;\n"
	      "      OG.samples.forEach(function (s) {\n"
	      "        st.rows.forEach(function (r) { var v = value(s, r); if (v !== null && v > max) max = v; });\n"
	      "      });\n"
	      "      var h = document.createElement(\"h3\");\n"
	      "      h.textContent = st.base;\n"
	      "      box.appendChild(h);\n"
	      "      var svg = add(\"svg\", { width: lw + cw * n + 4, height: ch * st.rows.length + 4,\n"
	      "                             \"class\": \"percore-strip\" }, box);\n"
	      "      st.rows.forEach(function (r, y) {\n"
	      "        var t = add(\"text\", { x: lw - 6, y: y * ch + ch - 3, \"text-anchor\": \"end\",\n"
	      "                              \"font-size\": 11 }, svg);\n"
	      "        t.textContent = r.label;\n"
	      "        OG.samples.forEach(function (s, x) {\n"
	      "          var v = value(s, r), share = v === null || max <= 0 ? 0 : v / max;\n"
	      "          var c = add(\"rect\", { x: lw + x * cw, y: y * ch, width: cw, height: ch - 1,\n"
	      "            fill: v === null ? \"#eee\" : \"hsl(20, 85%, \" + (96 - 60 * share).toFixed(1) + \"%)\" }, svg);\n"
	      "          add(\"title\", {}, c).textContent = r.label + \" \" + s.b.toFixed(3) + \"-\" +\n"
	      "            s.e.toFixed(3) + \" s: \" + (v === null ? \"not counted\" :\n"
	      "            (+v.toPrecision(6)) + \" \" + r.unit + (r.count ? \"/s\" : \"\"));\n"
	      "        });\n"
	      "      });\n"
	      "    });\n"
	      "  }\n"
	      "  window.addEventListener(\"load\", draw);\n"
	      "})();\n"
	      "</script>\n",
	      f);
}
