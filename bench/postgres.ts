// Team memory on PostgreSQL beside SQLite, at 10k memories (POSTGRES_BENCH_SIZES=10000,100000 for more):
// a private cluster (as the tests start it), a seeded SQLite data dir copied into a namespace with
// `awhm migrate`, then whole `awhm query --lexical-only` and `awhm hook prompt` processes on each backend
// and warm lexical queries in one library process. Medians of SCALE_BENCH_RUNS runs (default 5).
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { findPgBin, startPgCluster } from "../test/support/pgCluster.js"
import { BIN, cost, envFor, QUERIES, RUNS, s, warm, whole } from "./scale.js"
import { seedDataDir } from "./scaleSeed.js"

const SIZES = (process.env["POSTGRES_BENCH_SIZES"] ?? "10000").split(",").map(Number)

/** CPU seconds the cluster's processes have used: the postmaster with its reaped children, and the live ones. */
const serverCpu = (dataDir: string): number => {
  const postmaster = Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0])
  const fields = (pid: number | string) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    } catch {
      return null
    }
  }
  // After the ")": state is field 3 of stat, so utime (14) is index 11, stime 12, cutime 13, cstime 14; ppid index 1.
  const own = fields(postmaster)
  let ticks = own === null ? 0 : Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    const f = fields(pid)
    if (f !== null && Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12])
  }
  return ticks / 100
}

/** Bytes the awhm tables (with their indexes and TOAST) take on the server, in all and for the postings. */
const serverDisk = (superuserUrl: string): { all: number; postings: number } => {
  const out = spawnSync(
    path.join(findPgBin(), "psql"),
    [superuserUrl, "-Atc", `SELECT sum(pg_total_relation_size(c.oid)), sum(pg_total_relation_size(c.oid)) FILTER (WHERE c.relname = 'node_terms')
      FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = 'awhm' AND c.relkind = 'r'`],
    { encoding: "utf8" }
  )
  const [all, postings] = out.stdout.trim().split("|").map(Number)
  return { all: all ?? 0, postings: postings ?? 0 }
}

/** `f`'s result with the server CPU per process it ran (`processes` of them). */
const withServerCpu = async <A>(dataDir: string, processes: number, f: () => A | Promise<A>): Promise<[A, string]> => {
  const before = serverCpu(dataDir)
  const a = await f()
  return [a, `${Math.round(((serverCpu(dataDir) - before) / processes) * 1000)} ms`]
}

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
        const disk = serverDisk(cluster.superuserUrl)
        migrations.push(
          `${n.toLocaleString("en-US")}: ${s((performance.now() - t) / 1000)}, then ${(disk.all / n / 1024).toFixed(2)} KB per memory on the server, ${(disk.postings / n / 1024).toFixed(2)} KB of it postings`
        )
        const q = (i: number) => ["query", QUERIES[i % QUERIES.length]!, "--lexical-only"]
        for (const [label, dir, extra, flags] of [
          ["SQLite", sqliteDir, { AWHM_EMBEDDER: "none" }, {}],
          ["PostgreSQL", pgDir, { ...pg, AWHM_EMBEDDER: "none" }, { storage_backend: "postgres", postgres_url: cluster.urls.awhm_owner, write_namespace: ns }]
        ] as const) {
          const data = path.join(cluster.dir, "data")
          const [lexical, lexicalServer] = await withServerCpu(data, RUNS + 1, () => whole(BIN, dir, q, extra))
          const [hook, hookServer] = await withServerCpu(data, RUNS + 1, () => hookPrompt(dir, extra))
          const [w, warmServer] = await withServerCpu(data, 41, () => warm(dir, flags))
          const server = (cpu: string) => (label === "SQLite" ? "" : `; server ${cpu} CPU`)
          rows.push(
            `| ${n.toLocaleString("en-US")} | ${label} | ${cost(lexical)}${server(lexicalServer)} | ${cost(hook)}${server(hookServer)} | ${w.p50.toFixed(1)} / ${w.p95.toFixed(1)} ms (${w.cpu.toFixed(1)} ms CPU${server(warmServer)}) |`
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
    "process, 40 lexical queries after the first: p50 / p95 wall, median CPU. Server = the CPU the cluster's processes",
    "used per process or query (mean, background work included). PostgreSQL's store searches the graph in the database",
    "(postings, statistics and filter columns); the raw log's index is the local data dir's, as on SQLite. " +
      `Load average at the end: ${os.loadavg()[0]!.toFixed(1)}.`,
    "",
    "| memories | backend | query --lexical-only | hook prompt | warm query p50 / p95 |",
    "|---|---|---|---|---|",
    ...rows
  ].join("\n")
}
