# shellcheck shell=bash
# fidelity-lib.sh - sourced by scripts/fidelity-oltp.sh and
# scripts/fidelity-tpcc.sh: the real servers' counters, their start with a
# configuration's pool, redo / WAL size and flush setting, the comparison of
# the real counters with the emulator's (one "engine name role threads figure
# real emulated" line per cell), the report and the baseline of held-out
# cells. The caller sets ROOT, DIR, SRV and KINDS (the engines compared).

# shellcheck source=scripts/cpu-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/cpu-lib.sh"

MARIA_VARS="'Innodb_pages_read','Innodb_pages_written','Innodb_lsn_current','Innodb_os_log_written',
	'Innodb_data_fsyncs','Innodb_dblwr_pages_written','Innodb_dblwr_writes','Innodb_log_writes',
	'Innodb_data_reads','Innodb_data_writes','Innodb_buffer_pool_read_requests','Innodb_buffer_pool_reads',
	'Innodb_buffer_pool_pages_flushed','Innodb_buffer_pool_pages_LRU_flushed','Innodb_log_waits',
	'Innodb_checkpoint_age','Innodb_buffer_pool_pages_dirty','Innodb_buffer_pool_pages_free',
	'Innodb_history_list_length','Com_commit'"

# counters KIND: a JSON object of the server's own statistics
counters() {
	case $1 in
	mariadb)
		{ mariadb --no-defaults --socket="$SRV/mysqld.sock" -uroot -N -B -e \
			"SHOW GLOBAL STATUS WHERE Variable_name IN ($MARIA_VARS)" |
			jq -R -s 'split("\n") | map(select(length > 0) | split("\t") | {(.[0]): (.[1] | tonumber)}) | add'
		# and InnoDB's own counters (INNODB_METRICS, all enabled at the start),
		# as m_NAME: page splits, merges, reorganisations, undo and purge work
		# beside the redo they log; references made before have none
		mariadb --no-defaults --socket="$SRV/mysqld.sock" -uroot -N -B -e \
			"SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE ENABLED = 1" |
			jq -R -s 'split("\n") | map(select(length > 0) | split("\t") | {("m_" + .[0]): (.[1] | tonumber)}) | add // {}'; } | jq -c -s add ;;
	postgres)
		# the checkpointer adds the backends' writes to buffers_backend when it
		# wakes (below); a reload wakes it (measured: the count moved only at
		# each pg_reload_conf() under load)
		psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -tA -c "SELECT pg_reload_conf()" >/dev/null
		sleep 0.3
		{ psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -tA -c "SELECT row_to_json(s) FROM (SELECT
			(SELECT coalesce(sum(heap_blks_read), 0) FROM pg_statio_user_tables) AS heap_blks_read,
			(SELECT coalesce(sum(idx_blks_read), 0) FROM pg_statio_user_tables) AS idx_blks_read,
			(SELECT coalesce(sum(heap_blks_hit + idx_blks_hit), 0) FROM pg_statio_user_tables) AS blks_hit,
			b.buffers_checkpoint, b.buffers_clean, b.buffers_backend, b.buffers_backend_fsync,
			b.checkpoints_timed, b.checkpoints_req,
			w.wal_bytes, w.wal_sync, w.wal_write, w.wal_fpi, w.wal_records,
			(SELECT xact_commit FROM pg_stat_database WHERE datname = 'appio') AS xact_commit
			FROM pg_stat_bgwriter b, pg_stat_wal w) s"
		  autovacuum_io "$SRV/pgdata/server.log"; } | jq -c -s add ;;
	esac
}
# autovacuum_io LOG: autovacuum's pages read and written so far, from the
# server's log (log_autovacuum_min_duration 0: a table's "buffer usage" and
# "avg read/write rate" when its vacuum or analyze ends), as JSON: av_reads,
# the misses of the benchmark's tables (the ones pg_statio_user_tables
# counts), av_written, the pages the workers wrote in any database (all of
# them in buffers_backend), misses x write rate / read rate. Whether a
# worker's visit falls in a 15 s point is the launcher's schedule, not the
# workload's: on p-w2's server its ANALYZE of every table read 12,700 pages
# in the 2-thread point once and outside the points the next time.
autovacuum_io() {
	[ -f "$1" ] || { echo '{}'; return; }
	awk '/automatic (vacuum|analyze) of table/ { user = index($0, "\"appio.public.") > 0; rr = wr = 0 }
	/avg read rate:/ { rr = $4; wr = $9 }
	/buffer usage:/ { if (user) reads += $5; if (rr > 0) written += $5 * wr / rr }
	END { printf "{\"av_reads\":%d,\"av_written\":%d}\n", reads, written + 0.5 }' "$1"
}

# JQ_CUM: cum($all; $i), the emulator's counters from its run's start
# (warm-up included) to the end of point $i, for the comparisons that take
# PostgreSQL's writes over the whole run so far
JQ_CUM='def cum($all; $i): [$all[0:$i + 1][].counters] |
	reduce .[] as $c ({}; reduce ($c | keys[]) as $k (.; .[$k] += $c[$k]));'

# gauges: counters that are levels, not totals; kept as read at the end
GAUGES='["Innodb_checkpoint_age","Innodb_buffer_pool_pages_dirty","Innodb_buffer_pool_pages_free","Innodb_history_list_length"]'

server_pid() {
	case $1 in
	mariadb) cat "$SRV/mysqld.pid" ;;
	postgres) head -1 "$SRV/pgdata/postmaster.pid" ;;
	esac
}

# start KIND POOL REDO FLUSH: a server on what SRV holds (fresh if empty)
start() {
	local set=()
	case $1 in
	mariadb) set=(innodb_buffer_pool_size="$2" innodb_log_file_size="$3"
		      innodb_flush_log_at_trx_commit="$4" innodb_monitor_enable=all) ;;
	postgres) set=(shared_buffers="${2}B" max_wal_size="${3}B"
		       synchronous_commit="$([ "$4" = 1 ] && echo on || echo off)"
		       log_autovacuum_min_duration=0)
		# min_wal_size (80MB) may not exceed max_wal_size
		[ "$(numfmt --from=iec "$3")" -ge $((80 << 20)) ] || set+=(min_wal_size="${3}B") ;;
	esac
	"$ROOT/scripts/db-start.sh" "$1" "$SRV" "${set[@]}" 2>/dev/null | tail -n 1
}

# settings KIND: what the server took (a pool is rounded, for one)
settings() {
	case $1 in
	mariadb) mariadb --no-defaults --socket="$SRV/mysqld.sock" -uroot -N -B -e \
		"SELECT JSON_OBJECT('version', VERSION(), 'pool', @@innodb_buffer_pool_size,
		 'log_file_size', @@innodb_log_file_size, 'flush', @@innodb_flush_log_at_trx_commit,
		 'flush_neighbors', @@innodb_flush_neighbors, 'flush_method', @@innodb_flush_method)" ;;
	postgres) psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -tA -c \
		"SELECT json_build_object('version', version(), 'pool', current_setting('shared_buffers'),
		 'max_wal_size', current_setting('max_wal_size'),
		 'synchronous_commit', current_setting('synchronous_commit'))" ;;
	esac
}

# cells REF_JSON EMU_JSONL: "engine name role threads figure real emulated" lines
CELLS='
def per($n): if $n > 0 then . / $n else 0 end;
($ref[0]) as $r |
(range(0; $r.points | length) as $i | $r.points[$i] | . as $p |
 ($emu | map(select(.threads == $p.threads)) | .[0]) as $e |
 select($e != null) |
 ($p.d) as $d | ($e.c) as $c |
 # PostgreSQL 15 reports backend writes (buffers_backend) only when its
 # checkpointer absorbs their fsync requests: when its queue is half full
 # (NBuffers / 2 requests), at a checkpoint, or at a reload (which
 # counters() asks for since 6 December 2026), so in the references taken
 # before, one 15 s point shows none or several points worth. Its writes
 # are compared from the warm-up'"'"'s start to the point'"'"'s end, on both sides.
 # Where the reference has autovacuum'"'"'s own I/O (av_reads, av_written:
 # since 6 December 2026), both sides leave it out of the cells and show it
 # apart (avreads, avwrites: from the warm-up'"'"'s start, per transaction).
 ($d.av_reads != null) as $av |
 ([$r.warmup.run.d, $r.points[0:$i + 1][].d]) as $upto |
 (if $r.engine == "postgres" then
   $upto | map(.buffers_checkpoint + .buffers_clean + .buffers_backend - (.av_written // 0)) | add
  else 0 end) as $pgw |
 ([$r.warmup.run.txns, $r.points[0:$i + 1][].txns] | add) as $pgn |
 (if $r.engine == "mariadb" then
   [["reads", $d.Innodb_pages_read], ["writes", $d.Innodb_pages_written],
    ["redo", $d.Innodb_lsn_current], ["fsyncs", $d.Innodb_data_fsyncs],
    ["dblwr", $d.Innodb_dblwr_pages_written]]
  else
   [["reads", $d.heap_blks_read + $d.idx_blks_read - ($d.av_reads // 0)],
    (if $e.cum then ["writes", ($pgw | per($pgn)) * $p.txns]
     else ["writes", $d.buffers_checkpoint + $d.buffers_clean + $d.buffers_backend - ($d.av_written // 0)] end),
    ["redo", $d.wal_bytes], ["fsyncs", $d.wal_sync]]
  end) as $real |
 {reads: $c.bp_reads, writes: $c.pages_written, redo: $c.log_bytes, dblwr: $c.dblwr_pages,
  fsyncs: (if $r.engine == "mariadb" then $c.log_fsyncs + $c.data_fsyncs + $c.dblwr_writes
	   else $c.log_fsyncs end)} as $emuc0 |
 (if $av then $emuc0 + {reads: ($c.bp_reads - ($c.autovacuum_reads // 0))} else $emuc0 end) as $emuc1 |
 (if $av and $e.cum then ($e.cum.autovacuum_written // 0) else 0 end) as $avw |
 (if $r.engine == "postgres" and $e.cum then
   $emuc1 + {writes: ((($e.cum.pages_written - $avw) | per($e.cum.txns)) * $c.txns)} else $emuc1 end) as $emuc |
 (($real[] | [.[0], (.[1] | per($p.txns)), ($emuc[.[0]] | per($c.txns))]),
  ["tps", $p.tps, $e.tps], ["p99", ($p.p99 / 1e6), ($e.p99 / 1e6)],
  (if $av and $e.cum then
    ["avreads", ($upto | map(.av_reads // 0) | add | per($pgn)), ($e.cum.autovacuum_reads // 0 | per($e.cum.txns))],
    ["avwrites", ($upto | map(.av_written // 0) | add | per($pgn)), ($e.cum.autovacuum_written // 0 | per($e.cum.txns))]
   else empty end)) |
 [$r.engine, $r.name, $r.role, $p.threads] + . | map(tostring) | join(" "))'

# within FIGURE REAL EMU (awk): the target of each figure
AWK_TARGET='
function floor_of(f) { return f == "redo" ? 20 : 0.02 }
function within(f, r, e) {
	if (f == "tps" || f == "p99") return r > 0 && e > 0 && e / r <= 1.5 && r / e <= 1.5
	return (e - r <= 0.25 * r && r - e <= 0.25 * r) || (e - r <= floor_of(f) && r - e <= floor_of(f))
}'

# calibrate_line KIND: the name of KIND's first calibrate line in DIR/configs.txt
calibrate_line() { awk -v k="$1" '$2 == k && $NF == "calibrate" { print $1; exit }' "$DIR/configs.txt"; }

# cpu_scale KIND: the emulator's --cpu-scale for this session. This host's
# speed drifts by a third from hour to hour (docs/oltp-tpcc.md), and not
# alike for all work: the emulator's statement CPU is counted in time, its
# own work and the server's in cycles. So the scale is fitted on KIND's first
# calibrate line (the data in the pool) by emulate_scaled, into
# DIR/cpu-scale-KIND; before that, a first guess: the line's server CPU a
# transaction at its point with the most threads in REF over CPU_REF[KIND],
# what it took when the model's costs were fitted (the caller's table:
# MariaDB's own process; PostgreSQL's backends come and go, so the whole
# machine's). CPU_SCALE=F overrides; 1 with no calibrate line or CPU_REF.
cpu_scale() {
	local name
	[ -n "${CPU_SCALE:-}" ] && { echo "$CPU_SCALE"; return; }
	[ -s "$DIR/cpu-scale-$1" ] && { cat "$DIR/cpu-scale-$1"; return; }
	name=$(calibrate_line "$1")
	if [ -z "$name" ] || [ -z "${CPU_REF[$1]:-}" ] || [ ! -s "$REF/$name.json" ]; then
		echo 1
		return
	fi
	jq -r --arg k "$1" --argjson ref "${CPU_REF[$1]}" '.points | max_by(.threads) |
		(if $k == "mariadb" then .srv else .cpu end) * 1e4 / .txns / $ref |
		if . > 0 then (. * 1000 | round / 1000) else 1 end' "$REF/$name.json"
}

# calib_cpu KIND: "MACHINE_US SCALE EMU_US BURNT_US" at the point with the
# most threads of KIND's first calibrate line: the whole machine's CPU a
# transaction under the server (REF), and the emulator's run of the line
# (EMU_DIR): the scale it ran at, its CPU a transaction and what its model
# burnt of it. Nothing when either is missing.
calib_cpu() {
	local name
	name=$(calibrate_line "$1")
	[ -n "$name" ] && [ -s "$REF/$name.json" ] && [ -s "$EMU_DIR/$name.jsonl" ] || return 0
	jq -r -n --slurpfile r "$REF/$name.json" --slurpfile e "$EMU_DIR/$name.jsonl" '
		($r[0].points | max_by(.threads)) as $rp | ($e | max_by(.threads)) as $ep |
		if ($ep.c.cpu_model_us // 0) > 0 and ($ep.scale // 0) > 0 and ($rp.cpu // 0) > 0 then
			[$rp.cpu * 1e4 / $rp.txns, $ep.scale, $ep.cpu_s * 1e6 / $ep.c.txns,
			 $ep.c.cpu_model_us / $ep.c.txns] | map(tostring) | join(" ")
		else empty end'
}

# emulate_scaled KIND NAME RUN: the emulator on line NAME at the session's
# scale (its locals are named not to hide the caller's, which RUN sees):
# RUN SCALE is the caller's function that runs it at --cpu-scale SCALE
# into EMU_DIR/NAME.jsonl (the scale kept in each point). KIND's first
# calibrate line is run up to three times, the scale fitted (scale_next)
# until the emulator's CPU a transaction at the most threads is within 3 %
# of the machine's under the server. The run that came closest is kept and
# its scale is the session's (DIR/cpu-scale-KIND), which the other lines
# take: the emulator's CPU is not smooth in the scale (its timer wake-ups
# cost more CPU at some statement lengths than at others, docs/oltp-tpcc.md),
# so the last run is not always the best.
emulate_scaled() {
	local kind=$1 name=$2 run=$3 cs calib=0 pass m s e b prev="" best="" best_scale keep
	rm -f "$EMU_DIR/$name.jsonl"
	if [ -z "${CPU_SCALE:-}" ] && [ "$name" = "$(calibrate_line "$kind")" ]; then
		calib=1
		rm -f "$DIR/cpu-scale-$kind"
	fi
	cs=$(cpu_scale "$kind")
	keep=$EMU_DIR/$name.jsonl.best
	for pass in 1 2 3; do
		log "$name: emulator (--cpu-scale $cs)"
		"$run" "$cs" || return 1
		[ "$calib" = 1 ] || return 0
		read -r m s e b <<<"$(calib_cpu "$kind")"
		[ -n "$b" ] || return 0
		if [ -z "$best" ] || scale_better "$m" "$e" "$best"; then
			best=$e best_scale=$s
			cp "$EMU_DIR/$name.jsonl" "$keep"
		fi
		if scale_close "$m" "$e" || [ "$pass" = 3 ]; then
			mv "$keep" "$EMU_DIR/$name.jsonl"
			echo "$best_scale" >"$DIR/cpu-scale-$kind"
			log "$name: $(printf '%.0f' "$best") us of CPU a transaction, the machine's $(printf '%.0f' "$m"): --cpu-scale $best_scale for the session"
			return 0
		fi
		# shellcheck disable=SC2086
		cs=$(scale_next "$m" "$s" "$e" "$b" $prev)
		prev="$s $e"
	done
}

# report: the tables, the summary and the ranking, from the cells file $1
report() {
	local cells=$1 kind
	for kind in "${KINDS[@]}"; do
		grep -q "^$kind " "$cells" || continue
		awk -v kind="$kind" "$AWK_TARGET"'
		$1 != kind { next }
		{ key = $2 " " $4; if (!(key in seen)) { seen[key] = 1; order[++n] = key; role[key] = $3 }
		  v[key, $5] = $6 "/" $7; ok[key, $5] = within($5, $6, $7); r[key, $5] = $6; e[key, $5] = $7 }
		function cell(k, f,   s) {
			if (!((k, f) in v)) return "-"
			if (f == "redo") s = sprintf("%.0f/%.0f", r[k, f], e[k, f])
			else if (f == "tps") s = sprintf("%.0f/%.0f", r[k, f], e[k, f])
			else if (f == "p99") s = sprintf("%.1f/%.1f", r[k, f], e[k, f])
			else s = sprintf("%.2f/%.2f", r[k, f], e[k, f])
			if (r[k, f] > 0) s = s sprintf("(%.2f)", e[k, f] / r[k, f])
			return s (ok[k, f] ? "" : "*")
		}
		END {
			printf "\n%s (real/emulated per transaction, (emulated/real), * outside target)\n", kind
			printf "%-12s %-3s %-3s %-17s %-17s %-19s %-17s %-17s %-17s %s\n", "config", "rol", "T",
				"reads", "writes", "redo B", "fsyncs", "dblwr pages", "TPS", "p99 ms"
			for (i = 1; i <= n; i++) {
				k = order[i]; split(k, a, " ")
				printf "%-12s %-3s %-3s %-17s %-17s %-19s %-17s %-17s %-17s %s\n", a[1],
					role[k] == "calibrate" ? "cal" : "out", a[2], cell(k, "reads"), cell(k, "writes"),
					cell(k, "redo"), cell(k, "fsyncs"), cell(k, "dblwr"), cell(k, "tps"), cell(k, "p99")
			}
		}' "$cells"
	done
	echo
	awk "$AWK_TARGET"'
	{ g = $3; n[g, $5]++; if (within($5, $6, $7)) in_[g, $5]++; roles[g] = 1 }
	END {
		split("reads writes redo fsyncs dblwr tps p99", f, " ")
		for (g in roles) {
			line = sprintf("summary %-9s", g == "calibrate" ? "calibrate" : "held-out")
			for (i = 1; i <= 7; i++)
				if (n[g, f[i]])
					line = line sprintf(" %s %d/%d (%.0f%%)", f[i], in_[g, f[i]], n[g, f[i]],
							    100 * in_[g, f[i]] / n[g, f[i]])
			print line
		}
	}' "$cells" | sort
	# autovacuum's own I/O, which the cells above leave out where the
	# reference has it: when a worker comes is the launcher's schedule
	awk '$5 ~ /^av/ { k = $2 " " $4; if (!(k in seen)) { seen[k] = 1; o[++n] = k }; v[k, $5] = sprintf("%.2f/%.2f", $6, $7) }
	END {
		if (!n) exit
		print "autovacuum'"'"'s own pages a transaction from the warm-up'"'"'s start (real/emulated; not in the cells above):"
		for (i = 1; i <= n; i++) { split(o[i], a, " "); printf "  %-12s %-3s read %-12s written %s\n", a[1], a[2], v[o[i], "avreads"], v[o[i], "avwrites"] }
	}' "$cells"
	for kind in "${KINDS[@]}"; do
		# each configuration's TPS: the geometric mean over its points
		awk -v kind="$kind" '
		$1 == kind && $5 == "tps" && $6 > 0 && $7 > 0 { lr[$2] += log($6); le[$2] += log($7); c[$2]++ }
		END { for (k in c) printf "%s %.0f %.0f\n", k, exp(lr[k] / c[k]), exp(le[k] / c[k]) }' "$cells" >"$DIR/rank"
		[ -s "$DIR/rank" ] || continue
		# each pair in another order with the server's own margin in it: a
		# pair the server ran within a few per cent is a tie its next run
		# may turn round
		awk -v kind="$kind" '{ k[NR] = $1; r[NR] = $2; e[NR] = $3 }
		END {
			for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) {
				pairs++
				if ((r[i] - r[j]) * (e[i] - e[j]) >= 0) continue
				disc++
				a = r[i] > r[j] ? i : j; b = a == i ? j : i
				list = list sprintf("\n  in another order: %s over %s by %.1f%% on the server, %.1f%% under it emulated",
					k[a], k[b], 100 * (r[a] / r[b] - 1), 100 * (1 - e[a] / e[b]))
			}
			printf "ranking %s by TPS (geometric mean over the points): %d of %d pairs in another order%s\n",
				kind, disc, pairs, list
		}' "$DIR/rank"
		paste -d' ' <(sort -k2,2nr "$DIR/rank" | awk '{ printf "  real %-12s %6d\n", $1, $2 }') \
			<(sort -k3,3nr "$DIR/rank" | awk '{ printf "   emulated %-12s %6d\n", $1, $3 }')
	done
}

# drive_flush_us DIR: the drive's time for an 8 KiB write made durable
# (O_DSYNC, as a commit's log write), the mean of 500 over a 4 MiB file of
# DIR written through first, in whole microseconds. A line of the matrix
# whose commits wait for the drive runs at its pace: on this machine it
# moved from 100 to 350 us within an hour, and the reference's p-wo ran
# half as many transactions a second on a later day. Kept with each side of
# a comparison, so that a replay against kept references says when the
# drive is not the one they were taken on.
drive_flush_us() {
	local f=$1/drive-probe.dat n=500 s
	dd if=/dev/zero of="$f" bs=8k count=512 oflag=direct status=none && sync "$f" &&
		s=$(LC_ALL=C dd if=/dev/zero of="$f" bs=8k count=$n oflag=dsync conv=notrunc 2>&1 >/dev/null |
			awk '/copied/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^s,?$/) print $i }')
	rm -f "$f"
	[ -n "$s" ] && awk -v s="$s" -v n=$n 'BEGIN { printf "%d\n", s * 1e6 / n + 0.5 }'
}

# drive_mean A B: the mean of two drive_flush_us figures (taken before and
# after a side's points: the figure moved 1.7x within three minutes here),
# or the one there is
drive_mean() {
	if [ -n "$1" ] && [ -n "$2" ]; then echo $(((${1} + ${2} + 1) / 2)); else echo "${1:-$2}"; fi
}

# drive_report CELLS: per configuration compared, the drive's flush time
# (drive_mean of drive_flush_us) when its server ran (REF/NAME.json,
# .drive.flush_us) and when its emulator ran (EMU_DIR/NAME.drive), and the
# lines where the two differ by more than 1.5x either way: their TPS and
# p99 compare two drives
drive_report() {
	local name r e out=""
	for name in $(cut -d' ' -f2 "$1" | awk '!seen[$0]++'); do
		r=$(jq -r '.drive.flush_us // "-"' "$REF/$name.json" 2>/dev/null) || r=-
		e=$(cat "$EMU_DIR/$name.drive" 2>/dev/null) || e=-
		out+="$name ${r:--} ${e:--}"$'\n'
	done
	awk 'NF == 3 { n++; line[n] = $0 }
	     END {
		print "the drive: an 8 KiB write made durable (O_DSYNC), us, when the server ran / when the emulator ran"
		for (i = 1; i <= n; i++) {
			split(line[i], f, " ")
			if (f[2] == "-" || f[3] == "-") { printf "  %-12s %6s / %-6s\n", f[1], f[2], f[3]; unknown++; continue }
			x = f[3] / f[2]; off = x > 1.5 || x < 1 / 1.5
			printf "  %-12s %6d / %-6d (%.2f)%s\n", f[1], f[2], f[3], x, off ? " *" : ""
			if (off) moved = moved " " f[1]
		}
		if (moved != "") print "  * not the same drive: TPS and p99 of" moved " compare the drive of two days, not the model"
		if (unknown) print "  (-: not measured; references taken before 6 December 2026 have no figure)"
	     }' <<<"$out"
}

# baseline CELLS: the held-out cells within target ("name threads figure")
baseline() {
	awk "$AWK_TARGET"'$3 == "heldout" && $5 !~ /^av/ && within($5, $6, $7) { print $2, $4, $5 }' "$1" | sort
}

# baseline_write_check CELLS: --write-baseline (BASELINE, and the emulator's
# results beside it unless they came from --emu-from) and --check-baseline
# (exit 1 when a held-out cell that was within target is not any more; only
# the configurations compared now are judged). Uses WRITE_BASE, CHECK,
# EMU_FROM, EMU_DIR, REF and BASELINE (default REF/baseline.tsv).
baseline_write_check() {
	local cells=$1 lost
	BASELINE=${BASELINE:-$REF/baseline.tsv}
	if [ "$WRITE_BASE" = 1 ]; then
		baseline "$cells" >"$BASELINE"
		if [ -z "$EMU_FROM" ]; then
			mkdir -p "$REF/emulated"
			cut -d' ' -f2 "$cells" | sort -u | while read -r name; do
				cp "$EMU_DIR/$name.jsonl" "$REF/emulated/"
				[ ! -e "$EMU_DIR/$name.drive" ] || cp "$EMU_DIR/$name.drive" "$REF/emulated/"
			done
		fi
		log "wrote $(wc -l <"$BASELINE") held-out cells within target to '$BASELINE'"
	fi
	if [ "$CHECK" = 1 ]; then
		[ -r "$BASELINE" ] || die "--check-baseline: no '$BASELINE'"
		lost=$(baseline "$cells" | comm -23 <(awk 'NR == FNR { c[$2 " " $4] = 1; next } ($1 " " $2) in c' \
			"$cells" <(sort "$BASELINE")) -)
		if [ -n "$lost" ]; then
			echo "held-out cells that were within target and are not any more:"
			sed 's/^/  /' <<<"$lost"
			exit 1
		fi
		echo "baseline: every held-out cell that was within target still is"
	fi
}

