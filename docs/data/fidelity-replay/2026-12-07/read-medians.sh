#!/bin/bash
# read service p50 (us), all and at inflight 1; write p50
for f in "$@"; do
awk 'NF==9 && $1 ~ /^[0-9]+$/ && $2 != "-" { d=($2-$1)/1000; if ($3=="R") { r[++nr]=d; if ($8==1) r1[++n1]=d } else if ($3=="W") w[++nw]=d }
 END { asort(r); asort(r1); asort(w); printf "%-28s read p50 %5.1f p90 %6.1f | alone p50 %5.1f (n %d) | write p50 %6.1f\n", FILENAME, r[int(nr/2)+1], r[int(nr*0.9)+1], r1[int(n1/2)+1], n1, w[int(nw/2)+1] }' $f
done
