# entry: chunks_until_blank(["a", "b", "", "c"])


def chunks_until_blank(lines):
    taken = []
    i = 0
    while (line := lines[i] if i < len(lines) else ""):
        taken.append(line.upper() if len(taken) % 2 == 0 else line)
        i += 1
    return taken, i
