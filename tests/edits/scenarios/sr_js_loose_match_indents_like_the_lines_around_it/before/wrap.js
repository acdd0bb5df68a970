function a() {
	return 1;
}

function b() {
	return 2;
}

function c() {
	return 3;
}

// pasted
function wrap(s) {
  if (s) {
    return `<${s}>`;
  }
  return '';
}
