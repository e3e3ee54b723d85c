#!/usr/bin/env python3
"""ansi2html: render `tmux capture-pane -e -p` output (SGR colours) as an
HTML page of a terminal, for a headless-browser screenshot."""
import html
import re
import sys

BASE = ["#1d1f21", "#cc6666", "#b5bd68", "#f0c674", "#81a2be", "#b294bb", "#8abeb7", "#c5c8c6",
        "#666666", "#d54e53", "#b9ca4a", "#e7c547", "#7aa6da", "#c397d8", "#70c0b1", "#eaeaea"]
FG, BG = "#c5c8c6", "#1d1f21"


def c256(n):
    if n < 16:
        return BASE[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


def render(text):
    st = {"fg": None, "bg": None, "bold": False, "rev": False, "ul": False}
    out = []
    for line in text.rstrip("\n").split("\n"):
        parts = re.split(r"(\x1b\[[0-9;:]*m)", line)
        row = []
        for p in parts:
            m = re.fullmatch(r"\x1b\[([0-9;:]*)m", p)
            if m:
                codes = [int(x) if x else 0 for x in re.split(r"[;:]", m.group(1))] or [0]
                i = 0
                while i < len(codes):
                    c = codes[i]
                    if c == 0:
                        st = {"fg": None, "bg": None, "bold": False, "rev": False, "ul": False}
                    elif c == 1:
                        st["bold"] = True
                    elif c == 4:
                        st["ul"] = True
                    elif c == 7:
                        st["rev"] = True
                    elif c == 22:
                        st["bold"] = False
                    elif c == 24:
                        st["ul"] = False
                    elif c == 27:
                        st["rev"] = False
                    elif 30 <= c <= 37:
                        st["fg"] = BASE[c - 30]
                    elif 90 <= c <= 97:
                        st["fg"] = BASE[c - 90 + 8]
                    elif 40 <= c <= 47:
                        st["bg"] = BASE[c - 40]
                    elif 100 <= c <= 107:
                        st["bg"] = BASE[c - 100 + 8]
                    elif c == 39:
                        st["fg"] = None
                    elif c == 49:
                        st["bg"] = None
                    elif c in (38, 48) and i + 1 < len(codes):
                        key = "fg" if c == 38 else "bg"
                        if codes[i + 1] == 5 and i + 2 < len(codes):
                            st[key] = c256(codes[i + 2])
                            i += 2
                        elif codes[i + 1] == 2 and i + 4 < len(codes):
                            st[key] = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5])
                            i += 4
                    i += 1
                continue
            if not p:
                continue
            fg, bg = st["fg"] or FG, st["bg"] or BG
            if st["rev"]:
                fg, bg = bg, fg
            style = "color:%s;background:%s" % (fg, bg)
            if st["bold"]:
                style += ";font-weight:bold"
            if st["ul"]:
                style += ";text-decoration:underline"
            row.append('<span style="%s">%s</span>' % (style, html.escape(p)))
        out.append("<div>%s</div>" % ("".join(row) or " "))
    body = "".join(out)
    # Each row is a block of exactly one line height, so cell backgrounds
    # meet without gaps.
    return ("<!doctype html><meta charset=utf-8><style>body{margin:0;background:%s}"
            ".t{margin:0;padding:8px;font:14px 'DejaVu Sans Mono',monospace;color:%s}"
            ".t div{white-space:pre;height:18px;line-height:18px}"
            ".t span{display:inline-block;height:18px;vertical-align:top}</style>"
            "<div class=t>%s</div>" % (BG, FG, body))


if __name__ == "__main__":
    sys.stdout.write(render(sys.stdin.read()))
