#!/bin/bash
# benches/one_file_time.sh SHAPE N BIN... : writes ONE file of SHAPE at N and at 4N records
# (benches/one_file_gen.py) and times `BIN summary FILE` on both, 3 rounds alternating (N, 4N per
# binary); prints per binary: MB, the minimum seconds at N and 4N, their ratio, peak RSS (KB).
# Linear is a ratio near 4. Run from a scratch directory (the files are written there).
S=$1; N=$2; shift 2
GEN="$(dirname "$(readlink -f "$0")")/one_file_gen.py"
python3 "$GEN" $S $N m-$S.a; python3 "$GEN" $S $((N*4)) m-$S.b
declare -A best rss
for round in 1 2 3; do
  for B in "$@"; do for f in a b; do
    /usr/bin/time -o tm.$S -f "%e %M" $B summary m-$S.$f >/dev/null 2>/dev/null; r=$(tail -1 tm.$S)
    t=${r% *}; m=${r#* }; k=$B.$f
    if [ -z "${best[$k]}" ] || python3 -c "import sys; sys.exit(0 if $t < ${best[$k]} else 1)"; then best[$k]=$t; fi
    if [ -z "${rss[$k]}" ] || [ $m -gt ${rss[$k]} ]; then rss[$k]=$m; fi
  done; done
done
ma=$(python3 -c "print(round($(stat -c %s m-$S.a)/1e6,1))"); mb=$(python3 -c "print(round($(stat -c %s m-$S.b)/1e6,1))")
for B in "$@"; do
  echo "$S | $B | N=$N ${ma} MB ${best[$B.a]} s ${rss[$B.a]} KB | 4N ${mb} MB ${best[$B.b]} s ${rss[$B.b]} KB | ratio $(python3 -c "print(round(${best[$B.b]}/max(${best[$B.a]},0.01),1))")"
done
rm -f m-$S.a m-$S.b
