/* SPDX-License-Identifier: MIT */
/*
 * html.c — one self-contained web page: the run's description, an SVG line
 * chart per counter group (drawn by the page's own script, html_report.js,
 * from the intervals in the page), and the totals as a table.
 *
 * The page is written as the run goes: the head (style, script, the run),
 * then one small <script> per interval (and per frame or GPA sample of
 * the workload's, drawn as bands), then at the end the totals table.
 * A browser draws whatever the file holds when it has loaded it, so a
 * report cut short still shows every interval written.  Nothing is fetched:
 * no font, no script, no image from anywhere else.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "percore.h"
#include "timeline.h"

/* html_assets.c, generated from html_report.css and html_report.js. */
extern const char *const tl_html_css[];
extern const char *const tl_html_js[];

static void lines(FILE *f, const char *const *text)
{
	for (; *text; text++)
		fputs(*text, f);
}

/* Text for an element's content or a quoted attribute. */
static void text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A JSON string that is safe inside <script>: no "</script>", no "<!--". */
static void script_string(FILE *f, const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		fputs("\"\"", f);
		return;
	}
	fmt_json_string(m, s ? s : "");
	fclose(m);
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '<')
			fputs("\\u003c", f);
		else if (buf[i] == '>')
			fputs("\\u003e", f);
		else if (buf[i] == '&')
			fputs("\\u0026", f);
		else
			fputc(buf[i], f);
	}
	free(buf);
}

static void number(FILE *f, double v, bool integer)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		tl_put_number(f, v, integer ? TL_INTEGER : TL_G10);
}

static void html_begin(struct tl_output *o, const struct tl_run *run)
{
	FILE *f = o->f;
	char line[512];
	tl_command_line(run, line, sizeof line);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"opengpa stat\">\n<title>opengpa: ", f);
	text(f, line);
	fputs("</title>\n<style>\n", f);
	lines(f, tl_html_css);
	fputs("</style>\n<script>\n", f);
	lines(f, tl_html_js);
	fputs("</script>\n</head>\n<body>\n<header>\n<h1>", f);
	text(f, line);
	fputs("</h1>\n<p class=\"meta\">", f);
	text(f, run->device);
	fputs(" &middot; ", f);
	text(f, run->backend);
	fprintf(f, " backend &middot; an interval every %.6g ms, timed by %s</p>\n</header>\n",
	        (double)run->period_ns / 1e6, run->kernel_timed ? "the kernel" : "opengpa");
	fputs("<nav id=\"tools\"></nav>\n", f);
	fputs("<main id=\"charts\"><p class=\"note\">The charts are drawn once the page has "
	      "loaded.</p></main>\n<noscript><p class=\"note\">The charts need JavaScript; the "
	      "totals are in the table below.</p></noscript>\n", f);
	/* The run, for the script. */
	fputs("<script>begin({command: ", f);
	script_string(f, line);
	fputs(", device: ", f);
	script_string(f, run->device);
	fputs(", backend: ", f);
	script_string(f, run->backend);
	fprintf(f, ", period_ms: %.9g, kernel_timed: %s, series: [", (double)run->period_ns / 1e6,
	        run->kernel_timed ? "true" : "false");
	for (size_t i = 0; i < run->nseries; i++) {
		const struct tl_series *s = &run->series[i];
		fputs(i ? ",\n {name: " : "\n {name: ", f);
		script_string(f, s->name);
		fputs(", group: ", f);
		script_string(f, s->group);
		fputs(", unit: ", f);
		script_string(f, s->unit);
		fputs(", usage: ", f);
		script_string(f, s->usage);
		fprintf(f, ", integer: %s, count: %s}", s->integer ? "true" : "false",
		        tl_is_count(s) ? "true" : "false");
	}
	fputs("]});</script>\n", f);
}

static void html_sample(struct tl_output *o, const struct tl_run *run, const struct tl_sample *s)
{
	FILE *f = o->f;
	fprintf(f, "<script>S(%u,%.9f,%.9f,%u,[", (unsigned)s->index, tl_seconds(run, s->begin_ns),
	        tl_seconds(run, s->end_ns), (unsigned)s->flags);
	for (size_t i = 0; i < run->nseries; i++) {
		if (i)
			fputc(',', f);
		number(f, s->values[i], run->series[i].integer);
	}
	fputs("])</script>\n", f);
	o->count++;
}

static void cell(FILE *f, const struct tl_series *s, double v)
{
	char value[64];
	fputs("<td class=\"num\">", f);
	text(f, isnan(v) ? "\xe2\x80\x94" : tl_value(s, v, value, sizeof value)); /* an em dash */
	fputs("</td>", f);
}

static void html_end(struct tl_output *o, const struct tl_run *run, const struct tl_end *e)
{
	FILE *f = o->f;
	tl_html_percore(f, run); /* --per-core's heat strips, when there are instances */
	fputs("<section id=\"summary\">\n<h2>Totals</h2>\n<table>\n<thead><tr><th>Counter</th>"
	      "<th>Group</th><th>Unit</th><th class=\"num\">Whole run</th>"
	      "<th class=\"num\">Interval min</th><th class=\"num\">mean</th>"
	      "<th class=\"num\">max</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < run->nseries; i++) {
		const struct tl_series *s = &run->series[i];
		fputs("<tr><td>", f);
		text(f, s->name);
		fputs("</td><td>", f);
		text(f, s->group);
		fputs("</td><td>", f);
		text(f, tl_unit_or_usage(s));
		fputs("</td>", f);
		cell(f, s, e->totals[i]);
		cell(f, s, e->min[i]);
		cell(f, s, e->mean[i]);
		cell(f, s, e->max[i]);
		fputs("</tr>\n", f);
	}
	fprintf(f, "</tbody>\n</table>\n<p class=\"note\">%u intervals of %.6g ms over %.3f s", 
	        (unsigned)e->nsamples, (double)run->period_ns / 1e6, tl_seconds(run, e->end_ns));
	if (e->exit_status >= 0)
		fprintf(f, "; the command exited with status %d", e->exit_status);
	fputs(". Whole-run values are each counter over the whole run (a ratio is the ratio of "
	      "the summed counts), not a sum of its intervals.</p>\n</section>\n", f);
	fprintf(f, "<script>end({end_s: %.9f, exit_status: %d, intervals: %u, totals: [",
	        tl_seconds(run, e->end_ns), e->exit_status, (unsigned)e->nsamples);
	for (size_t i = 0; i < run->nseries; i++) {
		if (i)
			fputc(',', f);
		number(f, e->totals[i], run->series[i].integer);
	}
	fputs("]});</script>\n</body>\n</html>\n", f);
}

/* A frame or GPA sample of the workload's: a band behind the charts. */
static void html_frame(struct tl_output *o, const struct tl_run *run, const struct tl_frame *f)
{
	fprintf(o->f, "<script>F(%d,%u,%.9f,%.9f)</script>\n", f->sample ? 1 : 0,
	        (unsigned)f->index, tl_seconds(run, f->begin_ns), tl_seconds(run, f->end_ns));
}

const struct tl_format tl_html = {
	.name = "html",
	.begin = html_begin,
	.sample = html_sample,
	.end = html_end,
	.frame = html_frame,
};
