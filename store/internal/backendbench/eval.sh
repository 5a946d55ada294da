#!/bin/bash
# grove eval of one method over the film questions on each backend, one after
# the other, for BENCHMARKS.md. Needs: a grove binary, a badger database with
# the film graph (grove --db DB ingest --graph film data/film.nq.gz), Virtuoso
# with the film graph as the tests load it (see film-virtuoso.yaml), and
# PostgreSQL loaded with grove --kg-backend sql --sql-url URL ingest --graph film.
#   eval.sh GROVE BADGER_DB SPARQL_CONFIG SQL_URL OUT
set -euo pipefail
grove=$1 db=$2 sparql=$3 sql=$4 out=$5
here=$(cd "$(dirname "$0")/../../.." && pwd)
for be in badger sparql sql; do
  case $be in
    badger) args=(--db "$db");;
    sparql) args=(--config "$sparql");;
    sql) args=(--kg-backend sql --sql-url "$sql");;
  esac
  rm -rf "$out/$be"
  /usr/bin/time -f "$be wall %e s peakRSS %M KB" "$grove" "${args[@]}" eval --dataset "$here/data/film-questions.jsonl" \
    --method tot --out "$out/$be" --quiet --no-traces 2>&1 | tail -1
done
python3 - "$out" <<'PY'
import json, sys
out, base = sys.argv[1], None
for be in ['badger', 'sparql', 'sql']:
    rows = [json.loads(l) for l in open(f'{out}/{be}/results.jsonl')]
    w = sorted(r['wall_time_ns'] / 1e6 for r in rows)
    tot = sum(w)
    base = base or tot
    em = sum(r['scores']['em_in'] for r in rows) / len(rows)
    print(f"{be}: n={len(rows)} em_in={em:.3f} kg_calls={sum(r['kg_calls'] for r in rows)} "
          f"total={tot:.0f}ms ({tot/base:.1f}x) p50={w[len(w)//2]:.1f}ms p99={w[-1]:.1f}ms")
PY
