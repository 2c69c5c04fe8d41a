"""The parser fills AST nodes without pydantic's validation (see ``nodes.Node.__init__``: it makes
`rulelang check` several times faster). This test does the validation instead: every node of
every rules file in the repository, validated by pydantic, is the same node, field by field and
type by type."""
from __future__ import annotations

from pydantic import BaseModel

from conftest import REPO
from rulelang.language import nodes as N
from rulelang.core.errors import Span
from rulelang.language.parser import parse_file

FILES = sorted([*REPO.glob("games/*.rules"), *REPO.glob("examples/*.rules"), *REPO.glob("tests/scenarios/examples/*.rules")])


def strict(value):
    """A value with the type of every part spelled out, so that 1 and True, or a str and a lark
    Token, differ."""
    if isinstance(value, BaseModel):
        return type(value).__name__, id(value)  # nested nodes are checked on their own
    if isinstance(value, (list, tuple)):
        return type(value).__name__, tuple(strict(v) for v in value)
    if isinstance(value, dict):
        return "dict", tuple((strict(k), strict(v)) for k, v in value.items())
    return type(value).__name__, value


def walk(value):
    if isinstance(value, N.Node):
        yield value
        for v in value.__dict__.values():
            yield from walk(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from walk(v)


def test_every_node_the_parser_builds_is_valid():
    checked = 0
    for path in FILES:
        rules = parse_file(path)
        for node in walk(rules):
            validated = type(node).__new__(type(node))
            BaseModel.__init__(validated, **node.__dict__)  # pydantic's own validation
            for name, value in node.__dict__.items():
                assert strict(validated.__dict__[name]) == strict(value), f"{path}: {type(node).__name__}.{name}"
            checked += 1
            span = node.span  # spans are filled in directly too (errors.Span.__init__)
            assert Span.model_validate(span.__dict__).__dict__ == span.__dict__, f"{path}: {span}"
            assert [type(v) for v in span.__dict__.values()] == [str, int, int, int, int], f"{path}: {span}"
    assert checked > 5_000


def test_a_node_made_by_hand_gets_its_defaults_and_its_own_lists():
    a = N.Call(func="count")
    b = N.Call(func="count")
    assert a.args == [] and a.args is not b.args
    assert a.span.line == 0
    assert a.model_fields_set == {"func"}
    assert a == b


def test_a_span_is_made_without_pydantic_validation_and_refuses_wrong_values():
    import subprocess
    import sys

    # Parsing (and a `check` just after an edit) builds no validation schema: building Span's and
    # loading pydantic's plugins took about 20 ms of every such process.
    code = ("import sys; from rulelang.language.parser import parse_file; "
            f"parse_file({str(REPO / 'examples' / 'tictactoe.rules')!r}); "
            "from rulelang.core.errors import Span; "
            "print(Span.__pydantic_complete__, 'pydantic.plugin._loader' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "RULELANG_CACHE": "0"}).stdout.split()
    assert out == ["False", "False"]
    span = Span(file="a.rules", line=3, column=4)
    assert (span.end_line, str(span)) == (0, "a.rules:3:4")
    assert span == Span.model_validate({"file": "a.rules", "line": 3, "column": 4})
    assert hash(span) == hash(Span(file="a.rules", line=3, column=4))
    assert span.model_copy(update={"line": 9}).line == 9 and span.line == 3
    for wrong in ({"line": None}, {"line": "3"}, {"file": 3}, {"column": 1.5}):
        try:
            Span(**wrong)
        except TypeError:
            continue
        raise AssertionError(f"Span accepted {wrong}")


def test_a_pickled_ast_comes_back_the_same_without_pydantics_setstate():
    """The AST cache pickles declarations: each node comes back with the same class, values and
    fields given (all, or only those the parser gave), each span with its five values, without
    pydantic's __setstate__ (nodes.Node.__reduce__, errors.Span.__reduce__: a third of the time of
    loading a big game's declarations)."""
    import pickle

    from pydantic import BaseModel as Base

    rules = parse_file(REPO / "games" / "evacuation.rules")
    setstate = Base.__setstate__
    calls = []
    Base.__setstate__ = lambda self, state: (calls.append(1), setstate(self, state))[1]
    try:
        again = pickle.loads(pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        Base.__setstate__ = setstate
    assert calls == []
    assert again == rules
    pairs = list(zip(walk(rules), walk(again)))
    assert len(pairs) > 5_000
    for a, b in pairs:
        assert type(a) is type(b) and a.__dict__.keys() == b.__dict__.keys()
        assert a.model_fields_set == b.model_fields_set
        assert a.span.__dict__ == b.span.__dict__ and type(b.span) is Span
    partial = N.Call(func="count")
    assert pickle.loads(pickle.dumps(partial)).model_fields_set == {"func"}
