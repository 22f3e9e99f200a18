# entry: index_of_first_vowel("rhythm and blues")
# entry: index_of_first_vowel("xyz")


def index_of_first_vowel(text):
    for i, ch in enumerate(text):
        if ch in "aeiou":
            return i
    return -1
