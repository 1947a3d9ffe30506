#!/usr/bin/env bash
# Regenerates the explorer screenshots in assets/*.png from a real terminal run:
# provscope runs in a detached tmux (160x45, TERM=xterm-256color, COLORTERM unset) on the bundled
# sample-sessions/, keys go in with `send-keys`, each view is captured with its colours
# (`capture-pane -e -p`) and assets/render_ansi.py draws the capture as a PNG.
#
#   bash assets/make-screenshots.sh
#
# Environment: PROVSCOPE=path/to/provscope (default: the newest of target/{debug,release},
# honouring CARGO_TARGET_DIR, built with `cargo build` when neither exists), SHOTS_DIR=dir for
# the raw .ansi captures (default: a new temporary directory, kept and printed), SHOTS_SCALE=2
# for double-size PNGs.
# Installs what it lacks: tmux, fonts-dejavu-core and fonts-symbola (the badges ⧖ and ⑂ are not
# in DejaVu) with apt-get, Pillow into .cache/shots.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
COLS=160
ROWS=45
SOCKET=shots
SCALE=${SHOTS_SCALE:-1}

need_apt=()
command -v tmux >/dev/null || need_apt+=(tmux)
[[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ]] || need_apt+=(fonts-dejavu-core)
ls /usr/share/fonts/truetype/ancient-scripts/Symbola*.ttf >/dev/null 2>&1 || need_apt+=(fonts-symbola)
if ((${#need_apt[@]})); then
    echo "installing ${need_apt[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# The binary: $PROVSCOPE, else the newest build, else a debug build.
BIN=${PROVSCOPE:-}
if [[ -z $BIN ]]; then
    tdir=${CARGO_TARGET_DIR:-$ROOT/target}
    for c in "$tdir/debug/provscope" "$tdir/release/provscope"; do
        if [[ -x $c && ( -z $BIN || $c -nt $BIN ) ]]; then BIN=$c; fi
    done
    if [[ -z $BIN ]]; then
        cargo build
        BIN=$tdir/debug/provscope
    fi
fi
BIN=$(realpath "$BIN")
echo "provscope: $BIN" >&2

OUT=${SHOTS_DIR:-$(mktemp -d -t provscope-shots.XXXXXX)}
mkdir -p "$OUT"
printf 'set -g status off\nset -g escape-time 0\nset -g history-limit 0\n' >"$OUT/tmux.conf"

tm() { tmux -L "$SOCKET" "$@"; }
cleanup() { tm kill-server 2>/dev/null || true; }
trap cleanup EXIT
cleanup
for ((i = 0; i < 50; i++)); do tm list-sessions >/dev/null 2>&1 || break; sleep 0.1; done

# start: a fresh explorer (and a fresh case database) in a new tmux session; the previous
# session is closed only after, so the tmux server stays up between views.
SESSION=
N=0
start() {
    local db old=$SESSION
    db=$(mktemp -d "$OUT/db.XXXXXX")/cases.sqlite
    SESSION=view$((++N))
    env -u COLORTERM -u NO_COLOR TERM=xterm-256color \
        tmux -L "$SOCKET" -f "$OUT/tmux.conf" new-session -d -s "$SESSION" -x "$COLS" -y "$ROWS" \
        "env -u COLORTERM -u NO_COLOR TERM=xterm-256color '$BIN' --db '$db' '$ROOT/sample-sessions/'; sleep 600"
    [[ -z $old ]] || tm kill-session -t "$old"
    wait_for "sorted by name"
}

screen() { tm capture-pane -p -t "$SESSION"; }

# wait_for TEXT: polls the pane until TEXT shows, then until two captures agree.
wait_for() {
    local i prev="" now
    for ((i = 0; i < 100; i++)); do
        if screen | grep -qF -- "$1"; then
            for ((i = 0; i < 20; i++)); do
                sleep 0.15
                now=$(tm capture-pane -e -p -t "$SESSION")
                [[ $now == "$prev" ]] && return 0
                prev=$now
            done
            return 0
        fi
        sleep 0.1
    done
    echo "make-screenshots: timed out waiting for: $1" >&2
    screen >&2
    exit 1
}

keys() { tm send-keys -t "$SESSION" "$@"; }

# move_to NAME: in the sessions list (sorted by name), moves the selection to sample NAME.
move_to() {
    local n i
    n=$(cd "$ROOT/sample-sessions" && ls -1 -- *.jsonl | sed 's/\.jsonl$//' | sort | grep -nxF -- "$1" | cut -d: -f1)
    [[ -n $n ]] || { echo "make-screenshots: no sample $1" >&2; exit 1; }
    for ((i = 1; i < n; i++)); do keys j; done
}

# open_session NAME: from the sessions list, opens sample NAME.
open_session() {
    move_to "$1"
    keys Enter
    wait_for "Session │ $1"
}

# select_claim ID: in the session view, focuses the claims and opens the claim view (c), then
# moves through the session's claims (j) until the view shows ID.
select_claim() {
    local i
    keys Right c
    wait_for "Claim beside source"
    for ((i = 0; i < 40; i++)); do
        if screen | grep -qF -- "$1 · turn"; then return 0; fi
        keys j
        wait_for "Claim beside source"
    done
    echo "make-screenshots: claim $1 not found" >&2
    exit 1
}

capture() {
    tm capture-pane -e -p -t "$SESSION" >"$OUT/$1.ansi"
    echo "captured $1" >&2
}

start
move_to 04-stale-cache
wait_for "sorted by name"
capture sessions

start
open_session 04-stale-cache
keys Right
wait_for "Session │ 04-stale-cache"
capture session
keys '?'
wait_for "Help: Session"
capture help

start
open_session 04-stale-cache
select_claim clm_seat_price
wait_for "STALE"
capture claim

start
open_session 03-citation-drift
select_claim clm_team_price
keys d
wait_for "Binding history of clm_team_price"
capture drift

start
open_session 06-parallel-conflict
select_claim clm_inc_resolved
keys p
wait_for "Fan-out"
capture parallel

start
open_session 04-stale-cache
select_claim clm_seat_price
keys x
wait_for "Fact right, source right"
capture grid

start
open_session 04-stale-cache
keys r
wait_for "flagged claim 1 of"
capture review

keys Q
cleanup

for name in sessions session claim drift parallel grid review help; do
    python3 "$ROOT/assets/render_ansi.py" --cols "$COLS" --rows "$ROWS" --scale "$SCALE" \
        "$OUT/$name.ansi" "$ROOT/assets/$name.png"
    echo "assets/$name.png" >&2
done
echo "raw captures: $OUT" >&2
