/* SPDX-License-Identifier: MIT */
/*
 * gl_scene.h — a headless GL or GLES renderer on Mesa's EGL without a
 * display (EGL_PLATFORM_SURFACELESS_MESA): one context, a 256x256
 * framebuffer object, and a full-screen triangle whose fragment shader
 * loops a given number of times, so a draw call is a known amount of GPU
 * work.  GL entry points come from eglGetProcAddress, as engines load them
 * (and as interposers, the virtual Mali's draw-call clock among them, see
 * them).  Used by examples/gl-frame-timing, the API-context tests and
 * the synchronisation benchmark.
 */
#ifndef OPENGPA_EXAMPLES_GL_SCENE_H
#define OPENGPA_EXAMPLES_GL_SCENE_H

#include <stdbool.h>

#include <EGL/egl.h>

struct gl_scene {
	EGLDisplay dpy;
	EGLContext ctx;
	bool es;
	char error[256]; /* why scene_open failed */
	void *priv;
};

/* A GLES 3 context (es) or a desktop GL 3.3 compatibility one, current on
 * this thread with the framebuffer bound.  False with s->error set. */
bool scene_open(struct gl_scene *s, bool es);
/* Another context on the same display, not current. */
EGLContext scene_other_context(struct gl_scene *s);
bool scene_make_current(struct gl_scene *s, EGLContext ctx);
/* `draws` draw calls of the triangle, each running the shader's loop
 * `loop` times per pixel. */
void scene_draw(struct gl_scene *s, unsigned draws, int loop);
void scene_flush(struct gl_scene *s);
void scene_finish(struct gl_scene *s);
/* The first pixel, read back (a sync point, like a real readback). */
unsigned scene_read_pixel(struct gl_scene *s);
void scene_close(struct gl_scene *s);

#endif
