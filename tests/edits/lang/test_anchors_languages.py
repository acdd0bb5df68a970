"""Structural anchors per language: abbreviated headers find the named definition."""

from __future__ import annotations

import pytest

from spark_cli.edits.lang.anchors import definitions, find_anchor_ranges

PYTHON = """import os

class Foo(Base):
    x = 1

    @property
    def wrap(self, text):
        return text

    def run(self):
        return 1

def wrap(text, width=3):
    for x in text:
        print(x)
    return text
"""
JS = """function foo(a) {
  return a;
}
export const bar = (x) => x + 1;
class Widget {
  render() {
    return 1;
  }
}
"""
TS = """interface Shape {
  area(): number;
}
export function area(s: Shape): number {
  return s.area();
}
type Id = string;
enum Color { Red }
class Sq implements Shape {
  area(): number { return 1; }
}
"""
TSX = """export function App(props: Props) {
  return <div>{props.x}</div>;
}
"""
GO = """package main

type Server struct {
	addr string
}

func (s *Server) Start(ctx context.Context) error {
	return nil
}

func main() {
	fmt.Println("hi")
}
"""
RUST = """struct Bar;
trait Foo { fn go(&self); }

impl Foo for Bar {
    fn go(&self) {
        println!("x");
    }
}

impl<T> Wrap<T> {
    pub fn new() -> Self { todo!() }
}

pub fn main() {
    let x = 1;
}
"""
JAVA = """public class App {
    private int x;

    public App() {}

    public static void main(String[] args) {
        System.out.println("hi");
    }
}
"""
C = """#include <stdio.h>

struct point { int x; };

static int *make(int n)
{
    return 0;
}

int main(void) {
    return 0;
}
"""
CPP = """namespace ns {
class Foo {
public:
    void bar();
};
}

void ns::Foo::bar() {
    return;
}

int main() { return 0; }
"""
RUBY = """module M
  class Foo
    def bar(x)
      x
    end

    def self.baz
      1
    end
  end
end
"""
BASH = """greet() {
  echo hi
}
function bye {
  echo bye
}
"""

CASES = [
    ("python", PYTHON, ["def wrap"], [(5, 7), (12, 15)]),
    ("python", PYTHON, ["def wrap(text):"], [(12, 15)]),
    ("python", PYTHON, ["class Foo"], [(2, 10)]),
    ("python", PYTHON, ["class Foo:"], [(2, 10)]),
    ("python", PYTHON, ["class Foo", "def wrap(self, text):"], [(5, 7)]),
    ("python", PYTHON, ["class Foo", "    def run(self):"], [(9, 10)]),
    ("python", PYTHON, ["Foo.run"], [(9, 10)]),
    ("python", PYTHON, ["run"], [(9, 10)]),
    ("python", PYTHON, ["for x in text:"], [(13, 14)]),
    ("python", PYTHON, ["def wrapper"], []),
    ("javascript", JS, ["function foo"], [(0, 2)]),
    ("javascript", JS, ["function foo(a) {"], [(0, 2)]),
    ("javascript", JS, ["const bar"], [(3, 3)]),
    ("javascript", JS, ["class Widget", "render()"], [(5, 7)]),
    ("javascript", JS, ["Widget.render"], [(5, 7)]),
    ("typescript", TS, ["interface Shape"], [(0, 2)]),
    ("typescript", TS, ["function area"], [(3, 5)]),
    ("typescript", TS, ["type Id"], [(6, 6)]),
    ("typescript", TS, ["class Sq", "area"], [(9, 9)]),
    ("typescript", TS, ["enum Color"], [(7, 7)]),
    ("tsx", TSX, ["function App"], [(0, 2)]),
    ("tsx", TSX, ["App"], [(0, 2)]),
    ("go", GO, ["func (s *Server) Start("], [(6, 8)]),
    ("go", GO, ["func (s *Server) Start(ctx context.Context) error {"], [(6, 8)]),
    ("go", GO, ["func main"], [(10, 12)]),
    ("go", GO, ["type Server"], [(2, 4)]),
    ("go", GO, ["Start"], [(6, 8)]),
    ("rust", RUST, ["fn main"], [(13, 15)]),
    ("rust", RUST, ["impl Foo for Bar"], [(3, 7)]),
    ("rust", RUST, ["impl Foo for Bar", "fn go"], [(4, 6)]),
    ("rust", RUST, ["impl Wrap", "fn new"], [(10, 10)]),
    ("rust", RUST, ["struct Bar"], [(0, 0)]),
    ("rust", RUST, ["trait Foo"], [(1, 1)]),
    ("java", JAVA, ["class App"], [(0, 8)]),
    ("java", JAVA, ["public static void main"], [(5, 7)]),
    ("java", JAVA, ["void main(String[] args)"], [(5, 7)]),
    ("java", JAVA, ["App.main"], [(5, 7)]),
    ("c", C, ["int main"], [(9, 11)]),
    ("c", C, ["main"], [(9, 11)]),
    ("c", C, ["static int *make"], [(4, 7)]),
    ("c", C, ["struct point"], [(2, 2)]),
    ("cpp", CPP, ["class Foo"], [(1, 4)]),
    ("cpp", CPP, ["void ns::Foo::bar()"], [(7, 9)]),
    ("cpp", CPP, ["namespace ns", "class Foo"], [(1, 4)]),
    ("cpp", CPP, ["int main"], [(11, 11)]),
    ("ruby", RUBY, ["class Foo"], [(1, 9)]),
    ("ruby", RUBY, ["def bar"], [(2, 4)]),
    ("ruby", RUBY, ["module M", "class Foo", "def bar(x)"], [(2, 4)]),
    ("ruby", RUBY, ["def self.baz"], [(6, 8)]),
    ("ruby", RUBY, ["Foo#bar"], [(2, 4)]),
    ("bash", BASH, ["greet()"], [(0, 2)]),
    ("bash", BASH, ["function bye"], [(3, 5)]),
]


@pytest.mark.parametrize(("language", "text", "anchors", "expected"), CASES,
                         ids=[f"{c[0]}-{'/'.join(c[2])}" for c in CASES])
def test_anchor_ranges(language: str, text: str, anchors: list[str],
                       expected: list[tuple[int, int]]) -> None:
    assert find_anchor_ranges(text, language, anchors) == expected


def test_text_mode_uses_lines_and_indentation_blocks() -> None:
    assert find_anchor_ranges(PYTHON, None, ["def wrap"]) == [(6, 7), (12, 15)]
    text = "section:\n  a\n  b\nother:\n  c\n"
    assert find_anchor_ranges(text, None, ["section:"]) == [(0, 2)]


def test_text_mode_block_includes_its_closing_line() -> None:
    text = "fn a() {\n    x\n}\nfn b() {\n}\n"
    assert find_anchor_ranges(text, None, ["fn a"]) == [(0, 2)]


def test_languages_without_definition_queries_fall_back_to_lines() -> None:
    text = "a:\n  b: 1\n  c: 2\nd: 3\n"
    assert find_anchor_ranges(text, "yaml", ["a:"]) == [(0, 2)]


def test_a_later_anchor_that_matches_nothing_keeps_the_outer_range() -> None:
    assert find_anchor_ranges(PYTHON, "python", ["class Foo", "def missing"]) == [(2, 10)]


def test_an_unknown_first_anchor_gives_nothing() -> None:
    assert find_anchor_ranges(PYTHON, "python", ["class Nope"]) == []


def test_anchor_ranges_with_multibyte_text_are_lines() -> None:
    text = "s = '日本語 ✓'\n\ndef f():\n    return 'ü'\n\ndef g():\n    pass\n"
    assert find_anchor_ranges(text, "python", ["def g"]) == [(5, 6)]


def test_definitions_report_names_and_kinds() -> None:
    found = [(d.name, d.kind) for d in definitions(PYTHON, "python")]
    assert found == [("Foo", "type"), ("wrap", "function"), ("run", "function"),
                     ("wrap", "function")]
    assert definitions("x", "json") == []
