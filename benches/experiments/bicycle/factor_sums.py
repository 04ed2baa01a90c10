"""Estimates how many multiplications of a `mechanics!` body a greedy factoring of its sums
would save (docs/performance.md, Session 21).

Reads the expanded code of an example, for instance

    cargo +nightly rustc -p spark-examples --example bicycle -- -Zunpretty=expanded > expanded.rs
    python3 benches/experiments/bicycle/factor_sums.py expanded.rs stage_terms end_terms

and, for each named function, splits every `let` binding and every output expression into
a sum of products (a parenthesized group counts as one factor), then counts the
multiplications as written and after repeatedly taking the most common factor out of a sum.
An estimate: what it cannot parse it leaves out of both counts.
"""

import re
import sys
from collections import Counter


def function_body(src, name):
    start = src.index(f"fn {name}(")
    end = src.find("\n    fn ", start + 10)
    return src[start:end if end >= 0 else len(src)]


def split_top_level(text, separators):
    """The parts of `text` between the `separators` that stand outside any parentheses or
    brackets (empty parts dropped)."""
    parts, depth, current = [], 0, ""
    for c in text:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if depth == 0 and c in separators:
            parts.append(current)
            current = ""
        else:
            current += c
    parts.append(current)
    return [p for p in parts if p.strip()]


def top_level_terms(expr):
    """The terms of a sum, each as a multiset of its factors."""
    return [
        Counter(f.strip() for f in split_top_level(term, "*"))
        for term in split_top_level(expr, "+-")
    ]


def written(terms):
    return sum(max(sum(t.values()) - 1, 0) for t in terms)


def factored(terms):
    """Multiplications after taking the most common factor out, again and again (a work
    list, no recursion)."""
    total, work = 0, [terms]
    while work:
        sums = work.pop()
        counts = Counter(f for t in sums for f in t)
        best = counts.most_common(1)
        if len(sums) <= 1 or not best or best[0][1] < 2:
            total += written(sums)
            continue
        factor = best[0][0]
        inside, outside = [], []
        for t in sums:
            if factor in t:
                rest = t.copy()
                rest[factor] -= 1
                inside.append(+rest)
            else:
                outside.append(t)
        total += 1
        work.append(inside)
        work.append(outside)
    return total


def expressions(body):
    """The right-hand sides of the `let` bindings and the elements of the output arrays."""
    yield from re.findall(r"let __t\d+: f64 =\s*(.*?);", body, re.S)
    for m in re.finditer(r"from\(\[", body):
        i, depth, j = m.end(), 1, m.end()
        while depth:
            depth += {"[": 1, "]": -1}.get(body[j], 0)
            j += 1
        yield from split_top_level(body[i:j - 1], ",")


def main():
    src = open(sys.argv[1]).read()
    for name in sys.argv[2:]:
        before = after = 0
        for e in expressions(function_body(src, name)):
            terms = top_level_terms(" ".join(e.split()))
            before += written(terms)
            after += factored(terms)
        print(f"{name}: {before} multiplications as written, {after} with the sums factored")


if __name__ == "__main__":
    main()
