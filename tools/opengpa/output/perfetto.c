/* SPDX-License-Identifier: MIT */
/*
 * perfetto.c — Perfetto's own trace format (a `perfetto.protos.Trace`: a
 * stream of `TracePacket`s, each field 1 of the Trace), encoded here by
 * hand: varints, fixed 64-bit doubles and length-delimited messages, no
 * protobuf library.  The field numbers are those of Perfetto's schema
 * (../shared/reference/perfetto/perfetto_trace.proto); tests/tools decode
 * every file with `protoc --decode=perfetto.protos.Trace` against it.
 *
 * What a file holds, on one packet sequence:
 *   a ClockSnapshot relating CLOCK_MONOTONIC (the samples' clock, every
 *   packet's timestamp_clock_id) to CLOCK_BOOTTIME (Perfetto's trace clock),
 *   so the file lines up with a system trace of the same run;
 *   TrackDescriptors: the workload's process, a track of the intervals
 *   ("opengpa intervals") and one counter track per CPU counter;
 *   a GpuCounterEvent carrying the GpuCounterDescriptor (every GPU
 *   counter's id, name, description, units and group) before any value;
 *   per interval a GpuCounterEvent with the GPU counters' values, a
 *   TrackEvent counter per CPU counter, and the interval as a slice;
 *   the workload's run as a slice of its process;
 *   and on a second sequence of its own, each frame the workload marked
 *   (OpenGPA_MarkFrame) as a slice "frame N" of a track "frames", and on a
 *   third each GPA sample of the workload's as a slice "sample ID" of a
 *   track "GPA samples": a frame is known only at its second mark (a
 *   sample at its end), after the intervals it spans were written, and a
 *   sequence's timestamps must not go back.
 * Values are shown as the HTML and the JSON trace show them (tl_shown): a
 * count per second over the interval, percentages and ratios as they are.
 *
 * Each record (timeline.c) is a whole number of packets written in one
 * piece, so a file cut short ends on a packet boundary.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "opengpa.h"
#include "timeline.h"

/* perfetto_trace.proto's field numbers. */
enum {
	TRACE_PACKET = 1,
	/* TracePacket */
	PKT_TIMESTAMP = 8,
	PKT_CLOCK_SNAPSHOT = 6,
	PKT_SEQUENCE_ID = 10,
	PKT_TRACK_EVENT = 11,
	PKT_SEQUENCE_FLAGS = 13,
	PKT_GPU_COUNTER_EVENT = 52,
	PKT_TIMESTAMP_CLOCK_ID = 58,
	PKT_TRACK_DESCRIPTOR = 60,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	/* ClockSnapshot, ClockSnapshot.Clock */
	CS_CLOCKS = 1,
	CS_PRIMARY_TRACE_CLOCK = 2,
	CLOCK_ID = 1,
	CLOCK_TIMESTAMP = 2,
	BUILTIN_MONOTONIC = 3,
	BUILTIN_BOOTTIME = 6,
	/* TrackDescriptor, ProcessDescriptor, CounterDescriptor */
	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_PARENT_UUID = 5,
	TD_COUNTER = 8,
	TD_DESCRIPTION = 14,
	PD_PID = 1,
	PD_PROCESS_NAME = 6,
	CD_UNIT_NAME = 6,
	/* TrackEvent */
	TE_TYPE = 9,
	TE_TRACK_UUID = 11,
	TE_NAME = 23,
	TE_DOUBLE_COUNTER_VALUE = 44,
	TE_SLICE_BEGIN = 1,
	TE_SLICE_END = 2,
	TE_COUNTER = 4,
	/* GpuCounterEvent, .GpuCounter, GpuCounterDescriptor, .GpuCounterSpec */
	GCE_DESCRIPTOR = 1,
	GCE_COUNTERS = 2,
	GC_COUNTER_ID = 1,
	GC_DOUBLE_VALUE = 3,
	GCD_SPECS = 1,
	GCS_COUNTER_ID = 1,
	GCS_NAME = 2,
	GCS_DESCRIPTION = 3,
	GCS_NUMERATOR_UNITS = 7,
	GCS_DENOMINATOR_UNITS = 8,
	GCS_GROUPS = 10,
	/* GpuCounterDescriptor.MeasureUnit, .GpuCounterGroup */
	MU_NONE = 0,
	MU_BYTE = 7,
	MU_KILOBYTE = 8,
	MU_HERTZ = 13,
	MU_MILLISECOND = 21,
	MU_SECOND = 22,
	MU_PERCENT = 37,
	GROUP_SYSTEM = 1,
	GROUP_VERTICES = 2,
	GROUP_FRAGMENTS = 3,
	GROUP_PRIMITIVES = 4,
	GROUP_MEMORY = 5,
	GROUP_COMPUTE = 6,
};

/* The tracks' uuids: the process, the intervals, then CPU counter i. */
#define UUID_PROCESS 1u
#define UUID_INTERVALS 2u
#define UUID_FRAMES 3u
#define UUID_SAMPLES 4u
#define UUID_COUNTER0 16u
#define SEQUENCE_ID 1u
#define FRAME_SEQUENCE_ID 2u
#define SAMPLE_SEQUENCE_ID 3u

/* A message being encoded, in memory. */
struct pb {
	uint8_t *buf;
	size_t len, cap;
	bool failed; /* out of memory: the record is dropped whole */
};

static void pb_raw(struct pb *b, const void *data, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *grown = realloc(b->buf, cap);
		if (!grown) {
			b->failed = true;
			return;
		}
		b->buf = grown;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, data, n);
	b->len += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t bytes[10];
	size_t n = 0;
	do {
		bytes[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		bytes[n++] |= v ? 0x80 : 0;
	} while (v);
	pb_raw(b, bytes, n);
}

static void pb_tag(struct pb *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	pb_tag(b, field, 0);
	pb_varint(b, v);
}

/* int32/int64 fields: a negative value sign-extended to 64 bits. */
static void pb_int(struct pb *b, unsigned field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

static void pb_double(struct pb *b, unsigned field, double v)
{
	uint64_t bits;
	uint8_t le[8];
	memcpy(&bits, &v, sizeof bits);
	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(bits >> (8 * i));
	pb_tag(b, field, 1);
	pb_raw(b, le, sizeof le);
}

static void pb_bytes(struct pb *b, unsigned field, const void *data, size_t n)
{
	pb_tag(b, field, 2);
	pb_varint(b, n);
	pb_raw(b, data, n);
}

static void pb_string(struct pb *b, unsigned field, const char *s)
{
	pb_bytes(b, field, s ? s : "", s ? strlen(s) : 0);
}

/* Appends child as field `field` of b and empties child. */
static void pb_message(struct pb *b, unsigned field, struct pb *child)
{
	if (child->failed)
		b->failed = true;
	else
		pb_bytes(b, field, child->buf, child->len);
	free(child->buf);
	*child = (struct pb){ 0 };
}

static void pb_free(struct pb *b)
{
	free(b->buf);
	*b = (struct pb){ 0 };
}

/* A packet on one of opengpa's sequences; timestamp 0: none. */
static void packet_on(struct pb *p, uint64_t timestamp, unsigned sequence)
{
	*p = (struct pb){ 0 };
	if (timestamp) {
		pb_uint(p, PKT_TIMESTAMP, timestamp);
		pb_uint(p, PKT_TIMESTAMP_CLOCK_ID, BUILTIN_MONOTONIC);
	}
	pb_uint(p, PKT_SEQUENCE_ID, sequence);
}

static void packet_begin(struct pb *p, uint64_t timestamp)
{
	packet_on(p, timestamp, SEQUENCE_ID);
}

/* The packet as field 1 of the Trace, to the record being written. */
static void packet_end(struct tl_output *o, struct pb *p)
{
	struct pb framed = { 0 };
	pb_message(&framed, TRACE_PACKET, p);
	if (!framed.failed)
		fwrite(framed.buf, 1, framed.len, o->f);
	pb_free(&framed);
	o->count++;
}

/* A GPU counter: anything but the CPU's (the perf backend's, or a group
 * named CPU), which are counter tracks of the workload's process. */
static bool is_gpu(const struct tl_run *run, const struct tl_series *c)
{
	if (run->backend && strcmp(run->backend, "perf") == 0)
		return false;
	return !(c->group && strncasecmp(c->group, "CPU", 3) == 0);
}

static size_t gpu_count(const struct tl_run *run)
{
	size_t n = 0;
	for (size_t i = 0; i < run->nseries; i++)
		n += is_gpu(run, &run->series[i]);
	return n;
}

/* Perfetto's group of a counter, from the words of its group's name. */
static unsigned gpu_group(const char *group)
{
	static const struct {
		const char *word;
		unsigned group;
	} words[] = {
		{ "fragment", GROUP_FRAGMENTS }, { "vertex", GROUP_VERTICES },
		{ "tiler", GROUP_PRIMITIVES },   { "primitive", GROUP_PRIMITIVES },
		{ "memory", GROUP_MEMORY },      { "l2", GROUP_MEMORY },
		{ "cache", GROUP_MEMORY },       { "external", GROUP_MEMORY },
		{ "compute", GROUP_COMPUTE },    { "non-fragment", GROUP_COMPUTE },
	};
	unsigned found = GROUP_SYSTEM;
	for (size_t i = 0; group && i < sizeof words / sizeof words[0]; i++)
		if (strcasestr(group, words[i].word))
			found = words[i].group; /* the last match: "Non-Fragment" over "Fragment" */
	return found;
}

/* The units of a counter as shown (tl_shown): numerator over seconds for a
 * count. */
static void gpu_units(struct pb *spec, const struct tl_series *c)
{
	unsigned num = MU_NONE;
	const char *usage = c->usage ? c->usage : "";
	bool count = tl_is_count(c);
	if (strcmp(usage, "cycles") == 0) {
		pb_uint(spec, GCS_NUMERATOR_UNITS, MU_HERTZ); /* cycles per second */
		return;
	}
	if (strcmp(usage, "bytes") == 0)
		num = MU_BYTE;
	else if (strcmp(usage, "kilobytes") == 0)
		num = MU_KILOBYTE;
	else if (strcmp(usage, "milliseconds") == 0)
		num = MU_MILLISECOND;
	else if (strcmp(usage, "percentage") == 0)
		num = MU_PERCENT;
	if (num != MU_NONE)
		pb_uint(spec, GCS_NUMERATOR_UNITS, num);
	if (count)
		pb_uint(spec, GCS_DENOMINATOR_UNITS, MU_SECOND);
}

static void clock_entry(struct pb *snap, unsigned id, clockid_t clock)
{
	struct timespec t;
	if (clock_gettime(clock, &t) != 0)
		return;
	struct pb c = { 0 };
	pb_uint(&c, CLOCK_ID, id);
	pb_uint(&c, CLOCK_TIMESTAMP, (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec);
	pb_message(snap, CS_CLOCKS, &c);
}

static void slice(struct tl_output *o, uint64_t ts, uint64_t track, unsigned type,
                  const char *name)
{
	struct pb p, ev = { 0 };
	packet_begin(&p, ts);
	pb_uint(&ev, TE_TYPE, type);
	pb_uint(&ev, TE_TRACK_UUID, track);
	if (name)
		pb_string(&ev, TE_NAME, name);
	pb_message(&p, PKT_TRACK_EVENT, &ev);
	packet_end(o, &p);
	if (ts > o->last_ns)
		o->last_ns = ts;
}

static void perfetto_begin(struct tl_output *o, const struct tl_run *run)
{
	char line[512], unit[64], text[256];
	tl_command_line(run, line, sizeof line);
	struct pb p, snap = { 0 }, td = { 0 }, sub = { 0 };

	/* The clocks, first, with the sequence's state cleared. */
	packet_begin(&p, 0);
	pb_uint(&p, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	clock_entry(&snap, BUILTIN_BOOTTIME, CLOCK_BOOTTIME);
	clock_entry(&snap, BUILTIN_MONOTONIC, CLOCK_MONOTONIC);
	pb_uint(&snap, CS_PRIMARY_TRACE_CLOCK, BUILTIN_BOOTTIME);
	pb_message(&p, PKT_CLOCK_SNAPSHOT, &snap);
	packet_end(o, &p);

	/* The workload's process (a plain track without one). */
	packet_begin(&p, 0);
	pb_uint(&td, TD_UUID, UUID_PROCESS);
	if (run->pid > 0) {
		pb_int(&sub, PD_PID, run->pid);
		pb_string(&sub, PD_PROCESS_NAME, line);
		pb_message(&td, TD_PROCESS, &sub);
	} else {
		pb_string(&td, TD_NAME, line[0] ? line : "opengpa");
	}
	pb_message(&p, PKT_TRACK_DESCRIPTOR, &td);
	packet_end(o, &p);

	packet_begin(&p, 0);
	pb_uint(&td, TD_UUID, UUID_INTERVALS);
	pb_uint(&td, TD_PARENT_UUID, UUID_PROCESS);
	pb_string(&td, TD_NAME, "opengpa intervals");
	snprintf(text, sizeof text, "%s, %s backend: an interval every %.6g ms, timed by %s",
	         run->device ? run->device : "", run->backend ? run->backend : "",
	         (double)run->period_ns / 1e6, run->kernel_timed ? "the kernel" : "opengpa");
	pb_string(&td, TD_DESCRIPTION, text);
	pb_message(&p, PKT_TRACK_DESCRIPTOR, &td);
	packet_end(o, &p);

	/* A counter track per CPU counter. */
	for (size_t i = 0; i < run->nseries; i++) {
		const struct tl_series *c = &run->series[i];
		if (is_gpu(run, c))
			continue;
		packet_begin(&p, 0);
		pb_uint(&td, TD_UUID, UUID_COUNTER0 + i);
		pb_uint(&td, TD_PARENT_UUID, UUID_PROCESS);
		pb_string(&td, TD_NAME, c->name);
		pb_string(&sub, CD_UNIT_NAME, tl_shown_unit(c, unit, sizeof unit));
		pb_message(&td, TD_COUNTER, &sub);
		pb_message(&p, PKT_TRACK_DESCRIPTOR, &td);
		packet_end(o, &p);
	}

	/* The GPU counters' descriptor, before any value. */
	if (gpu_count(run)) {
		struct pb gce = { 0 }, desc = { 0 }, spec = { 0 };
		packet_begin(&p, run->start_ns);
		for (size_t i = 0; i < run->nseries; i++) {
			const struct tl_series *c = &run->series[i];
			if (!is_gpu(run, c))
				continue;
			pb_uint(&spec, GCS_COUNTER_ID, i);
			pb_string(&spec, GCS_NAME, c->name);
			snprintf(text, sizeof text, "%s%s%s", c->group ? c->group : "",
			         c->group && c->group[0] ? ": " : "", tl_shown_unit(c, unit, sizeof unit));
			pb_string(&spec, GCS_DESCRIPTION, text);
			gpu_units(&spec, c);
			pb_uint(&spec, GCS_GROUPS, gpu_group(c->group));
			pb_message(&desc, GCD_SPECS, &spec);
		}
		pb_message(&gce, GCE_DESCRIPTOR, &desc);
		pb_message(&p, PKT_GPU_COUNTER_EVENT, &gce);
		packet_end(o, &p);
	}
	o->last_ns = run->start_ns;
	slice(o, run->start_ns, UUID_PROCESS, TE_SLICE_BEGIN, line[0] ? line : "workload");
}

static void perfetto_sample(struct tl_output *o, const struct tl_run *run,
                            const struct tl_sample *s)
{
	char name[128], words[64];
	struct pb p;
	uint64_t ts = s->begin_ns > o->last_ns ? s->begin_ns : o->last_ns;
	tl_flag_words(s->flags, ", ", words, sizeof words);
	snprintf(name, sizeof name, "interval %u%s%s%s", (unsigned)s->index, words[0] ? " (" : "",
	         words, words[0] ? ")" : "");
	slice(o, ts, UUID_INTERVALS, TE_SLICE_BEGIN, name);
	if (gpu_count(run)) {
		struct pb gce = { 0 }, gc = { 0 };
		packet_begin(&p, ts);
		for (size_t i = 0; i < run->nseries; i++) {
			const struct tl_series *c = &run->series[i];
			double v = tl_shown(c, s, s->values[i]);
			if (!is_gpu(run, c) || isnan(v) || isinf(v))
				continue;
			pb_uint(&gc, GC_COUNTER_ID, i);
			pb_double(&gc, GC_DOUBLE_VALUE, v);
			pb_message(&gce, GCE_COUNTERS, &gc);
		}
		pb_message(&p, PKT_GPU_COUNTER_EVENT, &gce);
		packet_end(o, &p);
	}
	for (size_t i = 0; i < run->nseries; i++) {
		const struct tl_series *c = &run->series[i];
		double v = tl_shown(c, s, s->values[i]);
		if (is_gpu(run, c) || isnan(v) || isinf(v))
			continue;
		struct pb ev = { 0 };
		packet_begin(&p, ts);
		pb_uint(&ev, TE_TYPE, TE_COUNTER);
		pb_uint(&ev, TE_TRACK_UUID, UUID_COUNTER0 + i);
		pb_double(&ev, TE_DOUBLE_COUNTER_VALUE, v);
		pb_message(&p, PKT_TRACK_EVENT, &ev);
		packet_end(o, &p);
	}
	slice(o, s->end_ns > ts ? s->end_ns : ts, UUID_INTERVALS, TE_SLICE_END, NULL);
}

static void perfetto_end(struct tl_output *o, const struct tl_run *run, const struct tl_end *e)
{
	(void)run;
	slice(o, e->end_ns > o->last_ns ? e->end_ns : o->last_ns, UUID_PROCESS, TE_SLICE_END, NULL);
}

/* Frames and samples each on a sequence of their own: a frame or sample
 * comes when it has ended, after the intervals it spans, and the two may
 * overlap, while a sequence's timestamps must not go back. */
static void frame_slice(struct tl_output *o, bool sample, uint64_t ts, unsigned type,
                        const char *name)
{
	struct pb p, ev = { 0 };
	uint64_t *last = sample ? &o->sample_ns : &o->frame_ns;
	if (ts < *last)
		ts = *last;
	packet_on(&p, ts, sample ? SAMPLE_SEQUENCE_ID : FRAME_SEQUENCE_ID);
	pb_uint(&ev, TE_TYPE, type);
	pb_uint(&ev, TE_TRACK_UUID, sample ? UUID_SAMPLES : UUID_FRAMES);
	if (name)
		pb_string(&ev, TE_NAME, name);
	pb_message(&p, PKT_TRACK_EVENT, &ev);
	packet_end(o, &p);
	*last = ts;
}

static void perfetto_frame(struct tl_output *o, const struct tl_run *run,
                           const struct tl_frame *f)
{
	(void)run;
	char name[64];
	if (!(f->sample ? o->samples : o->frames)) {
		/* The sequence starts clear, with its track. */
		struct pb p, td = { 0 };
		packet_on(&p, 0, f->sample ? SAMPLE_SEQUENCE_ID : FRAME_SEQUENCE_ID);
		pb_uint(&p, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		pb_uint(&td, TD_UUID, f->sample ? UUID_SAMPLES : UUID_FRAMES);
		pb_uint(&td, TD_PARENT_UUID, UUID_PROCESS);
		pb_string(&td, TD_NAME, f->sample ? "GPA samples" : "frames");
		pb_string(&td, TD_DESCRIPTION,
		          f->sample ? "the workload's GPA samples, from GPA_BeginSample to "
		                      "GPA_EndSample (GL, GLES, OpenCL and plain contexts; on "
		                      "Vulkan the GPU's span, when the sample is read)"
		                    : "the workload's frames, from one OpenGPA_MarkFrame() to the "
		                      "next");
		pb_message(&p, PKT_TRACK_DESCRIPTOR, &td);
		packet_end(o, &p);
	}
	snprintf(name, sizeof name, "%s %u", f->sample ? "sample" : "frame", (unsigned)f->index);
	frame_slice(o, f->sample, f->begin_ns, TE_SLICE_BEGIN, name);
	frame_slice(o, f->sample, f->end_ns, TE_SLICE_END, NULL);
}

const struct tl_format tl_perfetto = {
	.name = "perfetto",
	.begin = perfetto_begin,
	.sample = perfetto_sample,
	.end = perfetto_end,
	.frame = perfetto_frame,
};
