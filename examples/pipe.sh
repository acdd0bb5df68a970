#!/usr/bin/env bash
# The pipe filter: code on stdin, the edited file on stdout, all prose on stderr.
# Runs against the bundled mock engine (no key, no network). Nothing on disk is
# touched except the output file you redirect to.
#
# If the edit is refused, spark exits 1 and writes the ORIGINAL text unchanged to
# stdout, so a pipeline keeps flowing with the untouched file.
set -euo pipefail
cd "$(dirname "$0")"
SPARK=${SPARK:-"../.venv/bin/python -m spark_cli"}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# 1. rename through a pipe; the language is detected from the content
$SPARK edit --provider mock -m "rename apply_discount to discounted" \
  < repo/src/shop/pricing.py > "$out"
echo "--- edited file:"
cat "$out"

# 2. an explicit language for text that has no file name
printf 'function hello(name) {\n  console.log("hi", name);\n  return name;\n}\n' \
  | $SPARK edit --provider mock --lang javascript -m "remove console.log"

# 3. a refused edit (the result would not parse): exit 1, the original comes out unchanged
set +e
printf 'x = 1\n' | $SPARK edit --provider mock --lang python -m "replace '= 1' with '= (1'" > "$out"
code=$?
set -e
echo "--- refused (exit $code); stdout is the original:"
cat "$out"
