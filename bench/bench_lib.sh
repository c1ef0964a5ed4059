# bench_lib.sh: the measuring shared by the benchmark scripts (apply_bench.sh,
# rank_bench.sh), sourced by them. The caller sets WORK (a directory for scratch files),
# RESULTS (the file the timings go to, one "LABEL wall cpu rss_kb wchar" line each, and
# "db_LABEL bytes" lines for a db's size after a phase) and BENCH (its name, for messages).

# timed LABEL CMD...: runs CMD then sync under a shell that reports its own I/O counters
# afterwards (they include the reaped CMD's); standard input passes through to CMD.
# Appends "LABEL wall cpu rss_kb wchar" to RESULTS. Wall time comes from the clock in
# nanoseconds (`time` gives it in 10 ms steps, coarse beside a 0.15 s round); CPU time
# is what the kernel accounts, in ticks. A CMD that fails stops the benchmark.
timed() {
  local label=$1 start end
  shift
  start=$(date +%s%N)
  if ! /usr/bin/time -f "%U %S %M" -o "$WORK/time.out" \
    sh -c '"$@" > /dev/null; s=$?; sync; grep ^wchar /proc/$$/io; exit $s' sh "$@" \
    > "$WORK/io.out"; then
    echo "$BENCH: $label failed: $*" >&2
    exit 1
  fi
  end=$(date +%s%N)
  awk -v l="$label" -v w="$(awk '{print $2}' "$WORK/io.out")" -v ns=$((end - start)) \
    '{printf "%s %.3f %.3f %d %.0f\n", l, ns / 1e9, $1 + $2, $3, w}' "$WORK/time.out" >> "$RESULTS"
}

db_bytes() { du -sb --apparent-size "$@" | awk '{s += $1} END {print s}'; }

# need_space KB_PER_PAGE PAGES: stops before the first phase when WORK's file system has
# less room than the run takes at its peak (measured: a 10M-page --scale run peaks near
# 30 GB, --dist 4 near 50.5 GB), rather than with ENOSPC minutes into it.
need_space() {
  local need_kb=$(($1 * $2)) avail_kb
  avail_kb=$(df -Pk "$WORK" | awk 'NR == 2 { print $4 }')
  if [ "$avail_kb" -lt "$need_kb" ]; then
    echo "$BENCH: $2 pages need ~$((need_kb / 1048576 + 1)) GB in $WORK, $((avail_kb / 1048576)) GB free" >&2
    exit 4
  fi
}

# report [PAGES]: the table of RESULTS (medians over repeated labels); with PAGES, also
# microseconds of wall time per page.
report() {
  echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
  awk -v pages="${1:-0}" '
    $1 ~ /^db_/ { db[substr($1, 4)] = $2; next }
    { if (!($1 in n)) order[++labels] = $1
      n[$1]++; wall[$1, n[$1]] = $2; cpu[$1, n[$1]] = $3
      rss[$1] = $4 > rss[$1] ? $4 : rss[$1]; w[$1] = $5 }
    function median(a, k, m,   i, j, t, v) {
      for (i = 1; i <= m; i++) v[i] = a[k, i]
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      return v[int((m + 1) / 2)]
    }
    END {
      printf "%-12s %9s %9s %9s %10s %6s %s\n", "phase", "wall s", "cpu s", "peak MB", "written MB", "WA",
             (pages > 0 ? "us/page" : "")
      for (i = 1; i <= labels; i++) {
        k = order[i]
        wa = (k in db) ? sprintf("%.2f", w[k] / db[k]) : "-"
        per = (pages > 0 ? sprintf("%.1f", median(wall, k, n[k]) / pages * 1e6) : "")
        printf "%-12s %9.3f %9.3f %9.1f %10.1f %6s %s\n", k, median(wall, k, n[k]),
               median(cpu, k, n[k]), rss[k] / 1024, w[k] / 1e6, wa, per
      }
    }' "$RESULTS"
}

# ratio A B: median over runs of A's time / B's time, wall and CPU, and the range of the
# wall ratios of single pairs (this VM's whole-process times move by ~10% between runs,
# so a median of a few pairs is quoted with its spread).
ratio() {
  awk -v a="$1" -v b="$2" '
    $1 == a { na++; wa[na] = $2; ca[na] = $3 }
    $1 == b { nb++; wb[nb] = $2; cb[nb] = $3 }
    function median(v, m,   i, j, t) {
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      return v[int((m + 1) / 2)]
    }
    END {
      m = na < nb ? na : nb
      # CPU time comes in ticks: a tiny run may have none (its CPU ratio is then "-").
      for (i = 1; i <= m; i++) {
        rw[i] = wa[i] / wb[i]
        if (cb[i] > 0) rc[++mc] = ca[i] / cb[i]
      }
      lo = hi = rw[1]
      for (i = 2; i <= m; i++) { lo = rw[i] < lo ? rw[i] : lo; hi = rw[i] > hi ? rw[i] : hi }
      printf "%-10s / %-10s wall %.2f  cpu %s  wall of each pair %.2f-%.2f\n", a, b,
             median(rw, m), (mc > 0 ? sprintf("%.2f", median(rc, mc)) : "-"), lo, hi
    }' "$RESULTS"
}

