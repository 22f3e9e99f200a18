"""Checks the text language's Lark grammars with llguidance, the engine
mistral.rs uses for `Constraint::Lark`.

Run by the Rust test `lark_grammars_agree_with_the_printer_under_llguidance`
in grammar/tests/text_language.rs, which writes the cases:

    python3 grammar/tests/lark_check.py DIR

DIR/tokens.txt lists the special tokens, one a line. Each DIR/case_*/ holds
grammar.lark, accept_*.txt (texts the grammar must accept in full) and
reject_*.txt (texts it must not). Texts are tokenized the way the model's
tokenizer sees them: each special token is one token, everything else one
token per byte. Exits 0 when every case passes, 1 otherwise, 2 when
llguidance is missing.
"""

import os
import re
import sys

try:
    import llguidance
except ImportError:
    print("llguidance is not importable")
    sys.exit(2)


def read_text(path):
    # Binary, so that no newline translation touches the text.
    with open(path, "rb") as file:
        return file.read().decode("utf-8")


class ByteTokenizer:
    """A byte-level vocabulary plus the special tokens and an EOS token."""

    def __init__(self, specials):
        self.specials = specials
        self.tokens = [bytes([i]) for i in range(256)]
        self.tokens += [token.encode("utf-8") for token in specials]
        self.tokens.append(b"<|eos|>")
        self.special_token_ids = list(range(256, len(self.tokens)))
        self.eos_token_id = len(self.tokens) - 1
        self.bos_token_id = None
        self.pattern = re.compile(
            "(" + "|".join(re.escape(token) for token in specials) + ")"
        )

    def __call__(self, data):
        return list(data)

    def ids(self, text):
        ids = []
        for part in self.pattern.split(text):
            if part in self.specials:
                ids.append(256 + self.specials.index(part))
            else:
                ids.extend(part.encode("utf-8"))
        return ids


def accepts(tokenizer, lark_tokenizer, grammar, text):
    """Whether the grammar accepts all of `text`, and the error if not."""
    matcher = llguidance.LLMatcher(
        lark_tokenizer, llguidance.LLMatcher.grammar_from_lark(grammar), log_level=0
    )
    if not matcher.consume_tokens(tokenizer.ids(text)):
        return False, matcher.get_error().splitlines()[0]
    if not matcher.is_accepting():
        return False, "not accepting at the end of the text"
    return True, ""


def main():
    directory = sys.argv[1]
    specials = [
        line for line in read_text(os.path.join(directory, "tokens.txt")).splitlines() if line
    ]
    tokenizer = ByteTokenizer(specials)
    lark_tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(tokenizer))
    failures = []
    checked = 0
    for case in sorted(os.listdir(directory)):
        case_dir = os.path.join(directory, case)
        if not os.path.isdir(case_dir):
            continue
        grammar = read_text(os.path.join(case_dir, "grammar.lark"))
        is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(
            llguidance.LLMatcher.grammar_from_lark(grammar), lark_tokenizer
        )
        if is_error or messages:
            failures.append(f"{case}: grammar: {messages}")
            continue
        for name in sorted(os.listdir(case_dir)):
            if not name.endswith(".txt"):
                continue
            text = read_text(os.path.join(case_dir, name))
            ok, error = accepts(tokenizer, lark_tokenizer, grammar, text)
            checked += 1
            if name.startswith("accept") and not ok:
                failures.append(f"{case}/{name}: rejected ({error}): {text!r}")
            if name.startswith("reject") and ok:
                failures.append(f"{case}/{name}: accepted: {text!r}")
    for failure in failures:
        print(failure)
    print(f"llguidance {llguidance.__version__}: {checked} texts, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
