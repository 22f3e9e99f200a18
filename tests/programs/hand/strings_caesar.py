# entry: caesar("Attack at dawn!", 3)
# entry: caesar("xyz", 2)


def shift_char(ch, k):
    if ch.isupper():
        return chr((ord(ch) - 65 + k) % 26 + 65)
    if ch.islower():
        return chr((ord(ch) - 97 + k) % 26 + 97)
    return ch


def caesar(text, k):
    out = []
    for ch in text:
        out.append(shift_char(ch, k))
    return "".join(out)
