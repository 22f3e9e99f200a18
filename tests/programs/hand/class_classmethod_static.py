# entry: parse_all(["3:4", "10:2", "7:7"])


class Fraction:
    count = 0

    def __init__(self, num, den):
        self.num = num
        self.den = den
        Fraction.count += 1

    @classmethod
    def parse(cls, text):
        a, b = text.split(":")
        return cls(int(a), int(b))

    @staticmethod
    def gcd(a, b):
        while b:
            a, b = b, a % b
        return a

    def reduced(self):
        g = Fraction.gcd(self.num, self.den)
        return (self.num // g, self.den // g)


def parse_all(texts):
    out = [Fraction.parse(t).reduced() for t in texts]
    return out, Fraction.count
