# entry: round_trip("aaabccddddd")
# entry: round_trip("")


def encode(s):
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(f"{j - i}{s[i]}")
        i = j
    return "".join(out)


def decode(code):
    out, num = "", ""
    for ch in code:
        if ch.isdigit():
            num += ch
        else:
            out += ch * int(num)
            num = ""
    return out


def round_trip(s):
    code = encode(s)
    return code, decode(code) == s
