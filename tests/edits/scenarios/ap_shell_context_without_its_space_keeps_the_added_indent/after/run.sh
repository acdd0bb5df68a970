#!/bin/sh
main() {
  for f in "$@"; do
    test -e "$f" || continue
    echo "$f"
  done
}
main "$@"
