#!/usr/bin/env python3
"""classify.py DIR TXNS: what page-io.sh recorded, by page class.

Reads DIR/io.txt (or io.txt.gz), DIR/pages.txt(.gz) and DIR/indexes.txt;
prints reads and single-page writes a transaction by class (PK or k leaf
or node, the tablespace header pages, ibdata1's undo and rollback-segment
pages), the doublewrite batches, and the runs of contiguous pages within
each batch (a batch: the page writes after one doublewrite write)."""
import collections, gzip, os, struct, sys

def lines(path):
    if os.path.exists(path):
        return open(path)
    return gzip.open(path + '.gz', 'rt')

o, txns = sys.argv[1], int(sys.argv[2])
idx = {int(l.split('\t')[0]): l.split('\t')[1] for l in lines(o + '/indexes.txt')}
ptype = {}
for l in lines(o + '/pages.txt'):
    path, p, t, i, lev = l.rstrip().split('\t')
    ptype[(os.path.basename(path), int(p))] = (int(t), int(i), int(lev))

def cls(path, p):
    base = os.path.basename(path)
    if base == 'ibdata1':
        return 'ibdata1'
    if base.startswith('ib_logfile'):
        return 'redo'
    t, i, lev = ptype.get((base, p), (None, None, None))
    if t == 17855:                  # FIL_PAGE_INDEX
        n = idx.get(i, '?')
        n = 'PK' if n == 'PRIMARY' else 'k' if n.startswith('k_') else n
        return n + ('-leaf' if lev == 0 else '-node')
    return {8: 'fsp_hdr', 5: 'ibuf_bitmap', 3: 'inode'}.get(t, 'type%s' % t)

ev = []
for l in lines(o + '/io.txt'):
    t, rw, path, p, cnt = l.split()
    ev.append((float(t), rw, path, int(p), int(cnt)))
ev.sort()
reads, writes = collections.Counter(), collections.Counter()
batches, cur = [], []
for t, rw, path, p, cnt in ev:
    c = cls(path, p)
    if c == 'redo':
        continue
    if rw == 'r':
        reads[c] += max(1, cnt // 16384)
    elif cnt > 16384:               # the doublewrite area: a batch begins
        if cur:
            batches.append(cur)
        cur = []
    else:
        writes[c] += 1
        cur.append((os.path.basename(path), p))
if cur:
    batches.append(cur)
print('reads a transaction:', {k: round(v / txns, 3) for k, v in reads.most_common()})
print('page writes a transaction:', {k: round(v / txns, 3) for k, v in writes.most_common()})
sizes = [len(b) for b in batches]
print('doublewrite batches: %d, %.1f pages each' % (len(batches), sum(sizes) / len(sizes)))
runs = collections.defaultdict(list)
for b in batches:
    s = sorted(set(b))
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1][0] == s[i][0] and s[j + 1][1] == s[j][1] + 1:
            j += 1
        c = collections.Counter(cls(*x) for x in s[i:j + 1]).most_common(1)[0][0]
        runs[c].append(j - i + 1)
        i = j + 1
print('runs of contiguous pages within a batch, by the class of most of their pages:')
for c, l in sorted(runs.items(), key=lambda x: -sum(x[1])):
    if sum(l) >= 50:
        hist = sorted(collections.Counter(min(x, 16) for x in l).items())
        print('  %-12s runs %5d pages %5d mean %.2f  lengths (16: 16 or more) %s' %
              (c, len(l), sum(l), sum(l) / len(l), hist))
