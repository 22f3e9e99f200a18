"""Train a byte-level BPE tokenizer on a dataset's training trajectories
(for models trained from scratch; the SmolLM2 start keeps its own
vocabulary and gets the special tokens added, see smollm2.py).

    python3 inference/training/tokenizer.py --data DATA [--vocab 4096] [--out DATA/tokenizer.json]

Byte-level (ByteLevel pre-tokenizer and decoder: mistral.rs needs a
ByteLevel or ByteFallback decoder, and a Unigram model crashes it), digits
split one by one, `<|endoftext|>` (id 0, the EOS) and every special token
of the text language (grammar/src/text/mod.rs) one token each. It prints the
dataset's size in tokens of the trained vocabulary.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dataset  # noqa: E402
import smollm2  # noqa: E402

EOS_TOKEN = "<|endoftext|>"


def texts(data_dir, limit):
    for count, record in enumerate(dataset.records(data_dir, "train")):
        if count >= limit:
            break
        for text, _ in record["pieces"]:
            for part in dataset.SPECIAL.split(text):
                if part and not dataset.SPECIAL.fullmatch(part):
                    yield part


def train(data_dir, vocab_size, limit=200_000):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=2, show_progress=False,
        special_tokens=[EOS_TOKEN] + smollm2.special_tokens(),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(texts(data_dir, limit), trainer=trainer)
    return tokenizer


def count_tokens(tokenizer, data_dir, split):
    encoder = dataset.Encoder(tokenizer, max_tokens=10**9)
    totals = {"records": 0, "tokens": 0, "target_tokens": 0, "states": 0}
    for record in dataset.records(data_dir, split):
        item = encoder.encode(record)
        if item is None:
            continue
        totals["records"] += 1
        totals["tokens"] += len(item["ids"])
        totals["target_tokens"] += sum(label != -100 for label in item["labels"])
        totals["states"] += len(item["targets"])
    return totals


def main():
    from tokenizers import Tokenizer

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--vocab", type=int, default=4096)
    parser.add_argument("--out", help="default: DATA/tokenizer.json")
    parser.add_argument("--count-only", help="count DATA's tokens with this tokenizer.json instead")
    options = parser.parse_args()
    if options.count_only:
        tokenizer = Tokenizer.from_file(options.count_only)
    else:
        tokenizer = train(options.data, options.vocab)
        out = options.out or os.path.join(options.data, "tokenizer.json")
        tokenizer.save(out)
        for token in [EOS_TOKEN] + smollm2.special_tokens():
            if len(tokenizer.encode(token).ids) != 1:
                raise SystemExit("tokenizer: %s is not one token" % token)
        print("tokenizer: wrote %s (%d tokens)" % (out, tokenizer.get_vocab_size()), file=sys.stderr)
    sizes = {split: count_tokens(tokenizer, options.data, split) for split in ("train", "heldout")}
    print(json.dumps(sizes))


if __name__ == "__main__":
    main()
