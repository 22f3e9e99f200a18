# entry: normalize("  Hello,   World!  This is   PDB  ")
# entry: normalize("")


def normalize(text):
    words = text.strip().split()
    cleaned = []
    for w in words:
        w = w.lower().strip(",.!")
        if w:
            cleaned.append(w.capitalize())
    joined = " ".join(cleaned)
    return joined, joined.count("i"), joined.startswith("Hello")
