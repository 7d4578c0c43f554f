// Team memory on PostgreSQL beside SQLite, at 10k memories (POSTGRES_BENCH_SIZES=10000,100000 for more):
// a private cluster (as the tests start it), a seeded SQLite data dir copied into a namespace with
// `awhm migrate`, then whole `awhm query --lexical-only` and `awhm hook prompt` processes on each backend
// and warm lexical queries in one library process. Medians of SCALE_BENCH_RUNS runs (default 5).
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startPgCluster } from "../test/support/pgCluster.js"
import { BIN, cost, envFor, QUERIES, RUNS, s, warm, whole } from "./scale.js"
import { seedDataDir } from "./scaleSeed.js"

const SIZES = (process.env["POSTGRES_BENCH_SIZES"] ?? "10000").split(",").map(Number)

const hookPrompt = (dataDir: string, extra: Record<string, string>) =>
  whole(BIN, dataDir, () => ["hook", "prompt"], extra, (i) => JSON.stringify({ session_id: `bench-${i}`, prompt: QUERIES[i % QUERIES.length] }))

export async function run(): Promise<string> {
  const cluster = await startPgCluster()
  const rows: Array<string> = []
  const migrations: Array<string> = []
  try {
    for (const n of SIZES) {
      const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), `awhm-pgbench-${n}-`))
      const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), `awhm-pgbench-local-${n}-`))
      try {
        await seedDataDir(sqliteDir, n)
        const ns = `team:bench${n}`
        const pg = { AWHM_STORAGE_BACKEND: "postgres", AWHM_POSTGRES_URL: cluster.urls.awhm_owner, AWHM_WRITE_NAMESPACE: ns }
        const t = performance.now()
        const migrated = spawnSync(process.execPath, [BIN, "migrate", "--from", sqliteDir, "--to", "postgres", "--namespace", ns], {
          env: envFor(pgDir, { AWHM_POSTGRES_URL: cluster.urls.awhm_owner }),
          encoding: "utf8"
        })
        if (migrated.status !== 0) throw new Error(`awhm migrate failed: ${migrated.stderr.slice(-400)}`)
        migrations.push(`${n.toLocaleString("en-US")}: ${s((performance.now() - t) / 1000)}`)
        const q = (i: number) => ["query", QUERIES[i % QUERIES.length]!, "--lexical-only"]
        for (const [label, dir, extra, flags] of [
          ["SQLite", sqliteDir, { AWHM_EMBEDDER: "none" }, {}],
          ["PostgreSQL", pgDir, { ...pg, AWHM_EMBEDDER: "none" }, { storage_backend: "postgres", postgres_url: cluster.urls.awhm_owner, write_namespace: ns }]
        ] as const) {
          const lexical = whole(BIN, dir, q, extra)
          const hook = hookPrompt(dir, extra)
          const w = await warm(dir, flags)
          rows.push(
            `| ${n.toLocaleString("en-US")} | ${label} | ${cost(lexical)} | ${cost(hook)} | ${w.p50.toFixed(1)} / ${w.p95.toFixed(1)} ms (${w.cpu.toFixed(1)} ms CPU) |`
          )
          process.stderr.write(`postgres: ${n} ${label} done\n`)
        }
      } finally {
        fs.rmSync(sqliteDir, { recursive: true, force: true })
        fs.rmSync(pgDir, { recursive: true, force: true })
      }
    }
  } finally {
    cluster.stop()
  }
  return [
    "## Team memory on PostgreSQL",
    "",
    "N memories (as in the scale section) in one namespace of a private PostgreSQL 15 cluster on this machine",
    "(over TCP on 127.0.0.1, fsync off as in the tests), copied there from the seeded SQLite data dir by `awhm migrate`",
    `(${migrations.join(", ")}), beside the same SQLite data dir. Whole processes \`awhm query --lexical-only\` and \`awhm hook`,
    "prompt` (in the process, no hook server): wall / CPU, peak RSS, medians of " + `${RUNS} runs after one. Warm = one library`,
    "process, 40 lexical queries after the first: p50 / p95 wall, median CPU. PostgreSQL's store scores candidates in the",
    "process over a cached graph, so each whole process reads the namespace once. " + `Load average at the end: ${os.loadavg()[0]!.toFixed(1)}.`,
    "",
    "| memories | backend | query --lexical-only | hook prompt | warm query p50 / p95 |",
    "|---|---|---|---|---|",
    ...rows
  ].join("\n")
}
