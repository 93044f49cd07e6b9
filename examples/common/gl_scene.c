/* SPDX-License-Identifier: MIT */
/* gl_scene.c — see gl_scene.h. */
#include "gl_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <EGL/eglext.h>
#include <GLES3/gl3.h>

struct gl_fns {
	GLuint prog, fbo, rb;
	GLint loop_at;
	void (*Clear)(GLbitfield);
	void (*ClearColor)(GLfloat, GLfloat, GLfloat, GLfloat);
	void (*DrawArrays)(GLenum, GLint, GLsizei);
	void (*Finish)(void);
	void (*Flush)(void);
	void (*Uniform1i)(GLint, GLint);
	void (*ReadPixels)(GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void *);
	void (*Viewport)(GLint, GLint, GLsizei, GLsizei);
	void (*DeleteProgram)(GLuint);
	void (*DeleteFramebuffers)(GLsizei, const GLuint *);
	void (*DeleteRenderbuffers)(GLsizei, const GLuint *);
	GLuint vao;
};

#define LOAD(fn, name) (*(void **)&(fn) = (void *)eglGetProcAddress(name))

/* GLSL ES 3.00 and GLSL 3.30 differ in their first lines only. */
static const char head_es[] = "#version 300 es\nprecision highp float;\n";
static const char head_gl[] = "#version 330 core\n";
static const char vs[] =
	"void main() {\n"
	"  vec2 p[3] = vec2[3](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));\n"
	"  gl_Position = vec4(p[gl_VertexID], 0.0, 1.0);\n"
	"}\n";
static const char fs[] =
	"uniform int loop_count;\n"
	"out vec4 color;\n"
	"void main() {\n"
	"  float x = gl_FragCoord.x * 0.001;\n"
	"  for (int i = 0; i < loop_count; i++) x = fract(x * 1.37 + 0.1);\n"
	"  color = vec4(x, 0.5, 0.25, 1.0);\n"
	"}\n";

static bool fail(struct gl_scene *s, const char *what)
{
	snprintf(s->error, sizeof(s->error), "%s (EGL error 0x%x)", what, eglGetError());
	return false;
}

static GLuint compile(struct gl_scene *s, GLenum type, const char *body)
{
	GLuint (*CreateShader)(GLenum);
	void (*ShaderSource)(GLuint, GLsizei, const GLchar *const *, const GLint *);
	void (*CompileShader)(GLuint);
	void (*GetShaderiv)(GLuint, GLenum, GLint *);
	void (*GetShaderInfoLog)(GLuint, GLsizei, GLsizei *, GLchar *);
	LOAD(CreateShader, "glCreateShader");
	LOAD(ShaderSource, "glShaderSource");
	LOAD(CompileShader, "glCompileShader");
	LOAD(GetShaderiv, "glGetShaderiv");
	LOAD(GetShaderInfoLog, "glGetShaderInfoLog");
	const char *src[2] = { s->es ? head_es : head_gl, body };
	GLuint sh = CreateShader(type);
	ShaderSource(sh, 2, src, NULL);
	CompileShader(sh);
	GLint ok = 0;
	GetShaderiv(sh, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char info[200] = "";
		GetShaderInfoLog(sh, sizeof(info), NULL, info);
		snprintf(s->error, sizeof(s->error), "shader: %s", info);
		return 0;
	}
	return sh;
}

bool scene_open(struct gl_scene *s, bool es)
{
	memset(s, 0, sizeof(*s));
	s->es = es;
	PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	if (!get_display)
		return fail(s, "no eglGetPlatformDisplayEXT");
	s->dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
	if (s->dpy == EGL_NO_DISPLAY || !eglInitialize(s->dpy, NULL, NULL))
		return fail(s, "no surfaceless EGL display (Mesa's libegl-mesa0)");
	if (!eglBindAPI(es ? EGL_OPENGL_ES_API : EGL_OPENGL_API))
		return fail(s, "eglBindAPI");
	const EGLint es_attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE };
	const EGLint gl_attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
		                   EGL_CONTEXT_OPENGL_PROFILE_MASK,
		                   EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT, EGL_NONE };
	s->ctx = eglCreateContext(s->dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, es ? es_attr : gl_attr);
	if (s->ctx == EGL_NO_CONTEXT)
		return fail(s, "eglCreateContext");
	if (!eglMakeCurrent(s->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, s->ctx))
		return fail(s, "eglMakeCurrent");

	struct gl_fns *f = calloc(1, sizeof(*f));
	if (!f)
		return fail(s, "out of memory");
	s->priv = f;
	void (*GenFramebuffers)(GLsizei, GLuint *), (*BindFramebuffer)(GLenum, GLuint);
	void (*GenRenderbuffers)(GLsizei, GLuint *), (*BindRenderbuffer)(GLenum, GLuint);
	void (*RenderbufferStorage)(GLenum, GLenum, GLsizei, GLsizei);
	void (*FramebufferRenderbuffer)(GLenum, GLenum, GLenum, GLuint);
	GLuint (*CreateProgram)(void);
	void (*AttachShader)(GLuint, GLuint), (*LinkProgram)(GLuint), (*UseProgram)(GLuint);
	void (*GetProgramiv)(GLuint, GLenum, GLint *);
	GLint (*GetUniformLocation)(GLuint, const GLchar *);
	void (*GenVertexArrays)(GLsizei, GLuint *), (*BindVertexArray)(GLuint);
	LOAD(GenFramebuffers, "glGenFramebuffers");
	LOAD(BindFramebuffer, "glBindFramebuffer");
	LOAD(GenRenderbuffers, "glGenRenderbuffers");
	LOAD(BindRenderbuffer, "glBindRenderbuffer");
	LOAD(RenderbufferStorage, "glRenderbufferStorage");
	LOAD(FramebufferRenderbuffer, "glFramebufferRenderbuffer");
	LOAD(CreateProgram, "glCreateProgram");
	LOAD(AttachShader, "glAttachShader");
	LOAD(LinkProgram, "glLinkProgram");
	LOAD(UseProgram, "glUseProgram");
	LOAD(GetProgramiv, "glGetProgramiv");
	LOAD(GetUniformLocation, "glGetUniformLocation");
	LOAD(GenVertexArrays, "glGenVertexArrays");
	LOAD(BindVertexArray, "glBindVertexArray");
	LOAD(f->Clear, "glClear");
	LOAD(f->ClearColor, "glClearColor");
	LOAD(f->DrawArrays, "glDrawArrays");
	LOAD(f->Finish, "glFinish");
	LOAD(f->Flush, "glFlush");
	LOAD(f->Uniform1i, "glUniform1i");
	LOAD(f->ReadPixels, "glReadPixels");
	LOAD(f->Viewport, "glViewport");
	LOAD(f->DeleteProgram, "glDeleteProgram");
	LOAD(f->DeleteFramebuffers, "glDeleteFramebuffers");
	LOAD(f->DeleteRenderbuffers, "glDeleteRenderbuffers");
	if (!GenFramebuffers || !GenVertexArrays || !f->DrawArrays || !f->ReadPixels)
		return fail(s, "GL entry points missing");
	GenFramebuffers(1, &f->fbo);
	BindFramebuffer(GL_FRAMEBUFFER, f->fbo);
	GenRenderbuffers(1, &f->rb);
	BindRenderbuffer(GL_RENDERBUFFER, f->rb);
	RenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 256, 256);
	FramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, f->rb);
	f->Viewport(0, 0, 256, 256);
	GenVertexArrays(1, &f->vao);
	BindVertexArray(f->vao);
	GLuint v = compile(s, GL_VERTEX_SHADER, vs);
	GLuint frag = v ? compile(s, GL_FRAGMENT_SHADER, fs) : 0;
	if (!v || !frag)
		return false;
	f->prog = CreateProgram();
	AttachShader(f->prog, v);
	AttachShader(f->prog, frag);
	LinkProgram(f->prog);
	GLint ok = 0;
	GetProgramiv(f->prog, GL_LINK_STATUS, &ok);
	if (!ok)
		return fail(s, "program link");
	UseProgram(f->prog);
	f->loop_at = GetUniformLocation(f->prog, "loop_count");
	f->ClearColor(0, 0, 0, 1);
	return true;
}

EGLContext scene_other_context(struct gl_scene *s)
{
	const EGLint es_attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE };
	return eglCreateContext(s->dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT,
	                        s->es ? es_attr : NULL);
}

bool scene_make_current(struct gl_scene *s, EGLContext ctx)
{
	return eglMakeCurrent(s->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx);
}

void scene_draw(struct gl_scene *s, unsigned draws, int loop)
{
	struct gl_fns *f = s->priv;
	f->Uniform1i(f->loop_at, loop);
	for (unsigned i = 0; i < draws; i++)
		f->DrawArrays(GL_TRIANGLES, 0, 3);
}

void scene_flush(struct gl_scene *s)
{
	((struct gl_fns *)s->priv)->Flush();
}

void scene_finish(struct gl_scene *s)
{
	((struct gl_fns *)s->priv)->Finish();
}

unsigned scene_read_pixel(struct gl_scene *s)
{
	struct gl_fns *f = s->priv;
	unsigned char px[4] = { 0 };
	f->ReadPixels(0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
	return px[0] | px[1] << 8 | px[2] << 16 | (unsigned)px[3] << 24;
}

void scene_close(struct gl_scene *s)
{
	struct gl_fns *f = s->priv;
	if (s->dpy != EGL_NO_DISPLAY && s->ctx != EGL_NO_CONTEXT &&
	    eglMakeCurrent(s->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, s->ctx) && f) {
		f->DeleteProgram(f->prog);
		f->DeleteFramebuffers(1, &f->fbo);
		f->DeleteRenderbuffers(1, &f->rb);
	}
	free(f);
	if (s->dpy != EGL_NO_DISPLAY) {
		eglMakeCurrent(s->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		if (s->ctx != EGL_NO_CONTEXT)
			eglDestroyContext(s->dpy, s->ctx);
		eglTerminate(s->dpy);
	}
	memset(s, 0, sizeof(*s));
}
