"""The third held-out puzzle set (`fresh.jsonl`, ids `fresh_0`..`fresh_99`).

Written on 2026-12-06 by a separate agent that was shown only the format of
CruxEval-style problems (a function `f`, an input, an output), told to invent
its own functions and to copy none; every output is computed here by running
the code. Never training data; see README.md for the rule on reading it.

    python3 inference/eval/make_fresh.py [OUT]   # default inference/eval/fresh.jsonl
"""
import json
import sys

P = []
def add(code, inp):
    P.append((code.strip("\n"), inp))

add('''
def f(text):
    parts = text.split('-')
    return '+'.join(p[::-1] for p in parts)
''', "'qwe-rty-u'")

add('''
def f(nums, k):
    for _ in range(k):
        nums.append(nums.pop(0))
    return nums
''', "[5, 8, 2, 2, 1], 3")

add('''
def f(s):
    count = 0
    for ch in s:
        if ch.isupper():
            count += 2
        elif ch.isdigit():
            count -= 1
    return count
''', "'HbT0fD3eiQu'")

add('''
def f(d, key):
    d.setdefault(key, 0)
    d[key] += len(d)
    return d
''', "{'a': 1, 'b': 5}, 'c'")

add('''
def f(text, width):
    return text.center(width, '*').replace(' ', '_')
''', "'ab c', 9")

add('''
def f(lst):
    out = []
    for i, x in enumerate(lst):
        if i % 2 == 0:
            out.insert(0, x)
        else:
            out.append(x)
    return out
''', "[4, 9, 1, 7, 3, 6]")

add('''
def f(word):
    head, sep, tail = word.partition('o')
    return tail + sep + head
''', "'hbtofdeiequ'")

add('''
def f(s):
    return s.count('a') * 3 + s.find('z')
''', "'banana split'")

add('''
def f(items):
    result = {}
    for item in items:
        result[item[0]] = result.get(item[0], 0) + 1
    return result
''', "['pear', 'plum', 'apple', 'peach', 'avocado', 'kiwi']")

add('''
def f(n):
    digits = str(n)
    total = 0
    for d in digits:
        total = total * 2 + int(d)
    return total
''', "4071")

add('''
def f(text, char):
    idx = text.rfind(char)
    if idx == -1:
        return text.upper()
    return text[:idx] + text[idx + 1:]
''', "'mississippi', 's'")

add('''
def f(a, b):
    merged = a + b
    merged.sort(reverse=True)
    return merged[:len(a)]
''', "[3, 11, 6], [7, 2, 9, 14]")

add('''
def f(s):
    words = s.split()
    return ' '.join(w.capitalize() if len(w) > 3 else w.upper() for w in words)
''', "'the quick fox jumps over a dog'")

add('''
def f(nums):
    i = 0
    while i < len(nums):
        if nums[i] % 3 == 0:
            nums.pop(i)
        else:
            i += 1
    return nums
''', "[9, 4, 6, 6, 10, 12, 5, 3]")

add('''
def f(text):
    return text.zfill(8).replace('0', 'o', 2)
''', "'-4a1'")

add('''
def f(d):
    keys = sorted(d)
    return [d[k] for k in keys if d[k]]
''', "{'z': 0, 'm': 'x', 'b': [1], 'q': '', 'c': 7}")

add('''
def f(s, n):
    return s[n:] + s[:n].swapcase()
''', "'PyThOnic', 3")

add('''
def f(lst, val):
    if val in lst:
        lst.remove(val)
        lst.insert(len(lst) // 2, val)
    return lst
''', "[1, 8, 3, 8, 5, 2], 8")

add('''
def f(text):
    vowels = 'aeiou'
    return ''.join(c for c in text if c not in vowels)[::2]
''', "'jxaqiemuwoerr'")

add('''
def f(a, b, c):
    return a.ljust(b, c) + '|' + a.rjust(b, c)
''', "'uv', 5, '.'")

add('''
def f(nums):
    prefix = []
    s = 0
    for x in nums:
        s += x
        prefix.append(s)
    return prefix
''', "[3, -1, 4, -1, 5, -9]")

add('''
def f(text):
    return text.isalnum() and not text.isdigit()
''', "'abc123'")

add('''
def f(d, k):
    v = d.pop(k, None)
    d['popped'] = v
    return d
''', "{'x': 3, 'y': 8}, 'w'")

add('''
def f(s):
    res = ''
    for i in range(len(s) - 1, -1, -1):
        if s[i] not in res:
            res += s[i]
    return res
''', "'abracadabra'")

add('''
def f(x, y):
    return '{}:{:>4}'.format(x, y)
''', "'id', 42")

add('''
def f(lst):
    lst.reverse()
    return [lst.index(x) for x in lst]
''', "[2, 7, 2, 1, 7]")

add('''
def f(text, prefix):
    while text.startswith(prefix):
        text = text[len(prefix):]
    return text
''', "'ababababcab', 'ab'")

add('''
def f(n):
    result = []
    while n > 0:
        result.append(n % 10)
        n //= 10
    return result
''', "908172")

add('''
def f(s):
    return s.strip('xy').split('x')
''', "'yxhelloxworldxxy'")

add('''
def f(pairs):
    d = dict(pairs)
    d.update({v: k for k, v in pairs})
    return d
''', "[('a', 'b'), ('c', 'd')]")

add('''
def f(text):
    counts = [text.count(c) for c in 'abc']
    return max(counts) - min(counts)
''', "'cbbacbbbcaa'")

add('''
def f(nums, i, j):
    nums[i], nums[j] = nums[j], nums[i]
    return nums[i:j + 1]
''', "[10, 20, 30, 40, 50, 60], 1, 4")

add('''
def f(s):
    return [w for w in s.split(',') if w.strip().isdigit()]
''', "'12, ab,  7,3x, 0'")

add('''
def f(d):
    out = []
    while d:
        out.append(d.popitem())
    return out
''', "{1: 'one', 2: 'two', 3: 'three'}")

add('''
def f(text, n):
    chunks = [text[i:i + n] for i in range(0, len(text), n)]
    return '-'.join(chunks)
''', "'qwertyuiopas', 5")

add('''
def f(s):
    return s.title().replace(' ', '')
''', "'make it so number one'")

add('''
def f(lst):
    evens = [x for x in lst if x % 2 == 0]
    odds = [x for x in lst if x % 2]
    return evens + odds
''', "[7, 4, 1, 8, 3, 2, 0]")

add('''
def f(text):
    i = 0
    while i < len(text) and text[i] == text[0]:
        i += 1
    return i
''', "'eeeeaeee'")

add('''
def f(keys, default):
    d = dict.fromkeys(keys, default)
    d[keys[-1]] = len(keys)
    return d
''', "['k', 'l', 'm', 'k'], 'v'")

add('''
def f(s):
    return s[::-1].find('a') + s.find('a')
''', "'cabbage'")

add('''
def f(nums):
    return sum(x * i for i, x in enumerate(nums))
''', "[2, 0, 5, 1, 3]")

add('''
def f(text, sub):
    return text.replace(sub, sub.upper()).count(sub.upper())
''', "'lalalaland', 'la'")

add('''
def f(word):
    if len(word) < 3:
        return word
    return word[0] + str(len(word) - 2) + word[-1]
''', "'internationalization'")

add('''
def f(lst, x):
    lst.extend([x] * 2)
    lst.sort()
    return lst.index(x)
''', "[9, 1, 14, 6], 7")

add('''
def f(s):
    a, b = s.split('=', 1)
    return {a.strip(): b.strip()}
''', "'  name = alpha=beta '")

add('''
def f(text):
    out = []
    for ch in text:
        if out and out[-1] == ch:
            out.pop()
        else:
            out.append(ch)
    return ''.join(out)
''', "'abbaccdeffe'")

add('''
def f(d, keys):
    for k in keys:
        if k in d:
            d[k] *= 2
        else:
            d[k] = 1
    return d
''', "{'a': 3, 'c': 'z'}, ['c', 'b', 'a', 'b']")

add('''
def f(n, m):
    return [i for i in range(n) if i % m == m - 1]
''', "20, 6")

add('''
def f(text):
    return text.lower().startswith(text[-3:].lower())
''', "'AbcxyzaBc'")

add('''
def f(s):
    left, _, right = s.rpartition('.')
    return right.upper() + '@' + left
''', "'archive.tar.gz'")

add('''
def f(nums):
    best = nums[0]
    for x in nums[1:]:
        if abs(x) > abs(best):
            best = x
    return best
''', "[3, -7, 5, 7, -2]")

add('''
def f(text, k):
    return ''.join(chr((ord(c) - 97 + k) % 26 + 97) if c.islower() else c for c in text)
''', "'zebra Cat!', 3")

add('''
def f(lst):
    return [x for x in lst[::-1] if x not in lst[:2]]
''', "[4, 1, 6, 4, 9, 1, 2]")

add('''
def f(s):
    n = 0
    for part in s.split('+'):
        n += int(part) if part.isdigit() else len(part)
    return n
''', "'12+ab+3+xyz+40'")

add('''
def f(matrix):
    return [row[i] for i, row in enumerate(matrix)]
''', "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]")

add('''
def f(text):
    return '%s has %d chars' % (text.strip(), len(text))
''', "'  hello '")

add('''
def f(nums, target):
    for i in range(len(nums)):
        for j in range(i + 1, len(nums)):
            if nums[i] + nums[j] == target:
                return (i, j)
    return (-1, -1)
''', "[8, 3, 11, 5, 6], 11")

add('''
def f(s):
    return ''.join(sorted(s, key=lambda c: (c.isdigit(), c)))
''', "'b3a1c2'")

add('''
def f(d):
    inv = {}
    for k, v in d.items():
        inv.setdefault(v, []).append(k)
    return inv
''', "{'x': 1, 'y': 2, 'z': 1, 'w': 3, 'v': 2}")

add('''
def f(text, ch):
    parts = text.split(ch)
    return len(parts) - 1, max(parts, key=len)
''', "'aa/bbbb//c/ddd', '/'")

add('''
def f(lst):
    i = len(lst) - 1
    while i > 0 and lst[i - 1] <= lst[i]:
        i -= 1
    return lst[i:]
''', "[5, 9, 2, 3, 3, 8]")

add('''
def f(a, b):
    return a.endswith(b) or b in a[:len(b)]
''', "'trumpet', 'pet'")

add('''
def f(s):
    return s.expandtabs(4).count(' ')
''', "'a\\tbc\\tdef\\t'")

add('''
def f(nums):
    seen = []
    for x in nums:
        if x in seen:
            seen.remove(x)
        else:
            seen.append(x)
    return seen
''', "[3, 5, 3, 8, 1, 5, 5]")

add('''
def f(text):
    return text.replace('a', '1').replace('1', 'a', 1).replace('b', '')
''', "'banana bread'")

add('''
def f(price, qty):
    total = price * qty
    return f'{qty} x {price:.2f} = {total:.1f}'
''', "3.456, 4")

add('''
def f(lst, n):
    return [lst[i::n] for i in range(n)]
''', "['a', 'b', 'c', 'd', 'e', 'f', 'g'], 3")

add('''
def f(s):
    if s.isupper():
        return s.lower()
    if s.islower():
        return s.upper()
    return s.swapcase()[::-1]
''', "'MiXeD1'")

add('''
def f(d):
    total = 0
    for k in list(d):
        if k % 2:
            total += d.pop(k)
    return total, d
''', "{1: 10, 2: 20, 3: 30, 4: 40, 5: 5}")

add('''
def f(text):
    words = text.split()
    words.sort(key=len)
    return words[-1] + words[0]
''', "'we all live in a yellow submarine'")

add('''
def f(n):
    s = bin(n)[2:]
    return s.count('1'), len(s)
''', "181")

add('''
def f(lst, item, pos):
    lst.insert(pos, item)
    lst.insert(-pos, item)
    return lst
''', "[0, 0, 1, 2], 7, 1")

add('''
def f(text):
    result = ''
    for i, c in enumerate(text):
        result += c * (i % 3 + 1)
    return result
''', "'xqzw'")

add('''
def f(a):
    return [a[i] - a[i - 1] for i in range(1, len(a))]
''', "[1, 4, 9, 16, 25, 36]")

add('''
def f(s, sep):
    return sep.join(reversed(s.split(sep)))
''', "'www.example.co.uk', '.'")

add('''
def f(text):
    idx = text.find('(')
    end = text.find(')', idx)
    return text[idx + 1:end] if idx != -1 and end != -1 else ''
''', "'call(arg1, arg2) done'")

add('''
def f(nums):
    nums.sort()
    mid = len(nums) // 2
    return nums[mid] if len(nums) % 2 else (nums[mid - 1] + nums[mid]) / 2
''', "[7, 1, 9, 4, 2, 8]")

add('''
def f(d, other):
    d.update(other)
    return sorted(d.items(), key=lambda kv: kv[1])
''', "{'p': 4, 'q': 1}, {'r': 3, 'p': 0}")

add('''
def f(text):
    return sum(1 for a, b in zip(text, text[1:]) if a == b)
''', "'bookkeeper'")

add('''
def f(s, n):
    s = s.strip()
    while len(s) < n:
        s = '<' + s + '>'
    return s
''', "'  tag ', 8")

add('''
def f(lst):
    result = []
    for sub in lst:
        if isinstance(sub, list):
            result.extend(sub)
        else:
            result.append(sub)
    return result
''', "[1, [2, 3], 'ab', [], [4]]")

add('''
def f(word):
    return word == word[::-1], word.count(word[0])
''', "'racecar'")

add('''
def f(text, old, new):
    i = text.find(old)
    if i < 0:
        return text
    return text[:i] + new + text[i + len(old):].replace(old, new.upper())
''', "'cat catalog scatter', 'cat', 'dog'")

add('''
def f(nums):
    c = 0
    for i in range(len(nums)):
        if nums[i] == i:
            c += 1
    return c
''', "[0, 3, 2, 1, 4, 7, 6]")

add('''
def f(s):
    return s.split('/')[-1].split('.')[0].lower()
''', "'/usr/Local/BIN/Tool.v2.sh'")

add('''
def f(d):
    return {k: len(v) for k, v in d.items() if isinstance(v, str)}
''', "{'a': 'xyz', 'b': 4, 'c': '', 'd': 'hi'}")

add('''
def f(a, b, c):
    x = a * b - c
    y = (a + b) // c
    return x % y if y else x
''', "7, 5, 3")

add('''
def f(text):
    out = ''
    for w in text.split('_'):
        out += w[:1].upper() + w[1:]
    return out
''', "'snake_case_to_camel'")

add('''
def f(lst):
    m = min(lst)
    return [x - m for x in lst if x != m]
''', "[12, 5, 8, 5, 19]")

add('''
def f(s):
    i = len(s)
    while i > 0 and s[i - 1].isdigit():
        i -= 1
    return s[:i], int(s[i:] or 0)
''', "'file007'")

add('''
def f(d, key, value):
    if key in d.values():
        return {v: k for k, v in d.items()}
    d[key] = value
    return d
''', "{'a': 'b', 'c': 'd'}, 'd', 'e'")

add('''
def f(text):
    return [text.count(w) for w in text.split()]
''', "'an ant and an ant'")

add('''
def f(nums, k):
    return sorted(nums, key=lambda x: (abs(x - k), x))[:3]
''', "[10, 4, 7, 1, 13, 6], 8")

add('''
def f(s):
    t = s.lstrip('0')
    return len(s) - len(t), t.rstrip('0')
''', "'00042000'")

add('''
def f(words):
    return '|'.join(w.rjust(5, '0') for w in words)
''', "['7', '42', 'abc', 'xyzwuv']")

add('''
def f(lst):
    total = 0
    for i in range(0, len(lst), 2):
        total += lst[i] - (lst[i + 1] if i + 1 < len(lst) else 0)
    return total
''', "[9, 2, 7, 7, 4]")

add('''
def f(text):
    return text.casefold().count('ss') + text.isascii()
''', "'Straße Boss'")

add('''
def f(d):
    items = list(d.items())
    items.reverse()
    return dict(items[1:])
''', "{'one': 1, 'two': 2, 'three': 3, 'four': 4}")

add('''
def f(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
''', "12")

add('''
def f(text, width):
    lines = []
    while text:
        lines.append(text[:width].strip())
        text = text[width:]
    return lines
''', "'lorem ipsum dolor sit', 6")


assert len(P) == 100, len(P)

with open(sys.argv[1] if len(sys.argv) > 1 else 'inference/eval/fresh.jsonl', 'w') as fh:
    n = 0
    for code, inp in P:
        ns = {}
        try:
            exec(code, ns)
            args = eval(f"({inp},)")
            r1 = repr(ns['f'](*args))
            ns2 = {}
            exec(code, ns2)
            r2 = repr(ns2['f'](*eval(f"({inp},)")))
        except Exception as e:
            print('SKIP', inp, e)
            continue
        if r1 != r2 or len(r1) >= 200:
            print('SKIP nondet/long', inp)
            continue
        fh.write(json.dumps({"id": f"fresh_{n}", "code": code, "input": inp, "output": r1}) + "\n")
        n += 1
print('written', n)
