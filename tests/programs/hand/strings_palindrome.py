# entry: longest_palindrome("forgeeksskeegfor")
# entry: longest_palindrome("ab")


def expand(s, lo, hi):
    while lo >= 0 and hi < len(s) and s[lo] == s[hi]:
        lo -= 1
        hi += 1
    return s[lo + 1:hi]


def longest_palindrome(s):
    best = ""
    for i in range(len(s)):
        for candidate in (expand(s, i, i), expand(s, i, i + 1)):
            if len(candidate) > len(best):
                best = candidate
    return best
