function foo(a) {
  return a + 1;
}

function bar(a) {
  return a + 2;
}
