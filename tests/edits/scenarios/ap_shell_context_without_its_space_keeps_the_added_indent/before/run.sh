#!/bin/sh
main() {
  for f in "$@"; do
    echo "$f"
  done
}
main "$@"
