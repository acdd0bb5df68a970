function f(a) {
  if (a) {
    doA();
  }
  doB();
}
