#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mangen.py -- the opengpa command's help, option tables and man pages, from
one source: the page files in docs/man/*.txt (docs/man/README.md describes
their format).

    mangen.py c OUT.h OUT.c PAGE...           option tables + --help text (C)
    mangen.py man OUTDIR VERSION PAGE...      roff man pages, one per PAGE
    mangen.py text PAGE                       a page as plain text (for review)
"""
import os
import re
import sys


class PageError(Exception):
    pass


# ---- reading pages ------------------------------------------------------

def split_names(term):
    """"-e, --event=A[,B...]" -> ["-e", "--event=A[,B...]"]: commas before a dash."""
    return [n.strip() for n in re.split(r",\s+(?=-)", term)]


class Option:
    def __init__(self, term, key, line):
        self.term = term
        self.key = key
        self.shorts = []
        self.longs = []
        self.arg = None
        names = split_names(term)
        for i, n in enumerate(names):
            last = i == len(names) - 1
            m = re.fullmatch(r"--([A-Za-z0-9][A-Za-z0-9_-]*)(?:=(\S+))?", n)
            if m:
                self.longs.append(m.group(1))
                if m.group(2):
                    if not last:
                        raise PageError("line %d: only the last name of %s takes =ARG" % (line, term))
                    self.arg = m.group(2)
                continue
            m = re.fullmatch(r"-([A-Za-z0-9])(?: (\S+))?", n)
            if m:
                self.shorts.append(m.group(1))
                if m.group(2):
                    if not last:
                        raise PageError("line %d: only the last name of %s takes ARG" % (line, term))
                    self.arg = m.group(2)
                continue
            raise PageError("line %d: cannot read option name %r (write -x, --long=ARG)" % (line, n))


class Page:
    def __init__(self, path):
        self.path = path
        self.meta = {}
        self.blocks = []  # (kind, ...) tuples
        self.options = []
        self.dir = os.path.dirname(path)
        self.read(path, top=True)
        for k in ("name", "section", "summary"):
            if k not in self.meta:
                raise PageError("%s: no @%s line" % (path, k))

    def read(self, path, top):
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        section = None
        i = 0
        para = []

        def flush():
            if para:
                self.blocks.append(("para", " ".join(para)))
                para.clear()

        def indented(s):
            return s.startswith("\t") or s.startswith("        ")

        while i < len(lines):
            line = lines[i].rstrip()
            where = "%s:%d" % (path, i + 1)
            if line.startswith("%"):
                i += 1
                continue
            if line.startswith("@"):
                flush()
                word, _, rest = line[1:].partition(" ")
                rest = rest.strip()
                if word in ("name", "section", "summary", "command"):
                    if not top:
                        raise PageError("%s: @%s only in a page, not an included file" % (where, word))
                    self.meta[word] = rest
                elif word == "include":
                    self.read(os.path.join(os.path.dirname(path), rest), top=False)
                elif word == "declarations":
                    self.blocks.extend(declarations(self.source_file(rest)))
                elif word == "xmacro":
                    self.blocks.append(("para", ", ".join(
                        "`%s`" % n for n in xmacro_names(self.source_file(rest)))))
                else:
                    raise PageError("%s: unknown directive @%s" % (where, word))
                i += 1
                continue
            if line.startswith("=== "):
                flush()
                self.blocks.append(("subsection", line[4:].strip(), section))
                i += 1
                continue
            if line.startswith("== "):
                flush()
                section = line[3:].strip()
                self.blocks.append(("section", section))
                i += 1
                continue
            if not line.strip():
                flush()
                i += 1
                continue
            if line.startswith("    ") and not indented(line) and not para:
                verb = []
                while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                    verb.append(lines[i][4:].rstrip())
                    i += 1
                while verb and not verb[-1]:
                    verb.pop()
                self.blocks.append(("verbatim", verb, section))
                continue
            if line.startswith("* ") and not para:
                text = [line[2:].strip()]
                i += 1
                while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                    text.append(lines[i].strip())
                    i += 1
                self.blocks.append(("bullet", " ".join(text)))
                continue
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if not para and not line[0].isspace() and indented(nxt) and nxt.strip():
                flush()
                term = line.strip()
                key = None
                m = re.fullmatch(r"(.*?)\s*\{([A-Z][A-Z0-9_]*)\}", term)
                if m:
                    term, key = m.group(1), m.group(2)
                i += 1
                body = []
                cur = []
                while i < len(lines):
                    l = lines[i]
                    if indented(l) and l.strip():
                        cur.append(l.strip())
                        i += 1
                    elif not l.strip() and i + 1 < len(lines) and indented(lines[i + 1]) and lines[i + 1].strip():
                        if cur:
                            body.append(" ".join(cur))
                            cur = []
                        i += 1
                    else:
                        break
                if cur:
                    body.append(" ".join(cur))
                opt = None
                if term.startswith("-") and "command" in self.meta:
                    if not key:
                        raise PageError("%s: option %s has no {KEY} for the parser" % (where, term))
                    try:
                        opt = Option(term, key, i)
                    except PageError as e:
                        raise PageError("%s: %s" % (where, e))
                    self.options.append(opt)
                elif key:
                    raise PageError("%s: {%s} outside an option of a @command page" % (where, key))
                self.blocks.append(("term", term, body, opt, section))
                continue
            para.append(line.strip())
            i += 1
        flush()

    def source_file(self, rel):
        # Paths in directives are relative to the source root: docs/man/../..
        return os.path.normpath(os.path.join(self.dir, "..", "..", rel))


def declarations(path):
    """Every GPALIB_DECL declaration of a header with the block comment above
    it (and the #define lines between them, shown as they are).  A comment
    "---- Title ----" followed by text starts a subsection."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    comment, defines = None, []
    i, count, found = 0, 0, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("/*"):
            text = []
            while True:
                text.append(lines[i])
                if "*/" in lines[i] or i + 1 >= len(lines):
                    break
                i += 1
            body = " ".join(l.strip().lstrip("/").lstrip("*").rstrip("/").rstrip("*").strip()
                            for l in text)
            body = re.sub(r"\s+", " ", body).strip()
            m = re.match(r"-{3,} (.+?) -{3,}\s*(.*)", body)
            if m:
                blocks.append(("subsection", m.group(1), "EXTENSIONS"))
                if m.group(2):
                    blocks.append(("para", m.group(2)))
                comment = None
            else:
                comment = body
            defines = []
        elif line.startswith("#define") and comment is not None:
            defines.append(line.rstrip())
            # A continued line, or a trailing comment that goes on.
            open_comment = line.rfind("/*") > line.rfind("*/")
            while i + 1 < len(lines) and (lines[i].rstrip().endswith("\\") or open_comment):
                i += 1
                defines.append(lines[i].rstrip())
                if "*/" in lines[i]:
                    open_comment = False
        elif line.startswith("GPALIB_DECL"):
            protos = []
            while i < len(lines) and lines[i].startswith("GPALIB_DECL"):
                decl = [lines[i]]
                while ";" not in lines[i]:
                    i += 1
                    decl.append(lines[i])
                protos.append(re.sub(r"\s+", " ", " ".join(decl).replace("GPALIB_DECL", "")).strip())
                i += 1
            count += len(protos)
            if comment:
                found += len(protos)
                blocks.append(("protos", protos, comment, defines))
            comment, defines = None, []
            continue
        elif line.strip():
            comment, defines = None, []
        i += 1
    if count != found or not count:
        raise PageError("%s: %d of %d GPALIB_DECL declarations have no comment right above "
                        "them; every extension is documented" % (path, count - found, count))
    return blocks


def xmacro_names(path):
    with open(path, encoding="utf-8") as f:
        return re.findall(r"^GPA_FUNCTION_PREFIX\((\w+)\)", f.read(), re.M)


# ---- inline markup ----------------------------------------------------------

INLINE = re.compile(r"`([^`]+)`|\*([A-Za-z0-9][^*]*?)\*")


def plain(text):
    return INLINE.sub(lambda m: m.group(1) or m.group(2), text)


def roff_escape(text):
    text = text.replace("\\", "\\e")
    return text


def roff_inline(text):
    out = []
    pos = 0
    for m in INLINE.finditer(text):
        out.append(roff_escape(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append("\\fB" + roff_escape(m.group(1)).replace("-", "\\-") + "\\fR")
        else:
            out.append("\\fI" + roff_escape(m.group(2)) + "\\fR")
        pos = m.end()
    out.append(roff_escape(text[pos:]))
    s = "".join(out)
    return s


def roff_line(text):
    s = roff_inline(text)
    if s.startswith(".") or s.startswith("'"):
        s = "\\&" + s
    return s


def roff_term(term):
    """An option or term line: names bold, metavariables italic."""
    if not term.startswith("-"):
        return roff_line(term)
    parts = []
    for n in split_names(term):
        m = re.fullmatch(r"(-{1,2}[A-Za-z0-9_-]+)(?:([= ])(\S+))?", n)
        s = "\\fB" + m.group(1).replace("-", "\\-") + "\\fR"
        if m.group(3):
            s += m.group(2) + "\\fI" + roff_escape(m.group(3)) + "\\fR"
        parts.append(s)
    return ", ".join(parts)


def roff_verbatim(lines):
    out = [".PP", ".RS 4", ".nf"]
    for l in lines:
        s = roff_escape(l).replace("-", "\\-")
        if s.startswith(".") or s.startswith("'"):
            s = "\\&" + s
        out.append(s)
    out += [".fi", ".RE"]
    return out


def man_page(page, version):
    name = page.meta["name"]
    sec = page.meta["section"]
    out = ['.\\" SPDX-License-Identifier: MIT',
           '.\\" Generated by tools/mangen/mangen.py from docs/man/%s; edit that file.'
           % os.path.basename(page.path),
           '.TH "%s" "%s" "" "opengpa %s" "opengpa manual"' % (name.upper(), sec, version),
           ".SH NAME",
           "%s \\- %s" % (name.replace("-", "\\-"), roff_escape(page.meta["summary"]))]
    for b in page.blocks:
        kind = b[0]
        if kind == "section":
            out.append('.SH "%s"' % b[1].upper())
        elif kind == "subsection":
            out.append('.SS "%s"' % b[1])
        elif kind == "para":
            out.append(".PP")
            out.append(roff_line(b[1]))
        elif kind == "bullet":
            out.append(".IP \\(bu 2")
            out.append(roff_line(b[1]))
        elif kind == "verbatim":
            out += roff_verbatim(b[1])
        elif kind == "protos":
            out.append(".PP")
            for p in b[1]:
                out += ["\\fB" + roff_escape(p) + "\\fR", ".br"]
            out += [".RS 4", roff_line(b[2])]
            if b[3]:
                out += roff_verbatim(b[3])
            out += [".RE"]
        elif kind == "term":
            out.append(".TP")
            out.append(roff_term(b[1]))
            for j, para in enumerate(b[2]):
                if j:
                    out.append(".IP")
                out.append(roff_line(para))
    return "\n".join(out) + "\n"


# ---- plain text: --help -------------------------------------------------------

def wrap(text, width, indent):
    words = text.split()
    lines, cur = [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width - indent:
            lines.append(cur)
            cur = w
        else:
            cur = cur + " " + w if cur else w
    if cur:
        lines.append(cur)
    return lines


def first_sentence(text):
    m = re.search(r"(?<![A-Za-z]\.[a-z])(?<!e\.g)(?<!i\.e)\.(\s|$)", text)
    return text[:m.start() + 1] if m else text


def help_text(page):
    """What `opengpa CMD --help` prints: synopsis, summary, options, where
    the rest is."""
    out = []
    synopsis = [b for b in page.blocks if b[0] == "verbatim" and b[2] == "SYNOPSIS"]
    if not synopsis:
        raise PageError("%s: no verbatim SYNOPSIS" % page.path)
    for j, l in enumerate(synopsis[0][1]):
        out.append(("usage: " if j == 0 else "       ") + l)
    s = page.meta["summary"]
    out += ["", s[0].upper() + s[1:] + "."]
    heading = None  # a section's heading waits for its first term
    for b in page.blocks:
        if b[0] == "subsection" and b[2] in ("OPTIONS", "COMMANDS"):
            out += ["", b[1] + ":"]
            heading = None
        elif b[0] == "section" and b[1] in ("OPTIONS", "COMMANDS"):
            heading = b[1].capitalize() + ":"
        elif b[0] == "term" and b[4] in ("OPTIONS", "COMMANDS"):
            if heading:
                out += ["", heading]
                heading = None
            term = plain(b[1])
            brief = first_sentence(plain(b[2][0])) if b[2] else ""
            col = 26
            body = wrap(brief, 79, col)
            if len(term) + 2 < col - 1:
                out.append(("  " + term).ljust(col) + (body[0] if body else ""))
                body = body[1:]
            else:
                out.append("  " + term)
            out += [" " * col + l for l in body]
    out += ["", "The manual page %s(%s) (`man %s`) has the whole story." %
            (page.meta["name"], page.meta["section"], page.meta["name"])]
    return "\n".join(out) + "\n"


def text_page(page):
    out = [page.meta["name"] + " - " + page.meta["summary"]]
    for b in page.blocks:
        if b[0] == "section":
            out += ["", b[1]]
        elif b[0] == "subsection":
            out += ["", "  " + b[1]]
        elif b[0] in ("para", "bullet"):
            out += [""] + ["    " + l for l in wrap(plain(b[1]), 79, 4)]
        elif b[0] == "verbatim":
            out += [""] + ["        " + l for l in b[1]]
        elif b[0] == "protos":
            out += [""] + ["    " + p for p in b[1]]
            out += ["        " + l for l in wrap(plain(b[2]), 79, 8)]
            out += ["        " + l for l in b[3]]
        elif b[0] == "term":
            out += ["", "    " + plain(b[1])]
            for para in b[2]:
                out += ["        " + l for l in wrap(plain(para), 79, 8)] + [""]
    return "\n".join(out) + "\n"


# ---- C: option tables ---------------------------------------------------------

def c_string(s):
    """A C string literal; a newline also breaks the literal, for reading."""
    out = ['"']
    for ch in s:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append('\\n"\n\t"')
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.extend("\\%03o" % b for b in ch.encode("utf-8"))
    out.append('"')
    return "".join(out)


def c_files(pages, header, source):
    h = ["/* SPDX-License-Identifier: MIT */",
         "/* Generated by tools/mangen/mangen.py from docs/man/opengpa-CMD.1.txt: edit those. */",
         "#ifndef OPENGPA_CLI_OPTIONS_GENERATED_H",
         "#define OPENGPA_CLI_OPTIONS_GENERATED_H",
         "",
         '#include "options.h"',
         ""]
    c = ["/* SPDX-License-Identifier: MIT */",
         "/* Generated by tools/mangen/mangen.py from docs/man/opengpa-CMD.1.txt: edit those. */",
         '#include "cli_options.h"',
         ""]
    for page in pages:
        cmd = page.meta.get("command")
        if cmd is None:
            continue
        ident = re.sub(r"\W", "_", cmd)
        prefix = ident.upper() + "_OPT_"
        keys = []
        for o in page.options:
            if o.key not in keys:
                keys.append(o.key)
        h.append("/* The options of `%s` (docs/man/%s). */" % (page.meta["name"].replace("-", " "),
                                                           os.path.basename(page.path)))
        h.append("enum %s_opt {" % ident)
        for k in keys:
            h.append("\t%s%s," % (prefix, k))
        h.append("};")
        h.append("#define %sCOUNT %d" % (prefix, len(keys)))
        h.append("extern const struct cli_command cli_command_%s;" % ident)
        h.append("")
        seen = set()
        for n, o in enumerate(page.options):
            for tag in ["-" + x for x in o.shorts] + ["--" + x for x in o.longs]:
                if tag in seen:
                    raise PageError("%s: option %s documented twice" % (page.path, tag))
                seen.add(tag)
            c.append("static const char *const %s_longs_%d[] = { %s };" % (
                ident, n, ", ".join([c_string(l) for l in o.longs] + ["NULL"])))
        c.append("")
        c.append("static const struct cli_option %s_options[] = {" % ident)
        for n, o in enumerate(page.options):
            c.append("\t{ %s, %s_longs_%d, %s, %s%s, %s }," % (
                c_string("".join(o.shorts)), ident, n,
                c_string(o.arg) if o.arg else "NULL",
                prefix, o.key, c_string(plain(o.term))))
        c.append("};")
        c.append("")
        c.append("const struct cli_command cli_command_%s = {" % ident)
        c.append("\t.name = %s," % c_string(cmd))
        c.append("\t.options = %s_options," % ident)
        c.append("\t.noptions = sizeof(%s_options) / sizeof(%s_options[0])," % (ident, ident))
        c.append("\t.help = %s," % c_string(help_text(page)))
        c.append("};")
        c.append("")
    h.append("#endif")
    write(header, "\n".join(h) + "\n")
    write(source, "\n".join(c) + "\n")


def write(path, text):
    # Leave an unchanged file alone, so nothing that includes it rebuilds.
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    try:
        if len(argv) >= 4 and argv[1] == "c":
            c_files([Page(p) for p in argv[4:]], argv[2], argv[3])
        elif len(argv) >= 4 and argv[1] == "man":
            for p in argv[4:]:
                page = Page(p)
                write(os.path.join(argv[2], "%s.%s" % (page.meta["name"], page.meta["section"])),
                      man_page(page, argv[3]))
        elif len(argv) == 3 and argv[1] == "text":
            sys.stdout.write(text_page(Page(argv[2])))
        else:
            sys.stderr.write(__doc__)
            return 2
    except (PageError, OSError) as e:
        sys.stderr.write("mangen: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
