#!/usr/bin/env python3
# every second: per process name, the summed deltas (over threads alive in both samples)
# of CPU ns and run-queue delay ns, and the machine's busy fraction
import os, sys, time
out = open(sys.argv[1], 'w', buffering=1)
names = ('postgres', 'mariadbd', 'appio')
def snap():
    d = {}
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        try:
            comm = open(f'/proc/{p}/comm').read().strip()
        except OSError: continue
        comm = 'appio' if comm.startswith('appio') else comm
        if comm not in names: continue
        try:
            for t in os.listdir(f'/proc/{p}/task'):
                try:
                    a = open(f'/proc/{p}/task/{t}/schedstat').read().split()
                    d[(comm, t)] = (int(a[0]), int(a[1]))
                except OSError: pass
        except OSError: pass
    return d
def cpu():
    v = list(map(int, open('/proc/stat').readline().split()[1:]))
    return sum(v), v[3] + v[4]
prev, pc = snap(), cpu()
while True:
    time.sleep(1)
    cur, cc = snap(), cpu()
    tot = {n: [0, 0] for n in names}
    for k, v in cur.items():
        if k in prev:
            tot[k[0]][0] += v[0] - prev[k][0]; tot[k[0]][1] += v[1] - prev[k][1]
        else:
            tot[k[0]][0] += v[0]; tot[k[0]][1] += v[1]
    busy = 1 - (cc[1] - pc[1]) / max(1, cc[0] - pc[0])
    out.write('%.1f busy %.3f %s\n' % (time.time(), busy, ' '.join('%s %d %d' % (n, tot[n][0] // 1000, tot[n][1] // 1000) for n in names)))
    prev, pc = cur, cc
