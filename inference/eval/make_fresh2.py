"""The fourth held-out puzzle set (`fresh2.jsonl`, ids `fresh2_0`..`fresh2_99`).

Written on 2026-12-06 by a separate agent that saw no file of this project
and no CruxEval problem, told to invent CruxEval-style functions of its own;
every output is computed here by running the code. Never training data; see
README.md for the rule on reading it.

    python3 inference/eval/make_fresh2.py [OUT]   # default inference/eval/fresh2.jsonl
"""
import json
import sys

P = []
def add(code, inp):
    P.append((code.strip("\n"), inp))

add('''
def f(text):
    return text.replace('a', 'A').swapcase()
''', "'bananarama Xq'")

add('''
def f(nums):
    out = []
    for i, n in enumerate(nums):
        if i % 2 == 0:
            out.append(n * 2)
        else:
            out.insert(0, n)
    return out
''', "[5, 8, 2, 2, 1]")

add('''
def f(s, ch):
    idx = s.find(ch)
    if idx == -1:
        return s
    return s[idx + 1:] + s[:idx]
''', "'hbtofdeiequ', 'f'")

add('''
def f(d):
    result = {}
    for k, v in d.items():
        result.setdefault(v, []).append(k)
    return result
''', "{'a': 2, 'b': 7, 'c': 2, 'd': 1}")

add('''
def f(text):
    words = text.split()
    return ' '.join(w[::-1] for w in words)
''', "'xJzqP 91x  kol'")

add('''
def f(nums, target):
    count = 0
    for n in nums:
        if n > target:
            count += n - target
    return count
''', "[3, 11, 7, 4, 9], 5")

add('''
def f(s):
    return s.center(11, '*').rstrip('*')
''', "'mqo'")

add('''
def f(lst):
    lst = lst.copy()
    while len(lst) > 2:
        lst.pop(1)
    return lst
''', "[9, 4, 0, 6, 3]")

add('''
def f(text, n):
    return text[n:] + text[:n].upper()
''', "'plorkish', 3")

add('''
def f(s):
    return s.isalpha() and s.lower() == s[::-1].lower()
''', "'RaceCar'")

add('''
def f(a, b):
    return [x for x in a if x not in b] + [y for y in b if y not in a]
''', "[1, 2, 3, 7], [3, 4, 7, 8]")

add('''
def f(text):
    head, sep, tail = text.partition('-')
    return tail + sep + head
''', "'abc-def-ghi'")

add('''
def f(d, key):
    d = dict(d)
    v = d.pop(key, 0)
    d[key * 2] = v + 1
    return d
''', "{'x': 4, 'y': 9}, 'x'")

add('''
def f(n):
    digits = str(n)
    total = 0
    for i, c in enumerate(digits):
        total += int(c) * (-1) ** i
    return total
''', "9182736")

add('''
def f(s):
    out = ''
    for c in s:
        if c.isdigit():
            out += str((int(c) + 3) % 10)
        else:
            out += c
    return out
''', "'a7b9c2-88'")

add('''
def f(words):
    return sorted(words, key=lambda w: (len(w), w[-1]))
''', "['pear', 'fig', 'apple', 'kiwi', 'date', 'yam']")

add('''
def f(text, sub):
    return text.count(sub), text.rfind(sub)
''', "'abababcab', 'ab'")

add('''
def f(nums):
    nums = nums[:]
    nums.sort(reverse=True)
    return nums[1::2]
''', "[4, 17, 2, 9, 11, 6, 1]")

add('''
def f(s):
    return s.title().replace(' ', '')
''', "'the quick  brown_fox 2nd'")

add('''
def f(items):
    seen = {}
    for x in items:
        seen[x] = seen.get(x, 0) + 1
    return max(seen, key=lambda k: (seen[k], k))
''', "['q', 'z', 'q', 'b', 'z', 'a']")

add('''
def f(s, width):
    return s.zfill(width)[::-1]
''', "'-42', 7")

add('''
def f(lst, x):
    try:
        i = lst.index(x)
    except ValueError:
        return -1
    return lst[i:] .count(x) * i
''', "[3, 5, 1, 5, 5, 2], 5")

add('''
def f(text):
    return ''.join(c for c in text if not c.isspace()).lower()
''', "'  Hi\\tThere\\n Wo rld '")

add('''
def f(a, b, c):
    return (a + b) * c - a % c
''', "17, 4, 3")

add('''
def f(text):
    parts = text.rsplit('.', 1)
    return parts[0].upper() + '|' + parts[-1]
''', "'archive.tar.gz'")

add('''
def f(nums):
    i = 0
    while i < len(nums) and nums[i] < 10:
        i += 1
    return nums[:i], nums[i:]
''', "[1, 4, 9, 12, 3, 2]")

add('''
def f(s):
    return s.lstrip('xy').rstrip('z')
''', "'yxxyhelloxzzz'")

add('''
def f(d):
    return sorted(d.items(), key=lambda kv: kv[1] - len(kv[0]))
''', "{'ab': 3, 'c': 2, 'defg': 5, 'h': 0}")

add('''
def f(text, old, new):
    return text.replace(old, new, 2)
''', "'aXbXcXdX', 'X', '--'")

add('''
def f(n):
    res = []
    while n > 0:
        res.append(n % 3)
        n //= 3
    return res[::-1]
''', "100")

add('''
def f(s):
    return [i for i, c in enumerate(s) if c.isupper()]
''', "'hELlo WoRLd'")

add('''
def f(lst):
    lst = list(lst)
    lst.reverse()
    lst.extend(lst[:2])
    return lst
''', "[7, 'a', 3, None]")

add('''
def f(text):
    if text.startswith('re'):
        return text[2:].capitalize()
    if text.endswith('ing'):
        return text[:-3]
    return text * 2
''', "'jumping'")

add('''
def f(a, b):
    return dict(zip(a, b))
''', "'kxv', [8, 0, 3, 1]")

add('''
def f(s):
    vowels = 'aeiou'
    return sum(1 for c in s.lower() if c in vowels), len(s)
''', "'qUEUEing Tree'")

add('''
def f(nums):
    total = 0
    for i in range(0, len(nums), 2):
        total += nums[i] * nums[-1 - i]
    return total
''', "[2, 5, 3, 1, 4]")

add('''
def f(text):
    return text.expandtabs(4).count(' ')
''', "'a\\tbc\\td\\t'")

add('''
def f(d):
    d = d.copy()
    k, v = d.popitem()
    d[v] = k
    return d
''', "{'one': 1, 'two': 2, 'three': 'x'}")

add('''
def f(s, n):
    return '-'.join(s[i:i + n] for i in range(0, len(s), n))
''', "'ponmlkjihg', 3")

add('''
def f(words):
    return [w.capitalize() for w in words if not w.islower()]
''', "['abc', 'dEf', 'GHI', 'j2k', '77']")

add('''
def f(nums):
    if not nums:
        return 0
    best = cur = nums[0]
    for n in nums[1:]:
        cur = max(n, cur + n)
        best = max(best, cur)
    return best
''', "[-2, 3, -1, 4, -6, 5]")

add('''
def f(text):
    result = []
    for word in text.split(','):
        result.append(word.strip().ljust(4, '.'))
    return result
''', "' ab, c ,defgh,  '")

add('''
def f(s):
    return s[::2] + s[1::2]
''', "'abcdefgh1'")

add('''
def f(x, y):
    return divmod(x, y), x ** 2 % y
''', "-23, 5")

add('''
def f(lst, val):
    lst = lst[:]
    while val in lst:
        lst.remove(val)
    return lst
''', "[1, 3, 1, 1, 7, 3], 1")

add('''
def f(text):
    return text.swapcase()[::-1].strip()
''', "' AbC dEf '")

add('''
def f(keys, default):
    d = dict.fromkeys(keys, default)
    d[keys[0]] = len(keys)
    return d
''', "['m', 'n', 'm', 'p'], 0")

add('''
def f(s):
    i = len(s) - 1
    while i >= 0 and s[i] == s[-1]:
        i -= 1
    return s[:i + 1]
''', "'mississippppp'")

add('''
def f(nums):
    return [n for n in nums if nums.count(n) == 1]
''', "[4, 6, 4, 9, 1, 6, 3]")

add('''
def f(text, ch):
    return text.split(ch)[1:-1]
''', "'x;yy;;zzz;w', ';'")

add('''
def f(s):
    counts = {}
    for c in s:
        if c.isalpha():
            counts[c] = counts.get(c, 0) + 1
    return ''.join(k * v for k, v in counts.items())
''', "'bcab.a c!b'")

add('''
def f(n):
    return f'{n:05d}|{n * 3:>6}|{-n}'
''', "42")

add('''
def f(a, b):
    out = []
    for x, y in zip(a, b):
        out.append(x if x > y else y)
    return out + a[len(b):]
''', "[3, 9, 1, 6, 8], [5, 2, 4]")

add('''
def f(s):
    return s.rpartition(' ')[2] + s.partition(' ')[0]
''', "'alpha beta gamma'")

add('''
def f(text):
    try:
        return int(text) * 2
    except ValueError:
        return text.upper()
''', "'12a'")

add('''
def f(lst):
    return [lst[i] - lst[i - 1] for i in range(1, len(lst))]
''', "[3, 8, 8, 2, 15, 10]")

add('''
def f(d, default):
    return [d.get(k, default) for k in 'abcd']
''', "{'a': 5, 'c': 0, 'z': 9}, -1")

add('''
def f(s):
    res = ''
    for i, c in enumerate(s):
        res += c.upper() if i % 3 == 0 else c
    return res
''', "'zebrafish x'")

add('''
def f(nums, k):
    nums = nums[:]
    for _ in range(k):
        nums.insert(0, nums.pop())
    return nums
''', "[1, 2, 3, 4, 5, 6], 4")

add('''
def f(text):
    return text.isdigit() or text.isspace() or text.isupper()
''', "'ABC 12'")

add('''
def f(words, sep):
    return sep.join(sorted(words, key=str.lower))
''', "['banana', 'Apple', 'cherry', 'apricot'], '/'")

add('''
def f(s):
    stack = []
    for c in s:
        if stack and stack[-1] == c:
            stack.pop()
        else:
            stack.append(c)
    return ''.join(stack)
''', "'abbaccdxyyx'")

add('''
def f(n, m):
    return [i * m for i in range(n) if i % m != 0]
''', "10, 3")

add('''
def f(text):
    i = text.index('o')
    j = text.rindex('o')
    return text[i:j + 1], j - i
''', "'hello world foo'")

add('''
def f(d):
    return {v: k for k, v in d.items() if isinstance(v, int)}
''', "{'a': 1, 'b': 'x', 'c': 1, 'd': 3}")

add('''
def f(lst):
    lst = lst.copy()
    lst.sort(key=lambda x: -x)
    lst.append(lst.pop(0))
    return lst
''', "[2, 9, 5, 7, 1]")

add('''
def f(s, prefix, suffix):
    if s.startswith(prefix):
        s = s[len(prefix):]
    if s.endswith(suffix):
        s = s[:-len(suffix)]
    return s
''', "'prefixmiddlesuffixfix', 'pre', 'fix'")

add('''
def f(s):
    return s.ljust(8, '0').rjust(12, '#')
''', "'xq7'")

add('''
def f(nums):
    evens = [n for n in nums if n % 2 == 0]
    odds = [n for n in nums if n % 2]
    return sum(evens) - sum(odds), len(evens)
''', "[12, 7, 3, 8, 0, 5, 10]")

add('''
def f(text):
    lines = text.splitlines()
    return [l.strip().title() for l in lines if l.strip()]
''', "'one two\\n\\n  three\\nfour FIVE  '")

add('''
def f(s, t):
    i = 0
    for c in t:
        if i < len(s) and s[i] == c:
            i += 1
    return i == len(s)
''', "'ace', 'abcde'")

add('''
def f(lst):
    out = []
    for x in lst:
        if isinstance(x, list):
            out.extend(x)
        else:
            out.append(x)
    return out
''', "[1, [2, 3], 'a', [], [[4]], 5]")

add('''
def f(text):
    return text.replace(' ', '').count(text[0]) if text else 0
''', "'tattle tale t'")

add('''
def f(a, b, c):
    return sorted([a, b, c], key=len)[1]
''', "'orange', 'kiwi', 'plum'")

add('''
def f(d):
    total = 0
    for k in sorted(d):
        total = total * 10 + d[k]
    return total
''', "{'c': 3, 'a': 7, 'b': 0}")

add('''
def f(s):
    return s.upper().find('B'), s.lower().rfind('b')
''', "'abcBdBe'")

add('''
def f(nums):
    res = nums[:]
    res.clear()
    for n in nums:
        if not res or n >= res[-1]:
            res.append(n)
    return res
''', "[3, 1, 4, 1, 5, 9, 2, 6, 10]")

add('''
def f(word):
    return word[-1] + word[1:-1] + word[0] if len(word) > 1 else word
''', "'quiz'")

add('''
def f(text, n):
    return [text[i::n] for i in range(n)]
''', "'abcdefghij', 3")

add('''
def f(d, keys):
    d = d.copy()
    for k in keys:
        if k in d:
            del d[k]
        else:
            d[k] = None
    return d
''', "{'p': 1, 'q': 2, 'r': 3}, ['q', 's']")

add('''
def f(n):
    a, b = 0, 1
    seq = []
    while a < n:
        seq.append(a)
        a, b = b, a + b
    return seq[-3:]
''', "60")

add('''
def f(s):
    out = []
    for part in s.split('_'):
        out.append(part[:1].upper() + part[1:])
    return ''.join(out)
''', "'snake_case__name_x'")

add('''
def f(lst, i, j):
    lst = lst[:]
    lst[i], lst[j] = lst[j], lst[i]
    return lst
''', "['a', 'b', 'c', 'd', 'e'], 1, -1")

add('''
def f(text):
    return sum(ord(c) for c in text) % 26
''', "'Hello'")

add('''
def f(nums):
    return [i for i in range(len(nums)) if nums[i] == i]
''', "[0, 2, 2, 5, 4, 1, 6]")

add('''
def f(s, char):
    return s.strip(char).replace(char * 2, char)
''', "'--a--b---c-', '-'")

add('''
def f(text):
    count = 0
    for w in text.split():
        if w[0].isupper() and w[1:].islower():
            count += 1
    return count
''', "'Hello World THE Great gAtsby Ok I'")

add('''
def f(x):
    if x < 0:
        return 'neg'
    s = bin(x)[2:]
    return s.count('1'), len(s)
''', "181")

add('''
def f(d1, d2):
    merged = d1.copy()
    merged.update(d2)
    return [k for k in merged if merged[k] != d1.get(k)]
''', "{'a': 1, 'b': 2}, {'b': 3, 'c': 4, 'a': 1}")

add('''
def f(s):
    return ' '.join(s.split()[::-1]).capitalize()
''', "'world THE hello'")

add('''
def f(nums, lo, hi):
    return [max(lo, min(hi, n)) for n in nums]
''', "[-5, 3, 12, 7, 20, 0], 0, 10")

add('''
def f(text):
    res = ''
    prev = ''
    for c in text:
        if c != prev:
            res += c
        prev = c
    return res
''', "'aaabccddddeaa'")

add('''
def f(lst):
    return list(zip(lst, lst[1:], lst[2:]))
''', "[1, 'b', 3, 'd', 5]")

add('''
def f(s):
    mid = len(s) // 2
    return s[mid:] + s[:mid] if len(s) % 2 == 0 else s[mid] + s
''', "'pqrst'")

add('''
def f(items, n):
    out = {}
    for i, x in enumerate(items):
        out.setdefault(i % n, []).append(x)
    return out
''', "['a', 'b', 'c', 'd', 'e', 'f', 'g'], 3")

add('''
def f(text):
    return [w for w in text.split() if w.isalpha() and len(w) > 2]
''', "'the cat9 sat on a mat2 yesterday ok'")

add('''
def f(n):
    total = 0
    for i in range(1, n + 1):
        if n % i == 0:
            total += i
    return total
''', "36")

add('''
def f(s, k):
    s = list(s)
    for i in range(0, len(s), k):
        s[i:i + k] = s[i:i + k][::-1]
    return ''.join(s)
''', "'abcdefghijk', 4")

add('''
def f(lst):
    result = []
    for a, b in zip(lst[::2], lst[1::2]):
        result.append(a * b)
    return result
''', "[3, 4, 2, 5, 6, 1, 9]")

add('''
def f(text):
    return text.title().swapcase()
''', "'hello wORLD 3rd-party'")

add('''
def f(d):
    return sum(len(k) * v for k, v in d.items())
''', "{'ab': 3, 'xyz': 2, '': 100, 'q': -4}")

add('''
def f(s, t):
    return ''.join(a + b for a, b in zip(s, t)) + s[len(t):] + t[len(s):]
''', "'abc', 'WXYZ12'")

add('''
def f(nums):
    nums = sorted(nums)
    n = len(nums)
    return nums[n // 2] if n % 2 else (nums[n // 2 - 1] + nums[n // 2]) / 2
''', "[7, 1, 4, 10, 3, 8]")

add('''
def f(s):
    return s.count('(') - s.count(')'), s.find(')') < s.find('(')
''', "'a)(b(c)d('")

add('''
def f(lst, x):
    lst = lst[:]
    lst.insert(len(lst) // 2, x)
    return lst[::-1]
''', "[10, 20, 30, 40, 50], 99")

add('''
def f(text):
    idx = 0
    out = []
    while idx < len(text):
        out.append(text[idx])
        idx += int(text[idx]) if text[idx].isdigit() else 1
    return ''.join(out)
''', "'a2bc3def1g'")

add('''
def f(d, k, v):
    d = d.copy()
    old = d.setdefault(k, v)
    return old == v, d
''', "{'a': 1, 'b': 2}, 'b', 5")

add('''
def f(words):
    return {w[0]: w for w in words}
''', "['apple', 'avocado', 'banana', 'blueberry', 'cherry']")

add('''
def f(s):
    return s.replace('ab', 'ba').replace('ba', 'x')
''', "'aabbabab'")

add('''
def f(n, s):
    return (s * n)[n:-n] if n else s
''', "3, 'xyz'")

add('''
def f(lst):
    return [x.upper() if x.islower() else x.lower() for x in lst if x]
''', "['ab', 'CD', '', 'eF', '12']")

add('''
def f(text, width):
    return [text[i:i + width].center(width, '.') for i in range(0, len(text), width)]
''', "'abcdefgh', 3")


add('''
def f(text, chars):
    return ''.join(c for c in text if c not in chars)
''', "'mxylophone kx', 'xo'")

add('''
def f(nums, n):
    return [x for x in nums if x % n == 0][::-1]
''', "[12, 5, 9, 18, 7, 3, 21], 3")

add('''
def f(s, n):
    return s.rjust(n, '~')[:n - 2]
''', "'gq4', 8")

add('''
def f(d, n):
    return {k: v * n for k, v in d.items() if v % 2}
''', "{'k': 3, 'm': 4, 'z': 7, 'b': 1}, 5")

add('''
def f(lst, item):
    lst = lst + [item]
    lst.sort()
    return lst.index(item), lst.count(item)
''', "[8, 2, 6, 2, 9], 6")

add('''
def f(text, word):
    pos = text.find(word)
    if pos < 0:
        return text.upper()
    return text[:pos] + word.upper() + text[pos + len(word):]
''', "'we are here for the tour', 'here'")

add('''
def f(a, b):
    while b:
        a, b = b, a % b
    return a
''', "462, 1071")

add('''
def f(s, sep):
    head, _, tail = s.rpartition(sep)
    return tail.zfill(4) + head.swapcase()
''', "'Ab:cD:7', ':'")

add('''
def f(lst, k):
    return sum(lst[:k]) - sum(lst[-k:])
''', "[4, 1, 8, 3, 2, 6, 5], 3")

add('''
def f(s, t):
    return s.startswith(t[:2]) and s.endswith(t[-2:])
''', "'omelette', 'overte'")

add('''
def f(words, n):
    res = []
    for w in words:
        if len(w) >= n:
            res.append(w[:n])
        else:
            res.append(w + '?' * (n - len(w)))
    return res
''', "['tree', 'ox', 'seaweed', ''], 3")

add('''
def f(text, n):
    words = text.split()
    return ' '.join(words[n:] + words[:n]).lower()
''', "'Red GREEN blue Yellow', -1")

add('''
def f(nums, target):
    seen = {}
    for i, n in enumerate(nums):
        if target - n in seen:
            return seen[target - n], i
        seen[n] = i
    return -1, -1
''', "[4, 11, 7, 2, 15, 5], 9")

add('''
def f(s, start, end):
    return s[start:end][::-1] + s[end:start:-1]
''', "'kwjfqzmeop', 2, 7")

add('''
def f(lst, val, times):
    lst = lst[:]
    for _ in range(times):
        if val in lst:
            lst.remove(val)
        else:
            lst.append(-val)
    return lst
''', "[2, 5, 2, 8], 2, 4")

add('''
def f(text, old, count):
    return text.replace(old, old.upper(), count).count(old)
''', "'banana bandana', 'an', 3")

add('''
def f(d, key, default):
    value = d.get(key, default)
    d2 = d.copy()
    d2.update({key: value * 2})
    return d2
''', "{'a': 3, 'b': 'xy'}, 'b', 1")

add('''
def f(a, b, c):
    if a < b < c:
        return 'up'
    if a > b > c:
        return 'down'
    return max(a, b, c) - min(a, b, c)
''', "6, 2, 9")

add('''
def f(s, fill, width):
    return f'{s:{fill}^{width}}'
''', "'abc', '=', 10")

add('''
def f(nums, i, j):
    part = nums[i:j]
    part.sort()
    return nums[:i] + part + nums[j:]
''', "[9, 7, 5, 3, 1, 8, 6], 1, 5")

add('''
def f(keys, values, fill):
    d = {}
    for i, k in enumerate(keys):
        d[k] = values[i] if i < len(values) else fill
    return d
''', "['x', 'y', 'z', 'x'], [1, 2], 0")

add('''
def f(text, a, b):
    return text.split(a)[-1].split(b)[0]
''', "'key=val;other=thing;end', '=', ';'")

add('''
def f(n, lo, hi):
    steps = 0
    while not lo <= n <= hi:
        n = n // 2 if n > hi else n * 3
        steps += 1
    return n, steps
''', "200, 10, 20")

out = []
for code, inp in P:
    ns = {}
    try:
        exec(code, ns)
        args = eval(f"({inp},)")
        res = ns['f'](*args)
        r = repr(res)
    except Exception as e:
        print("SKIP", repr(e), code.splitlines()[0], inp)
        continue
    if len(r) >= 200 or isinstance(res, (set, frozenset)):
        print("SKIP long/set", inp)
        continue
    out.append((code, inp, r, len(args)))

print("passed", len(out), "of", len(P))
# keep the first passing puzzles per arity quota (45 / 40 / 15), preserving order
quota = {1: 45, 2: 40, 3: 15}
kept = []
for code, inp, r, n in out:
    if quota.get(n, 0) > 0:
        quota[n] -= 1
        kept.append((code, inp, r))
assert len(kept) == 100, (len(kept), quota)
with open(sys.argv[1] if len(sys.argv) > 1 else 'inference/eval/fresh2.jsonl', 'w') as fh:
    for i, (code, inp, r) in enumerate(kept):
        fh.write(json.dumps({"id": f"fresh2_{i}", "code": code, "input": inp, "output": r}) + "\n")
