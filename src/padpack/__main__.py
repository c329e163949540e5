"""The command line: `python -m padpack plan LENGTHS --batch-size N` compares batching strategies on your lengths.

LENGTHS is a text file with one length per line (blank lines are skipped), or a CSV file with `--column NAME`,
or `-` for standard input. It prints plan_batches's table and recommendation; `--plot FILE` also saves the
figure. Wrong input gets one sentence that names the argument, and exit status 2.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from padpack.i18n import LANGUAGES, N_, gettext, language_code, use_language, wrap

__all__ = ["read_lengths", "run_command_line"]

PROG = "python -m padpack"
MAX_LENGTH = 2**31 - 1  # padpack.batching.MAX_LENGTH, without importing torch before the input is read

if TYPE_CHECKING:
    import numpy as np


class InputError(ValueError):
    """Input the command line cannot use: one sentence that names the argument."""


class _Formatter(argparse.HelpFormatter):
    """argparse's help in the package's language: its usage label from the catalogue, its text wrapped by display
    width (a Chinese character takes two columns)."""

    def add_usage(self, usage, actions, groups, prefix=None) -> None:  # type: ignore[no-untyped-def]
        super().add_usage(usage, actions, groups, gettext(N_("usage: ")) if prefix is None else prefix)

    def format_help(self) -> str:
        # argparse ends each heading with ":"; a heading translated with its own full-width colon keeps only that
        return re.sub(r"：:$", "：", super().format_help(), flags=re.MULTILINE)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap(" ".join(text.split()), width).split("\n")

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap(" ".join(text.split()), width - len(indent)).split("\n"))


class _Parser(argparse.ArgumentParser):
    """argparse in the package's language (its headings and -h from the catalogue), its errors one line (no usage
    block) and exit status 2."""

    def __init__(self, **options) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**options, add_help=False, formatter_class=_Formatter)
        self._positionals.title = gettext(N_("positional arguments"))
        self._optionals.title = gettext(N_("options"))
        self.add_argument("-h", "--help", action="help", help=gettext(N_("show this help message and exit")))

    def error(self, message: str) -> None:  # type: ignore[override]
        for template in _ARGPARSE_ERRORS:
            if match := _template_pattern(template).fullmatch(f"{message}."):
                _fail(gettext(template).format(**match.groupdict()))
        _fail(f"{message}.")


# argparse's own errors, which the standard library writes in English: the ones this command line can meet, each a
# whole sentence of the catalogue (argparse's English is the same from Python 3.11 to 3.13).
_ARGPARSE_ERRORS = [
    N_("unrecognized arguments: {arguments}."),
    N_("the following arguments are required: {arguments}."),
    N_("argument {argument}: expected one argument."),
    N_("argument {argument}: invalid choice: {value} (choose from {choices})."),
    N_("ambiguous option: {option} could match {matches}."),
]


def _template_pattern(template: str) -> re.Pattern:
    """A pattern for what `template` says once filled in, each {placeholder} a named group.

    >>> _template_pattern("argument {argument}: expected one argument.").fullmatch(
    ...     "argument --seed: expected one argument.")["argument"]
    '--seed'
    """
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)))


def _chosen_language(argv: Sequence[str]) -> str | None:
    """The value of --language in `argv` (or of --lang, ...: argparse takes a prefix), the last when it is given
    twice, as argparse takes it; read before the parser is built so that its help and errors are in that language.
    None when it is absent or not a language (the parser then names the mistake).

    >>> _chosen_language(["plan", "-", "--lang=zh_CN"]), _chosen_language(["--language", "fr"])
    ('zh_CN', None)
    >>> _chosen_language(["plan", "-", "--language", "zh"])
    'zh_CN'
    >>> _chosen_language(["--language", "zh_CN", "plan", "-", "--language", "en"])
    'en'
    """
    chosen = None
    for index, argument in enumerate(argv):
        name, equals, value = argument.partition("=")
        if len(name) > 3 and "--language".startswith(name):
            value = language_code(value if equals else (argv[index + 1] if index + 1 < len(argv) else ""))
            if value in LANGUAGES:
                chosen = value
    return chosen


def _fail(sentence: str) -> None:
    print(wrap(f"{PROG}: {sentence}", 79, indent="  "), file=sys.stderr)
    raise SystemExit(2)


def _whole_number(text: str) -> int | None:
    """The whole number `text` spells ("12", " 12 ", "12.0"), or None."""
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() else None


def _check(value: int | None, text: str, where: str) -> int:
    if value is None:
        raise InputError(
            gettext(N_("LENGTHS {where} holds {text!r}, not a whole number: a length counts tokens.")).format(
                where=where, text=text.strip()
            )
        )
    if value > MAX_LENGTH:
        raise InputError(
            gettext(
                N_(
                    "LENGTHS {where} holds {value}: the planner takes lengths of at most {limit:,} tokens "
                    "(2^31 - 1): check that these numbers are lengths."
                )
            ).format(where=where, value=value, limit=MAX_LENGTH)
        )
    if value < 1:
        raise InputError(
            gettext(
                N_(
                    "LENGTHS {where} holds {value}: every length must be at least 1 (a sequence of no tokens cannot "
                    "be packed; drop it first)."
                )
            ).format(where=where, value=value)
        )
    return value


def _plain_lengths(text: str) -> np.ndarray | None:
    """The lengths of a file of plain whole numbers, one a line, parsed in C; None for anything else (which the
    line-by-line reader then reads, or names what is wrong with it)."""
    import numpy as np  # here, not above: the API page's build imports this module without NumPy

    plain = np.zeros(256, dtype=bool)
    plain[list(b"0123456789 \t\r\n")] = True
    data = text.encode()
    if not plain[np.frombuffer(data, dtype=np.uint8)].all() or re.search(rb"\d[ \t\r]+\d", data):
        return None
    lengths = np.fromstring(text, dtype=np.int64, sep=" ")  # whitespace-separated text: not the deprecated mode
    if not lengths.size or lengths.min() < 1 or lengths.max() > MAX_LENGTH:
        return None
    return lengths.astype(np.int32)  # every length fits: half the memory, and the planner takes them as they are


def read_lengths(text: str, column: str | None = None) -> np.ndarray:
    """The lengths in `text` (int32, which holds every length the planner takes): one per line, or the CSV column
    `column`; InputError names what is wrong.

    >>> read_lengths("3\\n12\\n\\n5\\n").tolist()
    [3, 12, 5]
    >>> read_lengths("id,tokens\\na,3\\nb,12\\n", column="tokens").tolist()
    [3, 12]
    >>> read_lengths("3\\n0\\n")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    padpack.__main__.InputError: LENGTHS line 2 holds 0: every length must be at least 1 ...
    """
    lengths: list[int] = []
    if not text.strip():
        raise InputError(gettext(N_("LENGTHS is empty: give one length per line, or a CSV file with --column.")))
    if column is None:
        plain = _plain_lengths(text)
        if plain is not None:
            return plain
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            value = _whole_number(line)
            if value is None and not lengths and ("," in line or "\t" in line or ";" in line):
                raise InputError(
                    gettext(
                        N_(
                            "LENGTHS line {number} holds {text!r}, not one length: for a CSV file, pass --column "
                            "NAME to read the lengths from its column NAME."
                        )
                    ).format(number=number, text=line.strip())
                )
            lengths.append(_check(value, line, gettext(N_("line {number}")).format(number=number)))
    else:
        reader = csv.DictReader(io.StringIO(text))
        if reader.fieldnames is None or column not in reader.fieldnames:
            columns = gettext(N_(", ")).join(map(repr, reader.fieldnames or [])) or gettext(N_("none"))
            raise InputError(
                gettext(N_("--column {column!r} is not a column of LENGTHS; its columns are: {columns}.")).format(
                    column=column, columns=columns
                )
            )
        for number, row in enumerate(reader, start=2):
            cell = row.get(column) or ""
            if not cell.strip():
                continue
            where = gettext(N_("line {number} (column {column!r})")).format(number=number, column=column)
            lengths.append(_check(_whole_number(cell), cell, where))
    if not lengths:
        raise InputError(gettext(N_("LENGTHS holds no lengths: give one length per line, or a CSV column.")))
    import numpy as np

    return np.array(lengths, dtype=np.int32)


def _add_language(parser: argparse.ArgumentParser) -> None:
    """--language, which the command line takes before the command or after it (after wins when both are given):
    no default on either parser, so that the command's parser leaves the one given before it in place."""
    parser.add_argument(
        "--language",
        type=language_code,  # "zh" as use_language takes it; the help names the codes, {en,zh_CN}
        choices=LANGUAGES,
        default=argparse.SUPPRESS,
        help=gettext(N_("the language of the output")),
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description=gettext(N_("Tools of the book Pad, Pack, Train.")))
    _add_language(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    plan = commands.add_parser(
        "plan",
        help=gettext(N_("compare batching strategies on your sequence lengths")),
        description=gettext(
            N_(
                "Compare random batches, sorted chunks, whole-epoch buckets and a token budget on your sequence "
                "lengths: padding efficiency, batches per epoch, the largest batch, how much batches change "
                "between epochs, and a recommendation."
            )
        ),
    )
    plan.add_argument(
        "lengths",
        metavar="LENGTHS",
        help=gettext(N_("a file of one length per line, a CSV file with --column, or - for standard input")),
    )
    plan.add_argument("--batch-size", type=str, metavar="N", help=gettext(N_("sequences per batch")))
    plan.add_argument(
        "--max-tokens", type=str, metavar="N", help=gettext(N_("a token budget: padded tokens per batch"))
    )
    plan.add_argument("--column", metavar="NAME", help=gettext(N_("read the lengths from this column of a CSV file")))
    plan.add_argument(
        "--chunk-batches",
        type=str,
        metavar="N",
        help=gettext(N_("batches per sorted chunk (default: the best of 4 to 256)")),
    )
    plan.add_argument(
        "--max-pairs-again",
        type=str,
        default="0.25",
        metavar="X",
        help=gettext(N_("the limit on pairs again, a heuristic (default 0.25)")),
    )
    plan.add_argument("--seed", type=str, default="0", metavar="N", help=gettext(N_("the random seed (default 0)")))
    plan.add_argument("--plot", metavar="FILE", help=gettext(N_("also save the figure to FILE (.png, .svg, .pdf)")))
    _add_language(plan)
    return parser


def _option(text: str | None, name: str, minimum: int = 1) -> int | None:
    if text is None:
        return None
    value = _whole_number(text)
    if value is None or value < minimum:
        raise InputError(
            gettext(N_("{name} must be a whole number of at least {minimum}, not {text!r}.")).format(
                name=name, minimum=minimum, text=text
            )
        )
    return value


def _plan(args: argparse.Namespace) -> None:
    if (args.batch_size is None) == (args.max_tokens is None):
        raise InputError(
            gettext(
                N_(
                    "pass --batch-size N (sequences per batch) or --max-tokens N (padded tokens per batch), one "
                    "of the two."
                )
            )
            if args.batch_size is None
            else gettext(N_("--batch-size and --max-tokens exclude each other: pass one of the two."))
        )
    batch_size = _option(args.batch_size, "--batch-size")
    max_tokens = _option(args.max_tokens, "--max-tokens")
    chunk_batches = _option(args.chunk_batches, "--chunk-batches")
    seed = _option(args.seed, "--seed", minimum=0)
    try:
        max_pairs_again = float(args.max_pairs_again)
    except ValueError:
        max_pairs_again = -1.0
    if not 0 <= max_pairs_again <= 1:
        raise InputError(
            gettext(N_("--max-pairs-again must be a number from 0 to 1, not {text!r}.")).format(
                text=args.max_pairs_again
            )
        )
    if args.lengths == "-":
        text = sys.stdin.read()
    else:
        path = Path(args.lengths)
        if not path.is_file():
            raise InputError(gettext(N_("LENGTHS {path!r} is not a file.")).format(path=args.lengths))
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(
                gettext(N_("LENGTHS {path!r} cannot be read as text: {error}.")).format(path=args.lengths, error=error)
            ) from None
    lengths = read_lengths(text, args.column)
    del text  # as long as the lengths, or longer: not kept while planning
    if max_tokens is not None and int(lengths.max()) > max_tokens:  # plan_batches would name lengths[i], max_tokens
        raise InputError(
            gettext(
                N_(
                    "LENGTHS has {count} of {total} lengths over --max-tokens ({max_tokens}), the longest {longest}: "
                    "a batch of one such sequence alone exceeds the budget. Raise --max-tokens to {longest} or more, "
                    "or cut or drop those sequences."
                )
            ).format(
                count=int((lengths > max_tokens).sum()),
                total=len(lengths),
                max_tokens=max_tokens,
                longest=int(lengths.max()),
            )
        )
    from padpack.batching import BatchPlanError, plan_batches  # torch: only once the input is read

    try:
        plan = plan_batches(
            lengths,
            batch_size=batch_size,
            max_tokens=max_tokens,
            chunk_batches=chunk_batches,
            seed=seed,
            max_pairs_again=max_pairs_again,
        )
    except BatchPlanError as error:
        raise InputError(str(error)) from None
    print(plan)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        try:
            plan.plot().savefig(args.plot, facecolor="white")
        except (OSError, ValueError) as error:
            raise InputError(
                gettext(N_("--plot {path!r} cannot be written: {error}.")).format(path=args.plot, error=error)
            ) from None


def run_command_line(argv: Sequence[str] | None = None) -> int:
    """Run the command line with `argv` (default: sys.argv[1:]); return the exit status (errors exit with 2).

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "lengths.txt"
    >>> _ = path.write_text("\\n".join(str(n) for n in [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3]))
    >>> run_command_line(["plan", str(path), "--batch-size", "4"])  # doctest: +ELLIPSIS
    strategy             efficiency  batches  largest batch  pairs again
    random batches            0...
    Recommended: ...
    0
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    use_language(_chosen_language(argv) or "en")
    args = _parser().parse_args(argv)
    use_language(getattr(args, "language", "en"))
    try:
        _plan(args)
    except InputError as error:
        _fail(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(run_command_line())
