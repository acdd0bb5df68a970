export function load(path) {
  const raw = read(path);
  const data = parse(raw);
  validate(data);
  return data;
}
