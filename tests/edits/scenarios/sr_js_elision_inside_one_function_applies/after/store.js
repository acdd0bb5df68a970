export function load(path) {
  const raw = read(path);
  const data = JSON.parse(raw);
  return data;
}

export function save(path, data) {
  const raw = JSON.stringify(data);
  write(path, raw, { flush: true });
  return data;
}
