function f(a) {
  try {
    if (a) {
      doA();
    }
    doB();
  } catch (e) {
    log(e);
  }
}
