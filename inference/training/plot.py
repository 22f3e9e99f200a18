"""The loss curve as a PNG, written with zlib only (no plotting library on
the GPU machine or in CI): training loss per step in black (its own scale,
left axis labels), held-out next-state exact match in red (0 to 1).

    python3 inference/training/plot.py OUT/log.jsonl OUT/loss.png

`plot_scaling` draws a scaling curve: scores (0 to 1) against tokens seen,
one coloured series each, dashed grey lines for the no-model floors:

    python3 inference/training/plot.py --scaling curve.json scaling.png

with `curve.json` = `{"series": {"name": [[tokens, score], ...]},
"floors": {"name": share}}`.
"""

import json
import struct
import sys
import zlib

WIDTH, HEIGHT, MARGIN = 720, 400, 40
# A 3x5 pixel font for the labels.
FONT = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111", "3": "111001111001111",
    "4": "101101111001001", "5": "111100111001111", "6": "111100111101111", "7": "111001001001001",
    "8": "111101111101111", "9": "111101111001111", ".": "000000000000010", " ": "000000000000000",
    "l": "100100100100111", "o": "000111101101111", "s": "000111100011111", "e": "111101111100111",
    "x": "000101010101101", "a": "000111011101111", "c": "000111100100111", "t": "010111010010011",
    "p": "000111101111100", "=": "000111000111000", "/": "001001010100100", "h": "100100111101101",
    "m": "000111111101101", "d": "001001111101111", "n": "000110101101101", "i": "010000010010010",
    "r": "000111100100100", "u": "000101101101111", "g": "000111101111011",
    "k": "100101110101101", "f": "011100110100100", "v": "000101101101010",
    "w": "000101101111101", "y": "000101111001111", "b": "100100111101111",
    "M": "101111111101101", "-": "000000111000000", ":": "000010000010000",
    "_": "000000000000111", "(": "010100100100010", ")": "010001001001010",
    "%": "101001010100101", ",": "000000000010100", "j": "001000001001011",
}
COLOURS = [(220, 30, 30), (30, 90, 220), (20, 150, 60), (200, 120, 0), (140, 40, 170), (0, 150, 160)]


def plot_log(log_path, png_path):
    losses, exact = [], []
    with open(log_path, encoding="utf-8") as handle:
        for line in handle:
            entry = json.loads(line)
            if "loss" in entry:
                losses.append((entry["step"], entry["loss"]))
            if "heldout" in entry and "all" in entry["heldout"]:
                exact.append((entry["step"], entry["heldout"]["all"]["exact_match"]))
    write_png(png_path, render(losses, exact))


def render(losses, exact):
    pixels = [[(255, 255, 255)] * WIDTH for _ in range(HEIGHT)]
    left, right, top, bottom = MARGIN + 20, WIDTH - MARGIN, MARGIN, HEIGHT - MARGIN
    for x in range(left, right + 1):
        pixels[bottom][x] = (0, 0, 0)
    for y in range(top, bottom + 1):
        pixels[y][left] = (0, 0, 0)
    last_step = max([step for step, _ in losses + exact] or [1]) or 1
    smooth = _smooth(losses)
    high = max([value for _, value in smooth] or [1.0])

    def point(step, value, scale):
        x = left + int((right - left) * step / last_step)
        y = bottom - int((bottom - top) * min(max(value / scale, 0.0), 1.0))
        return x, y

    previous = None
    for step, value in smooth:
        current = point(step, value, high)
        if previous:
            _line(pixels, previous, current, (0, 0, 0))
        previous = current
    previous = None
    for step, value in exact:
        current = point(step, value, 1.0)
        if previous:
            _line(pixels, previous, current, (220, 30, 30))
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                _set(pixels, current[0] + dx, current[1] + dy, (220, 30, 30))
        previous = current
    _text(pixels, 4, top - 2, "%.2f" % high, (0, 0, 0))
    _text(pixels, 4, bottom - 4, "0", (0, 0, 0))
    _text(pixels, left, 8, "loss", (0, 0, 0))
    _text(pixels, left + 60, 8, "heldout exact 0..1", (220, 30, 30))
    _text(pixels, right - 60, bottom + 12, "step %d" % last_step, (0, 0, 0))
    return pixels


def _smooth(points, window=10):
    out = []
    for index in range(len(points)):
        chunk = points[max(0, index - window + 1): index + 1]
        out.append((points[index][0], sum(value for _, value in chunk) / len(chunk)))
    return out


def _set(pixels, x, y, colour):
    if 0 <= y < len(pixels) and 0 <= x < len(pixels[0]):
        pixels[y][x] = colour


def _line(pixels, start, end, colour):
    (x0, y0), (x1, y1) = start, end
    steps = max(abs(x1 - x0), abs(y1 - y0), 1)
    for index in range(steps + 1):
        _set(pixels, x0 + (x1 - x0) * index // steps, y0 + (y1 - y0) * index // steps, colour)


def _text(pixels, x, y, text, colour, scale=2):
    for char in text:
        glyph = FONT.get(char, FONT[" "])
        for index, bit in enumerate(glyph):
            if bit == "1":
                for dx in range(scale):
                    for dy in range(scale):
                        _set(pixels, x + (index % 3) * scale + dx, y + (index // 3) * scale + dy, colour)
        x += 4 * scale


def write_png(path, pixels):
    height, width = len(pixels), len(pixels[0])
    raw = b"".join(b"\x00" + bytes(value for pixel in row for value in pixel) for row in pixels)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as handle:
        handle.write(png)


def plot_scaling(series, floors, png_path):
    """`series`: {name: [(tokens, score 0..1), ...]}; `floors`: {name: share}."""
    pixels = [[(255, 255, 255)] * WIDTH for _ in range(HEIGHT)]
    left, right, top, bottom = MARGIN + 20, WIDTH - MARGIN, MARGIN + 30, HEIGHT - MARGIN
    for x in range(left, right + 1):
        pixels[bottom][x] = (0, 0, 0)
    for y in range(top, bottom + 1):
        pixels[y][left] = (0, 0, 0)
    most = max([tokens for points in series.values() for tokens, _ in points] or [1]) or 1

    def point(tokens, value):
        return (left + int((right - left) * tokens / most),
                bottom - int((bottom - top) * min(max(value, 0.0), 1.0)))

    for (name, share) in sorted(floors.items()):
        y = point(0, share)[1]
        for x in range(left, right, 6):
            for dx in range(3):
                _set(pixels, x + dx, y, (150, 150, 150))
        _text(pixels, right - 8 * len(name) - 4, y - 12, name, (120, 120, 120))
    for index, (name, points) in enumerate(sorted(series.items())):
        colour = COLOURS[index % len(COLOURS)]
        previous = None
        for tokens, value in sorted(points):
            current = point(tokens, value)
            if previous:
                _line(pixels, previous, current, colour)
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    _set(pixels, current[0] + dx, current[1] + dy, colour)
            previous = current
        _text(pixels, left + 4 + (index % 3) * 220, 6 + (index // 3) * 14, name, colour)
    _text(pixels, 4, top - 2, "1", (0, 0, 0))
    _text(pixels, 4, bottom - 4, "0", (0, 0, 0))
    _text(pixels, right - 170, bottom + 12, "tokens seen %.2fM" % (most / 1e6), (0, 0, 0))
    write_png(png_path, pixels)


if __name__ == "__main__":
    if sys.argv[1] == "--scaling":
        with open(sys.argv[2], encoding="utf-8") as handle:
            curve = json.load(handle)
        plot_scaling({name: [tuple(p) for p in points] for name, points in curve["series"].items()},
                     curve.get("floors", {}), sys.argv[3])
    else:
        plot_log(sys.argv[1], sys.argv[2])
