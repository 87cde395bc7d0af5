#!/usr/bin/env python3
# match-layers.py EXTENTS LOOP_TRACE VDA_TRACE: pair each 16 KiB read of a capture
# (or replay) of the loop device with the virtio disk's read of the same blocks of
# the image file (EXTENTS: `filefrag -v disk.img`), both appio traces taken at once,
# and print where each read's time went: loop issue to the disk's issue, the
# disk's service, the disk's completion to the loop's. The two traces' clocks are
# aligned by their epoch-ns lines, to a few microseconds.
import sys, bisect, re, collections
ff, looptr, vdatr = sys.argv[1:4]
ext = []
for line in open(ff):
    m = re.match(r'\s*\d+:\s+(\d+)\.\.\s*(\d+):\s+(\d+)\.\.\s*(\d+):', line)
    if m:
        ext.append((int(m[1]), int(m[2]), int(m[3])))
ext.sort()
starts = [e[0] for e in ext]
def phys(off):
    b = off // 4096
    i = bisect.bisect_right(starts, b) - 1
    lo, hi, p = ext[i]
    assert lo <= b <= hi
    return (p + b - lo) * 4096 + off % 4096
def load(f):
    epoch = 0; recs = []
    for line in open(f):
        if line.startswith('epoch-ns'): epoch = int(line.split()[1])
        p = line.split()
        if len(p) == 9 and p[0].isdigit() and p[1] != '-':
            recs.append((epoch + int(p[0]), epoch + int(p[1]), p[2], int(p[5]), int(p[6]), int(p[7]), p[8]))
    return recs
L = load(looptr); V = load(vdatr)
vidx = collections.defaultdict(list)
for r in V:
    if r[2] == 'R': vidx[(r[3], r[4])].append(r)
for k in vidx: vidx[k].sort()
sub, svc, comp, tot = [], [], [], []
miss = 0
for r in L:
    if r[2] != 'R' or r[4] != 16384: continue
    k = (phys(r[3]), r[4])
    lst = vidx.get(k)
    if not lst: miss += 1; continue
    i = bisect.bisect_left(lst, (r[0] - 2_000_000,))
    if i >= len(lst) or abs(lst[i][0] - r[0]) > 2_000_000: miss += 1; continue
    v = lst[i]
    sub.append(v[0] - r[0]); svc.append(v[1] - v[0]); comp.append(r[1] - v[1]); tot.append(r[1]-r[0])
def pc(a):
    a = sorted(a); n = len(a)
    return ' '.join('p%d=%.1f' % (q, a[min(n-1, int(n*q/100))]/1000) for q in (10, 50, 90, 99))
print(f'matched {len(tot)} missed {miss}')
print('loop total  ', pc(tot))
print('to vda issue', pc(sub))
print('vda service ', pc(svc))
print('vda->loop done', pc(comp))
