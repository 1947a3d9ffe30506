#!/usr/bin/env python3
"""Render an ANSI terminal capture (`tmux capture-pane -e -p`) to a PNG.

requirements: Pillow==13.0.0

Usage:
    python3 assets/render_ansi.py CAPTURE.ansi OUT.png [--cols 160] [--rows 45] [--scale 1]

Pillow is imported from `.cache/shots` (under the repository root) and installed there with
`pip install --target .cache/shots Pillow==<the version above>` when missing. The text font is
DejaVu Sans Mono (Debian's `fonts-dejavu-core`); `assets/make-screenshots.sh` installs it.

What it understands: SGR sequences (`ESC [ ... m`, `;` or `:` separated) for bold, dim,
italic, underline, reverse, strike-through and their resets; the 16 ANSI colours, the 256-colour
palette and 24-bit truecolor for foreground and background. Other escape sequences are skipped.
Characters whose East Asian Width is W or F take two cells, combining marks join the previous
cell. Box-drawing lines and block elements are drawn as shapes, so borders meet exactly at cell
edges. A glyph missing from DejaVu Sans Mono comes from DejaVu Sans, then from Symbola
(fonts-symbola: the badges ⧖ and ⑂), then from a CJK font (fonts-noto-cjk) when one is
installed; failing all of them, a placeholder box is drawn.
"""

import argparse
import glob
import importlib
import os
import re
import struct
import subprocess
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CACHE = os.path.join(ROOT, ".cache", "shots")
PILLOW = re.search(r"requirements: (Pillow==\S+)", __doc__).group(1)


def import_pillow():
    sys.path.insert(0, CACHE)
    try:
        import PIL  # noqa: F401
    except ImportError:
        subprocess.check_call(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--root-user-action=ignore",
             "--target", CACHE, PILLOW]
        )
        importlib.invalidate_caches()
    global Image, ImageDraw, ImageFont
    from PIL import Image, ImageDraw, ImageFont  # noqa: E402


# --- colours -----------------------------------------------------------------------------------

DEFAULT_FG = (0xDC, 0xDF, 0xE4)
DEFAULT_BG = (0x1A, 0x1C, 0x22)
# A dark theme's 16 colours (indices 0-15), chosen for contrast on DEFAULT_BG.
ANSI16 = [
    (0x2E, 0x32, 0x3A), (0xE0, 0x6C, 0x75), (0x98, 0xC3, 0x79), (0xE5, 0xC0, 0x7B),
    (0x61, 0xAF, 0xEF), (0xC6, 0x78, 0xDD), (0x56, 0xB6, 0xC2), (0xAB, 0xB2, 0xBF),
    (0x4B, 0x52, 0x63), (0xFF, 0x7A, 0x85), (0xB5, 0xE0, 0x8F), (0xF5, 0xD0, 0x8B),
    (0x7C, 0xC4, 0xFF), (0xDB, 0x92, 0xF0), (0x6F, 0xD4, 0xE0), (0xF4, 0xF6, 0xF8),
]


def xterm256(n):
    if n < 16:
        return ANSI16[n]
    if n < 232:
        n -= 16
        levels = [0, 95, 135, 175, 215, 255]
        return (levels[n // 36], levels[(n // 6) % 6], levels[n % 6])
    v = 8 + 10 * (n - 232)
    return (v, v, v)


def blend(a, b, t):
    """a*(1-t) + b*t"""
    return tuple(round(x * (1 - t) + y * t) for x, y in zip(a, b))


# --- parsing -----------------------------------------------------------------------------------

class Style:
    __slots__ = ("fg", "bg", "bold", "dim", "italic", "underline", "reverse", "strike")

    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None  # None: default, else an (r, g, b) tuple
        self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = self.strike = False

    def copy(self):
        s = Style()
        for k in Style.__slots__:
            setattr(s, k, getattr(self, k))
        return s

    def key(self):
        return tuple(getattr(self, k) for k in Style.__slots__)


class Cell:
    __slots__ = ("text", "style", "width")

    def __init__(self, text, style, width):
        self.text = text
        self.style = style
        self.width = width  # 1, 2, or 0 for the right half of a wide character


def apply_sgr(style, params):
    """Apply one SGR parameter string (the part between `ESC [` and `m`)."""
    # Split on ';' into groups; a group may carry ':' sub-parameters (38:2::r:g:b, 4:3).
    groups = [g.split(":") for g in params.split(";")] if params else [["0"]]
    i = 0

    def num(s, default=0):
        try:
            return int(s) if s != "" else default
        except ValueError:
            return default

    def colour(rest_sub, flat_iter_index):
        """Parse an extended colour, either from ':' sub-params or from following ';' groups.
        Returns (rgb or None, groups consumed after the current one)."""
        if rest_sub:  # colon form: 38:5:n  or 38:2:[cs]:r:g:b
            mode = num(rest_sub[0])
            if mode == 5 and len(rest_sub) >= 2:
                return xterm256(num(rest_sub[1]) & 255), 0
            if mode == 2:
                vals = rest_sub[1:]
                if len(vals) >= 4:
                    vals = vals[1:4]
                vals = [num(v) & 255 for v in vals[:3]] + [0] * (3 - len(vals[:3]))
                return tuple(vals), 0
            return None, 0
        # semicolon form: 38;5;n or 38;2;r;g;b
        rest = [num(g[0]) for g in groups[flat_iter_index + 1:]]
        if rest and rest[0] == 5 and len(rest) >= 2:
            return xterm256(rest[1] & 255), 2
        if rest and rest[0] == 2 and len(rest) >= 4:
            return (rest[1] & 255, rest[2] & 255, rest[3] & 255), 4
        return None, len(rest[:1])

    while i < len(groups):
        g = groups[i]
        p = num(g[0])
        sub = g[1:]
        if p == 0:
            style.reset()
        elif p == 1:
            style.bold = True
        elif p == 2:
            style.dim = True
        elif p == 3:
            style.italic = True
        elif p == 4:
            style.underline = not (sub and num(sub[0]) == 0)
        elif p == 7:
            style.reverse = True
        elif p == 9:
            style.strike = True
        elif p == 21:
            style.underline = True  # double underline, drawn single
        elif p == 22:
            style.bold = style.dim = False
        elif p == 23:
            style.italic = False
        elif p == 24:
            style.underline = False
        elif p == 27:
            style.reverse = False
        elif p == 29:
            style.strike = False
        elif 30 <= p <= 37:
            style.fg = ANSI16[p - 30]
        elif p == 38:
            c, used = colour(sub, i)
            style.fg = c if c is not None else style.fg
            i += used
        elif p == 39:
            style.fg = None
        elif 40 <= p <= 47:
            style.bg = ANSI16[p - 40]
        elif p == 48:
            c, used = colour(sub, i)
            style.bg = c if c is not None else style.bg
            i += used
        elif p == 49:
            style.bg = None
        elif 90 <= p <= 97:
            style.fg = ANSI16[p - 90 + 8]
        elif 100 <= p <= 107:
            style.bg = ANSI16[p - 100 + 8]
        # anything else (blink, overline, underline colour 58/59, fonts) is ignored
        i += 1


ESCAPE = re.compile(
    r"\x1b\[([0-9;:?<=>]*)([ -/]*)([@-~])"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC (hyperlinks, titles)
    r"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC
    r"|\x1b[@-Z\\-_]"  # other two-byte escapes
)


def char_width(ch):
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def parse(text, cols, rows):
    """Returns rows x cols cells. SGR state carries across lines, as in a terminal; tmux trims
    trailing default spaces, and cells past the end of a line stay blank."""
    style = Style()
    grid = [[Cell(" ", Style(), 1) for _ in range(cols)] for _ in range(rows)]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for y, line in enumerate(lines[:rows]):
        x = 0
        pos = 0
        for m in ESCAPE.finditer(line):
            x = put_text(grid[y], x, line[pos:m.start()], style, cols)
            params, inter, final = m.group(1), m.group(2), m.group(3)
            if final == "m" and params is not None and not inter \
                    and not (params and params[0] in "?<=>"):
                style = style.copy()  # cells already placed keep the old one
                apply_sgr(style, params)
            pos = m.end()
        put_text(grid[y], x, line[pos:], style, cols)
    return grid


def put_text(row, x, s, style, cols):
    for ch in s:
        if ch == "\r" or ch == "\x00":
            continue
        if ch == "\t":
            nxt = min(cols, (x // 8 + 1) * 8)
            while x < nxt:
                row[x] = Cell(" ", style, 1)
                x += 1
            continue
        if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0:
            continue
        w = char_width(ch)
        if w == 0:
            # joins the previous cell (combining marks, ZWJ, variation selectors)
            for back in range(x - 1, -1, -1):
                if row[back].width != 0:
                    row[back].text += ch
                    break
            continue
        if x + w > cols:
            break
        row[x] = Cell(ch, style, w)
        if w == 2:
            row[x + 1] = Cell("", style, 0)
        x += w
    return x


# --- fonts -------------------------------------------------------------------------------------

def cmap_codepoints(path, index=0):
    """The set of code points a TrueType/OpenType font (or collection member) maps to a glyph."""
    with open(path, "rb") as f:
        data = f.read()
    base = 0
    if data[:4] == b"ttcf":
        base = struct.unpack_from(">I", data, 12 + 4 * index)[0]
    num_tables = struct.unpack_from(">H", data, base + 4)[0]
    cmap = None
    for t in range(num_tables):
        tag, _, off, _ = struct.unpack_from(">4sIII", data, base + 12 + 16 * t)
        if tag == b"cmap":
            cmap = off
    if cmap is None:
        return set()
    n = struct.unpack_from(">H", data, cmap + 2)[0]
    subtables = {}
    for r in range(n):
        pid, eid, off = struct.unpack_from(">HHI", data, cmap + 4 + 8 * r)
        subtables[(pid, eid)] = cmap + off
    out = set()
    for key in [(3, 10), (0, 4), (0, 6), (3, 1), (0, 3), (0, 1), (0, 0)]:
        if key not in subtables:
            continue
        st = subtables[key]
        fmt = struct.unpack_from(">H", data, st)[0]
        if fmt == 12:
            groups = struct.unpack_from(">I", data, st + 12)[0]
            for g in range(groups):
                start, end, _ = struct.unpack_from(">III", data, st + 16 + 12 * g)
                out.update(range(start, end + 1))
            return out
        if fmt == 4:
            seg2 = struct.unpack_from(">H", data, st + 6)[0]
            seg = seg2 // 2
            ends = struct.unpack_from(">%dH" % seg, data, st + 14)
            starts = struct.unpack_from(">%dH" % seg, data, st + 16 + seg2)
            deltas = struct.unpack_from(">%dh" % seg, data, st + 16 + 2 * seg2)
            ro_base = st + 16 + 3 * seg2
            ros = struct.unpack_from(">%dH" % seg, data, ro_base)
            for s in range(seg):
                for c in range(starts[s], ends[s] + 1):
                    if c == 0xFFFF:
                        continue
                    if ros[s] == 0:
                        gid = (c + deltas[s]) & 0xFFFF
                    else:
                        at = ro_base + 2 * s + ros[s] + 2 * (c - starts[s])
                        gid = struct.unpack_from(">H", data, at)[0]
                        if gid:
                            gid = (gid + deltas[s]) & 0xFFFF
                    if gid:
                        out.add(c)
            return out
    return out


DEJAVU = "/usr/share/fonts/truetype/dejavu"
SYMBOL_GLOBS = [
    "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
    "/usr/share/fonts/**/Symbola*.tt[fc]",
]
CJK_GLOBS = [
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK*.ttc",
    "/usr/share/fonts/truetype/noto/NotoSansCJK*.ttc",
    "/usr/share/fonts/**/*CJK*.tt[cf]",
    "/usr/share/fonts/**/*CJK*.otf",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
]


class Fonts:
    def __init__(self, size):
        self.size = size
        reg = os.path.join(DEJAVU, "DejaVuSansMono.ttf")
        if not os.path.exists(reg):
            sys.exit(f"render_ansi: {reg} is missing (apt-get install fonts-dejavu-core)")
        bold = os.path.join(DEJAVU, "DejaVuSansMono-Bold.ttf")
        bold = bold if os.path.exists(bold) else reg
        # (regular path, bold path, is monospace); the first that has the character wins.
        chain = [(reg, bold, True)]
        sans = os.path.join(DEJAVU, "DejaVuSans.ttf")
        if os.path.exists(sans):
            sb = os.path.join(DEJAVU, "DejaVuSans-Bold.ttf")
            chain.append((sans, sb if os.path.exists(sb) else sans, False))
        for pattern in SYMBOL_GLOBS:
            hits = sorted(glob.glob(pattern, recursive=True))
            if hits:
                chain.append((hits[0], hits[0], False))
                break
        for pattern in CJK_GLOBS:
            hits = sorted(glob.glob(pattern, recursive=True))
            if hits:
                chain.append((hits[0], hits[0], False))
                break
        self.chain = chain
        self.coverage = {}
        self.cache = {}
        self.fits = {}
        main = self.font(reg, size)
        self.ascent, self.descent = main.getmetrics()
        self.advance = main.getlength("M")

    def font(self, path, size):
        k = (path, size)
        if k not in self.cache:
            self.cache[k] = ImageFont.truetype(path, size)
        return self.cache[k]

    def fitted(self, path, text, width):
        k = (path, text, width)
        if k not in self.fits:
            size = round(self.size * 1.25)
            while True:
                font = self.font(path, size)
                left, _, right, _ = font.getbbox(text, anchor="ls")
                if right - left <= width or size <= self.size * 0.6:
                    break
                size -= 1
            self.fits[k] = (font, size)
        return self.fits[k]

    def covers(self, path, ch):
        if path not in self.coverage:
            self.coverage[path] = cmap_codepoints(path)
        return all(ord(c) in self.coverage[path] for c in ch)

    def pick(self, ch, bold):
        """(font path, monospace) for a cell's text, or None when no font has it."""
        for reg, b, mono in self.chain:
            if self.covers(reg, ch[0]):
                return (b if bold else reg), mono
        return None


# --- drawing -----------------------------------------------------------------------------------

WEIGHTS = {"LIGHT": 1, "SINGLE": 1, "HEAVY": 2, "DOUBLE": 3}
DIRS = {"LEFT": ["l"], "RIGHT": ["r"], "UP": ["u"], "DOWN": ["d"],
        "HORIZONTAL": ["l", "r"], "VERTICAL": ["u", "d"]}


def box_arms(ch):
    """{'l'|'r'|'u'|'d': weight} for a box-drawing character, from its Unicode name;
    None for diagonals and dashed lines (left to the font)."""
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return None
    if not name.startswith("BOX DRAWINGS "):
        return None
    tokens = name.split()[2:]
    if any(t in ("DIAGONAL", "DASH") for t in tokens):
        return None
    arms, pending, prefix = {}, [], None
    for t in tokens:
        if t in WEIGHTS:
            if pending:
                for d in pending:
                    arms[d] = WEIGHTS[t]
                pending = []
            else:
                prefix = WEIGHTS[t]
        elif t in DIRS:
            for d in DIRS[t]:
                if prefix is not None:
                    arms[d] = prefix
                else:
                    pending.append(d)
    for d in pending:
        arms[d] = 1
    return arms or None


def draw_box(draw, x, y, w, h, arms, colour, scale):
    """Draws box-drawing arms from the cell's edges to its centre, so neighbours join exactly."""
    cx, cy = x + w // 2, y + h // 2
    thin = max(1, scale)
    gap = max(1, scale)  # half the space between the two strokes of a double line
    perp = {"l": ("u", "d"), "r": ("u", "d"), "u": ("l", "r"), "d": ("l", "r")}

    def thickness(wt):
        return 2 * thin if wt == 2 else thin

    def span(c, t):
        return c - t // 2, c - t // 2 + t - 1

    def seg(arm, offset, t, inner_minus, inner_plus):
        """One stroke of `arm`, `t` thick, centred `offset` off the axis; it runs from the edge
        to inner_minus (arms l, u) or from inner_plus (arms r, d)."""
        if arm in "lr":
            y0, y1 = span(cy + offset, t) if offset == 0 else (cy + offset, cy + offset + t - 1)
            x0, x1 = (x, inner_minus) if arm == "l" else (inner_plus, x + w - 1)
            draw.rectangle([x0, y0, x1, y1], fill=colour)
        else:
            x0, x1 = span(cx + offset, t) if offset == 0 else (cx + offset, cx + offset + t - 1)
            y0, y1 = (y, inner_minus) if arm == "u" else (inner_plus, y + h - 1)
            draw.rectangle([x0, y0, x1, y1], fill=colour)

    for arm, wt in arms.items():
        ends = cy if arm in "ud" else cx  # the centre coordinate along the arm
        p_minus, p_plus = perp[arm]
        if wt != 3:
            t = thickness(wt)
            ps = [arms[q] for q in (p_minus, p_plus) if q in arms]
            if ps == [3, 3]:
                # meets a double line that runs through: stop at its near stroke
                seg(arm, 0, t, ends - gap - 1, ends + gap)
            elif 3 in ps:
                # a double line ends here: run to its far stroke
                seg(arm, 0, t, ends + gap + thin - 1, ends - gap - thin)
            else:
                pt = max((thickness(q) for q in ps), default=1)
                lo, hi = span(ends, pt)
                seg(arm, 0, t, hi, lo)
            continue
        # a double arm: two thin strokes, on the minus and plus side of the axis
        for side, offset, own, other in ((-1, -gap - thin, p_minus, p_plus),
                                         (+1, gap, p_plus, p_minus)):
            if arms.get(own) == 3:  # turn into the perpendicular double line's near stroke
                seg(arm, offset, thin, ends - gap - 1, ends + gap)
            elif arms.get(other) == 3:  # run to its far stroke
                seg(arm, offset, thin, ends + gap + thin - 1, ends - gap - thin)
            else:
                seg(arm, offset, thin, ends, ends)


def draw_block(draw, x, y, w, h, ch, fg, bg):
    """Block elements U+2580-U+259F as rectangles; returns False for anything else."""
    o = ord(ch)
    if not 0x2580 <= o <= 0x259F:
        return False

    def rect(fx0, fy0, fx1, fy1, colour=fg):
        x0 = x + round(w * fx0)
        x1 = x + round(w * fx1) - 1
        y0 = y + round(h * fy0)
        y1 = y + round(h * fy1) - 1
        if x1 >= x0 and y1 >= y0:
            draw.rectangle([x0, y0, x1, y1], fill=colour)

    if o == 0x2580:
        rect(0, 0, 1, 0.5)
    elif 0x2581 <= o <= 0x2588:  # lower 1/8 .. full
        rect(0, 1 - (o - 0x2580) / 8, 1, 1)
    elif 0x2589 <= o <= 0x258F:  # left 7/8 .. 1/8
        rect(0, 0, (0x2590 - o) / 8, 1)
    elif o == 0x2590:
        rect(0.5, 0, 1, 1)
    elif 0x2591 <= o <= 0x2593:  # shades
        rect(0, 0, 1, 1, blend(bg, fg, (o - 0x2590) / 4))
    elif o == 0x2594:
        rect(0, 0, 1, 1 / 8)
    elif o == 0x2595:
        rect(7 / 8, 0, 1, 1)
    else:  # quadrants: bits are upper-left, upper-right, lower-left, lower-right
        quads = {0x2596: 0b0010, 0x2597: 0b0001, 0x2598: 0b1000, 0x2599: 0b1011,
                 0x259A: 0b1001, 0x259B: 0b1110, 0x259C: 0b1101, 0x259D: 0b0100,
                 0x259E: 0b0110, 0x259F: 0b0111}[o]
        if quads & 0b1000:
            rect(0, 0, 0.5, 0.5)
        if quads & 0b0100:
            rect(0.5, 0, 1, 0.5)
        if quads & 0b0010:
            rect(0, 0.5, 0.5, 1)
        if quads & 0b0001:
            rect(0.5, 0.5, 1, 1)
    return True


def render(grid, out, scale=1, pad_cells=1):
    fonts = Fonts(13 * scale)
    cw = round(fonts.advance)
    ch = max(16 * scale, fonts.ascent + fonts.descent)
    baseline = (ch - (fonts.ascent + fonts.descent)) // 2 + fonts.ascent
    rows, cols = len(grid), len(grid[0])
    padx, pady = pad_cells * cw, pad_cells * ch // 2
    img = Image.new("RGB", (cols * cw + 2 * padx, rows * ch + 2 * pady), DEFAULT_BG)
    draw = ImageDraw.Draw(img)

    def colours(st):
        fg = st.fg if st.fg is not None else DEFAULT_FG
        bg = st.bg if st.bg is not None else DEFAULT_BG
        if st.reverse:
            fg, bg = bg, fg
        if st.dim:
            fg = blend(fg, bg, 0.45)
        return fg, bg

    # Backgrounds first, so glyphs that overhang a cell are not cut by the next cell's fill.
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell.width == 0:
                continue
            fg, bg = colours(cell.style)
            if bg != DEFAULT_BG:
                x, y = padx + c * cw, pady + r * ch
                draw.rectangle([x, y, x + cw * cell.width - 1, y + ch - 1], fill=bg)

    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell.width == 0:
                continue
            st = cell.style
            fg, bg = colours(st)
            x, y = padx + c * cw, pady + r * ch
            w = cw * cell.width
            text = cell.text
            if text.strip():
                arms = box_arms(text[0]) if len(text) == 1 else None
                if arms:
                    draw_box(draw, x, y, w, ch, arms, fg, scale)
                elif len(text) == 1 and draw_block(draw, x, y, w, ch, text, fg, bg):
                    pass
                else:
                    draw_glyph(draw, fonts, x, y, w, ch, baseline, text, st, fg)
            if st.underline:
                uy = y + baseline + max(1, fonts.descent // 2)
                draw.rectangle([x, uy, x + w - 1, uy + max(1, scale) - 1], fill=fg)
            if st.strike:
                sy = y + baseline - fonts.ascent * 3 // 10
                draw.rectangle([x, sy, x + w - 1, sy + max(1, scale) - 1], fill=fg)
    img.save(out, optimize=True)


def draw_glyph(draw, fonts, x, y, w, h, baseline, text, st, fg):
    picked = fonts.pick(text, st.bold)
    if picked is None:
        # placeholder: an outlined box inside the cell(s)
        m = max(1, w // 8)
        draw.rectangle([x + m, y + h // 6, x + w - 1 - m, y + h - 1 - h // 6], outline=fg)
        return
    path, mono = picked
    size = fonts.size
    font = fonts.font(path, size)
    if not mono:
        # Proportional, symbol or CJK fallback: the largest size from 125% down to 60% of the
        # text size whose ink fits the cell(s) (a pixel of overhang each side allowed), centred.
        font, size = fonts.fitted(path, text, w + 2)
        left, _, right, _ = font.getbbox(text, anchor="ls")
        gx = x + (w - (right - left)) / 2 - left
    else:
        gx = x
    draw.text((gx, y + baseline), text, font=font, fill=fg, anchor="ls")
    if st.bold and path == fonts.chain[0][0]:
        # no bold face available: overstrike
        draw.text((gx + 1, y + baseline), text, font=font, fill=fg, anchor="ls")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("capture")
    ap.add_argument("out")
    ap.add_argument("--cols", type=int, default=160)
    ap.add_argument("--rows", type=int, default=45)
    ap.add_argument("--scale", type=int, default=1, help="1: 8x16 px cells, 2: 16x32")
    a = ap.parse_args()
    import_pillow()
    with open(a.capture, encoding="utf-8", errors="replace") as f:
        text = f.read()
    render(parse(text, a.cols, a.rows), a.out, scale=a.scale)


if __name__ == "__main__":
    main()
