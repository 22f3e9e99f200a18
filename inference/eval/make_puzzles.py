# Hand-written puzzles in the style of short Python exercise functions.
# They were written for this project by hand, not taken from any benchmark,
# and are used to measure `ndb eval --task input --verify` on problems the
# input-suggestion search was never tuned on. Never use them for training or
# for tuning the search.
#
# Usage (from the repository root):
#   python3 inference/eval/make_puzzles.py > inference/eval/puzzles.jsonl
#
# Each problem is (code, input); the output is computed here by running the
# code, so it is always repr(f(<input>)).
import ast
import json
import sys

PROBLEMS = [
    # ---------------- one parameter ----------------
    ("""def f(text):
    text = text.replace(' ', '_')
    return text.upper()
""", "'hello big world'"),
    ("""def f(s):
    out = ''
    for ch in s:
        if ch.isdigit():
            out += ch
    return out
""", "'a1b22c333'"),
    ("""def f(nums):
    nums.reverse()
    nums.append(0)
    return nums
""", "[4, 8, 15, 16]"),
    ("""def f(words):
    parts = words.split()
    return ' '.join(w.capitalize() for w in parts)
""", "'the quick brown fox'"),
    ("""def f(lst):
    result = []
    for x in lst:
        if x % 2 == 0:
            result.append(x * x)
        else:
            result.append(-x)
    return result
""", "[3, 4, -2, 7, 0]"),
    ("""def f(s):
    counts = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    return counts
""", "'banana'"),
    ("""def f(d):
    items = sorted(d.items(), key=lambda kv: kv[1])
    return [k for k, v in items]
""", "{'x': 3, 'y': 1, 'z': 2}"),
    ("""def f(text):
    rev = text[::-1]
    return rev.strip('.')
""", "'..racecar level.'"),
    ("""def f(n):
    total = 0
    i = 1
    while i <= n:
        total += i * i
        i += 1
    return total
""", "6"),
    ("""def f(items):
    items.sort()
    return items[0], items[-1]
""", "[9, -3, 14, 2, 0]"),
    ("""def f(s):
    vowels = 'aeiou'
    return sum(1 for c in s.lower() if c in vowels)
""", "'Programming In Python'"),
    ("""def f(lst):
    while 0 in lst:
        lst.remove(0)
    return lst
""", "[0, 1, 0, 2, 3, 0]"),
    ("""def f(text):
    parts = text.split(',')
    return [p.strip() for p in parts if p.strip()]
""", "' red, green ,, blue , '"),
    ("""def f(s):
    if s.isupper():
        return s.lower()
    if s.islower():
        return s.upper()
    return s.swapcase()
""", "'MiXeD Case'"),
    ("""def f(nums):
    out = []
    for i in range(len(nums) - 1):
        out.append(nums[i + 1] - nums[i])
    return out
""", "[1, 4, 9, 16, 25]"),
    ("""def f(word):
    if len(word) <= 3:
        return word
    return word[0] + str(len(word) - 2) + word[-1]
""", "'internationalization'"),
    ("""def f(d):
    inv = {}
    for k, v in d.items():
        inv[v] = k
    return inv
""", "{'a': 1, 'b': 2, 'c': 1}"),
    ("""def f(s):
    n = s.count('ab')
    return n * 2 + s.find('b')
""", "'cabbabab'"),
    ("""def f(lst):
    seen = []
    for x in lst:
        if x not in seen:
            seen.append(x)
    return seen
""", "[3, 1, 3, 2, 1, 5]"),
    ("""def f(text):
    words = text.split()
    longest = ''
    for w in words:
        if len(w) > len(longest):
            longest = w
    return longest
""", "'an apple a day keeps'"),
    ("""def f(n):
    digits = []
    while n > 0:
        digits.append(n % 10)
        n //= 10
    return digits
""", "40712"),
    ("""def f(s):
    t = s.title().replace(' ', '')
    return t[0].lower() + t[1:]
""", "'make it camel case'"),
    ("""def f(nums):
    evens = [x for x in nums if x % 2 == 0]
    odds = [x for x in nums if x % 2 != 0]
    return evens + odds
""", "[5, 2, 7, 8, -4, 1]"),
    ("""def f(s):
    result = []
    for i, ch in enumerate(s):
        if i % 2 == 0:
            result.append(ch.upper())
        else:
            result.append(ch)
    return ''.join(result)
""", "'spongebob'"),
    ("""def f(lst):
    lst.insert(1, lst.pop())
    return lst
""", "['a', 'b', 'c', 'd']"),
    ("""def f(text):
    stripped = text.lstrip('0')
    return stripped or '0'
""", "'000450'"),
    ("""def f(pairs):
    d = {}
    for k, v in pairs:
        d.setdefault(k, []).append(v)
    return d
""", "[('a', 1), ('b', 2), ('a', 3)]"),
    ("""def f(s):
    i = 0
    while i < len(s) and s[i] == s[0]:
        i += 1
    return s[:i], s[i:]
""", "'aaabcaa'"),
    ("""def f(nums):
    m = max(nums)
    return [i for i, x in enumerate(nums) if x == m]
""", "[2, 7, 1, 7, 3, 7]"),
    ("""def f(s):
    letters = sorted(set(s))
    return ''.join(letters)
""", "'mississippi'"),
    ("""def f(d):
    total = 0
    for key in d:
        if key.startswith('n'):
            total += d[key]
    return total
""", "{'north': 4, 'east': 2, 'nadir': 5, 'south': 1}"),
    ("""def f(text):
    slug = '-'.join(text.split())
    return slug.lower()
""", "'Hello  There   General'"),
    ("""def f(lst):
    odd = lst[1::2]
    return odd + lst[::2]
""", "[10, 20, 30, 40, 50, 60, 70]"),
    ("""def f(n):
    count = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        count += 1
    return count
""", "7"),
    ("""def f(values):
    pos = sum(1 for v in values if v > 0)
    neg = sum(1 for v in values if v < 0)
    return (pos, neg, len(values) - pos - neg)
""", "[3, -1, 0, 5, -7, 0, 2]"),
    ("""def f(s):
    if s.lstrip('-').isdigit():
        return s.zfill(8)
    return s
""", "'-42'"),
    ("""def f(text):
    out = []
    for word in text.split():
        if word.isalpha():
            out.append(word[::-1])
        else:
            out.append(word)
    return ' '.join(out)
""", "'abc 123 def g4h'"),
    ("""def f(lst):
    dups = {x: lst.count(x) for x in lst if lst.count(x) > 1}
    return dups
""", "['x', 'y', 'x', 'z', 'y', 'x']"),
    ("""def f(s):
    head, sep, tail = s.partition(':')
    return tail, head
""", "'key:value:extra'"),
    ("""def f(nums):
    running = []
    total = 0
    for x in nums:
        total += x
        running.append(total)
    return running
""", "[5, -2, 3, 0, 10]"),
    ("""def f(name):
    first, last = name.split(' ', 1)
    return last.upper() + ', ' + first[0] + '.'
""", "'grace brewster hopper'"),
    ("""def f(d):
    keys = list(d.keys())
    for k in keys:
        if d[k] is None:
            d.pop(k)
    return d
""", "{'a': None, 'b': 0, 'c': None, 'd': ''}"),
    ("""def f(s):
    size = 3
    return [s[i:i + size] for i in range(0, len(s), size)]
""", "'abcdefghij'"),
    ("""def f(lst):
    if len(lst) < 2:
        return lst
    lst[0], lst[-1] = lst[-1], lst[0]
    return lst
""", "[1, 2, 3, 4, 5]"),
    ("""def f(text):
    last = text.rfind('o')
    return last, text.index('o')
""", "'foo boo zoo'"),
    ("""def f(n):
    divs = [i for i in range(1, n + 1) if n % i == 0]
    return divs
""", "36"),
    ("""def f(s):
    stack = []
    for ch in s:
        if stack and stack[-1] == ch:
            stack.pop()
        else:
            stack.append(ch)
    return ''.join(stack)
""", "'abbaca'"),
    ("""def f(word):
    w = word.lower()
    return w == w[::-1]
""", "'rotator'"),
    ("""def f(lst):
    pos = [x for x in lst if x > 0]
    return [str(x) * x for x in pos]
""", "[2, 0, 3, -1, 1]"),
    ("""def f(s):
    s = s.expandtabs(4)
    return s.replace(' ', '.')
""", "'a\\tbc\\td'"),
    ("""def f(nums):
    nums = sorted(nums, reverse=True)
    return nums[:3]
""", "[4, 17, -3, 9, 12, 1]"),
    ("""def f(text):
    left = len(text) - len(text.lstrip())
    return left, len(text) - len(text.rstrip())
""", "'   padded  '"),
    ("""def f(d):
    out = {k.lower(): v * 2 for k, v in d.items()}
    return out
""", "{'A': 1, 'Bb': 5, 'cC': -3}"),
    ("""def f(s):
    res = ''
    count = 1
    for i in range(1, len(s) + 1):
        if i < len(s) and s[i] == s[i - 1]:
            count += 1
        else:
            res += s[i - 1] + str(count)
            count = 1
    return res
""", "'aaabccdddd'"),
    ("""def f(matrix):
    cols = zip(*matrix)
    return [list(row) for row in cols]
""", "[[1, 2, 3], [4, 5, 6]]"),
    ("""def f(s):
    width = len(s) * 3 + 2
    return s.center(width, '*')
""", "'mid'"),
    ("""def f(lst):
    flat = []
    for sub in lst:
        flat.extend(sub)
    return flat
""", "[[1, 2], [], [3], [4, 5, 6]]"),
    ("""def f(text):
    if '.' in text:
        return text.split('.')[-1]
    return ''
""", "'archive.tar.gz'"),
    ("""def f(n):
    a, b = 0, 1
    seq = []
    while len(seq) < n:
        seq.append(a)
        a, b = b, a + b
    return seq
""", "9"),
    ("""def f(s):
    kept = [c for c in s if not c.isspace()]
    return ''.join(kept)
""", "' spaced  out\\ttext '"),
    ("""def f(items):
    d = dict(enumerate(items, start=1))
    return d
""", "['zero', 'one', 'two']"),
    ("""def f(text):
    count = 0
    for ch in text:
        if ch.isupper():
            count += 1
    return count, text.lower()
""", "'HeLLo WoRLD'"),
    ("""def f(lst):
    tail = lst[-2:]
    return tail + lst[:-2]
""", "[1, 2, 3, 4, 5, 6]"),
    ("""def f(s):
    for a, b in [('a', '4'), ('e', '3'), ('o', '0')]:
        s = s.replace(a, b)
    return s
""", "'leet hacker code'"),
    ("""def f(nums):
    i = 0
    while i < len(nums) and nums[i] < 10:
        i += 1
    return nums[:i], i
""", "[3, 7, 9, 12, 4, 1]"),
    ("""def f(x):
    if x < 0:
        return 'negative'
    elif x == 0:
        return 'zero'
    return 'small' if x < 10 else 'large'
""", "-5"),

    # ---------------- two parameters ----------------
    ("""def f(text, ch):
    n = text.count(ch)
    return n, text.find(ch)
""", "'occurrence', 'c'"),
    ("""def f(lst, n):
    big = [x for x in lst if x > n]
    return big
""", "[5, 12, 3, 8, 20, 1], 6"),
    ("""def f(s, width):
    padded = s.ljust(width, '-')
    return padded + '|'
""", "'name', 9"),
    ("""def f(d, key):
    if key in d:
        d[key] += 1
    else:
        d[key] = 1
    return d
""", "{'apple': 2, 'pear': 1}, 'plum'"),
    ("""def f(text, sep):
    parts = text.split(sep)
    return sep.join(reversed(parts))
""", "'a/b/c/d', '/'"),
    ("""def f(lst, k):
    k = k % len(lst)
    return lst[k:] + lst[:k]
""", "[1, 2, 3, 4, 5], 7"),
    ("""def f(a, b):
    common = [x for x in a if x in b]
    return common
""", "[1, 2, 3, 4, 5], [2, 4, 6, 8]"),
    ("""def f(s, n):
    if n > 0:
        return s * n
    return s[::-1]
""", "'ab', 0"),
    ("""def f(words, prefix):
    n = len(prefix)
    return [w[n:] for w in words if w.startswith(prefix)]
""", "['unhappy', 'undo', 'redo', 'under'], 'un'"),
    ("""def f(nums, target):
    for i in range(len(nums)):
        for j in range(i + 1, len(nums)):
            if nums[i] + nums[j] == target:
                return (i, j)
    return None
""", "[2, 11, 7, 15, -1], 9"),
    ("""def f(text, n):
    words = text.split()
    return ' '.join(words[:n]) + ('...' if len(words) > n else '')
""", "'one two three four five', 3"),
    ("""def f(lst, value):
    count = 0
    while value in lst:
        lst.remove(value)
        count += 1
    return lst, count
""", "['a', 'b', 'a', 'c', 'a'], 'a'"),
    ("""def f(d, keys):
    sub = {k: d[k] for k in keys if k in d}
    return sub
""", "{'a': 1, 'b': 2, 'c': 3, 'd': 4}, ['d', 'b', 'z']"),
    ("""def f(s, old):
    new = old.upper()
    return s.replace(old, new, 1)
""", "'the cat sat on the mat', 'at'"),
    ("""def f(x, y):
    q, r = divmod(x, y)
    return q * 10 + r
""", "47, 6"),
    ("""def f(lst, idx):
    item = lst.pop(idx)
    lst.append(item)
    return lst
""", "[10, 20, 30, 40], 1"),
    ("""def f(text, chars):
    kept = [c for c in text if c not in chars]
    return ''.join(kept)
""", "'hello, world!', 'lo!'"),
    ("""def f(a, b):
    result = []
    for i in range(max(len(a), len(b))):
        if i < len(a):
            result.append(a[i])
        if i < len(b):
            result.append(b[i])
    return result
""", "[1, 3, 5], ['x', 'y', 'z', 'w']"),
    ("""def f(s, k):
    picked = [s[i] for i in range(len(s)) if i % k == 0]
    return ''.join(picked)
""", "'abcdefghijk', 3"),
    ("""def f(d1, d2):
    merged = dict(d1)
    for k, v in d2.items():
        merged[k] = merged.get(k, 0) + v
    return merged
""", "{'a': 1, 'b': 2}, {'b': 3, 'c': 4}"),
    ("""def f(nums, step):
    picked = nums[::step]
    return picked
""", "[0, 1, 2, 3, 4, 5, 6, 7], -2"),
    ("""def f(text, suffix):
    if text.endswith(suffix):
        return text[:-len(suffix)]
    return text + suffix
""", "'walking', 'ing'"),
    ("""def f(lst, n):
    chunks = []
    for i in range(0, len(lst), n):
        chunks.append(lst[i:i + n])
    return chunks
""", "[1, 2, 3, 4, 5, 6, 7], 3"),
    ("""def f(s, t):
    a = sorted(s.replace(' ', ''))
    return a == sorted(t.replace(' ', ''))
""", "'listen', 'silent'"),
    ("""def f(base, exp):
    result = 1
    while exp > 0:
        result *= base
        exp -= 1
    return result
""", "-3, 3"),
    ("""def f(words, length):
    d = {}
    for w in words:
        if len(w) >= length:
            d[w] = len(w)
    return d
""", "['sun', 'moon', 'stars', 'sky', 'comet'], 4"),
    ("""def f(text, width):
    lines = []
    while text:
        lines.append(text[:width])
        text = text[width:]
    return lines
""", "'abcdefghijklm', 5"),
    ("""def f(lst, x):
    if x in lst:
        return lst.index(x)
    lst.append(x)
    return -1
""", "[4, 8, 15], 16"),
    ("""def f(s, n):
    head = s[:n]
    return s[n:] + head
""", "'rotation', 3"),
    ("""def f(d, threshold):
    names = [k for k, v in d.items() if v >= threshold]
    return sorted(names)
""", "{'bob': 72, 'amy': 91, 'cal': 65, 'dee': 88}, 70"),
    ("""def f(a, b):
    same = a.strip().lower() == b.strip().lower()
    return same, len(a) - len(b)
""", "'  Hello ', 'hello'"),
    ("""def f(nums, k):
    best = sum(nums[:k])
    cur = best
    for i in range(k, len(nums)):
        cur += nums[i] - nums[i - k]
        best = max(best, cur)
    return best
""", "[1, -2, 3, 10, -4, 7, 2], 3"),
    ("""def f(text, marker):
    start = text.find(marker)
    end = text.find(marker, start + 1)
    if start == -1 or end == -1:
        return ''
    return text[start + 1:end]
""", "'say \"hi there\" now', '\"'"),
    ("""def f(lst, fill):
    out = [fill if x is None else x for x in lst]
    return out
""", "[1, None, 3, None], 0"),
    ("""def f(s, sub):
    positions = []
    i = s.find(sub)
    while i != -1:
        positions.append(i)
        i = s.find(sub, i + 1)
    return positions
""", "'abababa', 'aba'"),
    ("""def f(n, m):
    rows = range(1, n + 1)
    return [[i * j for j in range(1, m + 1)] for i in rows]
""", "3, 4"),
    ("""def f(words, sep):
    out = [w.upper() if len(w) > 3 else w for w in words]
    return sep.join(out)
""", "['a', 'long', 'day', 'ahead'], '+'"),
    ("""def f(lst, n):
    lst.extend([n] * n)
    return len(lst), lst[-1]
""", "[1, 2], 3"),
    ("""def f(d, default):
    keys = 'abc'
    return [d.get(k, default) for k in keys]
""", "{'a': 10, 'c': 30}, -1"),
    ("""def f(s, digits):
    nums = [int(c) for c in s if c.isdigit()]
    return sum(nums) > digits
""", "'a9b8c7', 20"),
    ("""def f(text, n):
    words = text.split()
    return [w for w in words if len(w) == n]
""", "'tea for two and me', 3"),
    ("""def f(a, b):
    while b:
        a, b = b, a % b
    return a
""", "84, 36"),

    # ---------------- three parameters ----------------
    ("""def f(text, old, new):
    text = text.replace(old, new)
    return text.strip()
""", "'  cats and dogs  ', 'and', '&'"),
    ("""def f(lst, start, end):
    mid = lst[start:end][::-1]
    return lst[:start] + mid + lst[end:]
""", "[1, 2, 3, 4, 5, 6], 1, 4"),
    ("""def f(d, key, value):
    old = d.pop(key, None)
    d[value] = old
    return d
""", "{'a': 1, 'b': 2}, 'a', 'z'"),
    ("""def f(s, ch, n):
    if len(s) < n:
        return s.rjust(n, ch)
    return s[:n]
""", "'42', '0', 6"),
    ("""def f(lo, hi, step):
    out = []
    x = lo
    while x < hi:
        out.append(x)
        x += step
    return out
""", "-4, 10, 3"),
    ("""def f(text, a, b):
    i = text.find(a)
    j = text.find(b)
    return text[i:j] if 0 <= i < j else text
""", "'start[middle]end', '[', ']'"),
    ("""def f(nums, lo, hi):
    clipped = [min(max(x, lo), hi) for x in nums]
    return clipped
""", "[-5, 3, 12, 7, 0], 0, 10"),
    ("""def f(keys, values, default):
    d = {}
    for i, k in enumerate(keys):
        d[k] = values[i] if i < len(values) else default
    return d
""", "['x', 'y', 'z'], [1, 2], 0"),
    ("""def f(s, sep, maxsplit):
    parts = s.split(sep, maxsplit)
    return len(parts), parts[-1]
""", "'a-b-c-d-e', '-', 2"),
    ("""def f(a, b, c):
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return (a, b, c)
""", "9, -2, 4"),
    ("""def f(words, n, fill):
    out = []
    for w in words:
        if len(w) < n:
            w = w + fill * (n - len(w))
        out.append(w[:n])
    return out
""", "['hi', 'hello', 'hey'], 4, '.'"),
    ("""def f(s, n, reverse):
    chunks = [s[i:i + n] for i in range(0, len(s), n)]
    if reverse:
        chunks.reverse()
    return '|'.join(chunks)
""", "'abcdefgh', 3, True"),
]


def count_params(code):
    tree = ast.parse(code)
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert len(funcs) == 1 and funcs[0].name == 'f', code
    return len(funcs[0].args.args)


def main():
    out = sys.stdout
    seen = set()
    for idx, (code, inp) in enumerate(PROBLEMS):
        lines = code.strip('\n').split('\n')
        assert 3 <= len(lines) <= 15, (idx, len(lines))
        assert code not in seen, idx
        seen.add(code)
        count_params(code)
        # The input must be a tuple of literals.
        args = ast.literal_eval('(' + inp + ',)')
        env = {}
        exec(code, env)
        result = eval('f(' + inp + ')', env)
        output = repr(result)
        assert ast.literal_eval(output) == result, (idx, output)
        del args
        out.write(json.dumps({
            'id': 'puzzle_%d' % idx,
            'code': code,
            'input': inp,
            'output': output,
        }) + '\n')


if __name__ == '__main__':
    main()
