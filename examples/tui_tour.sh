#!/usr/bin/env bash
# A scripted real-terminal tour of `spark` (docs/tui.md): tmux runs the TUI against a
# `spark engine serve` paced slowly enough to watch; the script types like a person
# (an edit, an interrupt, a redirect, a queue) and reads the pane after each step.
#
#   examples/tui_tour.sh            # TPS=60: watch it with `tmux -L spark-tour attach`
#
# It runs on a tmux server of its own (`-L "$SESSION"`), so another tmux user on the
# machine (or a session of the same name on the default server) never meets it.
#   TPS=400 DEEP_TPS=800 examples/tui_tour.sh    # faster (the test suite runs it this way)
#
# Exits 0 when every step showed what it should; prints the pane of a step that did not.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
spark=${SPARK:-$here/../.venv/bin/spark}
tps=${TPS:-60}
deep_tps=${DEEP_TPS:-80}
session=${SESSION:-spark-tour}
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
token="tour-$RANDOM"

cleanup() {
    tmux -L "$session" kill-server 2>/dev/null || true
    [ -n "${engine_pid:-}" ] && kill "$engine_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
unset TMUX   # started from inside tmux: still a server of its own, not a nested client
tm() { tmux -L "$session" "$@"; }

cp -r "$here/repo" "$work/repo"
"$spark" engine serve --port "$port" --token "$token" --tps "$tps" --ttft-ms 150 \
    --deep-tps "$deep_tps" --deep-ttft-ms 1500 \
    >"$work/engine.log" 2>&1 &
engine_pid=$!
for _ in $(seq 100); do
    grep -q "127.0.0.1:$port" "$work/engine.log" 2>/dev/null && break
    sleep 0.1
done

tm new-session -d -s "$session" -x 110 -y 60 -c "$work/repo" \
    "env SPARK_API_KEY=$token SPARK_STATE_DIR=$work/state SPARK_CONFIG_DIR=$work/cfg \
     SPARK_DEEP_BASE_URL=http://127.0.0.1:$port/v1 \
     $spark --provider mock --base-url http://127.0.0.1:$port/v1; sleep 2"

pane() { tm capture-pane -t "$session" -p; }
type_line() { tm send-keys -t "$session" -l "$1"; }
key() { tm send-keys -t "$session" "$@"; }
# wait_for TEXT [SECONDS]: until the pane shows TEXT
wait_for() {
    local deadline=$((SECONDS + ${2:-20}))
    until pane | grep -qF -- "$1"; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "tour: never saw '$1'; the pane was:" >&2
            pane >&2
            exit 1
        fi
        sleep 0.2
    done
    echo "tour: saw '$1'"
}

wait_for "│ ready"                                  # connected and warm

step() { echo "== $1"; }

step "an edit lands while the model talks"
type_line "/add src/shop/cart.py"; key Enter
wait_for "added src/shop/cart.py"
type_line "rename total_price to cart_total"; key Enter
wait_for "✓ src/shop/cart.py" 30
wait_for "applied, 0 refused" 30

step "Esc interrupts at once"
type_line "/model spark-lorem"; key Enter
wait_for "now mock · spark-lorem"
type_line "write a lot"; key Enter
wait_for "│ streaming │" 20
sleep 1
key Escape
wait_for "cancelled (interrupted)"

step "Enter while it streams redirects it"
type_line "keep writing"; key Enter
wait_for "│ streaming │" 20
sleep 1
type_line "no, something else"; key Enter
wait_for "no, something else  (steering in-band)"
wait_for "redirected: the answer continues from here" 30
key Escape
wait_for "│ ready"

step "Tab queues; the queue survives Esc"
type_line "one more"; key Enter
wait_for "│ streaming │" 20
type_line "then this"; key Tab
wait_for "1. then this"
key Escape
wait_for "queued (paused"
wait_for "│ ready"

step "a deep task works in the background; its change is merged when you say"
type_line "/model spark-rules"; key Enter
wait_for "now mock · spark-rules"
type_line "/deep add docstrings to every function in src/shop/cart.py and src/shop/pricing.py"
key Enter
wait_for "deep #1 started"
type_line "explain src/shop/cart.py"; key Enter     # the fast track answers meanwhile
wait_for "applied, 0 refused" 30
wait_for "deep #1 done" 90
wait_for "│ ready" 30                                # the queued "then this" ran after the answer
type_line "/deep apply 1"; key Enter
wait_for "deep #1: applied 2 hunk(s)" 30              # ... (one undo batch); a line start never wraps

step "quit"
key C-q
sleep 0.5
echo "tour: every step showed what it should"
